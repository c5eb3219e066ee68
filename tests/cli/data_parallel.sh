#!/usr/bin/env bash
# Data-parallel training through the real command under mpirun (2 ranks on this machine):
#   1. `mpirun -np 2 harmonic train`: one writer (rank 0), its log and metrics once;
#   2. the 2-rank checkpoint resumed by a plain 1-process `harmonic train --resume`;
#   3. a rank that raises stops the job within the timeout, with a message naming it;
#   4. ranks started with different configs are refused at the start, naming the rank.
# Usage: data_parallel.sh HARMONIC_BINARY WORK_DIR
set -uo pipefail
hm=$1
work=$2
launcher=$(cd "$(dirname "$0")/../distributed" && pwd)/mpirun.sh
mpi() { bash "$launcher" "$@"; }
fail() {
  echo "FAIL: $*"
  for f in "$work"/*.log; do echo "--- $f"; cat "$f"; done
  exit 1
}
rm -rf "$work"
mkdir -p "$work"
spirals=(mlp-spirals --set points_per_class=70 --set batch_size=25 --set trainer.log_every=5 --set trainer.eval_every=0)

# 1. Two ranks, 20 steps.
mpi 2 "$hm" train "${spirals[@]}" --set trainer.steps=20 --out "$work/run" >"$work/two.log" 2>&1 ||
  fail "2-rank training exited with $?"
grep -q "data parallel: 2 ranks (mpi)" "$work/two.log" || fail "no data-parallel line"
[[ $(grep -o "step 20/20" "$work/two.log" | wc -l) == 1 ]] || fail "the progress was not printed once (rank 0 alone)"
[[ $(grep -c '"step"' "$work/run/metrics.jsonl") == 4 ]] || fail "metrics.jsonl should hold steps 5..20 once"
[[ -f "$work/run/checkpoint_last.safetensors" ]] || fail "no checkpoint"

# 2. The same run continued by one process (no mpirun), to 30 steps.
"$hm" train mlp-spirals --resume --out "$work/run" --set trainer.steps=30 >"$work/one.log" 2>&1 ||
  fail "1-process resume exited with $?"
grep -q "resuming mlp-spirals: 30 steps.*from step 20" "$work/one.log" || fail "did not resume from step 20"
[[ $(grep -c '"step"' "$work/run/metrics.jsonl") == 6 ]] || fail "metrics.jsonl should hold steps 5..30"

# 3. Rank 1 raises at step 3: the job ends (non-zero) well within the 20 s collective timeout.
start=$(date +%s)
HARMONIC_TEST_RAISE_AT=1:3 timeout 120 bash "$launcher" 2 -x HARMONIC_TEST_RAISE_AT "$hm" train "${spirals[@]}" \
  --set trainer.steps=50 --set trainer.dist_timeout=20 --out "$work/raise" >"$work/raise.log" 2>&1
code=$?
elapsed=$(($(date +%s) - start))
((code != 0 && code != 124)) || fail "a raising rank: exit code $code (124: the job hung until timeout(1))"
grep -q "error on rank 1 of 2: .*injected fault at step 3" "$work/raise.log" || fail "the message does not name rank 1"
((elapsed < 20)) || fail "the job took ${elapsed} s to stop"
echo "a raising rank stopped the job in ${elapsed} s"

# 4. Different configs on the two ranks (MPMD launch): refused before training.
mpi 1 "$hm" train "${spirals[@]}" --set lr=0.1 --out "$work/mismatch" : \
  -np 1 "$hm" train "${spirals[@]}" --set lr=0.2 --out "$work/mismatch" >"$work/mismatch.log" 2>&1 &&
  fail "mismatched configs were accepted"
grep -q "resolved config (with --out and --resume) differs across ranks: rank(s) 1 differ from rank 0" \
  "$work/mismatch.log" || fail "the mismatch message does not name rank 1"
[[ ! -f "$work/mismatch/metrics.jsonl" ]] || fail "a mismatched job started training"
echo "data-parallel CLI checks passed"
