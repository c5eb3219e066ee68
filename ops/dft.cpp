#include "harmonic/ops/dft.h"

#include <cstdint>

#include "harmonic/ops/cpu/fft_plan.h"

namespace hm {

void dft_inplace(std::vector<std::complex<double>>& x, bool inverse) {
  const int64_t m = static_cast<int64_t>(x.size());
  if (m <= 1) return;
  const auto plan = cpu_fft::plan<double>(m);
  std::vector<double> re(m), im(m), work(plan->work_size());
  for (int64_t j = 0; j < m; ++j) re[j] = x[j].real(), im[j] = x[j].imag();
  if (inverse)
    plan->inverse(re.data(), im.data(), work.data());
  else
    plan->forward(re.data(), im.data(), work.data());
  const double scale = inverse ? 1.0 / static_cast<double>(m) : 1.0;
  for (int64_t j = 0; j < m; ++j) x[j] = {re[j] * scale, im[j] * scale};
}

}  // namespace hm
