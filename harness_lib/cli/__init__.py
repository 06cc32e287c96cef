"""The command line: `python -m harness_lib demo|run|diagram …`, in French.

    main.py         what each command does: `demo` replays an incident, `run` runs the
                    loop on a mission (real model or mock), `diagram` prints or writes one
    options.py      the options and their help (`python -m harness_lib -h`)
    french_args.py  argparse, its messages and errors in French (exit code 2)
    debug.py        the `--debug` view of a request: options, tools, numbered messages

This is the one place of the harness that imports the course (harness_lib/course/):
`demo` replays the course's incidents and `diagram` draws the chapter's diagrams.
"""
