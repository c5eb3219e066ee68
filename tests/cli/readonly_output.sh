#!/usr/bin/env bash
# A run directory that turns read-only: a run checkpointing every step stops with exit
# 1 and an error naming the checkpoint (the temporary's open or the rename failed) and
# "Permission denied"; the checkpoint it had written stays and loads; --resume into the still
# read-only directory is refused the same way and leaves the checkpoint byte-identical; made
# writable again, --resume continues and removes a temporary the failed write had to leave.
# Root ignores a read-only mode, so as root the runs go through setpriv as nobody.
#   usage: readonly_output.sh path/to/harmonic scratch-dir
set -euo pipefail
harmonic=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
as_user=()
if [[ $(id -u) -eq 0 ]]; then
  command -v setpriv >/dev/null || { echo "skipped: running as root without setpriv"; exit 0; }
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chown 65534:65534 "$dir"
  # nobody must reach the binary and the scratch folder (a checkout under a mode-700 folder such
  # as mktemp -d's hides them): else say so, rather than wait for a run that cannot start.
  "${as_user[@]}" test -x "$harmonic" -a -w "$dir" ||
    { echo "skipped: user nobody cannot run $harmonic or write $dir (a parent folder is not searchable)"; exit 0; }
fi
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
run=$dir/run
last=$run/checkpoint_last.safetensors
fail() { echo "$*" >&2; exit 1; }

"${as_user[@]}" "$harmonic" train mlp-spirals --out "$run" --set trainer.checkpoint_every=1 \
  --set trainer.epochs=100000 >"$dir/live.log" 2>&1 &
pid=$!
until [[ -f $last ]]; do
  kill -0 "$pid" 2>/dev/null || fail "the run ended before its first checkpoint: $(tail -3 "$dir/live.log")"
  sleep 0.05
done
sleep 0.3
chmod 555 "$run"
set +e
wait "$pid"
status=$?
set -e
[[ $status -eq 1 ]] || fail "exit $status, expected 1: $(tail -3 "$dir/live.log")"
grep -q "error: .*checkpoint_last.safetensors.*Permission denied" "$dir/live.log" ||
  fail "no clear error: $(tail -3 "$dir/live.log")"
sum=$(sha256sum <"$last")

set +e
out=$("${as_user[@]}" "$harmonic" train mlp-spirals --out "$run" --resume 2>&1)
status=$?
set -e
[[ $status -eq 1 && $out == *"Permission denied"* && $out == *"$run/"* ]] || fail "resume read-only: exit $status: $out"
[[ $(sha256sum <"$last") == "$sum" ]] || fail "the checkpoint changed"

chmod 755 "$run"
step=$("$harmonic" eval --out "$run" | sed -n 's/.* at step \([0-9]*\) .*/\1/p')
[[ $step -gt 0 ]] || fail "checkpoint_last does not load"
"${as_user[@]}" "$harmonic" train mlp-spirals --out "$run" --resume --set trainer.epochs=$((step + 3)) >"$dir/resume.log" 2>&1
grep -q "resuming" "$dir/resume.log" || fail "$(cat "$dir/resume.log")"
# a temporary the read-only directory kept (its unlink failed too) is gone after the resume
[[ -z $(compgen -G "$last.tmp.*") ]] || fail "a temporary survived the resume: $(ls "$run")"
echo "read-only run directory: $(grep '^error' "$dir/live.log"); the checkpoint of step $step stayed, loaded and resumed to step $((step + 3))"
