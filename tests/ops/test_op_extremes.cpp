// The op registry swept with hostile numbers: every integer attribute of every op
// (sizes, shape lists, dims, pads, repeats, class counts, indices) set to 0, -1, 2^31, 2^62,
// 2^63-1 and -2^63, every shape list also to [4611686018427387907, 4], every float attribute to
// NaN, +-inf and 1e308, and every int64 index input filled with INT64_MAX, INT64_MIN and -1.
// Each call (forward, then backward through run_op) must either raise an hm::Error naming the
// op, or give a well-formed result: a shape whose element count fits in int64 and stays small,
// and as many elements as that shape holds. Never a crash, std::bad_alloc or length_error.
// A 4 GB address-space limit during the sweep turns an op that would allocate a giant tensor
// into an allocation error instead of a machine-filling write.
#include <sys/resource.h>

#include <cmath>
#include <limits>

#include "harmonic/core/factories.h"
#include "harmonic/core/shape.h"
#include "harmonic/data/mix_series.h"
#include "harmonic/nn/fourier_head.h"
#include "harmonic/nn/fru.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/registry/run_op.h"
#include "harmonic/ops/shape_ops.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::ops;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
const std::vector<int64_t> kExtremeInts = {0, -1, int64_t{1} << 31, int64_t{1} << 62, kMax, kMin};
// JSON reads these as unsigned numbers; cast to int64 they would be -1 and INT64_MIN
const std::vector<uint64_t> kBeyondInt64 = {UINT64_MAX, uint64_t{1} << 63};
const std::vector<int64_t> kExtremeIndices = {kMax, kMin, -1};
const std::vector<double> kExtremeFloats = {std::nan(""), std::numeric_limits<double>::infinity(),
                                            -std::numeric_limits<double>::infinity(), 1e308};

// Raises the address-space limit back when the sweep ends.
class AddressSpaceLimit {
 public:
  explicit AddressSpaceLimit(rlim_t extra_bytes) {
    getrlimit(RLIMIT_AS, &saved_);
    rlim_t used = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      unsigned long pages = 0;
      if (std::fscanf(f, "%lu", &pages) == 1) used = static_cast<rlim_t>(pages) * 4096;
      std::fclose(f);
    }
    rlimit lim = saved_;
    lim.rlim_cur = std::min<rlim_t>(saved_.rlim_max, used + extra_bytes);
    setrlimit(RLIMIT_AS, &lim);
  }
  ~AddressSpaceLimit() { setrlimit(RLIMIT_AS, &saved_); }

 private:
  rlimit saved_{};
};

// One hostile call: the attributes and index inputs to use instead of the example's.
struct Case {
  std::string what;
  Json attrs;
  std::vector<Tensor> inputs;
};

// "" when the call is acceptable (an hm::Error naming the op, or a well-formed small result),
// else what went wrong.
std::string problem_of(const OpSpec& spec, const Case& c) {
  try {
    OpRun run = run_op(spec, name_inputs(spec, c.inputs), c.attrs);
    const Tensor& out = run.output;
    int64_t n = numel_of(out.shape());  // throws when the shape's count does not fit in int64
    if (n != out.numel()) return fmt::format("output numel {} but shape {}", out.numel(), str(out.shape()));
    if (n > (int64_t{1} << 24)) return fmt::format("a giant output of shape {} was accepted", str(out.shape()));
    if (static_cast<int64_t>(out.to_vector().size()) != n) return "output values do not match its shape";
    for (const auto& [name, g] : run.grads)
      if (numel_of(g.shape()) != g.numel()) return fmt::format("{} has a malformed shape {}", name, str(g.shape()));
    return "";
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.find(spec.function) == std::string::npos && msg.find(spec.name) == std::string::npos)
      return "the error does not name the op: " + msg;
    return "";
  } catch (const std::exception& e) {
    return std::string("not an hm::Error: ") + e.what();
  }
}

// The attribute names of an op with the value the example gives (or the default).
Json example_values(const OpSpec& spec) { return spec.merge_attrs(spec.example_attrs); }

bool is_int_list(const Json& v) {
  return v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_number_integer(); });
}

// Every hostile variant of the example call.
std::vector<Case> hostile_cases(const OpSpec& spec, Generator& gen) {
  std::vector<Case> cases;
  const Json base = example_values(spec);
  std::vector<Tensor> good = example_inputs(spec, DType::Float64, gen);
  auto add = [&](std::string what, Json attrs, std::vector<Tensor> inputs) {
    cases.push_back({std::move(what), std::move(attrs), std::move(inputs)});
  };
  for (const auto& [key, value] : base.items()) {
    // null (optional or required integer attrs such as squeeze's dim or slice's end) is tried as an integer
    if (value.is_number_integer() || value.is_null()) {
      for (int64_t v : kExtremeInts) {
        Json a = base;
        a[key] = v;
        add(fmt::format("{} = {}", key, v), a, good);
      }
      for (uint64_t v : kBeyondInt64) {
        Json a = base;
        a[key] = v;
        add(fmt::format("{} = {} (unsigned)", key, v), a, good);
      }
    } else if (is_int_list(value)) {
      for (size_t pos = 0; pos < value.size(); ++pos)
        for (int64_t v : kExtremeInts) {
          Json a = base;
          a[key][pos] = v;
          add(fmt::format("{} = {}", key, a[key].dump()), a, good);
        }
      for (const Json& list : {Json::array({int64_t{4611686018427387907}, 4}), Json::array({kMax, kMax}),
                               Json::array({int64_t{1} << 32, int64_t{1} << 32, 4}), Json::array({UINT64_MAX, 4})}) {
        Json a = base;
        a[key] = list;
        add(fmt::format("{} = {}", key, list.dump()), a, good);
      }
    } else if (value.is_number_float()) {
      for (double v : kExtremeFloats) {
        Json a = base;
        a[key] = v;
        add(fmt::format("{} = {}", key, v), a, good);
      }
    }
  }
  for (size_t k = 0; k < good.size(); ++k) {
    if (!good[k].defined() || spec.input(k).kind != OpInput::Kind::Index || good[k].numel() == 0) continue;
    for (int64_t v : kExtremeIndices) {
      std::vector<Tensor> in = good;
      std::vector<int64_t> values = in[k].to_vector_as<int64_t>();
      values.back() = v;  // one hostile index among valid ones
      in[k] = from_vector(values, in[k].shape());
      add(fmt::format("input {} holding {}", spec.input(k).name, v), base, in);
    }
  }
  return cases;
}

}  // namespace

