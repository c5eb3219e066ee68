#!/usr/bin/env bash
# `harmonic forecast` end to end: a tiny chronos checkpoint trained here (a few steps), then
# forecasts of a CSV with a date column and gaps, --eval, and the edge cases' messages.
set -u
bin=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }

"$bin" train chronos --out "$dir/run" --threads 1 --set trainer.steps=3 --set trainer.log_every=1 \
  --set trainer.eval_every=0 --set series=16 --set mixup_series=4 --set held_out_series=4 --set series_length=48 \
  --set context_length=24 --set horizon=4 --set d_model=16 --set d_ff=32 --set num_layers=1 --set num_heads=2 \
  --set d_kv=8 --set batch_size=8 --set eval_samples=2 >"$dir/train.log" 2>&1 || { cat "$dir/train.log"; fail "train"; }
# --resume continues that run (the same config but for the step count).
out=$("$bin" train chronos --out "$dir/run" --resume --threads 1 --set trainer.steps=5 --set trainer.log_every=1 \
  --set trainer.eval_every=0 --set series=16 --set mixup_series=4 --set held_out_series=4 --set series_length=48 \
  --set context_length=24 --set horizon=4 --set d_model=16 --set d_ff=32 --set num_layers=1 --set num_heads=2 \
  --set d_kv=8 --set batch_size=8 --set eval_samples=2 2>&1) || fail "resume: $out"
[[ $out == *"from step 3"* && $out == *"step 5/5"* ]] || fail "resume output: $out"

{
  echo "date,sales,temp"
  for t in $(seq 0 39); do
    temp=$((20 + t % 7)); [[ $t == 12 ]] && temp=""
    echo "2024-01-$t,$((100 + (t % 12) * 3)),$temp"
  done
} >"$dir/series.csv"

# Both numeric columns, the date column skipped, the gap kept as a missing value.
out=$("$bin" forecast --checkpoint "$dir/run" --csv "$dir/series.csv" --horizon 5 --samples 6 \
  --out "$dir/fc.csv" --plot "$dir/fc.png" --threads 1 2>&1) || fail "forecast: $out"
[[ $out == *"skipped non-numeric column(s): date"* ]] || fail "no note about the date column: $out"
[[ $(head -1 "$dir/fc.csv") == "series,step,median,q0.1,q0.2,q0.3,q0.4,q0.5,q0.6,q0.7,q0.8,q0.9" ]] || fail "header"
[[ $(wc -l <"$dir/fc.csv") -eq 11 ]] || fail "rows: $(wc -l <"$dir/fc.csv")"
[[ -s "$dir/fc_sales.png" && -s "$dir/fc_temp.png" ]] || fail "plots missing"
# One column, --eval: scores relative to seasonal naive.
out=$("$bin" forecast --checkpoint "$dir/run" --csv "$dir/series.csv" --column sales --horizon 5 --eval \
  --season-length 12 --threads 1 2>&1) || fail "eval: $out"
[[ $out == *"relative to seasonal naive (m = 12)"* ]] || fail "eval output: $out"
[[ $out != *",actual"* ]] || fail "--eval without --out printed the forecast CSV: $out"

# The shipped forecaster (no --checkpoint) on the monthly example: dates carried into the CSV.
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out=$("$bin" forecast --csv "$repo/tools/studies/chronos/example.csv" --column visitors --horizon 12 --samples 8 \
  --out "$dir/shipped.csv" --plot "$dir/shipped.svg" --plot-history 0 --threads 1 2>&1) || fail "shipped: $out"
[[ $out == *"chronos-real-d64"* && $out == *"dates from column 'month' (one step: month)"* ]] || fail "shipped: $out"
last=$(tail -1 "$repo/tools/studies/chronos/example.csv" | cut -d, -f1)
[[ $(sed -n 2p "$dir/shipped.csv") == visitors,1,* ]] || fail "shipped rows: $(head -3 "$dir/shipped.csv")"
[[ $(head -1 "$dir/shipped.csv") == "series,step,date,median,"* ]] || fail "shipped header: $(head -1 "$dir/shipped.csv")"
[[ $(sed -n 2p "$dir/shipped.csv" | cut -d, -f3) > "$last" ]] || fail "first forecast date not after $last"
grep -q "one step: month" "$dir/shipped.svg" || fail "shipped plot: no date axis"
out=$(HARMONIC_PRETRAINED="$dir/nowhere" "$bin" forecast --csv "$dir/series.csv" --horizon 2 --threads 1 2>&1)
[[ $? -ne 0 && $out == *"$dir/nowhere/chronos-real-d64"* ]] || fail "a missing shipped model is named: $out"

expect_error() {  # name, expected fragment, checkpoint, forecast arguments...
  local name=$1 fragment=$2 checkpoint=$3
  shift 3
  local msg
  msg=$("$bin" forecast --checkpoint "$checkpoint" --horizon 3 --threads 1 "$@" 2>&1) && fail "$name: exit 0: $msg"
  [[ $msg == *"$fragment"* ]] || fail "$name: expected '$fragment' in: $msg"
  echo "ok: $name: $msg"
}
printf 'x,y\n1,2\n"3,4\n' >"$dir/broken.csv"
expect_error "malformed CSV" "unterminated quote" "$dir/run" --csv "$dir/broken.csv"
printf 'x\n1\n2\n\n3\n' >"$dir/short.csv"
expect_error "short series" "forecasting needs at least 5" "$dir/run" --csv "$dir/short.csv"
expect_error "unknown column" "no column 'nosuch'" "$dir/run" --csv "$dir/series.csv" --column nosuch
expect_error "missing file" "no such file" "$dir/run" --csv "$dir/none.csv"
expect_error "not a checkpoint" "does not exist" "$dir/none" --csv "$dir/series.csv"
out=$("$bin" forecast --checkpoint "$dir/run" --csv "$dir/series.csv" --horizon 0 --threads 1 2>&1) && fail "horizon 0: exit 0"
[[ $out == *"--horizon must be at least 1 step, got 0"* && $out != *"-1"* ]] || fail "horizon 0: $out"
expect_error "quantile source" "--quantiles" "$dir/run" --csv "$dir/series.csv" --quantiles median
# A directory: one table over its files, each with its own season (from its dates, or 1).
mkdir -p "$dir/set" && cp "$dir/series.csv" "$dir/set/a.csv"
{ echo "month;v"; for t in $(seq 0 29); do echo "$(( t % 12 + 1 )).$(( 2020 + t / 12 ));$(( 10 + t % 5 )),5"; done; } >"$dir/set/b.csv"
out=$("$bin" forecast --checkpoint "$dir/run" --csv "$dir/set" --horizon 3 --samples 4 --quantiles paths --eval \
  --threads 1 2>&1) || fail "directory: $out"
[[ $out == *"a/sales"*"a/temp"*"b "*"over 3 series"* ]] || fail "directory table: $out"
[[ $out == *"b.csv: assumed cells separated by ';' with decimal commas"* ]] || fail "directory notes: $out"
[[ $out == *"b.csv: assumed season length 12"* ]] || fail "directory season: $out"
printf 'x\n7\n7\n7\n7\n7\n7\n' >"$dir/constant.csv"
out=$("$bin" forecast --checkpoint "$dir/run" --csv "$dir/constant.csv" --horizon 2 --threads 1 2>&1) ||
  fail "constant: $out"
[[ $out == *"column 'x' is constant (7)"* ]] || fail "constant note: $out"
echo "ok: harmonic forecast"
