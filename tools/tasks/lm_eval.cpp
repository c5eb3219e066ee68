#include "harmonic/tools/tasks/lm_eval.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/ops/ops.h"

namespace hm::train {

double StreamScore::ppl() const { return std::exp(loss); }

std::vector<StreamWindow> lm_eval_windows(int64_t n, int64_t block_size, int64_t max_tokens) {
  check(n >= 2 && block_size >= 1 && max_tokens >= 0, "lm_eval_windows",
        "need a stream of >= 2 tokens, block_size >= 1 and max_tokens >= 0, got {}, {} and {}", n, block_size,
        max_tokens);
  const int64_t full = (n - 1) / block_size, tail = (n - 1) % block_size;
  std::vector<StreamWindow> out;
  if (max_tokens == 0 || max_tokens >= n - 1 || full == 0) {
    for (int64_t i = 0; i < full; ++i) out.push_back({i * block_size, block_size});
    if (tail > 0) out.push_back({full * block_size, tail});
    return out;
  }
  const int64_t w = std::min(full, (max_tokens + block_size - 1) / block_size);
  for (int64_t i = 0; i < w; ++i) out.push_back({(i * full / w) * block_size, block_size});
  return out;
}

StreamScore score_token_stream(models::GPT& gpt, const Tensor& tokens, int64_t max_tokens, int64_t batch_size) {
  HM_CHECK(tokens.defined() && tokens.dim() == 1 && tokens.dtype() == DType::Int64, "score_token_stream",
           "tokens must be a 1-d int64 stream, got {}", tokens.desc());
  check(batch_size >= 1, "score_token_stream", "batch_size must be >= 1, got {}", batch_size);
  NoGradGuard no_grad;
  const Device device = gpt.wte->weight.device();
  const std::vector<StreamWindow> windows = lm_eval_windows(tokens.numel(), gpt.config.block_size, max_tokens);
  double nll = 0;
  int64_t count = 0;
  for (size_t i = 0; i < windows.size();) {
    // A batch of equal-length windows (the partial last window runs alone).
    size_t j = i;
    std::vector<Tensor> xs, ys;
    while (j < windows.size() && static_cast<int64_t>(xs.size()) < batch_size && windows[j].len == windows[i].len) {
      xs.push_back(narrow(tokens, 0, windows[j].start, windows[j].len));
      ys.push_back(narrow(tokens, 0, windows[j].start + 1, windows[j].len));
      ++j;
    }
    Tensor x = stack(xs).to(device), y = stack(ys).to(device);  // (b, len)
    Tensor logits = gpt.forward(x);                             // (b, len, V)
    nll += cross_entropy(logits, y, {.class_dim = -1, .reduction = Reduction::Sum}).item<double>();
    count += y.numel();
    i = j;
  }
  return {count, nll / static_cast<double>(count)};
}

Tensor lm_spread_windows(const Tensor& tokens, int64_t block_size, int64_t count) {
  HM_CHECK(tokens.defined() && tokens.dim() == 1 && tokens.dtype() == DType::Int64, "lm_spread_windows",
           "tokens must be a 1-d int64 stream, got {}", tokens.desc());
  check(count >= 1 && block_size >= 1 && tokens.numel() >= block_size, "lm_spread_windows",
        "need count >= 1 and a stream of >= block_size tokens, got count {}, block_size {}, {} tokens", count,
        block_size, tokens.numel());
  const int64_t span = tokens.numel() - block_size;
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < count; ++i)
    rows.push_back(narrow(tokens, 0, count == 1 ? 0 : i * span / (count - 1), block_size));
  return stack(rows);
}

}  // namespace hm::train
