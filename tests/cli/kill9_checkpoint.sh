#!/usr/bin/env bash
# kill -9 at random moments of `harmonic train mlp-spirals` checkpointing every step:
# after each kill checkpoint_last.safetensors must load (`harmonic eval`) at a step no earlier
# than before, and the next trial continues it with --resume (which removes the temporary a kill
# during a checkpoint write leaves). Then the run is resumed to a fixed end and its per-step
# losses, gradient norms and evaluations must equal an uninterrupted run's bit for bit.
#   usage: kill9_checkpoint.sh path/to/harmonic scratch-dir [trials (20)] [random seed (16)]
# ctest runs 4 trials; README "Faults" has the 20-trial result and its command.
set -euo pipefail
harmonic=$1
dir=$2
trials=${3:-20}
RANDOM=${4:-16}
rm -rf "$dir"
mkdir -p "$dir"
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
run=$dir/run
config=(--set trainer.checkpoint_every=1 --set trainer.log_every=1 --set trainer.eval_every=10)
last=$run/checkpoint_last.safetensors
step_of() { sed -n 's/.* at step \([0-9]*\) .*/\1/p' <<<"$1" | head -1; }

prev=0 advanced=0 torn=0
for ((t = 1; t <= trials; ++t)); do
  if [[ $t -eq 1 ]]; then
    "$harmonic" train mlp-spirals --out "$run" "${config[@]}" --set trainer.epochs=100000 >>"$dir/train.log" 2>&1 &
    pid=$!
    until [[ -f $last ]]; do sleep 0.05; done  # the first kill needs a checkpoint to test
  else
    "$harmonic" train mlp-spirals --out "$run" --resume >>"$dir/train.log" 2>&1 &
    pid=$!
  fi
  ms=$((200 + RANDOM % 1800))
  sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null && { echo "trial $t: the run ended before the kill" >&2; exit 1; }
  compgen -G "$last.tmp.*" >/dev/null && torn=$((torn + 1))
  out=$("$harmonic" eval --out "$run" 2>&1) || { echo "trial $t: checkpoint_last does not load: $out" >&2; exit 1; }
  step=$(step_of "$out")
  [[ -n $step && $step -ge $prev ]] || { echo "trial $t: step '$step' after $prev: $out" >&2; exit 1; }
  [[ $step -gt $prev ]] && advanced=$((advanced + 1))
  echo "trial $t: killed after $ms ms; checkpoint_last loads at step $step"
  prev=$step
done

# Finish the run 5 steps past the last checkpoint; an uninterrupted run must log the same numbers.
end=$((prev + 5))
"$harmonic" train mlp-spirals --out "$run" --resume --set trainer.epochs=$end >"$dir/finish.log" 2>&1
grep -q "resuming" "$dir/finish.log" || { cat "$dir/finish.log" >&2; exit 1; }
"$harmonic" train mlp-spirals --out "$dir/reference" "${config[@]}" --set trainer.epochs=$end >"$dir/reference.log" 2>&1
strip() { sed -E 's/,"(time|items_per_s|elapsed|seconds)":[^,}]*//g' "$1"; }
diff <(strip "$run/metrics.jsonl") <(strip "$dir/reference/metrics.jsonl") >/dev/null ||
  { echo "the resumed run's metrics differ from an uninterrupted run's:" >&2; diff <(strip "$run/metrics.jsonl") <(strip "$dir/reference/metrics.jsonl") | head >&2; exit 1; }
[[ $(wc -l <"$run/metrics.jsonl") -ge $end ]] || { echo "metrics.jsonl has fewer lines than steps" >&2; exit 1; }
echo "$trials kills (random moments 0.2-2 s after start; $advanced while training had advanced the checkpoint," \
  "$torn mid-write leaving a temporary): checkpoint_last loaded every time, --resume continued every time," \
  "and the run finished at step $end with metrics.jsonl equal to an uninterrupted run's ($(wc -l <"$run/metrics.jsonl") lines)"
