// CUDA backend tests: runtime, allocator, copy/convert, fill, rand/randn, binary ops and
// sum, each "[cuda]" case run on every target of tests/device_harness.h against the CPU.
// Without a GPU they print "skipped: no CUDA device" and still check the host twins.
// On a GPU machine run just these with: harmonic_tests -tc='*cuda*'  (or ctest -R cuda).
#include <cstdlib>
#include <cstring>
#include <functional>

#include "harmonic/cuda/runtime/allocator.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/cuda/runtime/timing.h"
#include "harmonic/ops/binary_kernels.h"
#include "tests/device_harness.h"

using namespace hm;
using namespace hm::test;

namespace {

Tensor values(const Shape& shape, DType dtype, uint64_t seed = 7) {
  Generator gen(seed);
  Tensor x = mul(randn(shape, {.dtype = DType::Float64}, &gen), 3.0);
  // Bool via int64 truncation: about a quarter false.
  return dtype == DType::Bool ? x.to(DType::Int64).to(dtype) : x.to(dtype);
}

const DType kStorageTypes[] = {DType::Float32, DType::Float64, DType::Int64, DType::Bool, DType::BFloat16};

}  // namespace

// -- runs everywhere -------------------------------------------------------------------------

TEST_CASE("cuda runtime: no device gives clear errors, not crashes") {
  CHECK(cuda::compiled() == kBuiltWithCuda);
  CHECK_FALSE(cuda::describe().empty());
  MESSAGE("CUDA: " << cuda::describe());
  if (cuda::available()) {  // a GPU machine: an absent device index still fails cleanly
    CHECK(throws_with([] { zeros({2}, {.device = Device::cuda(99)}); }, {"cuda:99"}));
    return;
  }
  CHECK(cuda::device_count() == 0);
  CHECK(throws_with([] { zeros({2, 3}, {.device = Device::cuda()}); }, {"cuda:0"}));
  CHECK(throws_with([] { tensor({1.0, 2.0}).to(Device::cuda()); }, {"cuda:0"}));
  CHECK(throws_with([] { randn({4}, {.device = Device::cuda(1)}); }, {"cuda:1"}));
  CHECK(throws_with([] { cuda::synchronize(); }, {"cuda"}));
  CHECK(throws_with([] { cuda::time_on_device([] {}); }, {"time_on_device"}));
  CHECK(cuda::allocator_stats().allocations == 0);
  // Pinned buffers fall back to ordinary memory.
  cuda::PinnedBuffer buf = cuda::make_pinned_buffer(100);
  REQUIRE(buf);
  std::memset(buf.get(), 7, 100);
  CHECK(static_cast<unsigned char*>(buf.get())[99] == 7);
  CHECK_FALSE(cuda::is_pinned(buf.get()));
}

TEST_CASE("device harness: normalised error") {
  Tensor a = tensor({1.0, -2.0, 3.0, 0.0}), b = tensor({1, -2, 3.001, 0});
  CHECK(normalized_error(a, a) == 0);
  CHECK(normalized_error(a, b) == doctest::Approx(1e-6 / 14).epsilon(1e-3));  // 0.001^2 / (1 + 4 + 9)
  CHECK(normalized_error(zeros({3}), zeros({3})) == 0);
  CHECK(std::isinf(normalized_error(tensor({NAN, 1}), tensor({0.0, 1.0}))));
  CHECK(normalized_error(tensor({NAN, 1}), tensor({NAN, 1})) == 0);
  CHECK(std::isinf(normalized_error(a, tensor({1.0, 2.0}))));
}

#ifdef HARMONIC_WITH_CUDA
TEST_CASE("cuda runtime: allocator size classes and the twin registry") {
  CHECK(cuda::allocation_size_class(0) == 512);
  CHECK(cuda::allocation_size_class(513) == 1024);
  CHECK(cuda::allocation_size_class(1 << 20) == (1 << 20));
  CHECK(cuda::allocation_size_class((1 << 20) + 1) == (1 << 20) + (1 << 17));  // 8 classes per power of two
  CHECK(cuda::allocation_size_class(3'000'000) == 3'145'728);
  auto names = cuda::HostEmulation::emulated_kernels();
  for (std::string_view k : {"copy_", "fill_", "uniform_", "normal_", "binary", "sum"})
    CHECK(std::find(names.begin(), names.end(), k) != names.end());
}
#endif

