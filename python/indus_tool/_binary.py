"""Where the `indus-tool` binary is: the one this package's wheel installed beside
the interpreter's scripts, else the first on PATH.

A wheel built with maturin's `bindings = "bin"` puts the binary in the
environment's scripts folder (`bin/` of a venv, `~/.local/bin` for `--user`), not
inside the package, as ruff's and uv's wheels do; the lookup order is theirs.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig

NAME = "indus-tool" + (".exe" if sys.platform == "win32" else "")


def _scripts_dirs():
    yield sysconfig.get_path("scripts")
    if sys.version_info >= (3, 10):
        user = sysconfig.get_preferred_scheme("user")
    elif os.name == "nt":
        user = "nt_user"
    elif sys.platform == "darwin" and sys._framework:  # type: ignore[attr-defined]
        user = "osx_framework_user"
    else:
        user = "posix_user"
    yield sysconfig.get_path("scripts", scheme=user)
    # pip --target puts the scripts next to the package's folder.
    yield os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bin")


def find_binary() -> str:
    """The path of the `indus-tool` binary: `$INDUS_TOOL_BIN` when set, else the one
    installed with this package, else the first on PATH. Raises FileNotFoundError
    naming the places looked in."""
    given = os.environ.get("INDUS_TOOL_BIN")
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given
        raise FileNotFoundError(f"INDUS_TOOL_BIN names {given}, which is not an executable file")
    looked = []
    for folder in _scripts_dirs():
        if not folder:
            continue
        path = os.path.join(folder, NAME)
        looked.append(folder)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(NAME)
    if found:
        return found
    raise FileNotFoundError(
        f"no {NAME} binary: not in {', '.join(looked)} nor on PATH. Install the package "
        "with `pip install indus-tool` (or `pip install .` in a checkout), or set "
        "INDUS_TOOL_BIN to the binary's path."
    )
