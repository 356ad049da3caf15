"""Give the demo's wide plan its two deliberate pairing mismatches (data/demo/README.md).

    .venv/bin/python scripts/demo/demo_plans.py PLAN.json --logs data/demo/logs

`empties select wide` plans every truncated_empty reply of the default arm; to
exercise rescore's pairing report the demo does not run exactly that plan:

* planned but not re-run: the largest wide group of a refusal eval loses its
  last planned sample (it stays in planned_reruns, so rescore reports it);
* re-run without an original: a group is added that re-runs the first HLE
  sample on claude-sonnet-5/openrouter, a route the pre-registration does not
  run on HLE, so no default-arm reply pairs with it.

The plan is rewritten in place (its keys, and so the mark `empties select`
writes at its top, kept in order); the same plan always gets the same edits.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

REFUSAL_EVALS = {"xstest_safe", "xstest_unsafe", "coconot_original", "strong_reject", "fortress_adversarial",
                 "fortress_benign", "air_bench"}
UNPLANNED_ROUTE = "claude-sonnet-5/openrouter"


def first_hle_sample(logs: Path) -> str:
    from inspect_ai.log import read_eval_log

    for p in sorted((logs / "default" / "hle_text").glob("*.eval")):
        log = read_eval_log(str(p))
        return sorted(str(s.id) for s in log.samples or [])[0]
    raise SystemExit(f"no default-arm HLE log under {logs}")


def edit(plan: dict[str, Any], hle_id: str) -> tuple[tuple[str, str, str] | None, tuple[str, str]]:
    if plan.get("kind") != "wide":
        raise SystemExit(f"not a wide plan: kind {plan.get('kind')!r}")
    groups = plan["groups"]
    left_out = None
    candidates = [g for g in groups if g["eval"] in REFUSAL_EVALS and len(g["samples"]) >= 2] or \
        [g for g in groups if len(g["samples"]) >= 2]
    if candidates:
        g = max(candidates, key=lambda g: (len(g["samples"]), g["eval"], g["route"]))
        dropped = g["samples"].pop()
        left_out = (g["eval"], g["route"], dropped["id"])
    hle = [g for g in groups if g["eval"] == "hle_text"]
    if not hle:
        raise SystemExit("the wide plan has no HLE group to copy the task from")
    src = next((g for g in hle if g["route"] == "claude-sonnet-5/anthropic"), hle[0])
    g = copy.deepcopy(src)
    g["route"] = UNPLANNED_ROUTE
    g["metadata"]["empties_route"] = UNPLANNED_ROUTE
    g["epochs"] = 1
    g["samples"] = [{"id": hle_id, "id_type": "str", "epoch": 1, "original_log": "", "original_class": ""}]
    g.pop("command", None)
    g["cost"] = {"estimate_usd": 0, "upper_bound_usd": 0}
    groups.append(g)
    return left_out, (hle_id, UNPLANNED_ROUTE)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("plan", type=Path, help="the wide plan (PLAN.json of empties select wide)")
    ap.add_argument("--logs", type=Path, required=True, help="the demo's logs (default/hle_text/ is read)")
    args = ap.parse_args()
    plan = json.loads(args.plan.read_text(encoding="utf-8"))
    left_out, unplanned = edit(plan, first_hle_sample(args.logs))
    args.plan.write_text(json.dumps(plan, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if left_out:
        print(f"demo: wide plan: {left_out[0]} × {left_out[1]} sample {left_out[2]} left out; "
              f"{unplanned[0]} added on {unplanned[1]} (no original)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
