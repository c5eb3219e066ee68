// The tiled (flash-attention 2) CUDA kernels of scaled_dot_product_attention
// (cuda/scaled_dot_product_attention_flash.cu) against the CPU kernels, and the op's choice of
// path on CUDA (cuda/scaled_dot_product_attention_route.h).
//   - The tile geometry (ops/scaled_dot_product_attention_tiles.h): the forward, the dQ pass and
//     the dK/dV pass visit exactly the tiles that hold a visible (query, key) pair. CPU only.
//   - [cuda] The slots with SdpaPath::Flash (the backward in one pass and, deterministic, in
//     two): out, lse, dq, dk, dv and dbias at sizes that are no multiple of the 64-row tiles, Nq != Nk causal (bottom-right: rows that see no key), head
//     dims 16, 64, 80, 128, padding with a fully padded batch, biases of every broadcast shape
//     with -inf entries and an all -inf row, dropout (the CPU's Philox mask). On cuda:0 when
//     present, and always through the host twin, which runs the blocks' code on the CPU thread
//     by thread with the same tiles and summation order. The reference: the CPU kernels.
//   - [cuda] The op through autograd with SdpaPath::Flash, and the Auto / Reference / Composed
//     routing on a device.
#include <doctest/doctest.h>

#include <limits>
#include <set>
#include <string>

#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/core/deterministic.h"
#include "harmonic/cuda/scaled_dot_product_attention_route.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/scaled_dot_product_attention_kernels.h"
#include "harmonic/ops/scaled_dot_product_attention_tiles.h"
#include "harmonic/ops/shape_ops.h"
#include "tests/device_harness.h"

using namespace hm;
using cuda::ScopedSdpaPath;
using cuda::sdpa_composed_fits;
using cuda::sdpa_flash_covers;
using cuda::sdpa_flash_enabled;
using cuda::sdpa_flash_faster;
using cuda::sdpa_flash_forced;
using cuda::sdpa_flash_runs;
using cuda::sdpa_flash_single_pass_runs;
using cuda::sdpa_path;
using cuda::SdpaPath;
using namespace hm::test;

namespace {

constexpr int64_t B = 2, H = 2;
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor normal(const Shape& shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, {.dtype = DType::Float32}, &gen);
}

// A bias (bb, hb, nq, nk): entry (0, 0, 0, 1) = -inf and row 2 of slice (0, 0) all -inf.
Tensor bias_with_infs(int64_t bb, int64_t hb, int64_t nq, int64_t nk, uint64_t seed) {
  Tensor b = normal({bb, hb, nq, nk}, seed).to(DType::Float64);
  double* p = b.data<double>();
  if (nk > 1) p[1] = -kInf;
  if (nq > 2)
    for (int64_t j = 0; j < nk; ++j) p[2 * nk + j] = -kInf;
  return b.to(DType::Float32);
}

// Padding (B, nk): batch 0 keys 1 and nk - 2; batch 1 every key (its rows see nothing).
Tensor padding(int64_t nk) {
  std::vector<int64_t> pv(B * nk, 0);
  pv[1] = 1, pv[nk - 2] = 1;
  for (int64_t j = 0; j < nk; ++j) pv[nk + j] = 1;
  return ne(from_vector(pv, {B, nk}), zeros({B, nk}, {.dtype = DType::Int64}));
}

struct Case {
  int64_t nq, nk, d;
  bool causal, padded;
  int64_t bb, hb;  // bias dims; 0: no bias
  double dropout;
  std::string str() const {
    return fmt::format("Nq {} Nk {} D {} causal {} padded {} bias ({}, {}) dropout {}", nq, nk, d, causal, padded, bb,
                       hb, dropout);
  }
};

std::vector<Case> cases() {
  std::vector<Case> all;
  // Every feature at head dim 16 over awkward sizes; the other head dims on two of them.
  for (auto [nq, nk] : std::vector<std::pair<int64_t, int64_t>>{{130, 70}, {70, 130}, {65, 65}, {1, 100}, {200, 200}}) {
    all.push_back({nq, nk, 16, true, false, 0, 0, 0.0});
    all.push_back({nq, nk, 16, false, true, 1, H, 0.0});
    all.push_back({nq, nk, 16, true, true, B, 1, 0.3});
    all.push_back({nq, nk, 16, true, false, B, H, 0.0});
  }
  for (int64_t d : {64, 80, 128}) {
    all.push_back({130, 70, d, true, true, 1, 1, 0.2});
    all.push_back({70, 130, d, true, false, 1, H, 0.0});
  }
  return all;
}

