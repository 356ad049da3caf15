"""Execute a notebook against a dataset and save the executed copy.

Usage: .venv/bin/python scripts/run_notebook.py NOTEBOOK --data DIR --out DIR [--report DIR]
A cell that raises fails the run (exit 1), so CI notices a notebook that no
longer reads the tables.
"""

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("notebook", type=Path)
    ap.add_argument("--data", type=Path, required=True, help="dataset folder the notebook reads (EMPTIES_DATA)")
    ap.add_argument("--out", type=Path, required=True, help="folder for the executed notebook")
    ap.add_argument("--report", type=Path, help="the dataset's report folder, whose chart specs it opens (EMPTIES_REPORT; default DATA/report)")
    args = ap.parse_args()
    os.environ["EMPTIES_DATA"] = str(args.data.resolve())
    os.environ["EMPTIES_REPORT"] = str((args.report or args.data / "report").resolve())
    nb = nbformat.read(args.notebook, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(Path.cwd())}})
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"{args.notebook}: a cell failed:\n{e}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / args.notebook.name
    nbformat.write(nb, out)
    print(f"executed {args.notebook} on {args.data}; wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
