#!/usr/bin/env bash
# Does a second thread ever make a step slower? The small paper-model steps (the Chronos T5's
# training steps and forecast, the Decision Transformer step, the toy study's head steps, the
# small GPT step) in Harmonic and in PyTorch, interleaved at 1 and 2 threads (or the counts
# given), ROUNDS rounds (default 3). At the end, per case, the median over rounds of each
# framework's time at each count, Harmonic's time at 2 threads over its time at 1 (> 1.00: the
# second thread made it slower, flagged "SLOWER") and torch/Harmonic at each count.
#
#   tools/bench/torch/compare_threads.sh                 # 1 and 2 threads, 3 rounds
#   ROUNDS=5 REPEAT=7 HARMONIC_BIN=build/harmonic tools/bench/torch/compare_threads.sh 1 2
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
default_threads="1 2"
source "$repo/tools/bench/torch/compare_setup.sh" "$@"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
repeat="${REPEAT:-5}"

logged() { "$@" 2>&1 | while IFS= read -r line; do printf '%s\n' "$line"; printf '%s %s\n' "$round" "$line" >>"$log"; done; }
peer() { local n="$1"; shift; logged env OPENBLAS_NUM_THREADS="$n" OMP_NUM_THREADS="$n" "$python" "$@" --threads "$n"; }

echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "${ROUNDS:-3}"); do
  for n in "${threads[@]}"; do
    echo "# round $round, threads $n"
    logged "$bin" bench --chronos --case train --case train_quick --case forecast --threads "$n" --repeat "$repeat" --warmup 1
    peer "$n" "$repo/tools/bench/torch/bench_chronos_torch.py" --repeat "$repeat" --warmup 1
    logged "$bin" bench --dt --threads "$n" --repeat 3 --warmup 1
    peer "$n" "$repo/tools/bench/torch/bench_dt_torch.py" --repeat 3 --warmup 1
    logged "$bin" bench --toy --threads "$n"
    peer "$n" "$repo/tools/bench/torch/bench_toy_torch.py" --form real
    logged "$bin" bench --gpt --case softmax --threads "$n" --repeat 3 --warmup 1
    peer "$n" "$repo/tools/bench/torch/bench_gpt_torch.py" --case softmax --repeat 3 --warmup 1
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

"$python" - "$log" <<'EOF'
import re, statistics, sys
rows = {}  # (framework, case, threads) -> [time per round]
for line in open(sys.argv[1]):
    m = re.match(r"\d+ (torch )?(?:[\d.]+\+\S+ )?(chronos|dt|toy|gpt) +(\w+) .*?threads=(\d+)\s+(?:train step\s+)?([\d.]+) (ms|us)", line)
    if not m:  # the toy peer's lines name the head only: "torch gmm ... threads=1  train step  878.9 us"
        m = re.match(r"\d+ (torch )()(linear|gmm|fourier\w*) .*?threads=(\d+)\s+train step\s+([\d.]+) (us)", line)
    if m:
        key = ("torch" if m[1] else "harmonic", f"{m[2] or 'toy'} {m[3]}", int(m[4]))
        rows.setdefault(key, []).append(float(m[5]) / (1000 if m[6] == "us" else 1))
cases = sorted({c for _, c, _ in rows}, key=lambda c: (c.split()[0], c))
counts = sorted({n for _, _, n in rows})
med = lambda f, c, n: statistics.median(rows[(f, c, n)]) if (f, c, n) in rows else float("nan")
print(f"{'case':<20}" + "".join(f"  H {n}t ms   torch {n}t ms  t/H" for n in counts) + "   H 2t/1t")
for c in cases:
    line = f"{c:<20}"
    for n in counts:
        h, t = med("harmonic", c, n), med("torch", c, n)
        line += f"  {h:9.3f}  {t:10.3f}  {t / h:4.2f}"
    if 1 in counts and 2 in counts:
        r = med("harmonic", c, 2) / med("harmonic", c, 1)
        line += f"   {r:5.2f}" + ("  SLOWER" if r > 1.0 else "")
    print(line)
EOF
