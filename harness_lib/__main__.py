"""`python -m harness_lib …`: the command line (harness_lib/cli/)."""

from __future__ import annotations

import sys

from .cli.main import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
