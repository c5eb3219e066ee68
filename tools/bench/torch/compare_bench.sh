#!/usr/bin/env bash
# Harmonic vs PyTorch on the standard bench suite, interleaved case by case in one run, at each
# thread count given (default: 1 and 2). Prints one table per thread count:
#   case | harmonic ms | torch ms | ratio (torch / harmonic, > 1 means Harmonic is faster)
#
#   tools/bench/torch/compare_bench.sh                  # threads 1 and 2
#   tools/bench/torch/compare_bench.sh 4                # threads 4
#   HARMONIC_BIN=build-rel/harmonic ROUNDS=5 REPEAT=30 tools/bench/torch/compare_bench.sh 1 2
#
# Needs PyTorch in $PYTHON (default: peer_python.sh's choice, the PyPI venv first). Run it on an idle machine: the
# numbers of a busy one (parallel builds) say little, most of all with several threads.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
source "$repo/tools/bench/torch/peer_python.sh"; python="$PYTHON"
bin="${HARMONIC_BIN:-}"
if [[ -z "$bin" ]]; then
  for candidate in "$repo"/build/harmonic "$repo"/build-*/harmonic; do
    if [[ -x "$candidate" ]]; then bin="$candidate"; break; fi
  done
fi
if [[ -z "$bin" || ! -x "$bin" ]]; then
  echo "compare_bench.sh: no harmonic executable found; build it or set HARMONIC_BIN" >&2
  exit 1
fi
source "$repo/tools/bench/torch/peer_blas_env.sh"
threads=("$@")
[[ ${#threads[@]} -eq 0 ]] && threads=(1 2)
echo "harmonic: $bin"
for n in "${threads[@]}"; do
  # torch.set_num_threads does not bound OpenBLAS's own pool (torch's GEMM would use every
  # core at "1 thread"); pin it so both frameworks get the same number of threads.
  OPENBLAS_NUM_THREADS="$n" OMP_NUM_THREADS="$n" "$python" "$repo/tools/bench/torch/bench_torch.py" --compare "$bin" --threads "$n" --rounds "${ROUNDS:-3}" \
    --repeat "${REPEAT:-20}" --dtype "${DTYPE:-float32}"
  echo
done