// q, k, v, pad, bias, g on the CPU (float32).
std::vector<Tensor> inputs_of(const Case& c) {
  return {normal({B, H, c.nq, c.d}, 1),
          normal({B, H, c.nk, c.d}, 2),
          normal({B, H, c.nk, c.d}, 3),
          c.padded ? padding(c.nk) : Tensor(),
          c.bb ? bias_with_infs(c.bb, c.hb, c.nq, c.nk, 4) : Tensor(),
          normal({B, H, c.nq, c.d}, 5)};
}

// out, lse, dq, dk, dv (and dbias) from the slots on `device`, on the CPU.
std::vector<Tensor> run_slots(const Case& c, const std::vector<Tensor>& x, Device device) {
  auto on = [&](const Tensor& t) { return t.defined() ? t.to(device).contiguous() : Tensor(); };
  const Tensor q = on(x[0]), k = on(x[1]), v = on(x[2]), pad = on(x[3]), bias = on(x[4]), g = on(x[5]);
  const SdpaArgs args{
      .scale = 0.3, .causal = c.causal, .dropout_p = c.dropout, .seed = 7, .offset = c.dropout > 0 ? 11u : 0u};
  auto empty = [&](const Shape& s) { return Tensor::empty(s, DType::Float32, device); };
  Tensor out = empty({B, H, c.nq, c.d}), lse = empty({B, H, c.nq});
  sdpa_kernel(device, q, k, v, pad, bias, args, out, lse);
  Tensor dq = empty(q.shape()), dk = empty(k.shape()), dv = empty(v.shape());
  Tensor dbias = bias.defined() ? empty(bias.shape()) : Tensor();
  sdpa_backward_kernel(device, q, k, v, pad, bias, out, lse, g, args, dq, dk, dv, dbias);
  std::vector<Tensor> r;
  for (const Tensor& t : {out, lse, dq, dk, dv, dbias})
    if (t.defined()) r.push_back(t.to(Device::cpu()));
  return r;
}

}  // namespace

TEST_CASE("sdpa tiles: each pass visits exactly the tiles that hold a visible pair") {
  for (bool causal : {false, true})
    for (int64_t nq : {1, 2, 63, 64, 65, 127, 128, 130, 200})
      for (int64_t nk : {0, 1, 2, 63, 64, 65, 100, 129, 200}) {
        CAPTURE(nq);
        CAPTURE(nk);
        CAPTURE(causal);
        const SdpaTiles t{.Nq = nq, .Nk = nk, .causal = causal};
        REQUIRE(t.query_tiles() == (nq + 63) / 64);
        REQUIRE(t.key_tiles() == (nk + 63) / 64);
        std::set<std::pair<int64_t, int64_t>> needed, forward, by_key;
        for (int64_t i = 0; i < nq; ++i)
          for (int64_t j = 0; j < nk; ++j) {
            const bool seen = !causal || j <= i + nk - nq;  // bottom-right aligned
            CHECK(t.visible(i, j) == seen);
            if (seen) needed.insert({i / 64, j / 64});
          }
        CHECK_FALSE(t.visible(nq, 0));
        CHECK_FALSE(t.visible(0, nk));
        for (int64_t qt = 0; qt < t.query_tiles(); ++qt)
          for (int64_t kt = 0; kt < t.key_tile_end(qt); ++kt) forward.insert({qt, kt});
        for (int64_t kt = 0; kt < t.key_tiles(); ++kt)
          for (int64_t qt = t.query_tile_begin(kt); qt < t.query_tiles(); ++qt) by_key.insert({qt, kt});
        // The forward and dQ pass walk a prefix of key tiles, the dK/dV pass a suffix of query
        // tiles; under the causal mask both are exactly the needed tiles.
        CHECK(forward == needed);
        CHECK(by_key == needed);
      }
}

