#!/usr/bin/env bash
# Scores trained forecasters on the test series, R's `datasets` (../export_r_datasets.R), with
# `harmonic forecast --eval`'s defaults (the last 12 points held out, 100 paths, quantiles from
# the pmf): run once, for the recipe chosen on the validation series. statsforecast's scores on
# the same files are in ../record/heldout.md (../run_heldout.sh). Writes OUT/heldout.md.
#
#   bash tools/studies/chronos/real_series/forecaster/heldout.sh OUT CHECKPOINT...
# HARMONIC (default build/harmonic) may be set in the environment.
set -euo pipefail
out=${1:?usage: heldout.sh OUT CHECKPOINT...}
shift
(( $# > 0 )) || { echo "heldout.sh: no checkpoint given" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
harmonic=${HARMONIC:-build/harmonic}
mkdir -p "$out"
[[ -d $out/series ]] || Rscript "$here/../export_r_datasets.R" "$out/series" > /dev/null
{
  echo "# Held-out real series: forecaster candidates chosen on validation"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
  echo "- series: $(ls "$out/series" | wc -l) files from R $(Rscript -e 'cat(as.character(getRversion()))') datasets"
  echo "  (bash heldout.sh OUT CHECKPOINT...)"
  for ckpt in "$@"; do
    echo
    echo "## $ckpt"
    echo
    echo '```'
    echo "\$ harmonic forecast --checkpoint $ckpt --csv OUT/series --horizon 12 --eval"
    "$harmonic" forecast --checkpoint "$ckpt" --csv "$out/series" --horizon 12 --eval 2> "$out/forecast.log"
    echo '```'
  done
} > "$out/heldout.md"
cat "$out/heldout.md"
