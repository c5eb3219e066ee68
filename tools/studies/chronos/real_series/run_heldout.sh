#!/usr/bin/env bash
# The held-out comparison on real series: R's `datasets` series (export_r_datasets.R; never used
# for training or any choice), the last 12 points of each held out, scored by
# `harmonic forecast --eval` over the directory and by statsforecast's AutoETS, AutoARIMA,
# AutoTheta and SeasonalNaive on the same files (statsforecast_baselines.py). Writes
# OUT/record.md (date, machine, commands, both outputs), OUT/harmonic.txt, OUT/statsforecast.json.
#
#   bash tools/studies/chronos/real_series/run_heldout.sh OUT [HARMONIC] [PYTHON] [-- extra forecast flags]
# HARMONIC defaults to build/harmonic, PYTHON to the benchmark environment's
# (~/.cache/harmonic/torch-venv/bin/python, with `pip install statsforecast`).
set -euo pipefail
out=${1:?usage: run_heldout.sh OUT [HARMONIC] [PYTHON] [-- forecast flags]}
harmonic=${2:-build/harmonic}
python=${3:-$HOME/.cache/harmonic/torch-venv/bin/python}
shift $(( $# < 3 ? $# : 3 ))
[[ ${1:-} == -- ]] && shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
series="$out/series"
Rscript "$here/export_r_datasets.R" "$series"
forecast=("$harmonic" forecast --csv "$series" --horizon 12 --eval "$@")
baselines=("$python" "$here/statsforecast_baselines.py" "$series" --horizon 12 --json "$out/statsforecast.json")
start=$(date +%s)
"${forecast[@]}" > "$out/harmonic.txt" 2> "$out/harmonic.log"
harmonic_s=$(( $(date +%s) - start ))
start=$(date +%s)
"${baselines[@]}" > "$out/statsforecast.txt"
baselines_s=$(( $(date +%s) - start ))
{
  echo "# Held-out real series: the shipped forecaster against statsforecast"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
  echo "- series: $(ls "$series" | wc -l) files from R $(Rscript -e 'cat(as.character(getRversion()))') datasets"
  echo "  (Rscript export_r_datasets.R SERIES; bash run_heldout.sh OUT)"
  echo "- statsforecast $("$python" -c 'import statsforecast; print(statsforecast.__version__)')"
  echo
  echo "## harmonic (${harmonic_s} s)"
  echo
  echo '```'
  echo "\$ ${forecast[*]}" | sed "s|$out/|OUT/|g"
  cat "$out/harmonic.txt"
  echo '```'
  echo
  echo "## statsforecast (${baselines_s} s)"
  echo
  echo '```'
  echo "\$ ${baselines[*]}" | sed "s|$out/|OUT/|g; s|$here/||g"
  cat "$out/statsforecast.txt"
  echo '```'
} > "$out/record.md"
cat "$out/record.md"
