"""A fresh virtual environment that installs the package as a user's would.

    .venv/bin/python scripts/wheel/fresh_venv.py VENV [WHEEL]

Makes VENV (a new folder, or one this script made before, which it replaces),
a venv of this interpreter's Python without pip, whose packages come from
this interpreter's site-packages through a .pth file: the package's
dependencies are there without a download, and what is installed into VENV
lands in VENV. With WHEEL (a glob's matches: the newest), installs it with
this interpreter's pip and --no-deps. Prints VENV's python.

`make notebook` runs the quickstart notebook from such a venv; the tests of
internal/pypkg install the package and its wheels into them.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys

MARK = ".empties-fresh-venv"


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    venv = os.path.abspath(sys.argv[1])
    if os.path.lexists(venv):
        if not os.path.isfile(os.path.join(venv, MARK)):
            print(f"fresh_venv: {venv} exists and was not made by this script; nothing was changed: choose another folder", file=sys.stderr)
            return 1
        shutil.rmtree(venv)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    open(os.path.join(venv, MARK), "w").close()
    own = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages"))
    if len(own) != 1:
        print(f"fresh_venv: site-packages of {venv}: {own}", file=sys.stderr)
        return 1
    # every site-packages folder this interpreter reads (its venv's, and any a .pth file of it adds)
    shared = [p for p in sys.path if p.endswith("site-packages")]
    with open(os.path.join(own[0], "project-venv.pth"), "w") as f:
        f.write("\n".join(shared) + "\n")
    python = os.path.join(venv, "bin", "python")
    if len(sys.argv) == 3:
        wheels = sorted(glob.glob(sys.argv[2]), key=os.path.getmtime)
        if not wheels:
            print(f"fresh_venv: no wheel matches {sys.argv[2]} (make wheel writes one)", file=sys.stderr)
            return 1
        subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", wheels[-1]], check=True)
        print(f"installed {os.path.basename(wheels[-1])} into {venv}", file=sys.stderr)
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