// -- per-target comparisons ---------------------------------------------------------------------

TEST_CASE("[cuda] copy and dtype conversion match the CPU") {
  announce_targets();
  Tensor base = values({4, 6}, DType::Float64);  // (4, 6) row-major
  for_each_device([&](const Target& t) {
    for (DType src : kStorageTypes) {
      Tensor cpu_src = base.to(src);
      Tensor dev_src = cpu_src.to(t.device);
      // A transposed (6, 4) view, a broadcast (3, 4, 6) view, and a strided column slice (4, 3).
      const std::vector<std::tuple<Shape, Strides, int64_t>> views = {
          {{6, 4}, {1, 6}, 0}, {{3, 4, 6}, {0, 6, 1}, 0}, {{4, 3}, {6, 2}, 1}};
      for (const auto& entry : views) {
        const auto& shape = std::get<0>(entry);
        const auto& strides = std::get<1>(entry);
        const auto& offset = std::get<2>(entry);
        for (DType dst : kStorageTypes) {
          Tensor ref = on_cpu([&] { return view(cpu_src, shape, strides, offset).to(dst).contiguous(); });
          Tensor got = view(dev_src, shape, strides, offset).to(dst).contiguous().to(Device::cpu());
          INFO(t.name << ": " << dtype_name(src) << " -> " << dtype_name(dst) << " view " << str(shape));
          CHECK(same_values(ref, got));
        }
      }
    }
    // copy_ into a strided destination view, converting float64 -> float32.
    Tensor ref_dst = on_cpu([&] {
      Tensor r = zeros({4, 6});
      view(r, {4, 3}, {6, 2}, 1).copy_(view(base, {3}, {1}));
      return r;
    });
    Tensor got_dst = zeros({4, 6}, {.device = t.device});
    view(got_dst, {4, 3}, {6, 2}, 1).copy_(view(base.to(t.device), {3}, {1}));
    CHECK(same_values(ref_dst, got_dst.to(Device::cpu())));
    // 9 dims that merge are fine; 9 that do not merge are refused with a clear error.
    Tensor nine = arange(512, {.dtype = DType::Float32, .device = t.device});
    Shape s9(9, 2);
    Strides c9 = contiguous_strides(s9), r9(c9.rbegin(), c9.rend());
    Tensor nine_ref = arange(512, {.dtype = DType::Float32});
    CHECK(same_values(view(nine_ref, s9, c9), view(nine, s9, c9).clone().to(Device::cpu())));
    CHECK(throws_with([&] { view(nine, s9, r9).clone(); }, {"[copy_]", "at most 8 dims", "(2, 2, 2"}));
  });
}

TEST_CASE("[cuda] fill matches the CPU on strided views") {
  announce_targets();
  for_each_device([&](const Target& t) {
    for (DType dt : kStorageTypes) {
      Tensor ref = on_cpu([&] {
        Tensor r = zeros({5, 4}, {.dtype = dt});
        view(r, {3, 2}, {4, 2}, 1).fill_(-2.75);
        return r;
      });
      Tensor got = zeros({5, 4}, {.dtype = dt, .device = t.device});
      view(got, {3, 2}, {4, 2}, 1).fill_(-2.75);
      INFO(t.name << " " << dtype_name(dt));
      CHECK(same_values(ref, got.to(Device::cpu())));
    }
  });
}

TEST_CASE("[cuda] rand and randn give the CPU's numbers for the same seed") {
  announce_targets();
  for_each_device([&](const Target& t) {
    for (DType dt : {DType::Float32, DType::Float64}) {
      Generator a(42), b(42);
      INFO(t.name << " " << dtype_name(dt));
      for (int64_t n : {1, 5, 1001}) {  // odd sizes end inside a Philox block
        Tensor ref = on_cpu([&] { return rand({n}, {.dtype = dt}, &a); });
        Tensor got = rand({n}, {.dtype = dt, .device = t.device}, &b);
        CHECK(same_values(ref, got.to(Device::cpu())));  // bitwise: integer math and one scaling
        Tensor nref = on_cpu([&] { return randn({n, 3}, {.dtype = dt}, &a); });
        Tensor ngot = randn({n, 3}, {.dtype = dt, .device = t.device}, &b);
        // Device log/sin/cos may differ from the host's in the last bits; the host twin may not.
        CHECK(test::allclose(ngot.to(Device::cpu()), nref, t.emulate ? 0 : 1e-6, t.emulate ? 0 : 1e-6));
      }
      Tensor uref = on_cpu([&] { return uniform({333}, -2, 3, {.dtype = dt}, &a); });
      Tensor ugot = uniform({333}, -2, 3, {.dtype = dt, .device = t.device}, &b);
      CHECK(test::allclose(ugot.to(Device::cpu()), uref, 0, 1e-6));
      CHECK(a.offset() == b.offset());
    }
  });
}

