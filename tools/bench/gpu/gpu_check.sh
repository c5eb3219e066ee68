#!/usr/bin/env bash
# The GPU check, one command on a GPU machine (H100/H200, 16 cores, nvcc, compute-sanitizer,
# PyTorch 2.x, no network), from the repository root, with .gpu/ made by
# tools/bench/gpu/gpu_bundle.sh on a CPU machine. In order of importance, each step under its own
# time limit and a deadline (GPU_CHECK_SECONDS, 540) after which no step starts, so the whole fits in
# about 9 minutes:
#   1. the [cuda] tests on the device (every op against the CPU; every registered task trains,
#      evaluates, checkpoints and resumes on cuda:0; every study's first quick run on cuda:0), then
#      the recurrent layers through cuDNN against the own kernels (tests/cuda/test_rnn_cudnn.cpp)
#   2. the tiled attention kernels' check (tools/bench/gpu/flash_check.sh), when present
#   3. the 12-layer d768 GPT step (N 1024, B 8): Harmonic's profile (fp32, bf16, bf16-activations, fp32 deterministic
#      with index checks at each op: HARMONIC_DETERMINISTIC=1 HARMONIC_DEFER_INDEX_CHECKS=0, the
#      two-pass attention backward) and PyTorch's step; then GPT-2 small itself (124M, vocabulary
#      50257) in fp32 and bf16 beside PyTorch with SDPA
#   4. the paper models against their PyTorch peers on the same GPU: `harmonic bench --dt`, --gpt
#      (softmax, fourier), --chronos (train, forecast, the paper's mini; the forecast again as a CUDA
#      graph), --recurrent, --vit (DeiT-tiny), --audio (the
#      task's and AST's size) with --device cuda, each beside
#      tools/bench/torch/bench_*_torch.py --device cuda; a bf16 pair for dt and gpt; the softmax
#      GPT pair again deterministic (HARMONIC_DETERMINISTIC=1); the recurrent pair again with
#      HARMONIC_CUDNN_RNN=1 (the layers on cuDNN); one summary line per case with both
#      times and torch/Harmonic (GPU_CHECK_PAPER_SECONDS, 210, in all)
#   5. every task's smoke run on cuda and on the CPU: ms/step from the profiler; on cuda also
#      eager against whole-step CUDA graphs (trainer.cuda_graph off/on), ms/step from wall time
#   6. compute-sanitizer memcheck over small task runs on cuda
#   7. every study's first paper-scale run for 10 steps on cuda: ms/step and the run's projected
#      training time (`harmonic study NAME --set paper_scale=true --set device=cuda --project 10`)
#   8. the op benchmarks against PyTorch on the same GPU
# GPU_CHECK_STEPS="4 7" runs only those numbered steps (a second call's remaining minutes).
# Ends with a summary; the full log is $OUT/gpu_check.log when OUT is set (else /tmp).
#
#   bash tools/bench/gpu/gpu_check.sh
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$repo"
out="${OUT:-/tmp}"
log="$out/gpu_check.log"
: >"$log"
summary=()
deadline=${GPU_CHECK_SECONDS:-540}  # no step starts after this many seconds
wanted=" ${GPU_CHECK_STEPS:-1 2 3 4 5 6 7 8} "  # the numbered steps to run, e.g. GPU_CHECK_STEPS="4 7"
current=setup
# late DESC: true (skip DESC) when its step was not asked for or the deadline has passed.
late() {
  [[ $current == setup || $wanted == *" $current "* ]] || return 0
  if ((SECONDS > deadline)); then note "skipped (deadline): $1"; return 0; fi
  return 1
}
note() { summary+=("$1"); echo "== $1" | tee -a "$log"; }
step() {
  current=${1%%.*}
  echo; echo "### $* (at $SECONDS s)" | tee -a "$log"
  [[ $current == setup || $wanted == *" $current "* ]] || note "not asked for (GPU_CHECK_STEPS): step $1"
}

