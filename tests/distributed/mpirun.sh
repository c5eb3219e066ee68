#!/usr/bin/env bash
# Runs a command on N local ranks with the settings a container or a small VM needs:
#   bash tests/distributed/mpirun.sh N command args...
# --oversubscribe (more ranks than cores is fine), no core binding (other processes share the
# cores), shared-memory transport only (btl self,vader) without the single-copy mechanism that
# containers forbid (where cross-memory attach works, OMPI_MCA_btl_vader_single_copy_mechanism=cma
# is much faster for large buffers), --allow-run-as-root when root, one OpenMP thread per rank by
# default, and ranks that wait in a collective yield their core (mpi_yield_when_idle: on a shared
# machine the peer they wait for may need it); other OMPI_MCA_* variables pass through.
set -euo pipefail
n=$1
shift
args=(--oversubscribe -np "$n" --bind-to none --mca btl self,vader)
[[ $(id -u) -eq 0 ]] && args+=(--allow-run-as-root)
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
exec mpirun "${args[@]}" "$@"
