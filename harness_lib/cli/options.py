"""The command line's options: `python -m harness_lib -h` prints them, in French.

>>> parser(["normal"]).parse_args(["demo", "normal"]).scenario
'normal'
>>> parser([]).parse_args(["run", "--mock", "Bonjour"]).mock
True
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from ..course.teaching.hub import BRANCH, REPOSITORY
from ..limits import MAX_TURNS
from .french_args import FrenchArgumentParser, positive_int

USAGE = """Ligne de commande : rejouer les incidents du chapitre, lancer la boucle ; pour
l’enseignant, lire les fichiers de progression d’une classe, faire le lien d’un JupyterHub.

python -m harness_lib demo normal|missing-call|missing-result|tool-error|max-turns
python -m harness_lib run "Lis README.md et résume le projet" --mock --debug [--trace F.jsonl]
                           [--trace-otel F.json]
python -m harness_lib diagram deux_tours|FICHIER.mmd|TRACE.jsonl [--step K] [--out FICHIER]
python -m harness_lib classe DOSSIER [--csv FICHIER.csv]
python -m harness_lib lien-hub https://hub.exemple.fr [--depot URL] [--branche NOM]
"""


def parser(incidents: Iterable[str]) -> argparse.ArgumentParser:
    """The CLI's options, its help and its errors in French (french_args.py); `incidents`:
    what `demo` replays (the course's, named by main.py, which also plays them)."""
    parser = FrenchArgumentParser(
        prog="python -m harness_lib",
        description=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, title="commandes",
                                metavar="COMMANDE")
    demo_cmd = sub.add_parser("demo", help="rejouer un incident du chapitre (hors ligne)")
    demo_cmd.add_argument("scenario", choices=list(incidents))
    run_cmd = sub.add_parser("run", help="lancer la boucle sur une mission")
    run_cmd.add_argument("task", metavar="MISSION", help="la mission, entre guillemets")
    run_cmd.add_argument(
        "--debug", action="store_true", help="afficher chaque requête avant l’appel"
    )
    run_cmd.add_argument("--mock", action="store_true", help="modèle simulé : ni réseau ni clé")
    run_cmd.add_argument("--model", default=None, help="identifiant OpenRouter du modèle")
    run_cmd.add_argument("--max-turns", type=positive_int, default=MAX_TURNS,
                         help=f"limite de tours ({MAX_TURNS})")
    run_cmd.add_argument("--max-tokens", type=positive_int, default=None, metavar="N",
                         help="longueur maximale de chaque réponse du modèle réel, en tokens")
    run_cmd.add_argument("--workspace", default=None, help="dossier de travail (un exemple sinon)")
    run_cmd.add_argument("--trace", default=None, metavar="FICHIER.jsonl",
                         help="enregistrer la trace de l’exécution, pour la rejouer "
                         "(gardée aussi après Ctrl-C, SIGTERM ou une sortie fermée)")
    run_cmd.add_argument("--trace-otel", default=None, metavar="FICHIER.json",
                         help="enregistrer l’exécution en spans OpenTelemetry (OTLP/JSON, "
                         "conventions GenAI), pour Phoenix, Langfuse… ; demande "
                         "pip install \"harness_lib[otel]\"")
    run_cmd.add_argument("--network", action="store_true",
                         help="laisser le réseau à bash dans son bac à sable")
    run_cmd.add_argument("--unconfined", action="store_true",
                         help="si aucun bac à sable ne démarre, lancer bash sans demander "
                         "(à vos risques)")
    _diagram_parser(sub.add_parser("diagram", help="le texte Mermaid d’un diagramme, ou son image"))
    _teacher_parsers(sub)
    return parser


def _teacher_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`classe` and `lien-hub`: for the teacher (cli/teacher.py)."""
    room = sub.add_parser("classe", help="les fichiers de progression d’une classe : un tableau "
                          "par apprenant et par question")
    room.add_argument("folder", metavar="DOSSIER", help="le dossier des fichiers rendus (*.json)")
    room.add_argument("--csv", default=None, metavar="FICHIER.csv",
                      help="écrire aussi le tableau pour un tableur (une ligne par apprenant)")
    hub = sub.add_parser("lien-hub", help="le lien nbgitpuller qui ouvre le cours sur un "
                         "JupyterHub")
    hub.add_argument("hub", metavar="URL_DU_HUB", help="l’adresse du hub, https://…")
    hub.add_argument("--depot", default=REPOSITORY, metavar="URL",
                     help=f"le dépôt du cours ({REPOSITORY})")
    hub.add_argument("--branche", default=BRANCH, metavar="NOM",
                     help=f"la branche à copier ({BRANCH})")


def _diagram_parser(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "source",
        metavar="NOM_OU_FICHIER",
        help="deux_tours, erreur_outil, boucle_complete, un .mmd ou une trace .jsonl",
    )
    cmd.add_argument(
        "--step",
        type=positive_int,
        default=None,
        metavar="K",
        help="seulement les K premières flèches, la dernière surlignée",
    )
    cmd.add_argument(
        "--out",
        default=None,
        metavar="FICHIER",
        help="écrire dans un .mmd (hors ligne), ou un .svg/.png : l’image "
        "demande le réseau (serveur mermaid.ink ou $MERMAID_INK_SERVER)",
    )
