#!/usr/bin/env bash
# One Adam step over the parameter lists of three real models (the fashion-mlp task's MLP, the
# kjv-lm GPT, the Decision Transformer) in Harmonic (`harmonic bench --optimizer`: the
# multi-tensor kernel, one parallel region per step) and in PyTorch's three CPU Adams
# (foreach=False, foreach=True, fused=True), at 1 and 2 threads (or the counts given), ROUNDS
# rounds (default 3). At the end, per model and count, the median over rounds of each time and
# each torch time over Harmonic's (> 1: Harmonic is faster).
#
#   tools/bench/torch/compare_optimizer.sh                 # 1 and 2 threads, 3 rounds
#   ROUNDS=5 REPEAT=50 HARMONIC_BIN=build/harmonic tools/bench/torch/compare_optimizer.sh 1 2 4
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
default_threads="1 2"
source "$repo/tools/bench/torch/compare_setup.sh" "$@"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
repeat="${REPEAT:-20}"

echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "${ROUNDS:-3}"); do
  for n in "${threads[@]}"; do
    echo "# round $round, threads $n"
    out="$("$bin" bench --optimizer --threads "$n" --repeat "$repeat" --warmup 3)"
    grep -v '^optimizer-shapes' <<<"$out" | tee -a "$log"
    while read -r _ name shapes; do
      env OPENBLAS_NUM_THREADS="$n" OMP_NUM_THREADS="$n" "$python" "$repo/tools/bench/torch/bench_optimizer_torch.py" \
        --name "$name" --shapes "$shapes" --threads "$n" --repeat "$repeat" --warmup 3 | tee -a "$log"
    done < <(grep '^optimizer-shapes' <<<"$out")
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

"$python" - "$log" <<'PY'
import re, statistics, sys
rows = {}  # (model, impl, threads) -> [ms per round]
for line in open(sys.argv[1]):
    m = re.match(r"(torch \S+ )?optimizer (\w+)\s+adam\s+(\S+=\S+\s+)?.*?threads=(\d+)\s+step\s+([\d.]+) ms", line)
    if m:
        impl = m[3].strip() if m[1] else "harmonic"
        rows.setdefault((m[2], impl, int(m[4])), []).append(float(m[5]))
impls = ["harmonic", "foreach=False", "foreach=True", "fused=True"]
med = lambda k: statistics.median(rows[k]) if k in rows else float("nan")
print(f"{'model':<12} {'thr':>3}" + "".join(f"  {i:>14} ms" for i in impls) + "".join(f"  {i[:12]:>12}/H" for i in impls[1:]))
for model, n in sorted({(m, n) for m, _, n in rows}):
    h = med((model, "harmonic", n))
    line = f"{model:<12} {n:>3}" + "".join(f"  {med((model, i, n)):17.4f}" for i in impls)
    line += "".join(f"  {med((model, i, n)) / h:14.2f}" for i in impls[1:])
    print(line)
PY
