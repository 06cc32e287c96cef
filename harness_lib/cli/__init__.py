"""The command line: `python -m harness_lib demo|run|diagram …`, in French.

    main.py         what each command does: `demo` replays an incident, `run` runs the
                    loop on a mission (real model or mock), `diagram` prints or writes one
    options.py      the options and their help (`python -m harness_lib -h`)
    french_args.py  argparse, its messages and errors in French (exit code 2)
    setting.py      what `run` settles before any call: --trace/--trace-otel's folders (and
                    the export's packages), the workspace, the line on bash's confinement
    keep.py         what `run` keeps whatever happens (answer, Ctrl-C, SIGTERM, SIGHUP, a
                    closed stdout): --trace and --trace-otel, written in a `finally`
    out.py          printing that goes quiet when stdout goes away (`| head`, a full disk)
    debug.py        the `--debug` view of a request: options, tools, numbered messages

This is the one place of the harness that imports the course (harness_lib/course/):
`demo` replays the course's incidents, `diagram` draws the chapter's diagrams, and `run`
picks the example workspace that suits the mission.
"""
