// The linear KV cache (nn::KVCache: in-place appends into capacity-doubling buffers under
// no-grad, concatenation with grad), GPT generation with the cache against full recomputation
// for softmax and Fourier attention, and top-p sampling (models/sampling.h).
#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/models/gpt.h"
#include "harmonic/models/sampling.h"
#include "harmonic/nn/attention.h"
#include "harmonic/ops/ops.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::test;

TEST_CASE("kv cache: N one-step appends copy O(N): O(log N) reallocations, views of the buffers") {
  NoGradGuard no_grad;
  Generator gen(1);
  nn::KVCache cache;
  std::vector<Tensor> ks, vs;
  const int64_t N = 1000;
  for (int64_t t = 0; t < N; ++t) {
    ks.push_back(randn({2, 3, 1, 4}, {}, &gen));  // (B, H, 1, D)
    vs.push_back(randn({2, 3, 1, 5}, {}, &gen));  // (B, H, 1, Dv)
    cache.append(ks.back(), vs.back());
    REQUIRE(cache.length() == t + 1);
    REQUIRE(cache.capacity() >= cache.length());
  }
  // Capacity doubles from the first step: 2, 4, ..., 1024 -> 10 allocations, total copying
  // under 2N positions (each reallocation copies the current length).
  MESSAGE("reallocations for " << N << " appends: " << cache.reallocations << ", capacity " << cache.capacity());
  CHECK(cache.reallocations <= static_cast<int64_t>(std::ceil(std::log2(static_cast<double>(N)))) + 1);
  CHECK(cache.capacity() < 2 * N);
  CHECK(cache.k.shape() == Shape{2, 3, N, 4});
  CHECK(cache.v.shape() == Shape{2, 3, N, 5});
  CHECK(allclose(cache.k, cat(ks, 2), 0, 0));
  CHECK(allclose(cache.v, cat(vs, 2), 0, 0));
  // A view taken earlier still sees its positions after later appends (never overwritten).
  Tensor early = cache.k;
  cache.append(randn({2, 3, 3, 4}, {}, &gen), randn({2, 3, 3, 5}, {}, &gen));
  CHECK(allclose(early, cat(ks, 2), 0, 0));
  CHECK(cache.length() == N + 3);
  cache.reset();
  CHECK(cache.empty());
  CHECK(cache.length() == 0);
  CHECK(cache.reallocations == 0);
  CHECK(throws_with([&] { cache.append(randn({2, 3, 1, 4}), randn({2, 3, 2, 5})); }, {"[KVCache::append]"}));
  cache.append(randn({2, 3, 1, 4}), randn({2, 3, 1, 5}));
  CHECK(throws_with(
      [&] {
        cache.append(randn({2, 4, 1, 4}), randn({2, 4, 1, 5}));
      },
      {"[KVCache::append]", "(2, 4, 1, 4)"}));
}

TEST_CASE("kv cache: with grad enabled append concatenates and gradients reach every step") {
  Tensor a = randn({1, 2, 2, 3}, {.requires_grad = true}), b = randn({1, 2, 1, 3}, {.requires_grad = true});
  nn::KVCache cache;
  cache.append(a, a);
  cache.append(b, b);
  CHECK(cache.k.requires_grad());
  CHECK(cache.length() == 3);
  CHECK(!cache.k_buffer.defined());  // no in-place buffer in the graph
  sum(mul(cache.k, 2.0)).backward();
  CHECK(allclose(a.grad(), full({1, 2, 2, 3}, 2.0), 0, 0));
  CHECK(allclose(b.grad(), full({1, 2, 1, 3}, 2.0), 0, 0));
}

TEST_CASE("GPT generation with the KV cache equals full recomputation, softmax and Fourier") {
  for (auto kernel : {nn::AttentionKernel::DotProduct, nn::AttentionKernel::Fourier}) {
    CAPTURE(static_cast<int>(kernel));
    Generator gen(7);
    models::GPTConfig c{.vocab_size = 23, .block_size = 16, .n_layer = 2, .n_head = 2, .n_embd = 16, .n_inner = 24};
    c.attention = kernel;
    c.learned_positions = false;
    models::GPT gpt(c, &gen);
    gpt.eval();
    Tensor prompt = from_vector(std::vector<int64_t>{3, 1, 4, 1, 5, 9, 2, 6}, {2, 4});
    Tensor cached = gpt.generate(prompt, 20, models::SamplingOptions{.temperature = 0}, nullptr, true);
    Tensor full = gpt.generate(prompt, 20, models::SamplingOptions{.temperature = 0}, nullptr, false);
    CHECK(cached.shape() == Shape{2, 24});  // crosses block_size 16: then the window is recomputed
    CHECK(cached.to_vector_as<int64_t>() == full.to_vector_as<int64_t>());
    // Step by step through the caches: each step's logits equal the full forward's at that position.
    NoGradGuard no_grad;
    std::vector<nn::KVCache> caches;
    Tensor whole = gpt.forward(narrow(cached, 1, 0, 12));  // (2, 12, V)
    std::vector<Tensor> steps = {gpt.forward(narrow(cached, 1, 0, 4), &caches)};
    for (int64_t t = 4; t < 12; ++t) steps.push_back(gpt.forward(narrow(cached, 1, t, 1), &caches));
    CHECK(allclose(cat(steps, 1), whole, 1e-4, 1e-5));
    CHECK(caches[0].length() == 12);
  }
}

TEST_CASE("sample_next_token: top-p keeps the smallest most-probable set of mass >= p") {
  // probabilities 0.5, 0.3, 0.15, 0.05 (softmax of their logs)
  Tensor logits =
      from_vector(std::vector<double>{std::log(0.5), std::log(0.3), std::log(0.15), std::log(0.05)}, {1, 4});
  auto counts = [&](double top_p, int64_t top_k) {
    Generator gen(11);
    std::vector<int64_t> n(4, 0);
    for (int i = 0; i < 2000; ++i)
      ++n[static_cast<size_t>(
          models::sample_next_token(logits, {.temperature = 1.0, .top_k = top_k, .top_p = top_p}, &gen)
              .item<int64_t>())];
    return n;
  };
  std::vector<int64_t> p06 = counts(0.6, 0);  // 0.5 < 0.6 <= 0.8: tokens 0 and 1, renormalised 5/8 and 3/8
  CHECK(p06[2] == 0);
  CHECK(p06[3] == 0);
  CHECK(std::abs(static_cast<double>(p06[0]) / 2000 - 0.625) < 0.04);
  std::vector<int64_t> p05 = counts(0.5, 0);  // the first token alone reaches 0.5
  CHECK(p05[0] == 2000);
  std::vector<int64_t> p09 = counts(0.9, 0);  // 0.8 < 0.9 <= 0.95: three tokens
  CHECK(p09[3] == 0);
  CHECK(p09[2] > 0);
  std::vector<int64_t> all = counts(1.0, 0);  // no nucleus: every token appears
  CHECK(all[3] > 0);
  std::vector<int64_t> k2 = counts(0.9, 2);  // top-k first (0.5, 0.3 -> 0.625, 0.375), then p: both kept
  CHECK(k2[2] == 0);
  CHECK(k2[1] > 0);
  CHECK(models::sample_next_token(logits, {.temperature = 1.0, .top_p = 1e-9}).item<int64_t>() == 0);
  CHECK(throws_with([&] { models::sample_next_token(logits, {.top_p = 0.0}); }, {"[sample_next_token]", "top_p"}));
  CHECK(throws_with([&] { models::sample_next_token(logits, {.top_p = 1.5}); }, {"[sample_next_token]", "top_p"}));
}
