// Host twins registry and the HostEmulation scope (see cuda/runtime/emulation.h).
#include "harmonic/cuda/runtime/emulation.h"

#include "harmonic/core/error.h"

namespace hm::cuda {
namespace {
bool force64 = false;
bool emulating = false;
}  // namespace

// Declared in cuda/device/launch.cuh; read when kernels build their offset calculators.
bool force_64bit_indexing() { return force64; }

std::vector<HostTwin>& host_twins() {
  static std::vector<HostTwin> twins;
  return twins;
}

HostEmulation::HostEmulation(bool force_64bit_indexing) : previous_force64_(force64) {
  check(!emulating, "HostEmulation", "scopes do not nest");
  emulating = true;
  force64 = force_64bit_indexing;
  for (HostTwin& t : host_twins()) t.toggle(true);
}

HostEmulation::~HostEmulation() {
  for (HostTwin& t : host_twins()) t.toggle(false);
  force64 = previous_force64_;
  emulating = false;
}

RealCpuKernels::RealCpuKernels() : paused_(emulating) {
  if (paused_)
    for (HostTwin& t : host_twins()) t.toggle(false);
}

RealCpuKernels::~RealCpuKernels() {
  if (paused_)
    for (HostTwin& t : host_twins()) t.toggle(true);
}

std::vector<std::string_view> HostEmulation::emulated_kernels() {
  std::vector<std::string_view> names;
  for (const HostTwin& t : host_twins()) names.push_back(t.name);
  return names;
}

}  // namespace hm::cuda
