"""The Jupyter Server extension (playground/server_extension.py): loaded by the server of
this install, and its sockets to a new kernel try again every 10 ms. That the package
turns it on: tests/test_binder.py, with the package's other shipped configuration.

What it saves (a second request 0.5 s later at one notebook opening in four) is measured
in bench/README.md, not here: no timing in tests."""

from __future__ import annotations

import re
import subprocess
import sys
from types import SimpleNamespace

from harness_lib.course.playground import server_extension

MODULE = server_extension.__name__


def test_this_environment_s_server_loads_it() -> None:
    # The install the tests run in (pip install -e ".[test]"), as Binder's and a learner's.
    found = subprocess.run([sys.executable, "-m", "jupyter", "server", "extension", "list"],
                           capture_output=True, text=True, timeout=120)
    text = re.sub(r"\x1b\[[0-9;]*m", "", found.stdout + found.stderr)  # its colours
    lines = [line.split() for line in text.splitlines() if MODULE in line]
    assert [MODULE, "enabled"] in lines and [MODULE, "OK"] in lines, text


def test_the_server_s_sockets_to_a_new_kernel_try_again_every_10_ms() -> None:
    import zmq
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    manager = AsyncMappingKernelManager()
    kernel = manager.kernel_manager_factory(connection_file="nowhere.json")
    before = kernel.connect_iopub()  # no kernel listens: ZeroMQ tries again and again
    server_extension._load_jupyter_server_extension(SimpleNamespace(kernel_manager=manager))
    iopub, shell = kernel.connect_iopub(), kernel.connect_shell()
    try:
        assert before.getsockopt(zmq.RECONNECT_IVL) == 100  # ZeroMQ's own default
        assert [s.getsockopt(zmq.RECONNECT_IVL) for s in (iopub, shell)] == [10, 10]
    finally:
        for socket in (before, iopub, shell):
            socket.close(linger=0)
        manager.context.term()
