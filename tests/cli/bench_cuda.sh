#!/usr/bin/env bash
# The paper models' bench cases on cuda:0: on the emulated device (HARMONIC_EMULATE_CUDA=1, the
# kernels' host twins) a Chronos step and forecast, the fashion-vit model's step, the audio
# model's Fourier-head step and the composed attention under bf16 autocast run and print their
# cuda:0 lines, Chronos also under bf16 autocast;
# bf16 on the CPU and an unknown case are refused by name. A build without CUDA says it has
# no device and exits 0. (The DT and GPT steps run the same way but take a minute each on the
# host twins: the GPU check times them.)
set -u
h=$1
export HARMONIC_EMULATE_CUDA=1 OMP_WAIT_POLICY=passive
out=$("$h" bench --chronos --device cuda --case train_quick --case forecast --repeat 1 --warmup 0 2>&1)
rc=$?
[[ $rc -eq 0 ]] || { echo "exit $rc: $out"; exit 1; }
if [[ $out == *"no CUDA device"* ]]; then
  echo "ok (built without CUDA): $out"
  exit 0
fi
[[ $(grep -c 'cuda:0 .* ms/step' <<<"$out") -eq 1 && $(grep -c 'cuda:0 .* ms/forecast' <<<"$out") -eq 1 ]] ||
  { echo "expected a cuda:0 step and forecast line: $out"; exit 1; }
out=$("$h" bench --vit --device cuda --case task --repeat 1 --warmup 0 2>&1) || { echo "vit: $out"; exit 1; }
[[ $out == "vit task "*"cuda:0"*"ms/step"*"images/s" ]] || { echo "vit: $out"; exit 1; }
out=$("$h" bench --audio --device cuda --case fourier --repeat 1 --warmup 0 2>&1) || { echo "audio: $out"; exit 1; }
[[ $out == "audio fourier "*"cuda:0"*"ms/step"*"clips/s" ]] || { echo "audio: $out"; exit 1; }
out=$("$h" bench --attention --device cuda --precision bf16 --case sdpa_composed_8x12x256x64 --repeat 1 --warmup 0 2>&1) ||
  { echo "attention bf16: $out"; exit 1; }
[[ $out == "sdpa_composed_bf16_8x12x256x64 "*"cuda:0"*"fwd+bwd"* ]] || { echo "attention bf16: $out"; exit 1; }
out=$("$h" bench --audio --case ast 2>&1)
[[ $? -ne 0 && $out == *"--audio: unknown case 'ast' (expected linear, fourier, ast_linear, ast_fourier)"* ]] ||
  { echo "unknown case: $out"; exit 1; }
out=$("$h" bench --chronos --device cuda --precision bf16 --case train_quick --repeat 1 --warmup 0 2>&1) ||
  { echo "bf16 failed: $out"; exit 1; }
[[ $out == *"cuda:0"*"ms/step"* ]] || { echo "bf16: $out"; exit 1; }
out=$("$h" bench --dt --precision bf16 2>&1)
[[ $? -ne 0 && $out == *"--precision bf16 needs --device cuda"* ]] || { echo "bf16 on the CPU: $out"; exit 1; }
echo "ok"
