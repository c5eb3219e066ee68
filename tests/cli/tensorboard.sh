#!/usr/bin/env bash
# `harmonic train --tensorboard DIR` read back by TensorBoard itself: every metrics.jsonl loss as
# a scalar at its step, the config as text. Skipped, saying so, where the Python interpreter
# (HARMONIC_PYTHON, default python3) has no tensorboard package (`pip install tensorboard` in a
# virtual environment and point HARMONIC_PYTHON at it); the suite's own reader checks the same
# files in tests/train/test_tensorboard.cpp.
set -eu
h=$1
py=${HARMONIC_PYTHON:-python3}
if ! "$py" -c "import tensorboard" 2>/dev/null; then
  echo "skipped: $py has no tensorboard package"
  exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$h" train mlp-spirals --steps 30 --set trainer.log_every=10 --tensorboard "$dir/tb" --out "$dir/run" >/dev/null
"$py" - "$dir" <<'PY'
import json, sys
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.util import tensor_util
d = sys.argv[1]
acc = ea.EventAccumulator(d + "/tb", size_guidance={ea.SCALARS: 0, ea.TENSORS: 0})
acc.Reload()
got = [(e.step, e.value) for e in acc.Scalars("loss")]
want = [(j["step"], j["loss"]) for j in map(json.loads, open(d + "/run/metrics.jsonl")) if "loss" in j]
assert [s for s, _ in got] == [s for s, _ in want] == [10, 20, 30], (got, want)
assert all(abs(a - b) <= 1e-6 * abs(b) for (_, a), (_, b) in zip(got, want)), (got, want)
text = tensor_util.make_ndarray(acc.Tensors("config")[0].tensor_proto)[0].decode()
assert '"log_every": 10' in text, text
print("ok: TensorBoard read", len(got), "loss scalars and the config")
PY