TEST_CASE("sdpa path: overrides nest, flash only where covered, composed never off the GPU") {
  CHECK(sdpa_path() == SdpaPath::Auto);
  {
    ScopedSdpaPath flash(SdpaPath::Flash);
    CHECK(sdpa_flash_enabled());
    {
      ScopedSdpaPath ref(SdpaPath::Reference);
      CHECK(sdpa_path() == SdpaPath::Reference);
      CHECK_FALSE(sdpa_flash_enabled());
    }
    CHECK(sdpa_path() == SdpaPath::Flash);
  }
  CHECK(sdpa_path() == SdpaPath::Auto);
  CHECK(sdpa_flash_covers(64, 64, DType::Float32));
  CHECK(sdpa_flash_covers(80, 80, DType::Float32));
  CHECK_FALSE(sdpa_flash_covers(64, 32, DType::Float32));  // D != Dv
  CHECK_FALSE(sdpa_flash_covers(48, 48, DType::Float32));  // not compiled
  CHECK_FALSE(sdpa_flash_covers(64, 64, DType::Float64));
  // Auto's speed rule agrees with every measured case it was drawn from.
  for (const cuda::SdpaMeasuredCase& m : cuda::kSdpaMeasuredCases) {
    CAPTURE(m.N);
    CAPTURE(m.D);
    CHECK(sdpa_flash_faster(m.D, m.N) == (m.tiled_ms < m.composed_ms));
  }
  CHECK(sdpa_flash_faster(64, 1024));
  CHECK(sdpa_flash_faster(96, 512));
  CHECK_FALSE(sdpa_flash_faster(64, 256));
  CHECK_FALSE(sdpa_flash_faster(128, 4096));
  CHECK_FALSE(sdpa_composed_fits(16, DType::Float32, Device::cpu()));
  // On the CPU every path runs the CPU kernels: the op's node whatever the override.
  const Tensor q = normal({1, 1, 3, 4}, 1).requires_grad_(true);
  for (SdpaPath path : {SdpaPath::Auto, SdpaPath::Composed, SdpaPath::Flash}) {
    ScopedSdpaPath scope(path);
    Tensor out = scaled_dot_product_attention(q, q, q);
    REQUIRE(out.grad_fn());
    CHECK(out.grad_fn()->name == "scaled_dot_product_attention");
  }
}

TEST_CASE("[cuda] tiled sdpa kernels match the CPU's (out, lse, dq, dk, dv, dbias, awkward sizes, masks, dropout)") {
  announce_targets();
  const char* names[] = {"out", "lse", "dq", "dk", "dv", "dbias"};
  for (const Case& c : cases()) {
    CAPTURE(c.str());
    const std::vector<Tensor> x = inputs_of(c);
    const std::vector<Tensor> ref = run_slots(c, x, Device::cpu());
    if (c.padded) {  // batch 1 is fully padded: lse -inf there
      CHECK(ref[1].to(DType::Float64).data<double>()[H * c.nq] == -kInf);
    }
    ScopedSdpaPath flash(SdpaPath::Flash);
    for_each_device([&](const Target& t) {
      const int64_t runs = sdpa_flash_runs();
      const std::vector<Tensor> got = run_slots(c, x, t.device);
      CHECK(sdpa_flash_runs() == runs + 2);  // the tiled forward and backward ran
      REQUIRE(got.size() == ref.size());
      for (size_t i = 0; i < got.size(); ++i)
        check_close(ref[i], got[i], std::string(names[i]) + " on " + t.name + ", " + c.str());
    });
  }
}

// The tiled backward outside deterministic mode (one pass, dQ by atomics, unless a bias wants
// its gradient) and inside it (two passes in a fixed order, every case).
TEST_CASE("[cuda] the single-pass and the deterministic two-pass tiled sdpa backward match the CPU's") {
  announce_targets();
  const char* names[] = {"out", "lse", "dq", "dk", "dv", "dbias"};
  for (bool fixed_order : {false, true}) {
    CAPTURE(fixed_order);
    DeterministicGuard mode(fixed_order);
    for (const Case& c : cases()) {
      CAPTURE(c.str());
      const std::vector<Tensor> x = inputs_of(c);
      const std::vector<Tensor> ref = run_slots(c, x, Device::cpu());
      ScopedSdpaPath flash(SdpaPath::Flash);
      for_each_device([&](const Target& t) {
        const int64_t single = sdpa_flash_single_pass_runs();
        const std::vector<Tensor> got = run_slots(c, x, t.device);
        // A bias gradient keeps the two passes (the dQ pass writes dS for it).
        CHECK(sdpa_flash_single_pass_runs() == single + (fixed_order || c.bb ? 0 : 1));
        REQUIRE(got.size() == ref.size());
        for (size_t i = 0; i < got.size(); ++i)
          check_close(ref[i], got[i], std::string(names[i]) + " on " + t.name + ", " + c.str());
      });
    }
  }
}

