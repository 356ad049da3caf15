"""Execute a notebook and save the executed copy.

Usage: python scripts/run_notebook.py NOTEBOOK --out DIR [--data DIR] [--report DIR] [--set NAME=VALUE]... [--installed]

The kernel runs in this interpreter (a kernel spec of its own, whatever
others the machine holds). A cell that raises fails the run (exit
1), so CI notices a notebook that no longer reads the tables. --data and
--report set EMPTIES_DATA and EMPTIES_REPORT (the study notebook's); --set
sets any other variable (the quickstart notebook's EMPTIES_LOGS and
EMPTIES_OUT). --installed first checks that the package this interpreter
imports is an installed copy carrying its binary (a platform wheel's), not a
checkout's: `make notebook` runs the quickstart notebook so.
"""

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def installed_package() -> str:
    """The installed empties and its binary, or an error saying what is imported instead."""
    import empties

    where = Path(empties.__file__).resolve().parent
    site = Path(sys.prefix).resolve()
    binary = Path(empties.binary()).resolve()
    if site not in where.parents or binary != where / "_bin" / "empties":
        raise SystemExit(f"run_notebook: --installed, but empties is imported from {where} running {binary}, "
                         f"not a wheel installed in {site}")
    return f"empties from {where}, binary {binary}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebook", type=Path)
    ap.add_argument("--data", type=Path, help="dataset folder the notebook reads (EMPTIES_DATA)")
    ap.add_argument("--out", type=Path, required=True, help="folder for the executed notebook")
    ap.add_argument("--report", type=Path, help="the dataset's report folder, whose chart specs it opens (EMPTIES_REPORT; default DATA/report)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="an environment variable for the notebook")
    ap.add_argument("--installed", action="store_true", help="check that empties is an installed wheel's copy, with its binary")
    args = ap.parse_args()
    if args.data is not None:
        os.environ["EMPTIES_DATA"] = str(args.data.resolve())
        os.environ["EMPTIES_REPORT"] = str((args.report or args.data / "report").resolve())
    for kv in args.set:
        name, sep, value = kv.partition("=")
        if not sep or not name:
            ap.error(f"--set {kv}: want NAME=VALUE")
        os.environ[name] = value
    if args.installed:
        print(installed_package())
    nb = nbformat.read(args.notebook, as_version=4)
    with tempfile.TemporaryDirectory(prefix="run-notebook.") as spec:
        kernel = Path(spec, "kernels", "this-python")
        kernel.mkdir(parents=True)
        (kernel / "kernel.json").write_text(json.dumps({
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python (run_notebook)", "language": "python"}))
        os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [spec, os.environ.get("JUPYTER_PATH")]))
        client = NotebookClient(nb, timeout=300, kernel_name="this-python", resources={"metadata": {"path": str(Path.cwd())}})
        try:
            client.execute()
        except CellExecutionError as e:
            print(f"{args.notebook}: a cell failed:\n{e}", file=sys.stderr)
            return 1
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / args.notebook.name
    nbformat.write(nb, out)
    print(f"executed {args.notebook}; wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
