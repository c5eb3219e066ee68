#!/usr/bin/env bash
# Harmonic vs PyTorch on the Chronos T5 (a training step of the task's default and the quick
# study's size, and a 20-path x 16-step forecast of 8 series), interleaved in one run, at each
# thread count given (default: 1 and 2), ROUNDS times (default 3):
#   harmonic bench --chronos                 (ms/step, tok/s; ms/forecast)
#   tools/bench/torch/bench_chronos_torch.py       (the same lines, prefixed "torch")
# After each round it prints torch ms / Harmonic ms per case (> 1: Harmonic is faster), and at
# the end the median ratio over the rounds, with the load average before and after.
#
#   tools/bench/torch/compare_chronos.sh                    # threads 1 and 2, 3 rounds
#   HARMONIC_BIN=build/harmonic ROUNDS=5 REPEAT=5 tools/bench/torch/compare_chronos.sh 1
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
default_threads="1 2"
source "$repo/tools/bench/torch/compare_setup.sh" "$@"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# Ratios of the lines in $log: per round (argument: the round) or, without one, the median over all rounds.
ratios() {
  "$python" - "$log" "$@" <<'EOF'
import re, statistics, sys
rows = {}  # (round, threads, case) -> {"harmonic": ms, "torch": ms}
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) (torch )?chronos (\S+) .* threads=(\d+)\s+([\d.]+) ms/", line)
    if m:
        rows.setdefault((int(m[1]), int(m[4]), m[3]), {})["torch" if m[2] else "harmonic"] = float(m[5])
only = int(sys.argv[2]) if len(sys.argv) > 2 else None
by_case = {}
for (rnd, n, case), t in sorted(rows.items()):
    if "torch" in t and "harmonic" in t and (only is None or rnd == only):
        by_case.setdefault((n, case), []).append((t["harmonic"], t["torch"]))
for (n, case), runs in sorted(by_case.items()):
    h, t = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    what = f"round {only}" if only is not None else f"median of {len(runs)}"
    print(f"  {what}: threads={n} {case:<12} harmonic {h:8.1f} ms  torch {t:8.1f} ms  "
          f"torch/harmonic {statistics.median(r[1] / r[0] for r in runs):5.2f}")
EOF
}

# Runs a command, printing its lines and logging them with the round in front.
logged() { "$@" | while IFS= read -r line; do printf '%s\n' "$line"; printf '%s %s\n' "$round" "$line" >>"$log"; done; }

echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "${ROUNDS:-3}"); do
  for n in "${threads[@]}"; do
    echo "# round $round, threads $n"
    logged "$bin" bench --chronos --threads "$n" --repeat "${REPEAT:-5}" --warmup 1
    logged env OPENBLAS_NUM_THREADS="$n" OMP_NUM_THREADS="$n" "$python" "$repo/tools/bench/torch/bench_chronos_torch.py" \
      --threads "$n" --repeat "${REPEAT:-5}" --warmup 1
  done
  ratios "$round"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
ratios
