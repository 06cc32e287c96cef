"""What a file of spans does not give, said in French: the placeholder texts the player
shows in place of what is missing, and the sentences of `OtelTrace.notes`.

>>> MISSING["result"]
'les résultats des outils (seuls leurs appels sont enregistrés)'
"""

from __future__ import annotations

import json

NO_TASK = "(la mission n’est pas dans ce fichier)"
NO_START = ("(contexte du premier appel : prompt système, définitions d’outils et mission ; "
            "le fichier n’en donne que la taille)")
NO_TEXT = "(le texte de cette réponse n’est pas dans ce fichier)"
NO_RESULT = "(le résultat de cet outil n’est pas dans ce fichier : seul son appel y est)"
NO_SYSTEM = "(le prompt système n’est pas dans ce fichier, seulement sa taille)"
NO_ARGUMENTS = json.dumps({"(arguments)": "absents du fichier"}, ensure_ascii=False)
VERDICTS = {"allow": "autorisé", "ask": "à valider", "deny": "interdit"}  # as the recorder says

# What the file lacks, by the Builder's codes, in the order the note says them.
STILL_MISSING = ("le prompt système et la mission (le premier appel n’en donne que la taille "
                 "totale, avec les définitions d’outils)")
MISSING = {"text": "le texte des réponses du modèle",
           "result": "les résultats des outils (seuls leurs appels sont enregistrés)",
           "arguments": "les arguments des appels d’outils",
           "size": "la taille des derniers résultats d’outils (aucun appel ne les a suivis)",
           "shared": "la taille de chaque résultat d’outil : seul leur total est connu "
                     "(l’appel suivant l’a reçu), partagé à parts égales"}
