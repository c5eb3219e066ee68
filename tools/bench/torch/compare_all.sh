#!/usr/bin/env bash
# Every CPU comparison the READMEs state, against one PyTorch, at 1 and 2 threads, in one run:
# the op suite, the GPT / Chronos / Decision Transformer steps, the recurrent layers, the Fourier
# operators, the toy study's step and the FFT. Each section prints the command it ran; a run's
# log and the tables read off it are kept together in tools/bench/cpu_runs/<machine>-<date>/.
#
#   bash .ci/install-deps --with-torch && bash .ci/build
#   bash tools/bench/torch/compare_all.sh 2>&1 | tee compare_all.log     # ~40 min on 2 cores
#
# Run it on an idle machine (pause background work with kill -STOP).
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
source "$repo/tools/bench/torch/peer_python.sh"
py="$PYTHON"
bin="${HARMONIC_BIN:-$repo/build/harmonic}"
[[ -x "$bin" ]] || { echo "compare_all.sh: no harmonic executable at $bin; set HARMONIC_BIN" >&2; exit 1; }
export HARMONIC_BIN="$bin"
t="$repo/tools/bench/torch"
echo "# $(date -u +%FT%TZ) harmonic $("$bin" info | head -1); load $(cut -d' ' -f1-3 /proc/loadavg)"
section() { echo; echo "## $*"; }
run() { echo "\$ $*"; "$@"; }

section "op suite"
ROUNDS=5 run bash "$t/compare_bench.sh" 1 2
section "GPT step (torch: materialised softmax, Fourier composition)"
ROUNDS=1 REPEAT=3 run bash "$t/compare_gpt.sh" 1 2
section "GPT step, torch softmax through F.scaled_dot_product_attention"
for n in 1 2; do
  OMP_NUM_THREADS=$n MKL_NUM_THREADS=$n OPENBLAS_NUM_THREADS=$n run "$py" "$t/bench_gpt_torch.py" --threads $n \
    --repeat 2 --warmup 1 --case softmax --sdpa
done
section "Chronos T5"
ROUNDS=3 REPEAT=3 run bash "$t/compare_chronos.sh" 1 2
section "Decision Transformer step"
ROUNDS=2 REPEAT=3 run bash "$t/compare_dt.sh" 1 2
for n in 1 2; do
  export OMP_NUM_THREADS=$n MKL_NUM_THREADS=$n OPENBLAS_NUM_THREADS=$n
  section "recurrent layers, $n thread(s)"
  for c in lstm_pixel lstm_text gru_pixel gru_text rnn_pixel rnn_text; do
    run "$bin" bench --recurrent --case $c --threads $n --repeat 3 --warmup 1
    run "$py" "$t/bench_recurrent_torch.py" --case $c --threads $n --reps 3 --warmup 1
  done
  section "Fourier operators, $n thread(s)"
  run "$bin" bench --fourier --case fourier_head_log_pmf --threads $n
  run "$py" "$t/bench_fourier_torch.py" --threads $n
  run /usr/bin/time -f "maxrss_kb %M" "$bin" bench --fourier --case fourier_attention --threads $n --repeat 5
  run /usr/bin/time -f "maxrss_kb %M" "$py" "$t/bench_fourier_attention_torch.py" 8 8 256 16 5 $n
  run "$bin" bench --fourier --case fru --threads $n --repeat 3 --warmup 1
  run "$py" "$t/bench_fru_torch.py" --threads $n --reps 2
  run "$bin" bench --fourier --case fru_all_steps --threads $n --repeat 3 --warmup 1
  run "$py" "$t/bench_fru_torch.py" --threads $n --reps 2 --all-steps
  section "toy study step, $n thread(s)"
  run "$bin" bench --toy --threads $n
  run "$py" "$t/bench_toy_torch.py" --threads $n
  section "FFT, $n thread(s)"
  run "$py" "$t/bench_fft_torch.py" --compare "$bin" --threads $n --rounds 3 --repeat 20
done
echo; echo "# $(date -u +%FT%TZ) done; load $(cut -d' ' -f1-3 /proc/loadavg)"
