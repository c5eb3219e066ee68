#!/usr/bin/env bash
# Harmonic vs PyTorch on one Decision Transformer training step (linear and Fourier-8 heads),
# interleaved in one run, at each thread count given (default: 1 and 2), ROUNDS times (default 2):
#   harmonic bench --dt                   (ms/step, windows/s)
#   tools/bench/torch/bench_dt_torch.py         (ms/step, windows/s)
#
#   tools/bench/torch/compare_dt.sh                   # threads 1 and 2
#   HARMONIC_BIN=build/harmonic ROUNDS=3 tools/bench/torch/compare_dt.sh 1
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
default_threads="1 2"
source "$repo/tools/bench/torch/compare_setup.sh" "$@"
for round in $(seq "${ROUNDS:-2}"); do
  for n in "${threads[@]}"; do
    echo "# round $round, threads $n"
    "$bin" bench --dt --threads "$n" --repeat "${REPEAT:-5}" --warmup 1
    OPENBLAS_NUM_THREADS="$n" OMP_NUM_THREADS="$n" "$python" "$repo/tools/bench/torch/bench_dt_torch.py" --threads "$n" \
      --repeat "${REPEAT:-5}" --warmup 1
  done
done
