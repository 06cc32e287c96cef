"""Tools: what the model may ask for, and how the harness runs it.

    tool.py        `Tool`, `Observation`, `run_tool(call, tools)`: what the loop needs
    builtin.py     `workspace_tools(root)`: read_file, list_files, edit_file, bash
    workspace.py   files confined to one folder (read, list, edit)
    shell.py       bash, bounded in time, output and secrets
    sandbox.py     the OS sandbox bash runs in (bubblewrap), where one can start
    ending.py      SIGTERM and SIGHUP end a command's process group, as Ctrl-C does
    output.py      a command's output, head and tail
    bash_words.py  a bash command line split into simple commands, as bash reads it (policy.py)
    browser.py     bash in the browser (Pyodide starts no process), with in_process.py
"""

from __future__ import annotations

from .builtin import workspace_tools
from .tool import Observation, Tool, run_tool

__all__ = ["Observation", "Tool", "run_tool", "workspace_tools"]
