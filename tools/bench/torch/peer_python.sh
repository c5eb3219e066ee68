# Sourced by the compare scripts: the python that runs the PyTorch peer. $PYTHON if set, else the
# virtual environment `.ci/install-deps --with-torch` makes (the current PyTorch 2.x from PyPI),
# else the system's python3 (Debian's python3-torch, PyTorch 1.13).
if [[ -z "${PYTHON:-}" ]]; then
  venv="${HARMONIC_TORCH_VENV:-$HOME/.cache/harmonic/torch-venv}"
  if [[ -x "$venv/bin/python" ]]; then PYTHON="$venv/bin/python"; else PYTHON=/usr/bin/python3; fi
fi
echo "peer: $("$PYTHON" -c 'import torch; print("PyTorch", torch.__version__)' 2>/dev/null || echo "no PyTorch in $PYTHON")"
