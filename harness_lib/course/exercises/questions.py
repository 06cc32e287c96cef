"""The course's questions, by id: a notebook cell says `question("02-refus-1")`.

Keeping the answers here, not in the cells, means that a cell's source (which Lab
previews when the cell is collapsed) never shows the right answer. Ids start with
the notebook's number. Texts are HTML, written with plain spaces: the widgets add
French typography (exercises.py). Every question's answer key is checked when the
question is built (answers.py), and tests/test_questions.py grades every option.

>>> QUESTIONS["04-facture"].grade("234 000").ok
True
>>> from harness_lib.errors import ApiError
>>> refusal_option(ApiError(400, "... did not have response messages: call_1"))
2
"""

from __future__ import annotations

from ..missions.tasks import QUESTION as INCIDENT
from .answers import MultipleChoice, Numeric, Open, ShortText, Spec
from .final_questions import FINAL

# 02: what the API answers to each guided variation, and the words that tell which case.
REFUSALS = (
    ("Elle accepte : le modèle répond normalement.", None),
    ("Elle refuse : ce résultat d’outil ne répond à aucune demande.",
     "must be a response to a preceeding message with 'tool_calls'"),
    ("Elle refuse : une demande d’outil est restée sans résultat.",
     "did not have response messages"),
    ("Elle refuse : le tool_call_id du résultat ne correspond à aucune demande.",
     "not found in 'tool_calls'"),
)


def refusal_option(reply: object) -> int | None:
    """Which option of REFUSALS the API's reply is (None: none of them)."""
    text = str(getattr(reply, "message", ""))
    if getattr(reply, "status", None) is None:  # not an ApiError: a Completion
        return 0
    return next((i for i, (_, words) in enumerate(REFUSALS) if words and words in text), None)


def _refusal(prompt: str, correct: int, feedback: list[str]) -> MultipleChoice:
    return MultipleChoice(prompt, [label for label, _ in REFUSALS], correct, feedback)


# 07: the same five answers to « which message will be missing, and who should have added it? »
INCIDENT_CHOICES = (
    "Aucun : le harness ajoute chaque message.",
    "Le message assistant qui porte tool_calls ; le harness devait l’ajouter juste après "
    "la réponse du modèle.",
    "Le message tool qui répond à call_1 ; le harness devait l’ajouter juste après avoir "
    "exécuté l’outil.",
    "Le contenu de README.md ; l’outil devait le fournir, une erreur n’est pas un résultat.",
    "La réponse finale ; le modèle ne la donne jamais, et c’est le harness qui arrête.",
)


def _incident(name: str, title: str, correct: int, feedback: list[str]) -> MultipleChoice:
    # The incident's name (missing-call…) would answer the question: the prompt says what
    # runs, not what goes wrong.
    prompt = f"<p><b>{INCIDENT}</b><br>Cette fois : {title}.</p>"
    return MultipleChoice(prompt, INCIDENT_CHOICES, correct, feedback)


VOTE = "<b>Votez avant de lire.</b> "
# The questions that ask for a prediction: nothing the page shows above them (nor the Markdown
# right below) may state their answer (tests/test_notebooks.py executes the notebooks to check).
PREDICTIONS = frozenset({"01-qui-execute", "01-fichier-contexte", "01-outils-messages",
                         "02-refus-1", "02-refus-2", "02-refus-3", "03-appels", "04-appels",
                         "05-entre-deux-runs"})
