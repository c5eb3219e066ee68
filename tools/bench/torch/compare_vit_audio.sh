#!/usr/bin/env bash
# Harmonic vs PyTorch on one ViT and one spectrogram-transformer training step, interleaved in one
# run, at each thread count given (default: 2), ROUNDS times (default 2):
#   harmonic bench --vit / --audio                 (ms/step, images/s or clips/s)
#   tools/bench/torch/bench_vit_torch.py, bench_audio_torch.py
# VIT_CASES (default: task) and AUDIO_CASES (default: linear fourier) pick the cases; the DeiT-tiny
# cases (VIT_CASES="softmax fourier") take seconds a step on a CPU, the AST-size ones minutes.
#
#   tools/bench/torch/compare_vit_audio.sh
#   HARMONIC_BIN=build/harmonic ROUNDS=1 VIT_CASES="task softmax" tools/bench/torch/compare_vit_audio.sh 1 2
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
default_threads="2"
source "$repo/tools/bench/torch/compare_setup.sh" "$@"
vit=() audio=()
for c in ${VIT_CASES:-task}; do vit+=(--case "$c"); done
for c in ${AUDIO_CASES:-linear fourier}; do audio+=(--case "$c"); done
for round in $(seq "${ROUNDS:-2}"); do
  for n in "${threads[@]}"; do
    echo "# round $round, threads $n"
    "$bin" bench --vit "${vit[@]}" --threads "$n" --repeat "${REPEAT:-5}" --warmup 1
    OPENBLAS_NUM_THREADS="$n" OMP_NUM_THREADS="$n" "$python" "$repo/tools/bench/torch/bench_vit_torch.py" "${vit[@]}" \
      --threads "$n" --repeat "${REPEAT:-5}" --warmup 1
    "$bin" bench --audio "${audio[@]}" --threads "$n" --repeat "${REPEAT:-5}" --warmup 1
    OPENBLAS_NUM_THREADS="$n" OMP_NUM_THREADS="$n" "$python" "$repo/tools/bench/torch/bench_audio_torch.py" \
      "${audio[@]}" --threads "$n" --repeat "${REPEAT:-5}" --warmup 1
  done
done
