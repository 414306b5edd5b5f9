"""`python -m indus_tool ARGS…` runs the toolbox, for an environment whose scripts
folder is not on PATH."""

import os
import subprocess
import sys

from ._binary import find_binary


def main() -> int:
    binary = find_binary()
    if sys.platform == "win32":
        return subprocess.call([binary, *sys.argv[1:]])
    os.execv(binary, [binary, *sys.argv[1:]])
    return 1  # not reached: execv replaced the process


if __name__ == "__main__":
    sys.exit(main())
