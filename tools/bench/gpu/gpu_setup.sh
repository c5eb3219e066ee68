# Sourced from the repository root by the scripts run on a GPU machine (gpu_check.sh,
# kernels_check.sh): unpacks .gpu/ (tools/bench/gpu/gpu_bundle.sh) into /tmp/hm and sets
# H and T (the harmonic and harmonic_tests wrappers), hm, libs and repo.
repo="$PWD"
hm=/tmp/hm
rm -rf "$hm" && mkdir -p "$hm"
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" .gpu/harmonic-gpu.tar.xz "$hm" ||
  { echo "no .gpu bundle"; exit 1; }
cudnn="$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)/lib"
# NCCL only for a bundle built with MPI (HARMONIC_GPU_PREBUILT): PyTorch's copy.
nccl="$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)/lib"
libs="$hm/lib:/usr/local/cuda/lib64:$cudnn:$nccl"
export PATH="/usr/local/cuda/bin:$PATH"
export HARMONIC_DATA_DIR="$hm/cache" HARMONIC_FASHION_MNIST_DIR="$repo/.gpu/fashion-mnist" OMP_WAIT_POLICY=passive
# The programs find the bundle's libraries through wrappers, so python and the CUDA tools keep
# their own.
for prog in harmonic harmonic_tests; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' "$libs" "$hm/bin/$prog" >"$hm/$prog"
  chmod +x "$hm/$prog"
done
# The tests read reference files under the source path they were built in.
src="$(cat "$hm/source_dir")"
[[ -n "$src" && ! -e "$src" ]] && mkdir -p "$(dirname "$src")" && ln -s "$repo" "$src"
H="$hm/harmonic" T="$hm/harmonic_tests"
# ms_per_step TASK DIR ARGS...: 11 steps of TASK into DIR, the last 10 profiled, under a
# MS_PER_STEP_TIMEOUT (30 s) limit; its output goes to $log, its ms/step (or FAILED) to stdout.
ms_per_step() {
  local task=$1 dir=$2 o ms
  shift 2
  o=$(timeout "${MS_PER_STEP_TIMEOUT:-30}" "$H" train "$task" --set trainer.steps=11 --set trainer.eval_every=0 \
    --profile 10 --out "$dir" --force "$@" 2>&1)
  echo "$o" >>"$log"
  ms=$(echo "$o" | grep -m1 -oE '\(([0-9.]+) ms/step\)' | grep -oE '[0-9.]+')
  echo "${ms:-FAILED}"
}