step "setup"
source tools/bench/gpu/gpu_setup.sh
missing=$(LD_LIBRARY_PATH="$libs" ldd "$hm/bin/harmonic" "$hm/bin/harmonic_tests" | grep 'not found' | sort -u | tr -s ' \t\n' ' ')
[[ -n "$missing" ]] && note "libraries not found: $missing"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader | tee -a "$log"
"$H" info 2>&1 | grep -iE "cuda|blas|threads|version" | tee -a "$log"
note "device: $(nvidia-smi --query-gpu=name --format=csv,noheader), $(nproc) CPU cores, $(date -u +%F)"

step "1. [cuda] tests on the device"
if ! late "[cuda] tests"; then
  start=$SECONDS
  timeout 170 "$T" -tc='*cuda*' -tce='*through cuDNN*' >"$out/cuda_tests.log" 2>&1
  rc=$?
  grep -E "ERROR|FAILED|ran on cuda|step-3 loss|allocations after" "$out/cuda_tests.log" | head -60 | tee -a "$log"
  note "[cuda] tests (exit $rc): $(grep -E '^\[doctest\] (test cases|assertions)' "$out/cuda_tests.log" | tr '\n' ' ') in $((SECONDS - start)) s"
  # The recurrent layers through cuDNN (ops/rnn_layer.h, off by default) against the own kernels.
  start=$SECONDS
  timeout 60 "$T" -tc='*through cuDNN*' >"$out/cudnn_rnn_tests.log" 2>&1
  rc=$?
  grep -E "ERROR|FAILED|normalised error" "$out/cudnn_rnn_tests.log" | head -30 | tee -a "$log"
  note "cuDNN RNN tests (exit $rc): $(grep -E '^\[doctest\] (test cases|assertions)' "$out/cudnn_rnn_tests.log" | tr '\n' ' ') in $((SECONDS - start)) s"
fi

step "2. tiled attention check"
if [[ -f tools/bench/gpu/flash_check.sh ]] && ! late "flash_check"; then
  HARMONIC_BIN="$H" HARMONIC_TESTS="$T" OUT=/tmp/flash timeout 200 bash tools/bench/gpu/flash_check.sh >"$out/flash_check.log" 2>&1
  note "flash_check exit $?"
  tail -45 "$out/flash_check.log" | tee -a "$log"
fi

step "3. the 12-layer d768 GPT step (N 1024, B 8, vocabulary 8192)"
gpt=(--set n_layer=12 --set n_embd=768 --set n_head=12 --set n_inner=3072 --set block_size=1024 --set batch_size=8
  --set vocab_size=8192 --set eval_tokens=8192 --set trainer.steps=5 --set trainer.eval_every=0 --set trainer.warmup_steps=0)
for prec in fp32 bf16 bf16-activations; do
  late "gpt $prec" && break
  o=$(timeout 75 "$H" train kjv-lm --device cuda "${gpt[@]}" --precision "$prec" --profile 3 --out "/tmp/gpt-$prec" --force 2>&1)
  echo "$o" | grep -A24 "^profile:" | tee -a "$log"
  note "harmonic gpt 12x768 $prec: $(echo "$o" | grep -m1 -oE '[0-9.]+ ms/step' || echo FAILED)"
done
# The same fp32 step deterministic, with the index checks at each op: the trainer then waits for
# the step's index checks twice a step instead of leaving them on the device
# (cuda/runtime/deferred_checks.h), and the tiled attention's backward takes two passes.
if ! late "gpt fp32 deterministic"; then
  o=$(HARMONIC_DETERMINISTIC=1 HARMONIC_DEFER_INDEX_CHECKS=0 timeout 45 "$H" train kjv-lm --device cuda "${gpt[@]}" \
    --profile 3 --out /tmp/gpt-deterministic --force 2>&1)
  echo "$o" | grep -A24 "^profile:" | tee -a "$log"
  note "harmonic gpt 12x768 fp32, deterministic: $(echo "$o" | grep -m1 -oE '[0-9.]+ ms/step' || echo FAILED)"
