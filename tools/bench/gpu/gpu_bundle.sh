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
# HARMONIC_GPU_PREBUILT=1 packs the build in HARMONIC_GPU_BUILD as it is (e.g. build/, whose
# -march=native and MPI a cold portable build would take most of an hour on two cores to drop):
# it then runs only on a GPU machine whose CPU has the building CPU's instruction set. Built on a
# machine without a GPU, such a build carries PTX only (CMakeLists.txt), which the GPU's driver
# compiles when the library loads: configure it with -DCMAKE_CUDA_ARCHITECTURES=90 for sm_90 code.
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
if [[ "${HARMONIC_GPU_PREBUILT:-0}" != 1 ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHARMONIC_NATIVE=OFF -DHARMONIC_MPI=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CXX_FLAGS="-mavx2 -mfma" "${launcher[@]}" >/dev/null
fi
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
# Fashion-MNIST with the training split cut to its first 10,000 items (the device runs tests and
# smoke runs only; the whole split would not fit the 64 MiB a device call carries beside the tree).
rm -rf .gpu/fashion-mnist && mkdir -p .gpu/fashion-mnist
python3 - /usr/share/datasets/fashion-mnist .gpu/fashion-mnist <<'EOF'
import gzip, struct, sys
src, dst = sys.argv[1:]
for split in ("train", "t10k"):
    for kind, header, item in (("images", 16, 28 * 28), ("labels", 8, 1)):
        name = f"{split}-{kind}-idx{3 if kind == 'images' else 1}-ubyte.gz"
        data = gzip.open(f"{src}/{name}").read()
        count = min(struct.unpack(">I", data[4:8])[0], 10000)
        with gzip.open(f"{dst}/{name}", "wb", compresslevel=9) as f:
            f.write(data[:4] + struct.pack(">I", count) + data[8:header] + data[header:header + count * item])
EOF
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
du -sh .gpu/harmonic-gpu.tar.xz .gpu/fashion-mnist
