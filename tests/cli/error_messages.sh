#!/usr/bin/env bash
# Bad paths and names through the real CLI: each command fails with exit 1 (never a
# signal) and a message naming what went wrong and where.
#   usage: error_messages.sh path/to/harmonic
set -u
harmonic=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/folder" "$dir/empty" "$dir/run/checkpoint_last.safetensors"
echo '{"step": 1, "loss": 1}' >"$dir/file.jsonl"
failures=0
# expect "fragment" ... -- command args...: exit 1 and every fragment in stderr+stdout
expect() {
  local frags=()
  while [[ $1 != -- ]]; do frags+=("$1"); shift; done
  shift
  local out rc
  out=$("$harmonic" "$@" 2>&1)
  rc=$?
  local ok=1
  [[ $rc -eq 1 ]] || ok=0
  for f in "${frags[@]}"; do [[ $out == *"$f"* ]] || ok=0; done
  if [[ $ok -eq 1 ]]; then
    echo "ok: $* -> $out"
  else
    echo "FAIL (exit $rc, want 1 and: ${frags[*]}): $* -> $out"
    failures=$((failures + 1))
  fi
}
expect "unknown op 'nosuch'" -- bench --op nosuch
expect "[bench]" "--chronos: unknown case 'nosuch'" "train, train_quick, forecast" -- bench --chronos --case nosuch
expect "[config]" "$dir/folder" "is a directory" -- train mlp-spirals --config "$dir/folder" --print-config
expect "[metrics_plot]" "$dir/folder/metrics.jsonl" "no such file" -- plot --metrics "$dir/folder"  # a run directory without its metrics
expect "$dir/run/checkpoint_last.safetensors" "is a directory" -- eval --checkpoint "$dir/run"
expect "[bench --json]" "$dir/folder" "is a directory" -- bench --op relu --shape 4 --repeat 1 --json "$dir/folder"
expect "[load_safetensors]" "$dir/folder" "is a directory" -- op relu --inputs "$dir/folder" --out "$dir/out.st"
expect "[train]" "$dir/file.jsonl" "is a file, not a directory" -- train mlp-spirals --out "$dir/file.jsonl"
expect "[study]" "$dir/file.jsonl" "is a file, not a directory" -- study fourier-toy --quick --out "$dir/file.jsonl"
expect "[study]" "$dir/empty/study.json" "is this the directory of a study" -- study fourier-toy --from "$dir/empty"
# JSON nested 60,000 deep overflowed the stack (exit 139); every reader bounds the depth first.
deep=$(head -c 60000 /dev/zero | tr '\0' '[')$(head -c 60000 /dev/zero | tr '\0' ']')
expect "[op] --attrs: JSON nested 60000 levels deep, beyond the limit of 64" -- \
  op sum --inputs "$dir/x.safetensors" --out "$dir/o.safetensors" --attrs "$deep"
expect "[op] --attrs: JSON nested 60001 levels deep" -- \
  op sum --inputs "$dir/x.safetensors" --out "$dir/o.safetensors" --attrs "{\"dim\": $deep}"
printf '{"trainer": %s}' "$deep" >"$dir/deep.json"
expect "[config]" "$dir/deep.json" "JSON nested 60001 levels deep" -- train mlp-spirals --config "$dir/deep.json" --print-config
# A negative count reaches the command's own check instead of reading as a flag.
expect "[study] --jobs must be >= 1" "got -2" -- study fourier-toy --quick --jobs -2 --out "$dir/study"
# A value whose padded range overflows a double is named with its file, line and key.
printf '{"step": 1, "loss": 1e308}\n{"step": 2, "loss": -1e308}\n' >"$dir/huge.jsonl"
expect "[metrics_plot]" "$dir/huge.jsonl' line 1" '"loss" is 1e+308' -- plot --metrics "$dir/huge.jsonl" --out "$dir/p.svg"
# A missing output folder is named, not the temporary file written beside the output.
expect "[write_file_atomic]" "$dir/nofolder/p.svg" "its folder '$dir/nofolder' does not exist" -- \
  plot --metrics "$dir/file.jsonl" --out "$dir/nofolder/p.svg"
# A checkpoint that is not there, in a run that holds others: they are named instead of "train first".
"$harmonic" train mlp-spirals --steps 2 --out "$dir/spirals" >/dev/null 2>&1
expect "[eval]" "no checkpoint at '$dir/spirals/typo.safetensors'" "holds checkpoint_last.safetensors" -- \
  eval --checkpoint "$dir/spirals/typo.safetensors"
expect "[eval]" "(train first: train <task> --out $dir/none)" -- eval --out "$dir/none"
[[ $failures -eq 0 ]] || { echo "$failures message(s) wrong"; exit 1; }
