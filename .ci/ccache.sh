# Sourced by .ci/build and .ci/sanitize: compile through ccache (installed by .ci/install-deps),
# so a machine that builds Harmonic again (another clone, another commit) recompiles only what
# changed. Paths are hashed relative to the clone (CCACHE_BASEDIR), so clones elsewhere share
# the cache. HARMONIC_CCACHE=0 builds without it.
ccache_args=""
if [[ "${HARMONIC_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  # Precompiled headers (CMakeLists.txt, HARMONIC_PCH) are cached only with this sloppiness.
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
  ccache_args="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
fi
