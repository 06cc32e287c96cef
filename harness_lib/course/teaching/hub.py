"""The nbgitpuller link for a JupyterHub: one click copies the course into the learner's
folder (or brings it up to date, keeping their changes), then opens its start page.

nbgitpuller's link is `HUB/hub/user-redirect/git-pull?repo=…&branch=…&urlpath=…`, each
value URL-encoded; the repository lands in a folder named after it, so `urlpath` opens
`lab/tree/<that folder>/notebooks/00_bienvenue.ipynb`.

>>> print(hub_link("https://hub.exemple.fr/"))
https://hub.exemple.fr/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgithub.com%2Fla-boucle-agentique%2Fla-boucle-agentique&branch=main&urlpath=lab%2Ftree%2Fla-boucle-agentique%2Fnotebooks%2F00_bienvenue.ipynb
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from ...errors import HarnessError

REPOSITORY = "https://github.com/la-boucle-agentique/la-boucle-agentique"  # README's Binder badge
BRANCH = "main"
START = "notebooks/00_bienvenue.ipynb"


def hub_link(hub: str, repository: str = REPOSITORY, branch: str = BRANCH,
             start: str = START) -> str:
    """The nbgitpuller link that opens `start` of `repository` on the JupyterHub at `hub`."""
    base = _url(hub, "l’adresse du hub")
    folder = _url(repository, "l’adresse du dépôt").rstrip("/").rsplit("/", 1)[-1]
    folder = folder.removesuffix(".git")
    if not branch.strip() or any(c.isspace() for c in branch):
        raise HarnessError("bad branch", explication=f"branche invalide : « {branch} »")
    query = urlencode({"repo": repository, "branch": branch,
                       "urlpath": f"lab/tree/{folder}/{start}"})
    return f"{base.rstrip('/')}/hub/user-redirect/git-pull?{query}"


def _url(text: str, what: str) -> str:
    """`text` if it is an http(s) address with a host; else HarnessError, in French."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or \
            parts.fragment:
        raise HarnessError("bad url", explication=f"{what} doit commencer par https:// (ou "
                           f"http://) et nommer un serveur, sans ? ni # : « {text} »")
    return text.strip()
