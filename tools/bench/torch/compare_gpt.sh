#!/usr/bin/env bash
# Harmonic vs PyTorch on one GPT training step (softmax and Fourier attention), interleaved in
# one run, at each thread count given (default: 1 and 2), ROUNDS times (default 2):
#   harmonic bench --gpt (ms/step, tokens/s, GEMM FLOPs, GEMM-bound floor, % of floor)
#   tools/bench/torch/bench_gpt_torch.py (ms/step, tokens/s)
#
#   tools/bench/torch/compare_gpt.sh                   # threads 1 and 2
#   HARMONIC_BIN=build/harmonic ROUNDS=3 REPEAT=3 tools/bench/torch/compare_gpt.sh 1
#
# PyTorch's Fourier step materialises (B, H, T, T, D) and takes ~25 s at 1 thread; set
# TORCH_FOURIER=0 to skip it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
default_threads="1 2"
source "$repo/tools/bench/torch/compare_setup.sh" "$@"
torch_cases=(--case softmax)
[[ "${TORCH_FOURIER:-1}" == 1 ]] && torch_cases+=(--case fourier)
for round in $(seq "${ROUNDS:-2}"); do
  for n in "${threads[@]}"; do
    echo "# round $round, threads $n"
    "$bin" bench --gpt --threads "$n" --repeat "${REPEAT:-3}" --warmup 1
    OPENBLAS_NUM_THREADS="$n" OMP_NUM_THREADS="$n" "$python" "$repo/tools/bench/torch/bench_gpt_torch.py" --threads "$n" \
      --repeat "${TORCH_REPEAT:-2}" --warmup 1 "${torch_cases[@]}"
  done
done
