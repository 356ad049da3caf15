"""The ``empties`` console command: the binary the package carries, run with the
same arguments. The process becomes the binary (exec), so its exit code, its
output and the signals it gets (Ctrl-C, SIGTERM) are the binary's own.

This module imports nothing of inspect_ai: the command starts as fast as the
binary does.
"""

from __future__ import annotations

import sys

from ._binary import exec_binary


def main() -> None:
    exec_binary(sys.argv[1:])


if __name__ == "__main__":
    main()
