#!/usr/bin/env bash
# Data-parallel throughput on this machine: steps/s of fashion-mlp and the FourierFormer
# language model (kjv-lm, a small config with Fourier attention) on 1 rank and on 2 ranks
# (mpirun, one OpenMP thread per rank, the same global batch), with the gradient all-reduce
# overlapped with backward and not; then the all-reduce bandwidth for 1..64 MiB.
#   bash tools/bench/bench_data_parallel.sh [build/harmonic] [steps] [repeats]
# Steps/s are measured between the metrics lines at steps 10 and steps-10 (no start-up, no final
# evaluation); each run is repeated and the median and the range are printed (on a shared machine
# a rank waiting for a descheduled peer makes single runs vary a lot). MPI settings come from
# tests/distributed/mpirun.sh (OMPI_MCA_* variables override them). Needs dataset-fashion-mnist
# and bible-kjv (bash .ci/install-data).
set -euo pipefail
hm=${1:-build/harmonic}
steps=${2:-60}
repeats=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
mpi() { bash "$here/../../tests/distributed/mpirun.sh" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# median (min-max) of the steps/s between the lines of step 10 and step steps-10 of metrics files
rate() {
  python3 - "$steps" "$@" <<'PY'
import json, statistics, sys
steps = int(sys.argv[1])
rates = []
for path in sys.argv[2:]:
    t = {l["step"]: l["time"] for l in map(json.loads, filter(str.strip, open(path)))}
    rates.append((steps - 20) / (t[steps - 10] - t[10]))
print(f"{statistics.median(rates):8.2f} ({min(rates):.2f}-{max(rates):.2f})")
PY
}

declare -A task_args
task_args[fashion-mlp]="--set batch_size=128"
task_args[kjv-lm]="--set attention=fourier --set n_layer=2 --set n_embd=64 --set n_head=4 --set n_inner=256 \
--set block_size=64 --set batch_size=16 --set eval_tokens=1024 --set trainer.warmup_steps=0 --set trainer.eval_every=0"

printf "%-12s %-26s %s\n" task run "steps/s median (range) of $repeats"
for task in fashion-mlp kjv-lm; do
  common="$task ${task_args[$task]} --set trainer.steps=$steps --set trainer.log_every=10 --threads 1"
  for run in "1 rank" "2 ranks, overlap true" "2 ranks, overlap false"; do
    files=()
    for ((i = 0; i < repeats; i++)); do
      out="$work/$task-${run// /_}-$i"
      if [[ $run == "1 rank" ]]; then
        # shellcheck disable=SC2086
        OMP_NUM_THREADS=1 "$hm" train $common --out "$out" --force >/dev/null
      else
        # shellcheck disable=SC2086
        mpi 2 "$hm" train $common --set trainer.ddp_overlap=${run##* } --out "$out" --force >/dev/null
      fi
      files+=("$out/metrics.jsonl")
    done
    printf "%-12s %-26s %s\n" "$task" "$run" "$(rate "${files[@]}")"
  done
done
echo
mpi 2 "$hm" bench --allreduce --repeat 20
