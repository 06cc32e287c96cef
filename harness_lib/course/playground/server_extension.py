"""A Jupyter Server extension: a notebook's new kernel is reached as soon as it is up.

When a notebook opens, the server starts its kernel and connects to it at once, before the
kernel has opened its ports; ZeroMQ then tries again every 100 ms (its default). The
page's connection meanwhile asks the kernel for its info, and waits until the server has
seen the kernel's state. The server's own connection, still waiting for its next try, can
miss the kernel's first status messages: the server asks again only 0.5 s later
(jupyter_server 2.21, `ZMQChannelsWebsocketConnection.nudge`). Measured here, 11 openings
of an empty notebook in 42 waited that extra 0.5 s; trying again every 10 ms, none of 42
(bench/README.md, 4 December 2026).

Loaded by Jupyter Server (Lab, Notebook 7, Voilà) in an environment where the package is
installed: `jupyter-config/jupyter_server_config.json` goes to
`etc/jupyter/jupyter_server_config.d/` (pyproject.toml). It sets one default of the
server's ZeroMQ context, for the sockets it opens to its kernels from then on; nothing
else. A socket to a kernel that is gone costs one refused local connection every 10 ms,
until the server closes it.

>>> import zmq
>>> class Server:  # what the extension uses of Jupyter Server's application
...     class kernel_manager:
...         context = zmq.Context()
>>> _load_jupyter_server_extension(Server)
>>> socket = Server.kernel_manager.context.socket(zmq.SUB)
>>> socket.getsockopt(zmq.RECONNECT_IVL)
10
>>> socket.close(); Server.kernel_manager.context.term()
"""

from __future__ import annotations

from typing import Any

RECONNECT_MS = 10  # ZeroMQ's default is 100 ms, the server's second request 500 ms away


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": __name__}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    import zmq  # Jupyter Server's own dependency: imported only where it runs

    serverapp.kernel_manager.context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
