"""Tools: what the model may ask for, and how the harness runs it.

    tool.py        `Tool`, `Observation`, `run_tool(call, tools)`, `workspace_tools(root)`
    workspace.py   files confined to one folder (read, list, edit)
    shell.py       bash, bounded in time, output and secrets
    sandbox.py     the OS sandbox bash runs in (bubblewrap), where one can start
    bwrap_failure.py  why bwrap could not start, in French
    ending.py      SIGTERM and SIGHUP end a command's process group, as Ctrl-C does
    output.py      a command's output, head and tail
    bash_words.py  a bash command line split into simple commands, as bash reads it (policy.py)
    browser.py     bash in the browser (Pyodide starts no process), with in_process.py
"""

from __future__ import annotations

from .tool import Observation, Tool, run_tool, workspace_tools

__all__ = ["Observation", "Tool", "run_tool", "workspace_tools"]
