#!/bin/sh
# The demo's wide, control, Part C and Part B runs, as a study runs them:
# planned by `empties select` from the default and tight arms of LOGS, and run
# by `empties rerun` with the real inspect_ai and inspect_evals tasks. The
# models are simulated: mockllm models under test and scripted mockllm judges
# (scripts/demo/rerun_harness.py). `make demo` and `make demo-logs` run it.
#
#   scripts/demo/reruns.sh BIN LOGS WORK RERUNS
#
# BIN the empties binary; LOGS the demo's logs (LOGS/default, LOGS/tight);
# WORK a folder of this script's own (WORK/collected: the dataset the plans
# are drawn from; WORK/plans: the plans); RERUNS the folder of the runs' logs
# (RERUNS/wide, RERUNS/control, RERUNS/partc, RERUNS/partb). A second run
# finds the logs finished and runs nothing again. $PYTHON is the project's
# Python (.venv/bin/python).
set -eu
[ $# -eq 4 ] || { echo "usage: $0 BIN LOGS WORK RERUNS" >&2; exit 2; }
bin=$1 logs=$2 work=$3 reruns=$4
py=${PYTHON:-.venv/bin/python}
manifest=data/study.yaml
here=$(dirname "$0")

"$bin" ingest "$logs/default" "$logs/tight" --out "$work/collected" --progress never >/dev/null
"$bin" rescore --data "$work/collected" --manifest "$manifest" >/dev/null
mkdir -p "$work/plans"
for kind in wide control partc partb; do
  "$bin" select "$kind" --data "$work/collected" --manifest "$manifest" --out "$work/plans/$kind"
done
"$py" "$here/demo_plans.py" "$work/plans/wide.json" --logs "$logs"
# --allow-unpriced: the demo's judges are simulated mockllm models, which the
# manifest's routes do not price (and which cost nothing)
for kind in wide control partc partb; do
  "$bin" rerun "$work/plans/$kind.json" --manifest "$manifest" --data "$work/collected" --log-dir "$reruns/$kind" \
    --python "$py" --harness "$here/rerun_harness.py" --tag empties-demo --tag simulated-replies --allow-unpriced
done
