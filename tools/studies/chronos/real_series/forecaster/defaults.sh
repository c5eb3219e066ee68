#!/usr/bin/env bash
# The shipped forecaster's sampling defaults chosen on the validation series: `harmonic forecast
# --eval` over the validation side of ../split.tsv (its last 12 points held out) for every sample
# count, quantile source and top-k of the grid below, forecast seeds 0-2; writes each run's table
# to OUT/<name>.txt and OUT/defaults.md (defaults.py). Test series are never read here.
#
#   bash tools/studies/chronos/real_series/forecaster/defaults.sh OUT
# HARMONIC (default build/harmonic) and PYTHON (default the benchmark environment's) may be set.
set -euo pipefail
out=${1:?usage: defaults.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
harmonic=$(realpath "${HARMONIC:-build/harmonic}")
python=${PYTHON:-$HOME/.cache/harmonic/torch-venv/bin/python}
mkdir -p "$out"
out=$(realpath "$out")
[[ -d $out/validation ]] || "$python" "$here/../export_split.py" validation "$out/validation"
for samples in 20 100 400; do
  for quantiles in pmf paths; do
    for top_k in 0 50; do
      for seed in 0 1 2; do
        name="samples${samples}_${quantiles}_topk${top_k}_seed${seed}"
        [[ -s $out/$name.txt ]] && continue
        "$harmonic" forecast --csv "$out/validation" --eval --horizon 12 --threads 1 --samples "$samples" \
          --quantiles "$quantiles" --top-k "$top_k" --seed "$seed" 2>/dev/null >"$out/$name.txt.tmp"
        mv "$out/$name.txt.tmp" "$out/$name.txt"
      done
    done
  done
done
python3 "$here/defaults.py" "$out"