fi
for flags in "--sdpa" "" "--sdpa --bf16"; do
  late "torch gpt $flags" && break
  r=$(timeout 40 python3 tools/bench/torch/bench_gpt_torch.py --device cuda --size gpt2 --case softmax --repeat 5 $flags 2>&1 | tail -1)
  echo "$r" | tee -a "$log"
  note "torch gpt 12x768 ${flags:-materialised}: $(echo "$r" | grep -oE '[0-9.]+ ms/step' || echo FAILED)"
done

# GPT-2 small itself (124M: vocabulary 50257, learned positions, tied head, no dropout), the size
# llm.c publishes its step times for, in float32 and bf16, beside PyTorch with SDPA.
for prec in fp32 bf16 bf16-activations; do
  late "gpt2_124m $prec" && break
  torch_flags="--sdpa" && [[ $prec == bf16* ]] && torch_flags="--sdpa --bf16"
  h=$(timeout 60 "$H" bench --gpt --case gpt2_124m --device cuda --precision "$prec" --repeat 5 --warmup 2 2>&1 | tail -1)
  t=$(timeout 60 python3 tools/bench/torch/bench_gpt_torch.py --device cuda --size gpt2_124m --case softmax --repeat 5 \
    --warmup 2 $torch_flags 2>&1 | tail -1)
  printf '%s\n%s\n' "$h" "$t" | tee -a "$log"
  note "gpt2 124M $prec: harmonic $(echo "$h" | grep -oE '[0-9.]+ ms/step' || echo FAILED), torch $(echo "$t" | grep -oE '[0-9.]+ ms/step' || echo FAILED)"
done

