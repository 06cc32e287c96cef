"""The final assessment's questions (notebook 09): fifteen, one or more per section of the chapter.

Each is in the course's bank (questions.py merges `FINAL`), with its feedback per wrong
answer; `ASSESSED` says, per question, its points (20 in all), the notebook to revisit
and the concept it checks: what assessment.py needs to score it and write the « Bilan ».
None repeats a question asked earlier in the course (tests/test_assessment.py compares).

>>> sum(item.points for item in ASSESSED), len(ASSESSED), ASSESSED[0].notebook
(20, 15, '01_deux_tours.ipynb')
>>> FINAL["09-contexte"].grade("1 552").ok
True
"""

from __future__ import annotations

from dataclasses import dataclass

from .answers import MultipleChoice, Numeric, Spec


@dataclass(frozen=True)
class Assessed:
    """One question of the assessment: its `points`, the `notebook` that teaches its
    `concept` (what the « Bilan » names when it is missed), and its chapter `section`."""

    id: str
    points: int
    notebook: str
    section: str
    concept: str


FINAL: dict[str, Spec] = {
    # --- Deux tours de function calling (01)
    "09-memoire": MultipleChoice(
        "<p>Une mission en est à son troisième appel au modèle. Que reçoit le modèle avec cet "
        "appel ?</p>",
        ["Le dernier résultat d’outil seulement : le reste, il l’a gardé des appels précédents",
         "Tout messages[] depuis le prompt système, et à côté les définitions des outils",
         "Un résumé des deux premiers tours, que le fournisseur garde entre deux appels",
         "Tout messages[], mais plus les définitions des outils, reçues au premier appel"],
        1,
        ["Le modèle ne garde rien d’un appel à l’autre : ce qu’il ne reçoit pas dans cet appel, "
         "il ne le sait pas.",
         "Oui : chaque appel renvoie tout le contexte, conversation et définitions d’outils.",
         "Aucun résumé n’est gardé pour lui : c’est le harness qui renvoie tout, à chaque appel.",
         "Les définitions accompagnent chaque appel, dans le champ tools : sans elles, le modèle "
         "ne pourrait plus demander d’outil."]),
    "09-contexte": Numeric(
        "<p>Le contexte de départ compte un prompt système de 1 200 tokens, les définitions de "
        "read_file et list_files (300) et la demande (15). Le modèle demande read_file (25 "
        "tokens), qui échoue : l’erreur fait 12 tokens. <b>Combien de tokens le deuxième appel "
        "envoie-t-il ?</b></p>",
        1552, unit="tokens",
        mistakes={1515: "C’est le premier appel. Le deuxième transporte aussi la demande d’outil "
                        "et l’erreur.",
                  37: "C’est seulement ce qui s’est ajouté. Le modèle ne garde rien : tout "
                      "repart.",
                  1540: "Et l’erreur ? Elle entre dans messages[] comme n’importe quel résultat "
                        "d’outil.",
                  1527: "Et la demande d’outil du modèle ? Le harness l’a ajoutée à messages[].",
                  1252: "Et les définitions des outils ? Elles accompagnent chaque appel."},
        too_low="Le deuxième appel renvoie tout le contexte, l’erreur comprise.",
        too_high="Au deuxième appel, rien d’autre n’est encore arrivé.",
        explanation="1 200 + 300 + 15 + 25 + 12 = 1 552 : tout repart, l’erreur aussi."),
    # --- Les deux règles de la boucle (02)
    "09-deux-demandes": MultipleChoice(
        "<p>Dans un même tour, le modèle demande call_a (read_file) et call_b (list_files). "
        "Le harness exécute les deux, ajoute le message assistant, puis seulement le résultat "
        "de call_a. <b>Que se passe-t-il au prochain appel ?</b></p>",
        ["Le modèle répond avec ce qu’il a : un résultat sur deux lui suffit",
         "L’API refuse : le résultat de call_a ne répond à aucune demande",
         "Le modèle redemande list_files au tour suivant",
         "L’API refuse : une demande est restée sans résultat"],
        3,
        ["Le modèle ne verra pas cette requête : l’API vérifie d’abord que chaque demande a sa "
         "réponse.",
         "call_a suit bien le message assistant qui le demande : ce résultat-là est en règle.",
         "Il n’en aura pas l’occasion : l’API refuse la requête avant qu’un modèle la lise.",
         "Oui : call_b n’a pas de résultat. Autant de demandes, autant de résultats, chacun sous "
         "son tool_call_id."]),
    "09-ordre": MultipleChoice(
        "<p>Lequel de ces messages[] l’API accepte-t-elle ? (assistant[call_1] : un message "
        "assistant qui demande un outil sous call_1 ; tool[call_1] : son résultat.)</p>",
        ["user, tool[call_1], assistant[call_1]",
         "user, assistant[call_1], tool[call_1]",
         "user, assistant[call_1], user, tool[call_1]",
         "user, assistant[call_1], tool[call_2]"],
        1,
        ["Le résultat arrive avant la demande : l’API lit dans l’ordre, et ce résultat ne répond "
         "encore à rien.",
         "Oui : la demande, puis aussitôt son résultat, sous le même identifiant.",
         "Le résultat doit suivre directement le message assistant qui le demande : un message "
         "user ne s’intercale pas entre les deux.",
         "call_2, personne ne l’a demandé, et call_1 reste sans réponse : un identifiant se "
         "recopie tel quel."]),
    "09-message-entier": MultipleChoice(
        "<p>Le modèle renvoie un message assistant qui contient un texte, « Je lis le fichier », "
        "et un tool_calls. <b>Qu’ajoute le harness à messages[] ?</b></p>",
        ["Le texte seulement : c’est ce que la personne lit",
         "Le tool_calls seulement : c’est ce qui compte pour la suite",
         "Le message tel quel, texte et tool_calls",
         "Rien : le résultat de l’outil suffira"],
        2,
        ["Sans tool_calls, le résultat qui suit ne répond plus à aucune demande : l’API refuse.",
         "Le texte fait partie de ce que le modèle a dit : le harness ne trie pas sa réponse, il "
         "la garde.",
         "Oui : le message complet, sans rien y changer. C’est la première règle.",
         "Un résultat sans la demande qui le précède est refusé : c’est la première règle."]),
    # --- Une erreur est aussi une observation (03)
    "09-suite-erreur": MultipleChoice(
        "<p>read_file a échoué et le harness a renvoyé « Erreur : README.md introuvable » sous "
        "call_1. Laquelle de ces suites le chapitre <b>exclut</b>-il ?</p>",
        ["Le modèle demande list_files pour chercher le fichier",
         "Le modèle demande une précision à la personne",
         "Le modèle explique qu’il n’a pas pu lire le fichier",
         "Le modèle résume un README.md plausible"],
        3,
        ["Chercher le fichier ailleurs est une suite prévue par le chapitre : c’est ce que fait "
         "le modèle simulé.",
         "Demander une précision est une des suites que le chapitre cite.",
         "Expliquer l’échec est une des suites que le chapitre cite.",
         "Oui : « Il ne doit pas inventer le contenu. » L’erreur est une observation, pas un "
         "trou à combler."]),
    "09-resultats-tool": Numeric(
        "<p>README.md manque à la racine. Le modèle demande read_file(\"README.md\"), puis "
        "list_files(\".\"), puis read_file(\"docs/README.md\"), puis répond. À la fin, "
        "<b>combien de messages role : \"tool\"</b> messages[] contient-il ?</p>",
        3, unit="messages",
        mistakes={2: "Et l’erreur du premier read_file ? Elle est renvoyée comme un résultat "
                     "d’outil, sous son identifiant.",
                  4: "La réponse finale est un message assistant, pas un résultat d’outil."},
        explanation="Trois demandes, trois résultats : l’erreur en est un."),
    # --- La boucle complète (04)
    "09-facture": Numeric(
        "<p>Une mission fait 5 appels au modèle. Le premier envoie 2 000 tokens, et chaque tour "
        "ajoute 1 000 tokens au contexte. <b>Combien de tokens d’entrée</b> la mission "
        "facture-t-elle en tout ?</p>",
        20_000, unit="tokens",
        mistakes={6_000: "C’est le dernier appel seul ; chaque appel est facturé.",
                  30_000: "5 × 6 000 : comme si chaque appel envoyait le dernier contexte.",
                  10_000: "5 × 2 000 : comme si le contexte ne grandissait pas.",
                  15_000: "Le premier appel envoie déjà 2 000 tokens, pas 1 000."},
        explanation="2 000 + 3 000 + 4 000 + 5 000 + 6 000 = 20 000 tokens : chaque appel "
                    "renvoie tout, et le contexte grandit à chaque tour."),
    "09-politique": MultipleChoice(
        "<p>Dans le pseudo-code du chapitre, <b>à quel moment</b> le harness vérifie-t-il que "
        "l’action respecte la politique d’accès ?</p>",
        ["Avant d’appeler le modèle, pour filtrer la mission",
         "Jamais : le modèle ne demande que des actions permises",
         "Après avoir exécuté l’outil, en relisant son résultat",
         "Après la réponse du modèle, avant d’exécuter l’outil"],
        3,
        ["La mission n’est pas une action : il n’y a rien à permettre avant que le modèle "
         "demande un outil.",
         "Le modèle produit du texte, il ne sait pas ce qui est permis sur votre machine : c’est "
         "au harness de vérifier.",
         "Trop tard : une commande dangereuse aurait déjà tourné.",
         "Oui : le modèle propose, le harness vérifie, puis exécute (ou non)."]),
    # --- Conditions d'arrêt (05)
    "09-qui-arrete": MultipleChoice(
        "<p>Un modèle appelle list_files tour après tour sans jamais conclure. <b>Qu’est-ce qui "
        "arrête la boucle ?</b></p>",
        ["Le modèle finit toujours par donner une réponse finale",
         "L’API refuse au bout d’un certain nombre d’appels",
         "Une limite du harness : nombre de tours, budget, délai",
         "Rien : la boucle tourne jusqu’à ce qu’on ferme le notebook"],
        2,
        ["Rien ne l’y oblige : un modèle peut répéter la même action indéfiniment.",
         "Chaque appel est une requête valide : l’API n’a aucune raison de refuser.",
         "Oui : le harness ajoute ses propres conditions d’arrêt, que le modèle ne contrôle pas.",
         "C’est justement pour cela que le harness a ses limites : 15 tours dans celui du "
         "cours."]),
    "09-messages-arret": Numeric(
        "<p>Limite de 4 tours. À chaque tour, le modèle demande <b>deux</b> outils, list_files "
        "et read_file, et ne conclut jamais. <b>Combien de messages</b> messages[] "
        "contient-il à l’arrêt ?</p>",
        14, unit="messages",
        mistakes={10: "Chaque tour ajoute un message assistant et un résultat par demande : "
                      "deux demandes, deux résultats.",
                  12: "C’est juste pour les tours ; mais messages[] ne commence pas par le "
                      "premier tour.",
                  15: "Il n’y a pas de réponse finale : c’est le harness qui arrête.",
                  18: "Les deux demandes d’un tour sont dans un seul message assistant."},
        explanation="2 + 4 × (1 + 2) = 14 : le prompt système, la mission, puis à chaque tour "
                    "un message assistant et deux résultats."),
    # --- ReAct (06)
    "09-observation": MultipleChoice(
        "<p>Dans le vocabulaire de ReAct, qu’est-ce qu’une <b>observation</b> ?</p>",
        ["Le résultat de l’outil, que le harness renvoie au modèle",
         "Le texte que le modèle affiche avant d’agir",
         "Le calcul interne du modèle",
         "La réponse finale, que la personne observe"],
        0,
        ["Oui : l’action est la demande d’outil, l’observation son résultat, erreur comprise.",
         "C’est le raisonnement affiché, et il ne reflète pas forcément le calcul du modèle.",
         "Le harness ne le voit pas : il n’observe que des messages.",
         "La réponse finale termine la boucle ; l’observation, elle, la relance."]),
    "09-coexistent": MultipleChoice(
        "<p>Un système traite des tickets : recevoir, classer, répondre, toujours dans cet ordre. "
        "Pour répondre, il faut parfois chercher dans une documentation inconnue. Que "
        "retenez-vous du chapitre ?</p>",
        ["Il faut choisir : une machine à états ou une boucle ReAct, pas les deux",
         "Une boucle ReAct partout : elle sait tout faire",
         "Une machine à états pour les étapes fixes, une boucle ReAct dans l’étape qui explore",
         "Une machine à états partout : elle est plus sûre"],
        2,
        ["Le chapitre dit l’inverse : les deux approches coexistent souvent dans le même "
         "système.",
         "Elle marcherait, mais avec un coût et un chemin variables là où l’ordre est connu.",
         "Oui : le chemin connu est fixé d’avance, et le modèle choisit ses actions là où il "
         "faut explorer.",
         "Aucune transition écrite d’avance ne prévoit ce qu’on trouvera dans une documentation "
         "inconnue."]),
    # --- Dans le code du mini-harness (07, 08)
    "09-ligne-manquante": MultipleChoice(
        "<p>Une boucle écrite à la main. Au deuxième appel, messages[] contient : system, user, "
        "puis un message tool (call_1, le contenu de README.md). L’API refuse. <b>Quelle ligne "
        "manque dans la boucle ?</b></p>",
        ["messages.append(reponse.message)",
         "messages.append(tool_result(appel[\"id\"], resultat))",
         "if not reponse.tool_calls: return messages",
         "for _ in range(max_tours):"],
        0,
        ["Oui : sans le message assistant, le résultat de call_1 ne répond à aucune demande. "
         "C’est la première règle.",
         "Le résultat est bien là : c’est ce qui le précède qui manque.",
         "Sans la sortie, la boucle rappellerait le modèle après sa réponse finale ; ici, il "
         "n’a pas encore répondu.",
         "Sans limite, la boucle pourrait tourner sans fin, mais l’API ne refuserait rien."]),
    "09-sans-sortie": MultipleChoice(
        "<p>On retire d’une boucle correcte la ligne <code>if not reponse.tool_calls : return "
        "messages</code>. Sur « Lis README.md et résume le projet », que se passe-t-il ?</p>",
        ["L’API refuse le troisième appel",
         "Le modèle, ayant répondu, refuse de répondre encore",
         "La boucle rappelle le modèle après sa réponse finale, jusqu’à sa limite de tours",
         "Python s’arrête sur une erreur : reponse.tool_calls est vide"],
        2,
        ["Une conversation qui se termine par un message assistant est valide : l’API ne dit "
         "rien. Seul le harness peut tenir cette ligne.",
         "Le modèle répond à chaque appel qu’on lui fait : il ne décide pas d’arrêter la boucle.",
         "Oui : sans la sortie, rien n’arrête la boucle que sa limite de tours. Le correcteur "
         "du notebook 08 le signale.",
         "Parcourir une liste vide ne fait rien : la boucle passe au tour suivant."]),
}

