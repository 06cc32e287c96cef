"""The chapter's missions, its five incidents, and the example workspaces.

    tasks.py      the missions' texts, example_workspace(): a fresh copy of a bundled folder
    scenarios.py  the five incidents (replay), each a real run
    own_loop.py   a loop written by hand (reference_loop), without(rule), watch(): run and observed
    logbook.py    what a watched loop sent and received, call by call, as a trace

The workspaces themselves are data, in harness_lib/course/data/workspaces/.
Imports only the harness.
"""
