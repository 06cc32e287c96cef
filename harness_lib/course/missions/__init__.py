"""The chapter's missions, its five incidents, and the example workspaces.

    scenarios.py  the missions' texts, example_workspace(), the incidents (replay)
    own_loop.py   a loop written by hand (reference_loop), without(rule), watch(): run and observed
    logbook.py    what a watched loop sent and received, call by call, as a trace

The workspaces themselves are data, in harness_lib/course/data/workspaces/.
Imports only the harness.
"""
