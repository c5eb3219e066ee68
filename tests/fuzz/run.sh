#!/usr/bin/env bash
# Runs one libFuzzer target for N minutes on its committed corpus:
#   bash tests/fuzz/run.sh TARGET MINUTES [extra libFuzzer flags...]
#   bash tests/fuzz/run.sh list                 (the targets)
# Builds build-fuzz/ (clang, -DHARMONIC_FUZZ=ON: ASan + UBSan + coverage) when needed, installing
# clang and its runtime libraries from Debian when missing. New inputs that reach new coverage
# go to a scratch corpus under build-fuzz/corpus/TARGET (not committed); crashes, leaks and
# timeouts are written into tests/fuzz/corpus/TARGET/ (crash-*, leak-*, timeout-*, oom-*):
# fix the parser, keep the file there (the replay test runs it) and add a regression test.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${HARMONIC_FUZZ_BUILD:-$src/build-fuzz}
target=${1:?usage: run.sh TARGET MINUTES (run.sh list shows the targets)}
targets=$(sed -n 's/^int fuzz_\([a-z_]*\)(const uint8_t\* data, size_t size);$/\1/p' "$src/tests/fuzz/fuzz_targets.h")
if [[ $target == list ]]; then echo "$targets"; exit 0; fi
grep -qx "$target" <<<"$targets" || { echo "run.sh: unknown target '$target' (targets: $(echo $targets))" >&2; exit 2; }
minutes=${2:?usage: run.sh TARGET MINUTES}
shift 2

# clang and its fuzzer/sanitizer runtimes (Debian 12: clang 14), as .ci/install-deps installs packages.
missing=()
command -v clang++ >/dev/null || missing+=(clang)
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing+=(libclang-rt-14-dev)
ls /usr/lib/llvm-*/lib/libomp.so >/dev/null 2>&1 || missing+=(libomp-14-dev)
if ((${#missing[@]})); then
  echo "run.sh: installing ${missing[*]}"
  sudo_cmd=""; [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [[ ! -f $build/CMakeCache.txt ]]; then
  # -O1 without NDEBUG: fast to build, and nlohmann's and the library's assertions stay on.
  CXX=clang++ cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DHARMONIC_CUDA=OFF \
    -DHARMONIC_NATIVE=OFF -DHARMONIC_TESTS=OFF -DHARMONIC_INSTALL=OFF -DHARMONIC_FUZZ=ON "${launcher[@]}"
fi
cmake --build "$build" -j"${HARMONIC_FUZZ_JOBS:-2}" --target "harmonic_fuzz_$target"

corpus=$src/tests/fuzz/corpus/$target
scratch=$build/corpus/$target
mkdir -p "$corpus" "$scratch"
dict=()
[[ -f $src/tests/fuzz/dict/$target.dict ]] && dict=(-dict="$src/tests/fuzz/dict/$target.dict")
# detect_leaks: a leak is a bug like a crash. OMP_WAIT_POLICY: no spinning OpenMP workers.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_WAIT_POLICY=passive OMP_NUM_THREADS=1
exec "$build/harmonic_fuzz_$target" -max_total_time=$((minutes * 60)) -max_len=8192 -timeout=20 \
  -rss_limit_mb=2048 -artifact_prefix="$corpus/" -print_final_stats=1 "${dict[@]}" "$@" "$scratch" "$corpus"
