#!/usr/bin/env bash
# One run on a GPU machine for the tiled (flash) attention kernels: their [cuda] tests with
# HARMONIC_FLASH=1, the other sdpa and fourier_attention [cuda] tests (the tiled fourier_attention
# kernels run wherever they cover the case), compute-sanitizer
# memcheck and racecheck on the small flash case and on the tiled fourier cases,
# `harmonic bench --attention --device cuda` and the PyTorch peer, then one table.
# Expects an already built build/harmonic_tests and build/harmonic (CUDA build), run from the
# repository root; PYTHON (default python3) with torch for the peer; compute-sanitizer on PATH or
# in /usr/local/cuda/bin. Logs go to $OUT (or build/flash_check). Each step has a timeout, 345 s
# in all (most steps end far sooner), so the whole run stays under 6 minutes. Exit status: 1 if any test or sanitizer step failed.
#   tools/bench/gpu/flash_check.sh
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$repo"
tests="${HARMONIC_TESTS:-build/harmonic_tests}"
bin="${HARMONIC_BIN:-build/harmonic}"
python="${PYTHON:-python3}"
out="${OUT:-build/flash_check}"
mkdir -p "$out"
for exe in "$tests" "$bin"; do
  [[ -x "$exe" ]] || { echo "flash_check.sh: no executable $exe (build first)" >&2; exit 2; }
done
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
status=()  # "step: ok|FAILED (rc)" lines for the summary
fail=0

# step NAME TIMEOUT_S CMD...: runs CMD into $out/NAME.log, records the result.
step() {
  local name="$1" limit="$2"
  shift 2
  local t0=$SECONDS
  echo "== $name: $*" | tee "$out/$name.log"
  timeout "$limit" "$@" >>"$out/$name.log" 2>&1
  local rc=$?
  local line="$name: $([[ $rc -eq 0 ]] && echo ok || echo "FAILED (rc $rc$([[ $rc -eq 124 ]] && echo ', timed out'))") in $((SECONDS - t0)) s"
  status+=("$line")
  echo "$line"
  tail -n 3 "$out/$name.log"
  return $rc
}

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1
echo "GPU: $(cat "$out/gpu.txt")"

# 1. The flash tests: the device target runs the tiled kernels (the op and the slots), the host
#    twins run the same block code on the CPU.
step flash_tests 40 env HARMONIC_FLASH=1 HARMONIC_CUDA_SYNC=1 "$tests" \
  -tc="*tiled sdpa*,*sdpa tiles*,*sdpa path*,*path on a device*" || fail=1
# 2. The other attention [cuda] tests, with the tiled kernels on (Auto picks them where they
#    cover the case) and in the default configuration (composed where it fits).
step attention_tests_flash 25 env HARMONIC_FLASH=1 "$tests" \
  -tc="[cuda] scaled_dot_product_attention*,[cuda] a biased attention*,[cuda] fourier_attention*" || fail=1
step attention_tests_default 25 "$tests" \
  -tc="[cuda] scaled_dot_product_attention*,[cuda] a biased attention*,[cuda] fourier_attention*" || fail=1
# 3. compute-sanitizer on the small flash case (device target only matters; twins run too).
if [[ -x "$sanitizer" ]]; then
  step memcheck 35 env HARMONIC_FLASH=1 "$sanitizer" --tool memcheck --error-exitcode 9 "$tests" \
    -tc="*tiled sdpa small case*" || fail=1
  step racecheck 35 env HARMONIC_FLASH=1 "$sanitizer" --tool racecheck --racecheck-report all --error-exitcode 9 \
    "$tests" -tc="*tiled sdpa small case*" || fail=1
  step memcheck_single_pass 35 "$sanitizer" --tool memcheck --error-exitcode 9 "$tests" \
    -tc="*single-pass tiled sdpa small case*" || fail=1
  step racecheck_single_pass 35 "$sanitizer" --tool racecheck --racecheck-report all --error-exitcode 9 "$tests" \
    -tc="*single-pass tiled sdpa small case*" || fail=1
  step memcheck_fourier 35 "$sanitizer" --tool memcheck --error-exitcode 9 "$tests" \
    -tc="*takes the tiled kernels*" || fail=1
  step racecheck_fourier 35 "$sanitizer" --tool racecheck --racecheck-report all --error-exitcode 9 "$tests" \
    -tc="*takes the tiled kernels*" || fail=1
else
  status+=("sanitizers: SKIPPED (no compute-sanitizer)")
fi
# 4. Benchmarks: every path of harmonic, then PyTorch.
step bench_harmonic 70 "$bin" bench --attention --device cuda --repeat 5 --warmup 2
step bench_torch 45 "$python" tools/bench/torch/bench_attention_torch.py --device cuda --repeat 5 --warmup 2
# The two-pass backward (HARMONIC_DETERMINISTIC=1; by default the single pass, dQ by atomics,
# labelled sdpa_flash_1pass_*).
step bench_harmonic_2pass 40 env HARMONIC_DETERMINISTIC=1 "$bin" bench --attention --device cuda --case sdpa_flash \
  --repeat 5 --warmup 2
# Under bf16 autocast: the composed path's GEMMs in bf16 against PyTorch's bf16 SDPA (which path a
# bf16 run should take is for these numbers to decide).
step bench_harmonic_bf16 40 "$bin" bench --attention --device cuda --precision bf16 --case sdpa_composed \
  --repeat 5 --warmup 2
step bench_torch_bf16 30 "$python" tools/bench/torch/bench_attention_torch.py --device cuda --bf16 --case sdpa_torch \
  --repeat 5 --warmup 2

echo
echo "== summary"
printf '%s\n' "${status[@]}"
echo
"$python" - "$out/bench_harmonic.log" "$out/bench_torch.log" "$out/bench_harmonic_2pass.log" "$out/bench_harmonic_bf16.log" \
  "$out/bench_torch_bf16.log" <<'EOF' || true
# One row per shape: ms fwd / fwd+bwd of each path (harmonic) and peer (torch).
import re, sys
rows, cols = {}, []
pat = re.compile(r"^(sdpa|fourier_attention)_(\w+?)_(\d+x\d+x\d+x\d+)\s.*fwd\s+([\d.]+|-) ms\s+fwd\+bwd\s+([\d.]+|-) ms")
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        m = pat.match(line)
        if not m:
            continue
        op, kind, shape, f, fb = m.groups()
        col = kind if op == "sdpa" else "fourier " + kind
        if col not in cols:
            cols.append(col)
        rows.setdefault(f"{op} {shape}", {})[col] = f"{f}/{fb}"
if rows:
    w = max(len(c) for c in cols) + 2
    print(f"{'ms fwd/fwd+bwd':<28}" + "".join(f"{c:>{max(w, 18)}}" for c in cols))
    for r, v in rows.items():
        print(f"{r:<28}" + "".join(f"{v.get(c, '-'):>{max(w, 18)}}" for c in cols))
EOF
echo "logs: $out"
exit $fail