step "4. the paper models' training steps: Harmonic against PyTorch on the same GPU"
# Each pair runs `harmonic bench --X --device cuda --repeat 5 --warmup 2` and its PyTorch peer with
# the same repeat and warm-up, each under `timeout` (its own limit, cut to what is left of this
# step's budget and of the deadline, so the step ends by paper_end); the raw lines go to the log
# and $out/paper_models.log, one summary line per case to the summary.
paper_end=$((SECONDS + ${GPU_CHECK_PAPER_SECONDS:-210}))
((paper_end > deadline)) && paper_end=$deadline
: >"$out/paper_models.log"
# bounded LIMIT FILE CMD...: CMD under timeout min(LIMIT, what is left until paper_end), output to FILE.
bounded() {
  local limit=$1 file=$2
  shift 2
  local left=$((paper_end - SECONDS))
  ((left < limit)) && limit=$left
  if ((limit < 3)); then echo "not run: the step's time is spent" >"$file"; return 124; fi
  timeout "$limit" "$@" >"$file" 2>&1
}
# Summary lines of one pair: per case (the label's model and case words) Harmonic's and PyTorch's
# ms (ms/step, ms/forecast, or fwd+bwd ms) and torch/Harmonic (> 1: Harmonic is faster).
# Arguments: the two output files and the two exit codes.
pair_rows() {
  python3 - "$@" <<'EOF'
import re, sys
def rows(path):
    found = {}
    for line in open(path, errors="replace"):
        m = re.search(r"([\d.]+) ms/(?:step|forecast)|fwd\+bwd\s+([\d.]+) ms", line)
        words = line.split()
        if not m or not words:
            continue
        if words[0] == "torch":
            words = words[1:]
            if words and re.match(r"\d", words[0]):  # a peer that prints its version first
                words = words[1:]
        key = " ".join(words[:2] if words[0] in ("dt", "gpt", "chronos", "vit", "audio") else words[:1])
        found.setdefault(key, float(m[1] or m[2]))
    return found
harmonic, torch = rows(sys.argv[1]), rows(sys.argv[2])
for key in list(harmonic) + [k for k in torch if k not in harmonic]:
    h, t = harmonic.get(key), torch.get(key)
    hs = f"{h:.2f} ms" if h is not None else f"no time (exit {sys.argv[3]})"
    ts = f"{t:.2f} ms" if t is not None else f"no time (exit {sys.argv[4]})"
    ratio = f"  torch/harmonic {t / h:.2f}" if h and t else ""
    print(f"{key}: harmonic {hs}  torch {ts}{ratio}")
if not harmonic and not torch:
    print(f"no timings (harmonic exit {sys.argv[3]}, torch exit {sys.argv[4]})")
EOF
}
# pair TAG LIMIT HARMONIC_BENCH_ARGS... -- PEER_SCRIPT PEER_ARGS...: both sides, then the summary lines.
pair() {
  local tag=$1 limit=$2
  shift 2
  local hm_args=()
  while (($#)) && [[ $1 != -- ]]; do hm_args+=("$1"); shift; done
  shift
  late "paper $tag ${hm_args[*]}" && return
  if ((paper_end - SECONDS < 3)); then note "skipped (step budget): paper $tag ${hm_args[*]}"; return; fi
  local h_out=/tmp/paper-harmonic.log t_out=/tmp/paper-torch.log hrc trc
  bounded "$limit" "$h_out" "$H" bench "${hm_args[@]}" --device cuda --repeat 5 --warmup 2
  hrc=$?
  bounded "$limit" "$t_out" python3 "$@" --device cuda --repeat 5 --warmup 2
  trc=$?
  { echo "# $tag: harmonic bench ${hm_args[*]} --device cuda --repeat 5 --warmup 2 (exit $hrc)"; cat "$h_out"
    echo "# $tag: python3 $* --device cuda --repeat 5 --warmup 2 (exit $trc)"; cat "$t_out"; } |
    tee -a "$log" >>"$out/paper_models.log"
  while IFS= read -r row; do note "paper $tag $row"; done < <(pair_rows "$h_out" "$t_out" "$hrc" "$trc")
}
peers=tools/bench/torch
pair fp32 20 --dt -- "$peers/bench_dt_torch.py"
pair fp32 25 --gpt --case softmax --case fourier -- "$peers/bench_gpt_torch.py" --case softmax --case fourier --sdpa
chronos=(--case train --case forecast --case train_mini)
pair fp32 25 --chronos "${chronos[@]}" -- "$peers/bench_chronos_torch.py" "${chronos[@]}"
# The forecast again with its decoding replayed as a CUDA graph (ForecastOptions::cuda_graph), beside
# the eager pair's PyTorch time above.
if ! late "chronos forecast_graph"; then
  bounded 25 /tmp/fcst-graph.log "$H" bench --chronos --case forecast_graph --device cuda --repeat 5 --warmup 2
  rc=$?
  { echo "# graph: harmonic bench --chronos --case forecast_graph --device cuda --repeat 5 --warmup 2 (exit $rc)"
    cat /tmp/fcst-graph.log; } | tee -a "$log" >>"$out/paper_models.log"
  note "paper graph $(grep -m1 'fcst graph' /tmp/fcst-graph.log || echo "forecast_graph FAILED (exit $rc)")"
fi
pair fp32 30 --recurrent -- "$peers/bench_recurrent_torch.py"
# The same with the recurrent layers on cuDNN's RNN API (HARMONIC_CUDNN_RNN=1, ops/rnn_layer.h).
HARMONIC_CUDNN_RNN=1 pair cudnn 30 --recurrent -- "$peers/bench_recurrent_torch.py"
pair fp32 25 --vit -- "$peers/bench_vit_torch.py" --sdpa
ast=(--case linear --case fourier --case ast_linear --case ast_fourier)
pair fp32 25 --audio "${ast[@]}" -- "$peers/bench_audio_torch.py" "${ast[@]}" --sdpa
pair bf16 15 --dt --precision bf16 -- "$peers/bench_dt_torch.py" --bf16
pair bf16 15 --gpt --case softmax --precision bf16 -- "$peers/bench_gpt_torch.py" --case softmax --sdpa --bf16
# The GEMMs' products kept in bf16 (PyTorch's autocast semantics), against the same peers.
pair bf16act 15 --dt --precision bf16-activations -- "$peers/bench_dt_torch.py" --bf16
pair bf16act 15 --gpt --case softmax --precision bf16-activations -- "$peers/bench_gpt_torch.py" --case softmax --sdpa --bf16
# Deterministic mode (core/deterministic.h: the tiled attention's two-pass backward), against the
# same peer.
HARMONIC_DETERMINISTIC=1 pair determ 20 --gpt --case softmax -- "$peers/bench_gpt_torch.py" --case softmax --sdpa

# wall_ms_per_step TASK GRAPH: ms/step on cuda with trainer.cuda_graph=GRAPH from the wall time of
# 112 steps less that of 12 (start-up, the capture and the final evaluation cancel; no profiler,
# whose events would sit inside the captured step), or FAILED.
wall_ms_per_step() {
  local task=$1 graph=$2 t=() n
  for n in 12 112; do
    local t0=$(date +%s.%N)
    timeout 40 "$H" train "$task" --smoke --device cuda --set trainer.steps=$n --set trainer.eval_every=0 \
      --set trainer.log_every=1000 --set trainer.cuda_graph="$graph" --out "/tmp/wall-$task-$graph" --force \
      >>"$log" 2>&1 || { echo FAILED; return; }
    t+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')")
  done
  awk -v a="${t[0]}" -v b="${t[1]}" 'BEGIN { printf "%.3f", (b - a) * 10 }'
}

step "5. every task: smoke run, ms/step (profiler, 10 steps after a warm-up step; graphs: wall time)"
printf "%-16s %12s %12s %12s %12s\n" task "cuda ms/step" "cpu ms/step" "eager (wall)" "graph (wall)" | tee -a "$log"
for task in $("$H" train --list | grep -E '^[a-z]' | awk '{print $1}'); do
  late "task $task" && break
  row=()
  for dev in cuda cpu; do
    row+=("$(ms_per_step "$task" "/tmp/run-$task-$dev" --smoke --device "$dev")")
  done
  row+=("$(wall_ms_per_step "$task" off)" "$(wall_ms_per_step "$task" on)")
  line=$(printf "%-16s %12s %12s %12s %12s" "$task" "${row[0]}" "${row[1]}" "${row[2]}" "${row[3]}")
  echo "$line" | tee -a "$log"
  summary+=("task $line")
done

step "6. compute-sanitizer memcheck over task runs on cuda (eager, and replayed CUDA graphs)"
for run in "fourier-toy off 2" "kjv-lm off 2" "kjv-lm on 5"; do
  read -r task graph steps <<<"$run"
  late "memcheck $task graph $graph" && break
  start=$SECONDS
  LD_LIBRARY_PATH="$libs" timeout 45 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 3 \
    "$hm/bin/harmonic" train "$task" --smoke --device cuda --set trainer.steps="$steps" \
    --set trainer.cuda_graph="$graph" --out "/tmp/san-$task-$graph" --force >"/tmp/san-$task-$graph.log" 2>&1
  rc=$?
  note "memcheck $task (cuda_graph $graph, $steps steps): exit $rc ($(grep -m1 -oE 'ERROR SUMMARY: [0-9]+ errors?' "/tmp/san-$task-$graph.log" || tail -1 "/tmp/san-$task-$graph.log")) in $((SECONDS - start)) s"
done

step "7. paper scale projected: each study's first paper-scale run, 10 steps on cuda (harmonic study --project)"
# chronos is left out: its paper-scale run generates 40k series on the CPU (about 30 min) before
# its first step (tools/bench/cpu_runs/vm-2026-12-07-paper-scale-projection).
for study in decision-transformer fourierformer fru rng-lm audio-bpm; do
  late "projection $study" && break
  timeout 60 "$H" study "$study" --set paper_scale=true --set device=cuda --project 10 >"/tmp/project-$study.log" 2>&1
  rc=$?
  cat "/tmp/project-$study.log" >>"$log"
  note "projected $study (exit $rc): $(grep -m1 -E 'ms/step|not measured' "/tmp/project-$study.log" || tail -1 "/tmp/project-$study.log")"
done

step "8. op benchmarks against PyTorch $(python3 -c 'import torch; print(torch.__version__)') on the same GPU"
late "op benchmarks" || timeout 60 python3 tools/bench/torch/bench_torch.py --compare "$H" --device cuda --rounds 1 --repeat 20 2>&1 | tee -a "$log"

echo
echo "=================== summary (at $SECONDS s)"
printf '%s\n' "${summary[@]}"
