// What this build is and what it runs on: version, git commit, build type, compiler flags,
// BLAS library and threads (`harmonic --version`, `harmonic info`). The commit is read when
// CMake configures, into a generated header only core/build_info.cpp includes, so a new
// commit rebuilds that one file (after a re-configure).
#pragma once
#include <string>

namespace hm {

struct BuildInfo {
  std::string version;       // the project version, "0.1.0"
  std::string commit;        // `git rev-parse --short HEAD` at configure time ("unknown" outside git)
  std::string build_type;    // CMAKE_BUILD_TYPE
  std::string compiler;      // "GNU 12.2.0"
  std::string cxx_flags;     // CMAKE_CXX_FLAGS, the build type's flags and Harmonic's own
  std::string blas_library;  // the BLAS library linked
  bool cuda_compiled = false;
};

const BuildInfo& build_info();
// "harmonic 0.1.0 (commit abc1234)"
std::string version_string();
// The BLAS runtime: OpenBLAS's build config and thread count when the library is OpenBLAS
// ("OpenBLAS 0.3.21 ... SkylakeX ... | threads 2", and blas_kernel_choice() when Harmonic chose
// the kernels: core/blas_runtime.h), otherwise "unknown (not OpenBLAS)".
std::string blas_runtime();

}  // namespace hm
