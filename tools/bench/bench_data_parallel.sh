#!/usr/bin/env bash
# Data-parallel throughput on this machine: steps/s of fashion-mlp and the FourierFormer
# language model (kjv-lm, a small config with Fourier attention) on 1 rank and on 2 ranks
# (mpirun, one OpenMP thread per rank, the same global batch), with the gradient all-reduce
# overlapped with backward and not; then the all-reduce bandwidth for 1..64 MiB.
#   bash tools/bench/bench_data_parallel.sh [build/harmonic] [steps]
# Steps/s are measured between the metrics lines at steps 10 and steps-10 (no start-up, no final
# evaluation). Needs dataset-fashion-mnist and bible-kjv (bash .ci/install-data).
set -euo pipefail
hm=${1:-build/harmonic}
steps=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
mpi() { bash "$here/../../tests/distributed/mpirun.sh" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# steps/s between the lines of step 10 and step steps-10 of a metrics.jsonl
rate() {
  python3 - "$1" "$steps" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
steps = int(sys.argv[2])
t = {l["step"]: l["time"] for l in lines}
print(f"{(steps - 20) / (t[steps - 10] - t[10]):.2f}")
PY
}

declare -A task_args
task_args[fashion-mlp]="--set batch_size=128"
task_args[kjv-lm]="--set attention=fourier --set n_layer=2 --set n_embd=64 --set n_head=4 --set n_inner=256 \
--set block_size=64 --set batch_size=16 --set eval_tokens=1024 --set trainer.warmup_steps=0 --set trainer.eval_every=0"

printf "%-12s %-26s %10s\n" task run steps/s
for task in fashion-mlp kjv-lm; do
  common="$task ${task_args[$task]} --set trainer.steps=$steps --set trainer.log_every=10 --threads 1"
  # shellcheck disable=SC2086
  OMP_NUM_THREADS=1 "$hm" train $common --out "$work/$task-1" --force >/dev/null
  printf "%-12s %-26s %10s\n" "$task" "1 rank" "$(rate "$work/$task-1/metrics.jsonl")"
  for overlap in true false; do
    # shellcheck disable=SC2086
    mpi 2 "$hm" train $common --set trainer.ddp_overlap=$overlap --out "$work/$task-2-$overlap" --force >/dev/null
    printf "%-12s %-26s %10s\n" "$task" "2 ranks, overlap $overlap" "$(rate "$work/$task-2-$overlap/metrics.jsonl")"
  done
done
echo
mpi 2 "$hm" bench --allreduce --repeat 20