TEST_CASE("[cuda] tiled sdpa through autograd matches the CPU (output and q, k, v, broadcast bias gradients)") {
  announce_targets();
  ScopedSdpaPath flash(SdpaPath::Flash);
  for (int64_t d : {16, 64}) {
    CAPTURE(d);
    const Tensor pad = padding(77);
    check_against_cpu("tiled scaled_dot_product_attention",
                      [=](const std::vector<Tensor>& in) {
                        FusedAttentionMask m{.causal = true, .key_padding_mask = pad, .additive_bias = in[3]};
                        Generator gen(5);  // fresh per call: the same dropout mask on every target
                        return scaled_dot_product_attention(in[0], in[1], in[2], m, 0.1, true, &gen);
                      },
                      {normal({B, H, 66, d}, 1), normal({B, H, 77, d}, 2), normal({B, H, 77, d}, 3),
                       reshape(bias_with_infs(1, H, 66, 77, 4), {H, 66, 77})});  // bias (H, Nq, Nk)
  }
}

TEST_CASE("[cuda] scaled_dot_product_attention's path on a device: composed where it fits, the kernels on request") {
  announce_targets();
  if (!cuda::available()) return;
  const Device dev = Device::cuda(0);
  const Tensor q = normal({B, H, 5, 16}, 1).to(dev).requires_grad_(true);
  const Tensor k = normal({B, H, 7, 16}, 2).to(dev), v = normal({B, H, 7, 16}, 3).to(dev);
  auto node = [&](SdpaPath path) {
    ScopedSdpaPath scope(path);
    return scaled_dot_product_attention(q, k, v, {.causal = true}).grad_fn()->name;
  };
  CHECK(node(SdpaPath::Reference) == "scaled_dot_product_attention");
  CHECK(node(SdpaPath::Flash) == "scaled_dot_product_attention");
  CHECK(node(SdpaPath::Composed) != "scaled_dot_product_attention");
  CHECK(sdpa_composed_fits(B * H * 5 * 7, DType::Float32, dev));
  // 7 keys: the composed form (faster there than the tiles), unless HARMONIC_FLASH=1 forces them.
  if (!sdpa_flash_forced()) CHECK(node(SdpaPath::Auto) != "scaled_dot_product_attention");
}

TEST_CASE("[cuda] single-pass tiled sdpa small case (compute-sanitizer target)") {
  announce_targets();
  DeterministicGuard mode(false);
  ScopedSdpaPath flash(SdpaPath::Flash);
  for (const Case& c : {Case{70, 130, 16, true, true, 0, 0, 0.2}, Case{65, 66, 64, true, false, 0, 0, 0.0}}) {
    CAPTURE(c.str());
    const std::vector<Tensor> x = inputs_of(c);
    const std::vector<Tensor> ref = run_slots(c, x, Device::cpu());
    for_each_device([&](const Target& t) {
      const std::vector<Tensor> got = run_slots(c, x, t.device);
      for (size_t i = 0; i < got.size(); ++i)
        check_close(ref[i], got[i], "output " + std::to_string(i) + " on " + t.name);
    });
  }
}

TEST_CASE("[cuda] tiled sdpa small case (compute-sanitizer target)") {
  announce_targets();
  ScopedSdpaPath flash(SdpaPath::Flash);
  for (const Case& c : {Case{70, 130, 16, true, true, 1, H, 0.2}, Case{65, 66, 64, true, true, B, 1, 0.0}}) {
    CAPTURE(c.str());
    const std::vector<Tensor> x = inputs_of(c);
    const std::vector<Tensor> ref = run_slots(c, x, Device::cpu());
    for_each_device([&](const Target& t) {
      const std::vector<Tensor> got = run_slots(c, x, t.device);
      for (size_t i = 0; i < got.size(); ++i) check_close(ref[i], got[i], "output " + std::to_string(i) + " on " + t.name);
    });
  }
}
