#!/usr/bin/env bash
# Packs what tools/bench/gpu/gpu_check.sh needs on a GPU machine, built here on a CPU machine:
# the GPU machines (one H100 or H200, 16 cores, nvcc, CMake, PyTorch 2.x) have none of the
# project's Debian libraries and no network. Writes .gpu/ (ignored by git):
#   .gpu/harmonic-gpu.tar.xz   a portable Release build for sm_90 (no -march=native: AVX2 and
#                              FMA; MPI off) with its non-system shared libraries (OpenBLAS,
#                              fmt, gfortran, gomp, stb, zlib), and the KJV text as
#                              the data cache exports it (the `bible` command is not there)
#   .gpu/fashion-mnist/        the four Fashion-MNIST files
#
#   bash tools/bench/gpu/gpu_bundle.sh          # then, on the GPU machine: bash tools/bench/gpu/gpu_check.sh
#
# The CUDA libraries (cudart, cuBLAS, cuFFT, cuDNN) are the GPU machine's own.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$repo"
build="${HARMONIC_GPU_BUILD:-build-gpu}"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHARMONIC_NATIVE=OFF -DHARMONIC_MPI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CXX_FLAGS="-mavx2 -mfma" "${launcher[@]}" >/dev/null
cmake --build "$build" --target harmonic_cli harmonic_tests -j"$(nproc)"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/cache"
cp "$build/harmonic" "$build/harmonic_tests" "$stage/bin/"
cp -P "$build"/libharmonic.so* "$stage/lib/"
# Every shared library the two programs load, except the C and C++ runtimes (the GPU machine's
# own are as new or newer, and an older libstdc++ on the path would break its tools) and CUDA's.
ldd "$build/harmonic" "$build/harmonic_tests" | awk '/=> \// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so|/libcuda|/libcudart|/libcublas|/libcufft|/libcudnn|/libnccl|/libnvrtc|/libharmonic' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
# The KJV text, exported into the data cache by a one-step run of each task that reads it.
for task in kjv-lm fru-text; do
  HARMONIC_DATA_DIR="$stage/cache" "$build/harmonic" train "$task" --smoke --set trainer.steps=1 \
    --out "$stage/run-$task" --force >/dev/null
done
rm -rf "$stage"/run-*
echo "$repo" >"$stage/source_dir"  # the tests' HARMONIC_SOURCE_DIR, linked to the checkout there
mkdir -p .gpu
tar -C "$stage" -cJf .gpu/harmonic-gpu.tar.xz bin lib cache source_dir
rm -rf .gpu/fashion-mnist && cp -r /usr/share/datasets/fashion-mnist .gpu/fashion-mnist
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
du -sh .gpu/harmonic-gpu.tar.xz .gpu/fashion-mnist