TEST_CASE("[cuda] binary kernel: every op and dtype with broadcasting") {
  announce_targets();
  const BinaryOp all_ops[] = {BinaryOp::Add,     BinaryOp::Sub,     BinaryOp::Mul, BinaryOp::Div, BinaryOp::Pow,
                              BinaryOp::Maximum, BinaryOp::Minimum, BinaryOp::Eq,  BinaryOp::Ne,  BinaryOp::Lt,
                              BinaryOp::Le,      BinaryOp::Gt,      BinaryOp::Ge};
  // (a shape, b shape): same shape, row broadcast, outer product, scalar, 0-d.
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{3, 4}, {3, 4}}, {{2, 3, 4}, {4}}, {{5, 1}, {1, 6}}, {{7}, {1}}, {{}, {}}};
  for_each_device([&](const Target& t) {
    for (DType dt : {DType::Float32, DType::Float64, DType::Int64, DType::Bool}) {
      for (const auto& entry : shapes) {
        const auto& sa = std::get<0>(entry);
        const auto& sb = std::get<1>(entry);
        Tensor a = values(sa, dt, 1), b = values(sb, dt, 2);
        if (dt != DType::Bool) b = add(b, full({}, 0.5, {.dtype = dt}));  // fewer exact ties and zeros
        Shape out_shape = broadcast_shapes(sa, sb, "test");
        for (BinaryOp op : all_ops) {
          if (dt == DType::Bool && !is_comparison(op)) continue;
          if (dt == DType::Int64 && (op == BinaryOp::Div || op == BinaryOp::Pow)) continue;  // x/0, negative powers
          const DType out_dt = is_comparison(op) ? DType::Bool : dt;
          auto run = [&](const Tensor& x, const Tensor& y, Device dev) {
            Tensor xd = x.to(dev), yd = y.to(dev);
            Tensor ex = view(xd, out_shape, broadcast_strides(xd.shape(), xd.strides(), out_shape));
            Tensor ey = view(yd, out_shape, broadcast_strides(yd.shape(), yd.strides(), out_shape));
            Tensor out = Tensor::empty(out_shape, out_dt, dev);
            binary_kernel(dev, op, ex, ey, out);
            return out.to(Device::cpu());
          };
          Tensor ref = on_cpu([&] { return run(a, b, Device::cpu()); }), got = run(a, b, t.device);
          INFO(t.name << " op " << static_cast<int>(op) << " " << dtype_name(dt) << " " << str(sa) << " " << str(sb));
          if (op == BinaryOp::Pow)
            check_close(ref, got, "pow");  // device pow may differ in the last bit
          else
            CHECK(same_values(ref, got));
        }
      }
    }
    CHECK(throws_with(
        [&] {
          Tensor x = ones({2}, {.dtype = DType::Bool, .device = t.device});
          binary_kernel(t.device, BinaryOp::Add, x, x, Tensor::empty({2}, DType::Bool, t.device));
        },
        {"[binary]", "bool"}));
  });
}

