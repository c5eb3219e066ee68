// Index checks of the CUDA kernels (cuda/device/index_checks.cuh): one pass records the first bad
// position (atomicMin, so the first in row-major order, as on the CPU), a one-thread pass then
// copies its value beside it.
#include <algorithm>

#include "harmonic/cuda/device/index_checks.cuh"
#include "harmonic/cuda/device/rows.cuh"

namespace hm::cuda {
namespace {

constexpr unsigned long long kNone = ULLONG_MAX;

HM_HD void lower(unsigned long long* word, unsigned long long v) {
#ifdef __CUDA_ARCH__
  atomicMin(word, v);
#else
  *word = std::min(*word, v);
#endif
}

struct IndexAt {
  const int64_t* index;
  OffsetCalc<1> calc;
  HM_HD int64_t operator()(int64_t i) const { return index[calc.get(i).v[0]]; }
};

struct FindFirstBad {
  IndexAt at;
  int64_t size, ignore;
  bool has_ignore;
  unsigned long long* verdict;  // {first bad position, its value}
  unsigned long long* flag;     // deferred: lowered to `ticket` on a failure; else null
  unsigned long long ticket;
  HM_HD void operator()(int64_t i) const {
    const int64_t v = at(i);
    if (index_in_range(v, size) || (has_ignore && v == ignore)) return;
    lower(verdict, static_cast<unsigned long long>(i));
    if (flag) lower(flag, ticket);
  }
};

struct FetchBadValue {
  IndexAt at;
  unsigned long long* verdict;
  HM_HD void operator()(int64_t) const {
    if (verdict[0] != kNone) verdict[1] = static_cast<unsigned long long>(at(static_cast<int64_t>(verdict[0])));
  }
};

}  // namespace

void check_index_values(Exec exec, int device, const Tensor& index, const Shape& shape, const Strides& strides,
                        int64_t size, std::optional<int64_t> ignore, std::string_view fn, CheckMessage message) {
  Shape scan = shape;
  for (size_t d = 0; d < scan.size(); ++d)
    if (strides[d] == 0) scan[d] = std::min<int64_t>(scan[d], 1);
  const int64_t n = numel_of(scan);
  if (n == 0) return;
  const IndexAt at{static_cast<const int64_t*>(index.raw_data()), make_offset_calc<1>(scan, {&strides}, fn)};
  Tensor verdict = Tensor::empty({2}, DType::Int64, index.device());
  auto* words = static_cast<unsigned long long*>(verdict.raw_data());
  if (exec == Exec::Host) {
    words[0] = words[1] = kNone;
  } else {
    DeviceGuard guard(device);
    HM_CUDA_CHECK(cudaMemsetAsync(words, 0xff, 2 * sizeof(*words), stream(device)));
  }
  const bool deferred = checks_deferred() && index.device().is_cuda();
  CheckTicket ticket{nullptr, 0};
  if (deferred) ticket = defer_check(device, verdict, fn, std::move(message));
  for_each_index(exec, device, n,
                 FindFirstBad{at, size, ignore.value_or(0), ignore.has_value(), words, ticket.flag, ticket.ticket});
  for_each_index(exec, device, 1, FetchBadValue{at, words});
  if (deferred) return;
  unsigned long long host[2];
  read_back(exec, device, words, host, 2);
  if (host[0] != kNone) throw_error(fn, message(static_cast<int64_t>(host[0]), static_cast<int64_t>(host[1])));
}

}  // namespace hm::cuda
