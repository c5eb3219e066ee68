# Sourced by the compare scripts with their arguments (thread counts) after setting $repo and
# $default_threads: the peer's python ($python, peer_python.sh), the harmonic executable ($bin:
# HARMONIC_BIN, else build/harmonic; the script stops when there is none), the BLAS threads of
# peer_blas_env.sh and the thread counts to run ($threads: the arguments, else the default).
source "$repo/tools/bench/torch/peer_python.sh"; python="$PYTHON"
bin="${HARMONIC_BIN:-$repo/build/harmonic}"
[[ -x "$bin" ]] || { echo "$(basename "$0"): no harmonic executable at $bin; set HARMONIC_BIN" >&2; exit 1; }
source "$repo/tools/bench/torch/peer_blas_env.sh"
threads=("$@")
# shellcheck disable=SC2206  # the default is a list of numbers
if [[ ${#threads[@]} -eq 0 ]]; then threads=($default_threads); fi
