#!/usr/bin/env bash
# The hand-written CUDA kernels (cuda/README.md) on a GPU machine, from the repository root, with
# .gpu/ made by tools/bench/gpu/gpu_bundle.sh:
#   1. every [cuda] test: every task trains, evaluates, checkpoints and resumes on cuda:0, its
#      step-3 loss against the CPU's
#   2. each task's smoke run on cuda by default and with HARMONIC_DETERMINISTIC=1
#      HARMONIC_DEFER_INDEX_CHECKS=0 (fixed-order sums, index checks at each op): ms/step from the
#      profiler
#   3. compute-sanitizer memcheck, racecheck (shared-memory hazards) and synccheck (barriers) over
#      smoke runs that launch each of them: the FRU's block per row, the fused LSTM and tanh-RNN
#      recurrences, the Fourier head's lanes per row, the tiled Fourier attention and the index
#      checks left on the device
#   4. the FRU tasks at their own sizes: ms/step on cuda and on the CPU
# Each step under its own time limit, no step after KERNELS_CHECK_SECONDS (330). Logs in $OUT
# (else /tmp): kernels_check.log, kernels_tests.log.
#
#   bash tools/bench/gpu/kernels_check.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
out="${OUT:-/tmp}"
log="$out/kernels_check.log"
: >"$log"
summary=()
deadline=${KERNELS_CHECK_SECONDS:-330}
late() { if ((SECONDS > deadline)); then note "skipped (deadline): $1"; return 0; fi; return 1; }
note() { summary+=("$1"); echo "== $1" | tee -a "$log"; }
step() { echo; echo "### $* (at $SECONDS s)" | tee -a "$log"; }

step "setup"
source tools/bench/gpu/gpu_setup.sh
note "device: $(nvidia-smi --query-gpu=name --format=csv,noheader), $(date -u +%F)"

step "1. [cuda] tests"
start=$SECONDS
timeout 170 "$T" -tc='*cuda*' >"$out/kernels_tests.log" 2>&1
rc=$?
grep -E "ERROR|FAILED|step-3 loss" "$out/kernels_tests.log" | head -60 | tee -a "$log"
note "[cuda] tests (exit $rc): $(grep -E '^\[doctest\] (test cases|assertions)' "$out/kernels_tests.log" | tr '\n' ' ') in $((SECONDS - start)) s"

step "2. every task's smoke run on cuda, deterministic with checks at each op, and by default: ms/step (profiler, 10 steps after a warm-up step)"
printf "%-16s %10s %10s\n" task "determ." "default" | tee -a "$log"
for task in $("$H" train --list | grep -E '^[a-z]' | awk '{print $1}'); do
  late "task $task" && break
  row=()
  for flag in 0 1; do
    row+=("$(HARMONIC_DETERMINISTIC=$((1 - flag)) HARMONIC_DEFER_INDEX_CHECKS=$flag ms_per_step "$task" "/tmp/nk-run-$task" --smoke --device cuda)")
  done
  line=$(printf "%-16s %10s %10s" "$task" "${row[0]}" "${row[1]}")
  echo "$line" | tee -a "$log"
  summary+=("task $line")
done

step "3. compute-sanitizer over smoke runs"
# name task settings...
cases=(
  "fru fru-synthetic"
  "lstm fru-synthetic --set model=lstm"
  "rnn fru-synthetic --set model=rnn"
  "fru-image fru-image"
  "fourier-head fourier-toy"
  "fourier-attention kjv-lm --set attention=fourier"
  "chronos chronos"
)
for tool in memcheck racecheck synccheck; do
  for c in "${cases[@]}"; do
    read -r name task settings <<<"$c"
    late "$tool $name" && break 2
    start=$SECONDS
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH="$libs" timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$hm/bin/harmonic" train "$task" --smoke --device cuda --set trainer.steps=2 $settings \
      --out "/tmp/nk-$tool-$name" --force >"/tmp/nk-$tool-$name.log" 2>&1
    rc=$?
    note "$tool $name: exit $rc ($(grep -m1 -oE '(ERROR|RACECHECK|SYNCCHECK) SUMMARY: [0-9]+ (errors?|hazards?)' "/tmp/nk-$tool-$name.log" ||
      tail -1 "/tmp/nk-$tool-$name.log")) in $((SECONDS - start)) s"
  done
done

step "4. the FRU tasks at their own (not smoke) sizes: ms/step on cuda and on the CPU"
for task in fru-synthetic fru-image fru-text; do
  for dev in cuda cpu; do
    late "$task $dev" && break 2
    ms=$(MS_PER_STEP_TIMEOUT=45 ms_per_step "$task" "/tmp/nk-full-$task" --device "$dev")
    note "$task on $dev: $([[ $ms == FAILED ]] && echo "no time (exit, or over 45 s)" || echo "$ms ms/step")"
  done
done

echo
echo "=================== summary (at $SECONDS s)"
printf '%s\n' "${summary[@]}" | tee -a "$log"
