#!/usr/bin/env bash
# The Chronos study's bin count, chosen on validation series: the full mode's linear d64 run
# (context 64, horizon 8, 32768 KernelSynth + 8192 TSMixup series of 160 points, 12000 steps)
# with 1024 and with 4096 tokens, each scored every 3000 steps on 128 validation KernelSynth
# series of a stream of their own (`validation_generated`), never on the study's held-out
# series. Two runs at a time, one thread each; writes OUT/summary.md.
#
#   bash tools/studies/chronos/bins_validation/run.sh OUT [extra --set overrides...]
# HARMONIC (default build/harmonic) may be set in the environment.
set -euo pipefail
out=${1:?usage: run.sh OUT [--set key=value ...]}
shift
harmonic=${HARMONIC:-build/harmonic}
mkdir -p "$out"
common=(--threads 1 --seed 1 --set context_length=64 --set horizon=8 --set series_length=160 --set series=32768
        --set mixup_series=8192 --set held_out_series=128 --set validation_generated=128 --set windows_per_series=4
        --set dropout=0 --set batch_size=32 --set trainer.steps=12000 --set trainer.eval_every=3000
        --set trainer.log_every=500)
for tokens in 1024 4096; do
  "$harmonic" train chronos --out "$out/tokens_$tokens" --force "${common[@]}" --set n_tokens=$tokens "$@" \
    > "$out/tokens_$tokens.log" 2>&1 &
done
wait
{
  echo "# Chronos study: the bin count on validation series"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
  echo "- command: bash tools/studies/chronos/bins_validation/run.sh OUT $*"
  echo
  echo "Validation: 128 KernelSynth series of their own stream, last 8 points, 20 paths; relative to"
  echo "seasonal naive with season 1 (< 1 better), and with each series' own kernel period (MASE period)."
  echo "The loss compares within one token count only (4096 tokens: + ln 4 against 1024 for the same density)."
  echo
  echo "| tokens | step | val loss | val MASE | val WQL | val MASE (period) | minutes |"
  echo "|---|---|---|---|---|---|---|"
  for tokens in 1024 4096; do
    python3 - "$out/tokens_$tokens/metrics.jsonl" "$tokens" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if "val_mase" in m:
        print(f"| {sys.argv[2]} | {m['step']} | {m['val_loss']:.3f} | {m['val_mase']:.4f} | {m['val_wql']:.4f} "
              f"| {m['val_mase_period']:.4f} | {m['time'] / 60:.1f} |")
PY
  done
} > "$out/summary.md"
cat "$out/summary.md"