S = ("Deux tours de function calling", "Les deux règles de la boucle",
     "Une erreur est aussi une observation", "La boucle complète", "Conditions d’arrêt",
     "ReAct", "Dans le code du mini-harness")
ASSESSED: tuple[Assessed, ...] = (
    Assessed("09-memoire", 1, "01_deux_tours.ipynb", S[0], "ce que le modèle reçoit à chaque "
             "appel"),
    Assessed("09-contexte", 2, "01_deux_tours.ipynb", S[0], "le contexte renvoyé en entier"),
    Assessed("09-deux-demandes", 1, "02_deux_regles.ipynb", S[1], "un résultat par demande"),
    Assessed("09-ordre", 2, "02_deux_regles.ipynb", S[1], "l’ordre des messages que l’API "
             "accepte"),
    Assessed("09-message-entier", 1, "02_deux_regles.ipynb", S[1], "le message assistant "
             "gardé tel quel"),
    Assessed("09-suite-erreur", 1, "03_erreur_observation.ipynb", S[2], "ne pas inventer un "
             "résultat"),
    Assessed("09-resultats-tool", 1, "03_erreur_observation.ipynb", S[2], "une erreur est un "
             "résultat d’outil"),
    Assessed("09-facture", 2, "04_boucle_complete.ipynb", S[3], "la facture d’un contexte qui "
             "grandit"),
    Assessed("09-politique", 1, "04_boucle_complete.ipynb", S[3], "la vérification avant "
             "l’exécution"),
    Assessed("09-qui-arrete", 1, "05_conditions_arret.ipynb", S[4], "les limites du harness"),
    Assessed("09-messages-arret", 2, "05_conditions_arret.ipynb", S[4], "un arrêt propre, "
             "compté message par message"),
    Assessed("09-observation", 1, "06_react.ipynb", S[5], "le cycle raisonnement, action, "
             "observation"),
    Assessed("09-coexistent", 1, "06_react.ipynb", S[5], "la machine à états et la boucle "
             "ReAct"),
    Assessed("09-ligne-manquante", 2, "07_dans_le_code.ipynb", S[6], "la ligne de la première "
             "règle dans le code"),
    Assessed("09-sans-sortie", 1, "08_ecrire_la_boucle.ipynb", S[6], "la sortie, que seul le "
             "harness tient"),
)
