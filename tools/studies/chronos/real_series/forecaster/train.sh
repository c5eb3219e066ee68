#!/usr/bin/env bash
# Trains the forecaster candidates of candidates.tsv (base.json plus each line's overrides) on
# the train side of ../split.tsv, validating on its validation side, two runs at a time with one
# thread each, and writes OUT/summary.md (summarize.py). Test series are never read here.
#
#   bash tools/studies/chronos/real_series/forecaster/train.sh OUT [NAME...]   (default: every candidate)
# HARMONIC (default build/harmonic), PYTHON (default the benchmark environment's, with statsmodels),
# JOBS (default 2) may be set in the environment.
set -euo pipefail
out=${1:?usage: train.sh OUT [NAME...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
harmonic=$(realpath "${HARMONIC:-build/harmonic}")
python=${PYTHON:-$HOME/.cache/harmonic/torch-venv/bin/python}
mkdir -p "$out"
out=$(realpath "$out")
for side in train validation; do
  [[ -d $out/real/$side ]] || "$python" "$here/../export_split.py" "$side" "$out/real/$side"
done
run() {  # NAME OVERRIDES...
  local name=$1; shift
  local sets=(--set "real_series=$out/real/train" --set "validation_series=$out/real/validation")
  for kv in "$@"; do sets+=(--set "$kv"); done
  "$harmonic" train chronos --out "$out/$name" --force --threads 1 --config "$here/base.json" "${sets[@]}" \
    > "$out/$name.log" 2>&1 && echo "done $name" || echo "FAILED $name (see $out/$name.log)"
}
jobs_max=${JOBS:-2}
while IFS=$'\t' read -r name overrides; do
  [[ -z $name || $name == \#* ]] && continue
  if (( $# > 0 )) && [[ ! " $* " =~ " $name " ]]; then continue; fi
  while (( $(jobs -rp | wc -l) >= jobs_max )); do wait -n; done
  # shellcheck disable=SC2086
  run "$name" $overrides &
done < "$here/candidates.tsv"
wait
python3 "$here/summarize.py" "$out"
