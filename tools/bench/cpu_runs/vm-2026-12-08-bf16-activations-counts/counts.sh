#!/usr/bin/env bash
# Kernel calls per training step on the emulated CUDA device under each precision (fp32, bf16,
# bf16-activations): each task's smoke config, three profiled steps after a warm-up, no evaluation
# inside the profile; prints one table row per task and precision (counts.md).
# Usage: bash tools/bench/cpu_runs/vm-2026-12-08-bf16-activations-counts/counts.sh [HARMONIC_BIN]
set -euo pipefail
bin="${1:-build/harmonic}"
work="$(mktemp -d)"
echo "| task | precision | kernel calls / step | copy_ / step | gemm / step | alloc / step |"
echo "|---|---|---|---|---|---|"
for t in arcade-dt kjv-lm chronos fashion-vit; do
  for p in fp32 bf16 bf16-activations; do
    HARMONIC_EMULATE_CUDA=1 "$bin" train "$t" --smoke --device cuda --steps 5 --profile 3 --precision "$p" \
      --set trainer.eval_every=0 --out "$work/$t-$p" --force >/dev/null 2>&1
    python3 - "$work/$t-$p/profile.json" "$t" "$p" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
steps = d["steps"]
calls = {k["name"]: k["calls"] for k in d["kernels"] if k["device"] == "cuda:0"}
kernels = sum(v for k, v in calls.items() if k not in ("alloc", "free"))
per = lambda v: f"{v / steps:.1f}".rstrip("0").rstrip(".")
print(f"| {sys.argv[2]} | {sys.argv[3]} | {per(kernels)} | {per(calls.get('copy_', 0))} | "
      f"{per(calls.get('gemm', 0))} | {per(calls.get('alloc', 0))} |")
PY
  done
done
rm -rf "$work"
