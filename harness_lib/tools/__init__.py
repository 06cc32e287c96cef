"""Tools: what the model may ask for, and how the harness runs it.

    tool.py        `Tool`, `Observation`, `run_tool(call, tools)`, `workspace_tools(root)`
    workspace.py   files confined to one folder (read, list, edit)
    shell.py       bash, bounded in time, output and secrets
"""

from __future__ import annotations

from .tool import Observation, Tool, run_tool, workspace_tools

__all__ = ["Observation", "Tool", "run_tool", "workspace_tools"]
