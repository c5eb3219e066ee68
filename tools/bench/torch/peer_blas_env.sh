# Sourced by the compare_*.sh scripts once $bin is set. The PyTorch peer loads Debian's OpenBLAS
# too, which on a CPU newer than its model table falls back to its generic Prescott kernels.
# Where Harmonic replaced that fallback (core/blas_runtime.h; `harmonic info` says so), the
# peer gets the same kernels through OPENBLAS_CORETYPE, so both frameworks run the same sgemm.
if [[ -z "${OPENBLAS_CORETYPE:-}" ]]; then
  peer_core="$("$bin" info | sed -n 's/.* | \([A-Za-z]*\) kernels chosen by Harmonic.*/\1/p')"
  if [[ -n "$peer_core" ]]; then
    export OPENBLAS_CORETYPE="$peer_core"
    echo "# OpenBLAS kernels of both frameworks: $peer_core (Harmonic's choice for this CPU, given to the peer)"
  fi
fi
