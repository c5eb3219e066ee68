#!/usr/bin/env bash
# The GPU check, one command on a GPU machine (H100/H200, 16 cores, nvcc, compute-sanitizer,
# PyTorch 2.x, no network), from the repository root, with .gpu/ made by
# tools/bench/gpu/gpu_bundle.sh on a CPU machine. In order of importance, each step under its own
# time limit and a deadline (GPU_CHECK_SECONDS, 540) after which no step starts, so the whole fits in
# about 9 minutes:
#   1. the [cuda] tests on the device (every op against the CPU; every registered task trains,
#      evaluates, checkpoints and resumes on cuda:0; every study's first quick run on cuda:0)
#   2. the tiled attention kernels' check (tools/bench/gpu/flash_check.sh), when present
#   3. the 12-layer d768 GPT step (N 1024, B 8): Harmonic's profile and PyTorch's step
#   4. every task's smoke run on cuda and on the CPU: ms/step from the profiler
#   5. compute-sanitizer memcheck over small task runs on cuda
#   6. the op benchmarks against PyTorch on the same GPU
# Ends with a summary; the full log is $OUT/gpu_check.log when OUT is set (else /tmp).
#
#   bash tools/bench/gpu/gpu_check.sh
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$repo"
out="${OUT:-/tmp}"
log="$out/gpu_check.log"
: >"$log"
hm=/tmp/hm
summary=()
deadline=${GPU_CHECK_SECONDS:-540}  # no step starts after this many seconds
late() { if ((SECONDS > deadline)); then note "skipped (deadline): $1"; return 0; fi; return 1; }
note() { summary+=("$1"); echo "== $1" | tee -a "$log"; }
step() { echo; echo "### $* (at $SECONDS s)" | tee -a "$log"; }

step "setup"
rm -rf "$hm" && mkdir -p "$hm"
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .gpu/harmonic-gpu.tar.xz "$hm" ||
  { echo "no .gpu bundle"; exit 1; }
cudnn="$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)/lib"
libs="$hm/lib:/usr/local/cuda/lib64:$cudnn"
export PATH="/usr/local/cuda/bin:$PATH"
export HARMONIC_DATA_DIR="$hm/cache" HARMONIC_FASHION_MNIST_DIR="$repo/.gpu/fashion-mnist" OMP_WAIT_POLICY=passive
# The programs find the bundle's libraries through wrappers, so python and the CUDA tools keep
# their own.
for prog in harmonic harmonic_tests; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' "$libs" "$hm/bin/$prog" >"$hm/$prog"
  chmod +x "$hm/$prog"
done
# The tests read reference files under the source path they were built in.
src="$(cat "$hm/source_dir")"
[[ -n "$src" && ! -e "$src" ]] && mkdir -p "$(dirname "$src")" && ln -s "$repo" "$src"
H="$hm/harmonic" T="$hm/harmonic_tests"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader | tee -a "$log"
"$H" info 2>&1 | grep -iE "cuda|blas|threads|version" | tee -a "$log"
note "device: $(nvidia-smi --query-gpu=name --format=csv,noheader), $(nproc) CPU cores, $(date -u +%F)"

step "1. [cuda] tests on the device"
start=$SECONDS
timeout 170 "$T" -tc='*cuda*' >"$out/cuda_tests.log" 2>&1
rc=$?
grep -E "ERROR|FAILED|ran on cuda|step-3 loss|allocations after" "$out/cuda_tests.log" | head -60 | tee -a "$log"
note "[cuda] tests (exit $rc): $(grep -E '^\[doctest\] (test cases|assertions)' "$out/cuda_tests.log" | tr '\n' ' ') in $((SECONDS - start)) s"

step "2. tiled attention check"
if [[ -f tools/bench/gpu/flash_check.sh ]] && ! late "flash_check"; then
  HARMONIC_BIN="$H" HARMONIC_TESTS="$T" OUT=/tmp/flash timeout 170 bash tools/bench/gpu/flash_check.sh >"$out/flash_check.log" 2>&1
  note "flash_check exit $?"
  tail -45 "$out/flash_check.log" | tee -a "$log"
fi

step "3. the 12-layer d768 GPT step (N 1024, B 8, vocabulary 8192)"
gpt=(--set n_layer=12 --set n_embd=768 --set n_head=12 --set n_inner=3072 --set block_size=1024 --set batch_size=8
  --set vocab_size=8192 --set eval_tokens=8192 --set trainer.steps=5 --set trainer.eval_every=0 --set trainer.warmup_steps=0)
for prec in fp32 bf16; do
  late "gpt $prec" && break
  o=$(timeout 75 "$H" train kjv-lm --device cuda "${gpt[@]}" --precision "$prec" --profile 3 --out "/tmp/gpt-$prec" --force 2>&1)
  echo "$o" | grep -A24 "^profile:" | tee -a "$log"
  note "harmonic gpt 12x768 $prec: $(echo "$o" | grep -m1 -oE '[0-9.]+ ms/step' || echo FAILED)"
done
for flags in "--sdpa" "" "--sdpa --bf16"; do
  late "torch gpt $flags" && break
  r=$(timeout 40 python3 tools/bench/torch/bench_gpt_torch.py --device cuda --size gpt2 --case softmax --repeat 5 $flags 2>&1 | tail -1)
  echo "$r" | tee -a "$log"
  note "torch gpt 12x768 ${flags:-materialised}: $(echo "$r" | grep -oE '[0-9.]+ ms/step' || echo FAILED)"
done

step "4. every task: smoke run, ms/step (profiler, 10 steps after a warm-up step)"
printf "%-16s %12s %12s\n" task "cuda ms/step" "cpu ms/step" | tee -a "$log"
for task in $("$H" train --list | grep -E '^[a-z]' | awk '{print $1}'); do
  late "task $task" && break
  row=()
  for dev in cuda cpu; do
    o=$(timeout 30 "$H" train "$task" --smoke --device "$dev" --set trainer.steps=11 --set trainer.eval_every=0 \
      --profile 10 --out "/tmp/run-$task-$dev" --force 2>&1)
    echo "$o" >>"$log"
    ms=$(echo "$o" | grep -m1 -oE '\(([0-9.]+) ms/step\)' | grep -oE '[0-9.]+')
    row+=("${ms:-FAILED}")
  done
  line=$(printf "%-16s %12s %12s" "$task" "${row[0]}" "${row[1]}")
  echo "$line" | tee -a "$log"
  summary+=("task $line")
done

step "5. compute-sanitizer memcheck over task runs on cuda"
for task in fourier-toy kjv-lm; do
  late "memcheck $task" && break
  start=$SECONDS
  LD_LIBRARY_PATH="$libs" timeout 45 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 3 \
    "$hm/bin/harmonic" train "$task" --smoke \
    --device cuda --set trainer.steps=2 --out "/tmp/san-$task" --force >"/tmp/san-$task.log" 2>&1
  rc=$?
  note "memcheck $task: exit $rc ($(grep -m1 -oE 'ERROR SUMMARY: [0-9]+ errors?' "/tmp/san-$task.log" || tail -1 "/tmp/san-$task.log")) in $((SECONDS - start)) s"
done

step "6. op benchmarks against PyTorch $(python3 -c 'import torch; print(torch.__version__)') on the same GPU"
late "op benchmarks" || timeout 60 python3 tools/bench/torch/bench_torch.py --compare "$H" --device cuda --rounds 1 --repeat 20 2>&1 | tee -a "$log"

echo
echo "=================== summary (at $SECONDS s)"
printf '%s\n' "${summary[@]}"