QUESTIONS: dict[str, Spec] = {
    # --- 01 Deux tours de function calling
    "01-qui-execute": MultipleChoice(
        f"<p>{VOTE}Le modèle répond <code>read_file(\"README.md\")</code>. Qui ouvre le fichier "
        "et le lit ?</p>",
        ["Le modèle : il a accès aux fichiers du projet",
         "Le harness : il exécute l’outil, puis renvoie le contenu au modèle",
         "Le serveur du fournisseur de l’API, qui héberge le modèle"],
        1,
        ["C’est l’idée reçue la plus répandue. Le modèle ne produit que du texte : "
         "read_file(...) est une demande, pas une lecture. La section « La mission », juste en "
         "dessous, le montre.",
         "Oui. Le modèle écrit une demande d’outil ; le harness l’exécute sur sa machine et "
         "ajoute le résultat à messages[]. La section « La mission », juste en dessous, le "
         "détaille.",
         "Le fournisseur ne reçoit que ce que le harness lui envoie : il n’a pas accès à vos "
         "fichiers. Qui, alors, se trouve sur votre machine, à côté de README.md ? Voir "
         "« La mission », juste en dessous."]),
    "01-fichier-contexte": MultipleChoice(
        f"<p>{VOTE}README.md est dans le dossier de travail, à côté du harness. Au premier "
        "appel, le modèle connaît-il déjà son contenu ?</p>",
        ["Oui : le fichier est dans le dossier où travaille l’agent",
         "Non : il ne le connaîtra que lorsqu’un résultat d’outil l’aura apporté dans messages[]",
         "En partie : il connaît son nom et sa taille, pas son contenu"],
        1,
        ["Être sur le disque ne suffit pas : le modèle ne reçoit que messages[] et la définition "
         "des outils. Vous le vérifierez à l’étape 5 du diagramme, plus bas.",
         "Oui. Le contexte, c’est ce que le harness envoie ; un fichier n’y entre que par un "
         "résultat d’outil. Vous le vérifierez à l’étape 5 du diagramme, plus bas.",
         "Son nom, il le lit dans la mission ; sa taille, rien ne la lui a dite. Demandez-vous ce "
         "que le modèle reçoit vraiment à chaque appel. Vous le vérifierez à l’étape 5 du "
         "diagramme, plus bas."]),
    "01-etape-5": Open(
        "<p>Étape 5 : le harness lit README.md. Le résultat n’est pas encore revenu. "
        "<b>Que sait le modèle à cet instant ?</b> Citez tout ce qu’il a reçu, et ce qui lui "
        "manque.</p>",
        "<p>Le modèle sait exactement ce qu’il a reçu à son dernier appel (étape 2), plus sa "
        "propre réponse. Cet appel lui a apporté deux choses :</p><ul>"
        "<li>le tableau <code>messages[]</code> : le <b>prompt système</b> et la <b>demande</b> "
        "« Lis README.md et résume le projet » ;</li>"
        "<li>à côté, dans le champ <code>tools</code> de la requête, la <b>définition des "
        "outils</b> (ici <code>read_file</code>) : elle n’est pas dans <code>messages[]</code>, "
        "elle accompagne chaque appel.</li>"
        "</ul><p>S’y ajoute sa propre <b>demande d’outil</b>, <code>tool_call call_1 : "
        "read_file(\"README.md\")</code>, que le harness a rangée dans <code>messages[]</code> "
        "à l’étape 3.</p><p>Il <b>ne connaît pas le contenu du fichier</b>. Écrire "
        "<code>read_file(...)</code> n’a rien lu : c’est le harness qui lit, et le contenu "
        "n’entrera dans <code>messages[]</code> qu’à l’étape 6. À vrai dire, entre deux appels "
        "le modèle ne « sait » rien du tout : il ne garde aucune mémoire. À l’étape 7, le "
        "harness lui renverra tout, le fichier en plus, avec à nouveau la définition des "
        "outils.</p>",
        button="Révéler"),
    "01-inconnu-etape-5": MultipleChoice(
        "<p>À l’étape 5, lequel de ces éléments le modèle <b>ne connaît pas</b> encore ?</p>",
        ["Le prompt système", "La définition de read_file", "Sa demande d’outil call_1",
         "Le contenu de README.md"],
        3,
        ["Le prompt système est dans messages[] depuis le début : le modèle l’a reçu au premier "
         "appel.",
         "La définition des outils accompagne chaque appel : c’est grâce à elle qu’il a pu "
         "demander read_file.",
         "Sa demande call_1 est sa propre réponse : le harness l’a ajoutée à messages[] telle "
         "quelle.",
         "Oui. Le harness est en train de lire le fichier ; son contenu n’entrera dans messages[] "
         "qu’à l’étape 6, et le modèle ne le verra qu’au second appel."]),
    "01-outils-messages": MultipleChoice(
        f"<p>{VOTE}Le harness envoie la définition des outils (<code>read_file</code>, ses "
        "paramètres…) à chaque appel. Se trouve-t-elle dans le tableau <code>messages[]</code> ?"
        "</p>",
        ["Oui : en tête du tableau, juste après le prompt système",
         "Non : elle voyage à côté de messages[], dans le champ tools de la requête",
         "Non : le modèle l’a apprise au premier appel et la garde en mémoire"],
        1,
        ["messages[] ne contient que la conversation : system, user, assistant, tool. Les "
         "cellules suivantes l’impriment, puis montrent où sont les définitions.",
         "Oui. La requête a deux champs, messages (la conversation) et tools (les définitions), "
         "envoyés ensemble à chaque appel. Les cellules suivantes le vérifient.",
         "Le modèle ne garde rien d’un appel à l’autre : les définitions repartent avec chaque "
         "appel. Reste à savoir où elles se trouvent dans la requête : les cellules suivantes le "
         "montrent."]),
    "01-second-appel": Numeric(
        "<p>Dans le diagramme du chapitre, le contexte de départ compte le prompt système (1 200 "
        "tokens) et la définition de read_file (150). S’y ajoutent la demande (15), la demande "
        "d’outil call_1 (25), puis le contenu de README.md (800). <b>Combien de tokens le second "
        "appel au modèle envoie-t-il ?</b></p>",
        2190, unit="tokens",
        mistakes={2370: "C’est le total à la fin des deux tours : il compte aussi le résumé (180 "
                        "tokens), que le modèle n’a pas encore écrit au moment du second appel.",
                  1365: "C’est le premier appel. Le second transporte en plus la demande d’outil "
                        "et le fichier lu.",
                  825: "C’est seulement ce qui s’est ajouté depuis le premier appel. Le modèle ne "
                       "garde rien : le harness renvoie tout le contexte.",
                  990: "Et le prompt système ? Il repart avec chaque appel, comme tout le reste.",
                  2040: "Et la définition de read_file ? Elle accompagne chaque appel."},
        too_low="Le second appel renvoie tout le contexte, pas seulement ce qui a changé.",
        too_high="Au moment du second appel, la réponse finale n’existe pas encore.",
        explanation="1 200 + 150 + 15 + 25 + 800 = 2 190 : le second appel renvoie tout, le "
                    "fichier en plus."),
    "01-anthropic": MultipleChoice(
        "<p>Avec l’API Messages d’Anthropic, dans quel message le harness renvoie-t-il le "
        "résultat de <code>read_file</code> ?</p>",
        ["Un message role : \"tool\" avec tool_call_id",
         "Un bloc tool_result, avec tool_use_id, dans un message role : \"user\"",
         "Un élément function_call_output avec call_id"],
        1,
        ["C’est l’enveloppe de Chat Completions, celle du mini-harness.",
         "Le résultat voyage dans un message user, sous forme de bloc tool_result, et "
         "tool_use_id le relie à la demande tool_use.",
         "C’est l’enveloppe de la Responses API d’OpenAI."]),
    # --- 02 Les deux règles de la boucle
    "02-refus-1": _refusal(
        "<p>Variation 1 : on retire le message assistant (celui qui porte <code>tool_calls</code>) "
        "et on garde le résultat de call_1. <b>Que répond l’API ?</b></p>", 1,
        ["Le modèle ne verra jamais cette conversation : avant lui, l’API vérifie chaque "
         "résultat d’outil. Regardez ce qui le précède, maintenant que le message assistant a "
         "disparu.",
         "Oui. Sans le message assistant, le résultat de call_1 arrive de nulle part : "
         "« <code>messages with role 'tool' must be a response to a "
         "preceeding message with 'tool_calls'</code> ». "
         "C’est la règle 1.",
         "Le résultat est toujours là. Relisez ce que la variation a retiré, et ce que ce message "
         "portait.",
         "Le tool_call_id vaut toujours call_1 : le problème est ailleurs, et plus grave."]),
    "02-refus-2": _refusal(
        "<p>Variation 2 : on garde le message assistant et sa demande call_1, mais on retire le "
        "message tool qui lui répond. <b>Que répond l’API ?</b></p>", 2,
        ["Avant de laisser passer la conversation, l’API vérifie chaque demande d’outil. Relisez "
         "ce que la variation a retiré.",
         "Il n’y a plus de résultat d’outil du tout, donc pas de résultat orphelin.",
         "Oui. call_1 reste sans réponse : « <code>… did not have response messages: "
         "call_1</code> ». C’est la règle 2.",
         "Il n’y a plus de message tool, donc plus de tool_call_id à comparer."]),
    "02-refus-3": _refusal(
        "<p>Variation 3 : le résultat est là, mais son <code>tool_call_id</code> vaut call_9 au "
        "lieu de call_1. <b>Que répond l’API ?</b></p>", 3,
        ["La forme est correcte, mais l’API relie chaque résultat à une demande par son "
         "identifiant : comparez celui du résultat à ceux des demandes.",
         "Le message assistant est bien là, avec ses tool_calls : ce résultat suit bien une "
         "demande. Mais à laquelle répond-il ?",
         "C’est vrai, call_1 n’a plus de résultat ; mais l’API lit les messages dans l’ordre, et "
         "elle bute sur autre chose avant.",
         "Oui. Le résultat désigne call_9, que personne n’a demandé : « <code>'tool_call_id' of "
         "'call_9' not found in 'tool_calls' of previous message</code> ». Un identifiant se "
         "recopie exactement."]),
    "02-oubli-assistant": MultipleChoice(
        "<p>Votre harness exécute <code>read_file</code> mais n’ajoute pas à "
        "<code>messages[]</code> le message assistant qui portait la demande. Que se passe-t-il "
        "au prochain appel ?</p>",
        ["Rien de grave : le résultat de l’outil suffit au modèle",
         "L’API refuse la requête : ce résultat ne répond à aucune demande",
         "Le modèle redemande read_file, puisqu’il a oublié l’avoir demandé"],
        1,
        ["Le modèle recevrait un résultat sans savoir qu’il l’a demandé ; et la plupart des API "
         "ne vont même pas jusque-là.",
         "C’est la variation 1 : « <code>messages with role 'tool' must be a response to a "
         "preceeding message with 'tool_calls'</code> ». La règle 1 évite cela.",
         "Il n’en aura pas l’occasion : quelqu’un d’autre lit la requête avant lui."]),
    "02-trois-resultats": MultipleChoice(
        "<p>Le modèle demande a.txt, b.txt et c.txt dans le même tour. Que doit contenir "
        "<code>messages[]</code> avant l’appel suivant, après son message assistant ?</p>",
        ["Un seul message tool qui regroupe les trois contenus",
         "Trois messages tool, chacun avec le tool_call_id de sa demande, dans n’importe quel "
         "ordre",
         "Trois messages tool, obligatoirement dans l’ordre des demandes"],
        1,
        ["Un seul message tool ne répond qu’à un identifiant : les deux autres demandes "
         "resteraient sans réponse et l’API refuserait.",
         "Oui : trois demandes, trois résultats. Le tool_call_id relie chaque résultat à sa "
         "demande, l’ordre n’a donc pas d’importance.",
         "Rien n’impose cet ordre-là. Demandez-vous ce qui relie chaque résultat à sa demande."]),
    "02-champ-id": ShortText(
        "<p>Le modèle a demandé un outil sous l’identifiant <code>call_7</code>. Dans le message "
        "<code>role: \"tool\"</code> qui rend le résultat, <b>quel champ</b> reprend cet "
        "identifiant ? Écrivez son nom.</p>",
        ["tool_call_id", "tool call id"],
        feedback="tool_call_id relie le résultat à sa demande : {\"role\": \"tool\", "
                 "\"tool_call_id\": \"call_7\", \"content\": \"…\"}.",
        mistakes={"id": "id est le champ de la demande elle-même, dans tool_calls. Le résultat "
                        "reprend sa valeur sous un autre nom.",
                  "call_id": "C’est le nom dans la Responses API d’OpenAI (notebook 01). En "
                             "Chat Completions, le format du cours, le nom est plus long.",
                  "tool_use_id": "C’est le nom chez Anthropic (notebook 01). En Chat "
                                 "Completions, le format du cours, le nom est différent.",
                  "call_7": "C’est la valeur à recopier ; la question demande le nom du champ.",
                  "content": "content porte le résultat lui-même ; l’identifiant a son propre "
                             "champ."}),
    "02-sortie": MultipleChoice(
        "<p>Quand la boucle s’arrête-t-elle normalement, sans qu’aucune limite du harness "
        "n’intervienne ?</p>",
        ["Après deux tours, un pour l’outil et un pour la réponse",
         "Quand la réponse du modèle ne contient plus de demande d’outil",
         "Quand le harness a exécuté tous les outils disponibles"],
        1,
        ["Deux tours suffisent pour lire un fichier, mais une mission réelle en demande souvent "
         "davantage : le nombre de tours n’est pas fixé d’avance.",
         "Oui : la condition de sortie vient du modèle. Les limites du harness (15 tours, 120 s, "
         "60 s…) ne servent qu’à arrêter une boucle qui ne s’arrête pas d’elle-même.",
         "Le harness n’exécute que ce que le modèle demande. Qui, alors, décide qu’il n’y a plus "
         "rien à faire ?"]),
    # --- 03 Une erreur est aussi une observation
    "03-appels": Numeric(
        "<p>Comptez sur le diagramme : maintenant que README.md manque à la racine, <b>combien "
        "d’appels au modèle</b> (flèches Harness → Modèle) faut-il pour aller au bout ?</p>",
        4, unit="appels",
        mistakes={2: "Deux appels, c’est quand tout va bien (notebook 01). Ici, l’erreur coûte "
                     "des tours de plus.",
                  3: "Comptez encore : une fois docs/README.md lu, la mission n’est pas finie. "
                     "Que manque-t-il encore au harness ?",
                  8: "Vous comptez aussi les réponses du modèle : un appel, c’est une flèche "
                     "Harness → Modèle et sa réponse."},
        too_high="Seules les flèches Harness → Modèle sont des appels au modèle ; les outils ne "
                 "comptent pas.",
        explanation="read_file échoue, list_files, read_file(\"docs/README.md\"), puis la "
                    "réponse : quatre appels, chacun avec tout le contexte."),
    "03-que-faire": MultipleChoice(
        "<p>Le modèle demande <code>read_file(\"README.md\")</code> et le fichier est absent. "
        "Que doit faire le harness ?</p>",
        ["Arrêter la boucle : l’outil a échoué",
         "Ajouter l’erreur à messages[] comme résultat de l’outil, avec le même tool_call_id, "
         "puis rappeler le modèle",
         "Renvoyer un README plausible, pour que le modèle puisse quand même répondre"],
        1,
        ["La mission s’arrêterait alors qu’elle pouvait réussir : le fichier était dans docs/. "
         "Le harness ne s’arrête pas sur une erreur d’outil.",
         "Oui : l’erreur est une observation. Le modèle peut chercher ailleurs, demander une "
         "précision ou expliquer l’échec.",
         "Le modèle résumerait un fichier imaginaire sans pouvoir s’en rendre compte : il ne doit "
         "jamais recevoir un contenu inventé."]),
    # --- 04 La boucle complète
    "04-appels": Numeric(
        "<p>Avant de regarder le diagramme : le modèle doit lire price.py, le corriger, lancer les "
        "tests, puis rendre compte, une action par tour. <b>Combien d’appels au modèle</b> le "
        "harness fera-t-il en tout ?</p>",
        4, unit="appels",
        mistakes={3: "Trois tours demandent un outil (lire, corriger, tester)… Et une fois les "
                     "tests passés, comment la mission se termine-t-elle ?",
                  7: "Les outils ne sont pas des appels au modèle : comptez seulement les "
                     "allers-retours Harness → Modèle."},
        too_low="Le modèle ne peut pas corriger un fichier qu’il n’a pas encore lu, ni savoir "
                "que les tests passent avant de les avoir lancés.",
        explanation="read_file, edit_file, bash, puis la réponse finale : quatre appels, comme "
                    "dans le diagramme du chapitre. Un vrai modèle choisit ses étapes : il peut "
                    "en faire plus ou moins."),
    "04-dernier-appel": Numeric(
        "<p>Mission de 12 tours, le k-ième appel envoie 3 000 × k tokens. Combien de tokens le "
        "<b>douzième et dernier appel</b> envoie-t-il ?</p>",
        36_000, unit="tokens",
        mistakes={33_000: "C’est ce qu’envoie le onzième appel ; la question porte sur le "
                           "douzième.",
                  3_000: "Chaque appel renvoie tout le contexte, pas seulement le dernier tour. "
                         "Combien de tours le douzième appel transporte-t-il ?"},
        explanation="12 × 3 000 = 36 000 : le dernier appel transporte les douze tours."),
    "04-facture": Numeric(
        "<p>Combien de tokens d’entrée la mission entière <b>facture-t-elle</b>, c’est-à-dire la "
        "somme des douze envois ?</p>",
        234_000, unit="tokens",
        mistakes={432_000: "12 × 36 000 : comme si chaque appel envoyait le dernier contexte. "
                           "Les premiers envoient bien moins : 3 000, puis 6 000, puis 9 000…",
                  36_000: "C’est le dernier appel seul. Vous payez chaque envoi : additionnez "
                          "les douze.",
                  198_000: "Vous êtes parti de 0 : le premier appel envoie déjà 3 000 tokens, "
                           "le k-ième 3 000 × k.",
                  468_000: "Vous avez oublié de diviser par 2 : 1 + 2 + … + 12 = 12 × 13 / 2."},
        too_low="Chaque appel renvoie tout depuis le début : additionnez 3 000 + 6 000 + … + "
                "36 000.",
        too_high="Les premiers appels envoient bien moins que le dernier.",
        explanation="3 000 × (1 + 2 + … + 12) = 3 000 × 78 = 234 000 tokens, six fois et demie "
                    "le dernier contexte. Avec la formule : n·c₀ + g·n(n−1)/2 = 12 × 3 000 + "
                    "3 000 × 66."),
    # --- 05 Conditions d'arrêt
    "05-appels-max": Numeric(
        "<p>La mission « Attends que fini.txt apparaisse » ne finit jamais, et la limite est de "
        "15 tours. <b>Combien d’appels au modèle</b> le harness fera-t-il avant de s’arrêter ?"
        "</p>",
        15, unit="appels",
        mistakes={16: "Le harness ne rappelle pas le modèle pour lui annoncer l’arrêt : après le "
                      "quinzième tour, il s’arrête sans nouvel appel."},
        explanation="Un appel par tour, 15 tours au plus : c’est le harness qui compte, pas le "
                    "modèle."),
    "05-messages-max": Numeric(
        "<p>Et <b>combien de messages</b> contiendra <code>messages[]</code> au moment de "
        "l’arrêt ? À chaque tour, le modèle demande un seul outil (list_files).</p>",
        32, unit="messages",
        mistakes={30: "15 demandes et 15 résultats, c’est juste ; mais messages[] ne commence "
                      "pas par la première demande.",
                  31: "Presque. Au dernier tour, la demande d’outil reste-t-elle vraiment sans "
                      "résultat ? Relisez la boucle.",
                  33: "Il n’y a pas de réponse finale : le modèle n’a jamais conclu, c’est le "
                      "harness qui arrête.",
                  17: "Chaque tour ajoute deux messages : la demande d’outil (assistant) et son "
                      "résultat (tool)."},
        explanation="2 + 2 × 15 = 32 : le prompt système, la mission, puis 15 paires « demande "
                    "d’outil + résultat ». Pas de réponse finale : c’est le harness qui arrête."),
    "05-vingt-tours": Open(
        "<p>Une mission demande <b>20 tours</b> pour aboutir ; la limite du harness est de "
        "<b>15</b>. Que se passe-t-il au quinzième tour, et que faites-vous ensuite ? Écrivez "
        "votre réponse, puis comparez-la à la réponse modèle.</p>",
        "<p><b>Ce qui se passe.</b> Le harness fait ses 15 tours, puis s’arrête de lui-même avec "
        "le message « Arrêt propre: maximum de 15 tours dépassé. » (<code>run.reason</code> vaut "
        "<code>\"max_turns\"</code>). L’arrêt est propre : chaque demande du dernier tour a reçu "
        "son résultat, et <code>messages[]</code> reste une conversation valide. Mais la mission "
        "n’est pas finie, et aucune réponse finale ne dit ce qui reste à faire.</p>"
        "<p><b>Ce que vous pouvez faire.</b></p><ul>"
        "<li>D’abord, <b>comprendre pourquoi</b> il faut 20 tours : si le modèle répète la même "
        "action (comme le modèle qui attend fini.txt), relever la limite ne fera que payer des "
        "tours inutiles.</li>"
        "<li><b>Relever la limite en connaissance de cause</b> : "
        "<code>Limits(max_turns=25)</code>. "
        "Chaque tour coûte plus cher que le précédent (notebook 04) : c’est un budget.</li>"
        "<li><b>Découper la mission</b> en missions plus courtes, chacune sous la limite, avec un "
        "résultat vérifiable.</li>"
        "<li><b>Reprendre avec un nouveau run</b> dont la mission dit ce qui est déjà fait. Ce "
        "nouveau run ne se souvient de rien : seul le dossier de travail a gardé les "
        "modifications.</li></ul>"),
    "05-entre-deux-runs": MultipleChoice(
        f"<p>{VOTE}La mission « Attends que fini.txt apparaisse » s’est arrêtée au bout de "
        "15 tours. Vous relancez <code>run()</code> avec la même mission, dans le même dossier. "
        "Que reste-t-il du premier run ?</p>",
        ["Toute la conversation : le modèle reprend là où il s’était arrêté",
         "Rien dans messages[] : le nouveau run repart du prompt système et de la mission ; "
         "seuls les fichiers du dossier restent",
         "Un résumé des 15 tours, ajouté automatiquement au début du nouveau run"],
        1,
        ["Le modèle ne garde rien d’un appel à l’autre. Reste à savoir ce que run() met dans "
         "messages[] quand il commence : la section « Reprendre après un arrêt » le vérifie.",
         "Oui. run() construit un messages[] neuf ; ce qui survit, c’est le dossier de travail, "
         "et le modèle ne le connaîtra que si un outil le lui rapporte. La section suivante le "
         "vérifie.",
         "Certains harness le font (on parle de compaction ou de mémoire), mais c’est du code "
         "écrit exprès. Celui du cours en contient-il ? La section « Reprendre après un arrêt » "
         "le vérifie."]),
    # --- 06 ReAct
    "06-certitude": MultipleChoice(
        "<p>Le modèle écrit « Je dois lire README.md. » puis demande <code>read_file</code>. "
        "Que sait le harness, <b>avec certitude</b> ?</p>",
        ["Que le modèle a décidé de lire le fichier à cause de cette phrase.",
         "Que le modèle a affiché cette phrase et demandé read_file, rien de plus.",
         "Tout le raisonnement du modèle, puisqu’il est dans messages[]."],
        1,
        ["Le harness ne voit pas ce qui a produit l’action : la phrase peut être une explication "
         "après coup, comme chez le modèle simulé.",
         "Le harness observe des messages : un texte, une demande d’outil, puis le résultat qu’il "
         "renvoie. Le calcul du modèle reste hors de sa vue.",
         "messages[] ne contient que ce que le modèle a écrit. Son raisonnement interne, s’il "
         "existe, n’y figure pas forcément."]),
    "06-docs": MultipleChoice(
        "<p>Dans l’espace <code>docs</code>, README.md n’est pas à la racine mais dans "
        "<code>docs/</code>. <b>Laquelle des deux approches s’en sortira ?</b></p>",
        ["Les deux : chacune finira par trouver le fichier",
         "La machine à états seulement : son chemin est sûr",
         "La boucle ReAct seulement",
         "Aucune : le fichier demandé n’existe pas"],
        2,
        ["La machine à états ne cherche pas : elle suit son chemin écrit d’avance, et aucune "
         "transition ne prévoit un fichier absent.",
         "Son chemin est sûr tant que le fichier est là où on l’attend. Ici, la première étape "
         "échoue, et aucune transition ne mène ailleurs.",
         "Oui. L’erreur devient une observation : le modèle explore avec list_files, trouve "
         "docs/README.md et le lit. La machine à états s’arrête à sa première étape.",
         "README.md existe, simplement pas à la racine. Laquelle des deux approches peut aller le "
         "chercher ailleurs ?"]),
    "06-nuit": MultipleChoice(
        "<p>Chaque nuit, un traitement doit lire le même journal d’erreurs, le résumer et envoyer "
        "le résumé à l’équipe. Le chemin ne change jamais, et chaque étape doit pouvoir être "
        "auditée. Que choisissez-vous ?</p>",
        ["Une machine à états : le chemin est connu d’avance.",
         "Une boucle ReAct : le modèle choisira lui-même les étapes.",
         "Peu importe : les deux donnent toujours le même résultat."],
        0,
        ["Un chemin fixe, un appel au modèle pour résumer : simple à tester et à auditer.",
         "Elle marcherait sans doute, mais avec un coût et un chemin variables, sans rien "
         "gagner : ici, il n’y a pas d’imprévu à explorer.",
         "Pas toujours : vous venez de voir la machine à états échouer là où ReAct se rattrape, "
         "et ReAct coûte plus d’appels."]),
    "06-tests": MultipleChoice(
        "<p>Quelqu’un demande : « Pourquoi les tests échouent-ils dans ce dépôt ? » sur un projet "
        "que vous ne connaissez pas. Que choisissez-vous ?</p>",
        ["Une machine à états : lire README.md, puis résumer.",
         "Une boucle ReAct, avec des limites de tours et de coût.",
         "Aucun agent : la question est trop ouverte."],
        1,
        ["Le chemin utile dépend de ce qu’on découvre (quels tests, quels fichiers) : aucun "
         "chemin écrit d’avance ne le prévoit.",
         "Le modèle choisit quoi lire et quoi lancer selon ce qu’il observe ; le harness garde la "
         "main sur les limites et les permissions.",
         "Une question ouverte n’empêche pas d’agir : elle demande d’avancer pas à pas, en "
         "regardant ce que chaque action révèle."]),
    # --- 07 Dans le code du mini-harness
    "07-normal": _incident("normal", "la boucle de harness_lib, complète", 0, [
        "Rien ne manque : les règles 1 et 2 sont appliquées, l’API accepte chaque appel.",
        "Ici, la règle 1 est bien appliquée : le message assistant est ajouté avec ses "
        "tool_calls.",
        "Ici, la règle 2 est bien appliquée : le résultat suit la demande, sous call_1.",
        "README.md existe dans cet espace de travail : read_file renvoie son contenu.",
        "Le modèle répond au deuxième appel : la boucle sort par EXIT."]),
    "07-missing-call": _incident("missing-call", "une boucle écrite à la main, une ligne "
                                 "en moins", 1, [
        "Il manque bien un message : l’API refuse le deuxième appel.",
        "C’est la règle 1 qui a été oubliée : le résultat de call_1 arrive, mais aucune demande "
        "call_1 ne le précède. Le modèle recevrait un résultat qu’il n’a pas demandé.",
        "Le résultat est bien là. Regardez ce qui le précède.",
        "README.md a bien été lu : le résultat de l’outil est dans messages[].",
        "Le deuxième appel part bien (le tour 2 commence), mais l’API le refuse avant qu’un "
        "modèle ne le lise : ce n’est pas le modèle qui se tait."]),
    "07-missing-result": _incident("missing-result", "la même boucle, une autre ligne en "
                                   "moins", 2, [
        "Il manque bien un message : l’API refuse le deuxième appel.",
        "La demande est bien enregistrée. Regardez ce qui la suit.",
        "C’est la règle 2 qui a été oubliée : call_1 attend son résultat, et l’API refuse une "
        "demande d’outil restée sans réponse.",
        "L’outil a bien lu README.md. Cherchez où son contenu devait arriver.",
        "Le deuxième appel part bien (le tour 2 commence), mais l’API le refuse avant qu’un "
        "modèle ne le lise : ce n’est pas le modèle qui se tait."]),
    "07-tool-error": _incident("tool-error", "la boucle complète, sans README.md à la racine", 0, [
        "Rien ne manque : l’erreur « README.md introuvable » est le résultat de call_1, ajouté "
        "sous le même identifiant. La boucle continue et le modèle change de stratégie.",
        "Le message assistant est bien ajouté avec ses tool_calls.",
        "Le résultat de call_1 existe : c’est l’erreur elle-même.",
        "Une erreur est aussi une observation : c’est un résultat d’outil comme un autre.",
        "Le modèle finit par répondre, après avoir trouvé docs/README.md."]),
    "07-max-turns": _incident("max-turns", "la boucle complète, une mission qui attend un "
                              "fichier", 4, [
        "Chaque tour est complet, c’est vrai ; mais un message n’arrive jamais.",
        "Les quinze demandes sont bien enregistrées.",
        "Les quinze demandes ont chacune leur résultat : l’arrêt est propre.",
        "Il n’y a rien à lire : le fichier attendu n’existe pas, et l’outil le dit.",
        "Le modèle regarde le dossier encore et encore, sans jamais conclure. Le harness arrête "
        "la boucle au bout de 15 tours."]),
    # --- 09 The final assessment: its fifteen questions, with their points (final_questions.py)
    **FINAL,
}