TEST_CASE("[cuda] arithmetic forward and gradients match the CPU") {
  announce_targets();
  Tensor a = values({2, 3, 4}, DType::Float64, 3), b = values({3, 1}, DType::Float64, 4);
  Tensor c = values({4, 3}, DType::Float64, 5);
  auto transposed = [](const Tensor& x) { return view(x, {3, 4}, {1, 3}); };  // (4, 3) -> (3, 4) view
  check_against_cpu("add", [](auto& x) { return add(x[0], x[1]); }, {a, b});
  check_against_cpu("sub", [](auto& x) { return sub(x[1], x[0]); }, {a, b});
  check_against_cpu("mul", [](auto& x) { return mul(x[0], x[1]); }, {a, b});
  check_against_cpu("div", [](auto& x) { return div(x[0], add(mul(x[1], x[1]), 1.0)); }, {a, b});
  check_against_cpu("mul transposed", [&](auto& x) { return mul(x[0], transposed(x[1])); }, {a, c});
  check_against_cpu("float32 chain", [](auto& x) { return sum(mul(add(x[0], x[1]), x[0]), {1}); },
                    {a.to(DType::Float32), b.to(DType::Float32)});
}

TEST_CASE("[cuda] sum over several dim sets matches the CPU") {
  announce_targets();
  Tensor x = values({3, 4, 5}, DType::Float64);
  const std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1}, {-1}};
  for (const auto& dims : dim_sets)
    for (bool keepdim : {false, true})
      check_against_cpu("sum", [&](auto& in) { return sum(in[0], dims, keepdim); }, {x});
  // Non-contiguous input (a permuted (5, 3, 4) view) and mean.
  check_against_cpu("sum permuted", [](auto& in) { return sum(view(in[0], {5, 3, 4}, {1, 20, 5}), {0, 2}); }, {x});
  check_against_cpu("mean", [](auto& in) { return mean(in[0], {1}); }, {x});
  // Long rows (a block per row, split over the grid), long columns, one huge reduction.
  check_against_cpu(
      "rows", [](auto& in) { return sum(in[0], {1}); }, {values({3, 70000}, DType::Float32)}, 1e-6);
  check_against_cpu(
      "columns", [](auto& in) { return sum(in[0], {0}); }, {values({9000, 37}, DType::Float32)}, 1e-6);
  check_against_cpu("all", [](auto& in) { return sum(in[0]); }, {values({100003}, DType::Float64)});
  check_against_cpu(
      "int64",
      [](auto& in) {
        return sum(in[0], {0, 2});
      },
      {values({6, 2, 700}, DType::Int64)}, 0);
  check_against_cpu("empty", [](auto& in) { return sum(in[0], {1}); }, {zeros({3, 0})});
}

TEST_CASE("[cuda] to(Device) round trip keeps values and gradients") {
  announce_targets();
  for_each_device([&](const Target& t) {
    for (DType dt : kStorageTypes) {
      Tensor x = values({3, 5}, dt);
      CHECK(same_values(x, x.to(t.device).to(Device::cpu())));
    }
    Tensor x = values({4, 3}, DType::Float64).requires_grad_(true);
    Tensor y = mul(x.to(t.device), 3.0);
    sum(y).backward();
    REQUIRE(x.grad().defined());
    CHECK(x.grad().device() == Device::cpu());
    CHECK(test::allclose(x.grad(), full({4, 3}, 3.0, {.dtype = DType::Float64})));
  });
}

TEST_CASE("[cuda] allocator reuses blocks and device timing works") {
  if (!cuda::available()) {
    MESSAGE("skipped: no CUDA device (" << cuda::describe() << ")");
    return;
  }
  cuda::empty_cache();
  const auto before = cuda::allocator_stats(0);
  { Tensor t = empty({1000}, {.device = Device::cuda()}); }
  { Tensor t = empty({1000}, {.device = Device::cuda()}); }  // same size class: from the cache
  const auto after = cuda::allocator_stats(0);
  CHECK(after.cache_hits >= before.cache_hits + 1);
  CHECK(after.cached >= 4096);
  CHECK(after.peak >= after.in_use);
  cuda::empty_cache();
  CHECK(cuda::allocator_stats(0).cached == 0);
  Tensor big = empty({1 << 20}, {.device = Device::cuda()});
  cuda::Timing timing = cuda::time_on_device([&] { big.fill_(1.0); }, 5, 1);
  CHECK(timing.iters == 5);
  CHECK(timing.min_ms > 0);
  CHECK(timing.min_ms <= timing.median_ms);
  cuda::PinnedBuffer pinned = cuda::make_pinned_buffer(4096);
  CHECK(cuda::is_pinned(static_cast<char*>(pinned.get()) + 100));
}