TEST_CASE("op registry sweep: extreme attributes and index values give an hm::Error naming the op or a sound result") {
  Generator gen(14);
  AddressSpaceLimit limit(rlim_t{4} << 30);
  int tried = 0;
  for (const OpSpec& spec : op_table()) {
    for (const Case& c : hostile_cases(spec, gen)) {
      INFO("op ", spec.name, " with ", c.what);
      CHECK(problem_of(spec, c) == "");
      ++tried;
    }
  }
  MESSAGE(tried << " hostile calls");
  CHECK(tried > 500);
}

// What the sweep found, one case each (an hm::Error, or the result PyTorch gives).
TEST_CASE("op extremes: the cases the sweep found") {
  Generator gen(15);
  Tensor x54 = randn({5, 4}, {.dtype = DType::Float64}, &gen);
  auto error_of = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  // start + length wrapped to a negative number and passed the bounds check
  CHECK(error_of([&] { narrow(x54, 1, 1, kMax); }).find("[narrow] start 1 + length") == 0);
  // size + chunks - 1 overflowed; each row is its own chunk (ceil(5 / (2^63-1)) = 1)
  CHECK(chunk(x54, kMax, 0).size() == 5);
  CHECK(error_of([&] { chunk(zeros({0, 4}), kMax, 0); }).find("[chunk]") == 0);  // not 2^63 empty tensors
  // a target that is not a broadcast of the input named sum_to, not the reshape inside it
  CHECK(error_of([&] { sum_to(x54, {2, 4}); }).find("[sum_to] cannot reduce (5, 4) to (2, 4)") == 0);
  // bins near 2^63: (bins + 1) / 2 wrapped; 2^31 bins: std::bad_alloc from a std::vector
  Tensor coeffs = randn({2, 6}, {.dtype = DType::Float64}, &gen);
  CHECK(error_of([&] { fourier_head_log_pmf(coeffs, kMax); }).find("[fourier_head_log_pmf]") == 0);
  CHECK(error_of([&] { fourier_bin_centres(int64_t{1} << 62); }).find("[empty] 4611686018427387904 * 8 overflows") ==
        0);
  // eps NaN / inf / negative gave NaN rows without a word (PyTorch takes any eps)
  Tensor w = ones({4}, {.dtype = DType::Float64});
  for (double eps : {std::nan(""), std::numeric_limits<double>::infinity(), -1e-5}) {
    CHECK(error_of([&] { layer_norm(x54, {4}, w, Tensor(), eps); }).find("[layer_norm] eps must be") == 0);
    CHECK(error_of([&] { rms_norm(x54, w, eps); }).find("[rms_norm] eps must be") == 0);
  }
  // "dim": 18446744073709551615 was read as -1
  Json attrs = Json::parse(R"({"dim": 18446744073709551615})");
  CHECK(error_of([&] {
          run_op(find_op("softmax"), {{"x", x54}}, attrs);
        }).find("[op softmax] attribute 'dim' must be an integer in int64's range") == 0);
  // errors raised below the op carry its name through run_op (`harmonic op`)
  std::string e = error_of([&] { run_op(find_op("expand"), {{"x", x54}}, {{"shape", {kMax, 5, 4}}}); });
  CHECK(e.find("[op expand] [numel]") == 0);
}

// The sizes of modules and generators reachable from `--set`: 2(N+1) wrapped to a
// negative Linear width, a std::vector of 2^62 frequencies grew until killed, N x T series
// threw std::length_error.
TEST_CASE("op extremes: sizes past int64 or memory in modules and data generators are named") {
  auto error_of = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  CHECK(error_of([] { nn::FourierHead(32, 50, int64_t{1} << 62); }).find("[FourierHead] 2 * 4611686018427387905") == 0);
  CHECK(error_of([] { nn::FourierHeadMLE(32, kMax); }).find("[FourierHeadMLE] 9223372036854775807 + 1") == 0);
  CHECK(error_of([] { nn::fru_frequencies(int64_t{1} << 62, 784); }).find("do not fit in host memory") !=
        std::string::npos);
  // 2^31 frequencies x 5 dims x 60: the weights, refused before the 16 GB frequency list is built
  CHECK(error_of([] { nn::FRU(1, {.num_freqs = int64_t{1} << 31, .dims_per_freq = 5}); }).find("[FRU]") == 0);
  CHECK(error_of([] {
          data::make_mix_series(data::MixKind::Sin, {.length = int64_t{1} << 62});
        }).find("[make_mix_series] 4000 * 4611686018427387904 overflows int64") == 0);
  CHECK(error_of([] {
          data::make_mix_series(data::MixKind::Sin, {.size = int64_t{1} << 31});
        }).find("do not fit in host memory") != std::string::npos);
}
