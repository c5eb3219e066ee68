#!/usr/bin/env bash
# End to end through the real CLI: a study cut by Ctrl-C (SIGINT) and then resumed writes the
# same tables as an uninterrupted run (timing lines aside). So does one killed by SIGKILL (no
# handler runs): every run its log reported finished is in results.jsonl.
#   usage: study_resume.sh path/to/harmonic scratch-dir
set -euo pipefail
harmonic=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
args=(study fourier-toy --quick --jobs 2 --set epochs=50 --set 'datasets=["gaussian","beta"]')
"$harmonic" "${args[@]}" --out "$dir/whole" >"$dir/whole.log"
# signal_after_first_run SIGNAL OUT LOG: starts the study, sends SIGNAL once its log reports the
# first finished run (not after a fixed time: on a loaded machine a run takes 2-6 s), sets $status.
signal_after_first_run() {
  "$harmonic" "${args[@]}" --out "$2" >"$3" &
  local pid=$!
  until grep -q '^\[ *1/' "$3" || ! kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  kill -s "$1" "$pid" 2>/dev/null
  set +e
  wait "$pid" 2>/dev/null
  status=$?
  set -e
}
signal_after_first_run INT "$dir/cut" "$dir/cut.log"
if [[ $status -eq 0 ]]; then echo "the study finished before the interrupt; nothing was tested" >&2; exit 1; fi
grep -q "interrupted: .* runs are recorded" "$dir/cut.log" || { cat "$dir/cut.log" >&2; exit 1; }
"$harmonic" study fourier-toy --resume "$dir/cut" >"$dir/resume.log"
grep -q "resuming: " "$dir/resume.log" || { cat "$dir/resume.log" >&2; exit 1; }
# Wall and per-run times differ between runs; every other line must match.
strip() { grep -v -e "Wall time" -e "seconds per run" -e '^| [a-z-]* | [0-9]* | [0-9.]* |$' "$1"; }
diff <(strip "$dir/whole/summary.md") <(strip "$dir/cut/summary.md")
echo "interrupted and resumed study: same summary.md ($(wc -l <"$dir/cut/results.jsonl") runs)"

signal_after_first_run KILL "$dir/killed" "$dir/killed.log"
[[ $status -eq 137 ]] || { echo "exit $status, expected 137 (SIGKILL): the study ended before the kill?" >&2; exit 1; }
finished=0
while IFS= read -r label; do
  grep -qF "\"label\":\"$label\"" "$dir/killed/results.jsonl" || { echo "finished run '$label' lost" >&2; exit 1; }
  finished=$((finished + 1))
done < <(sed -n 's/^\[ *[0-9]*\/[0-9]*\] \(.*\) |  kl .*/\1/p' "$dir/killed.log")
[[ $finished -ge 1 ]] || { echo "no run finished before the kill; nothing was tested" >&2; exit 1; }
"$harmonic" study fourier-toy --resume "$dir/killed" >"$dir/killed_resume.log"
diff <(strip "$dir/whole/summary.md") <(strip "$dir/killed/summary.md")
echo "killed (SIGKILL) with $finished finished run(s) in its log, all kept; resumed: same summary.md"
