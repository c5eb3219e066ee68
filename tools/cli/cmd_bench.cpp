// `harmonic bench`: milliseconds per call of ops on given shapes, forward and forward+backward.
//   harmonic bench                                   the standard suite (see standard_cases)
//   harmonic bench --op softmax --shape 256x1024 --shape 64x4096 --backward
//   harmonic bench --op layer_norm --shape 256x1024,1024,1024 --threads 2 --json out.json
//   harmonic bench --device cuda                     the suite on cuda:0 (GPU time, CUDA events)
//   harmonic bench --fourier --threads 2             issue 5's Fourier cases, fwd+bwd (float32, CPU;
//                                                    --case fourier_head_log_pmf|fourier_attention|fru|fru_all_steps);
//     tools/bench/bench_fourier_torch.py, bench_fourier_attention_torch.py, bench_fru_torch.py time PyTorch
//   harmonic bench --toy --threads 1                 one training step of the Fourier head toy study's
//                                                    MLP per head, us/step (--case linear|gmm|fourier|
//                                                    fourier_reg|fourier_mle); tools/bench/bench_toy_torch.py times PyTorch
// Method (shared with tools/bench/bench_torch.py): warm up, pick an inner count so one timed run
// lasts >= 1 ms, then report the median over --repeat runs of (run time / inner count).
// Forward is timed under no-grad; forward+backward calls backward with a ones gradient and
// drops the accumulated input gradients after each call. With --device cuda the inputs live
// on cuda:0 and each call is timed on the device (cuda/timing.h: CUDA events on the stream,
// median over --repeat calls after --warmup); without a device it says so and exits 0.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include "autograd/grad_mode.h"
#include "core/factories.h"
#include "core/parallel.h"
#include "cuda/runtime.h"
#include "cuda/timing.h"
#include "models/fourier_toy.h"
#include "nn/fru.h"
#include "ops/elementwise.h"
#include "ops/fourier_attention.h"
#include "ops/fourier_head.h"
#include "ops/shape_ops.h"
#include "optim/adam.h"
#include "optim/clip.h"
#include "optim/schedule.h"
#include "tools/cli/commands.h"
#include "ops/registry/registry.h"

namespace hm::cli {
using namespace hm::ops;
namespace {

struct BenchOptions {
  std::string op, attrs = "{}", dtype = "float32", json_path, device = "cpu";
  std::vector<std::string> shapes, cases;
  int threads = 0, repeat = 20, warmup = 3;
  bool backward = false, list_cases = false, fourier = false, toy = false;
} opt;

struct BenchCase {
  std::string name;  // "matmul 512x512x512"
  std::string op;
  std::vector<Shape> shapes;  // one per tensor input, in the op's order (optional ones may be left out)
  Json attrs = Json::object();
  bool backward = true;
};

// The suite the issue asks for; tools/bench/bench_torch.py defines the same cases.
std::vector<BenchCase> standard_cases() {
  return {
      {"matmul 512x512x512", "matmul", {{512, 512}, {512, 512}}},
      {"softmax 256x1024", "softmax", {{256, 1024}}},
      {"log_softmax 256x1024", "log_softmax", {{256, 1024}}},
      {"layer_norm 256x1024", "layer_norm", {{256, 1024}, {1024}, {1024}}},
      {"gelu 1024x1024", "gelu", {{1024, 1024}}},
      {"add 1024x1024+1024", "add", {{1024, 1024}, {1024}}},
      {"cross_entropy 256x1000", "cross_entropy", {{256, 1000}, {256}}},
  };
}

// Median ms per call of fn (see the file comment for the method).
template <class F>
double time_ms(F&& fn, int repeat, int warmup, Device device) {
  if (device.is_cuda()) return cuda::time_on_device(fn, repeat, warmup, device.index).median_ms;
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  for (int i = 0; i < warmup; ++i) fn();
  auto t0 = Clock::now();
  fn();
  double single = std::max(ms_since(t0), 1e-4);
  int inner = static_cast<int>(std::clamp(std::ceil(1.0 / single), 1.0, 10000.0));
  std::vector<double> runs;
  for (int r = 0; r < repeat; ++r) {
    t0 = Clock::now();
    for (int i = 0; i < inner; ++i) fn();
    runs.push_back(ms_since(t0) / inner);
  }
  std::sort(runs.begin(), runs.end());
  size_t n = runs.size();
  return n % 2 ? runs[n / 2] : 0.5 * (runs[n / 2 - 1] + runs[n / 2]);
}

struct BenchResult {
  double fwd_ms = NAN, fwd_bwd_ms = NAN;
};

BenchResult bench_case(const BenchCase& c, DType dtype, Device device) {
  const OpSpec& spec = find_op(c.op);
  Generator gen(1234);
  std::vector<Tensor> inputs = make_inputs(spec, c.shapes, c.attrs, dtype, gen);
  for (Tensor& t : inputs)
    if (t.defined()) t = t.to(device);
  BenchResult r;
  {
    NoGradGuard no_grad;
    r.fwd_ms = time_ms([&] { spec.call(inputs, c.attrs); }, opt.repeat, opt.warmup, device);
  }
  if (!c.backward) return r;
  std::vector<Tensor> leaves;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const OpInput& in = spec.input(k);
    if (inputs[k].defined() && in.differentiable() && is_floating(inputs[k].dtype()))
      leaves.push_back(inputs[k].requires_grad_(true));
  }
  EnableGradGuard grad_on;
  Tensor probe = spec.call(inputs, c.attrs);
  if (leaves.empty() || !probe.requires_grad()) return r;  // nothing to differentiate
  Tensor g = ones_like(probe);
  r.fwd_bwd_ms = time_ms(
      [&] {
        spec.call(inputs, c.attrs).backward(g);
        for (const Tensor& t : leaves) t.zero_grad();
      },
      opt.repeat, opt.warmup, device);
  return r;
}

std::string ms_text(double ms) { return std::isnan(ms) ? fmt::format("{:>9}", "-") : fmt::format("{:9.4f}", ms); }

// Issue 5's Fourier cases (not single table ops: the FRU is a module), forward+backward of a
// sum in float32 on the CPU, at the shapes of the matching PyTorch scripts.
void run_fourier_cases() {
  Generator gen(1234);
  auto wanted = [](const std::string& op) {  // --case picks cases by op name
    return opt.cases.empty() || std::find(opt.cases.begin(), opt.cases.end(), op) != opt.cases.end();
  };
  auto run = [](const char* name, auto&& step) {
    double ms = time_ms(step, opt.repeat, opt.warmup, Device::cpu());
    fmt::print("{:<44} threads={}  fwd+bwd {} ms\n", name, get_num_threads(), ms_text(ms));
    std::fflush(stdout);
  };
  if (wanted("fourier_head_log_pmf")) {
    Tensor coeffs = randn({256, 130}, {}, &gen).requires_grad_(true);  // (B, 2(N+1)), N = 64
    run("fourier_head_log_pmf B=256 N=64 m=4096", [&] {
      sum(fourier_head_log_pmf(coeffs, 4096)).backward();
      coeffs.zero_grad();
    });
  }
  if (wanted("fourier_attention")) {
    Tensor q = mul(randn({8, 8, 256, 16}, {}, &gen), 0.5).requires_grad_(true);
    Tensor k = mul(randn({8, 8, 256, 16}, {}, &gen), 0.5).requires_grad_(true);
    Tensor v = randn({8, 8, 256, 16}, {}, &gen).requires_grad_(true);
    Tensor R = scalar_tensor(2.0).requires_grad_(true);
    run("fourier_attention B=8 H=8 N=256 D=16 p=4", [&] {
      sum(fourier_attention(q, k, v, R, 4)).backward();
      for (Tensor* t : {&q, &k, &v, &R}) t->zero_grad();
    });
  }
  if (wanted("fru")) {
    nn::FRUOptions fo;  // K = 60, d = 10, R = 60, units = 200, T = 784
    fo.gen = &gen;
    nn::FRU fru(1, fo);
    Tensor x = rand({256, 784, 1}, {}, &gen);
    // Like tools/bench/bench_fru_torch.py: the loss is the last step's output summed; "fru" is the
    // classifier form (output layer at the last step only, NOTES section 3), "fru_all_steps"
    // computes it at every step (bench_fru_torch.py --all-steps).
    run("fru B=256 T=784 K=60 d=10 (last-step output)", [&] {
      sum(fru.forward_last(x).last).backward();
      for (auto& [name, p] : fru.named_parameters()) p.zero_grad();
    });
  }
  if (wanted("fru_all_steps")) {
    nn::FRUOptions fo;
    fo.gen = &gen;
    nn::FRU fru(1, fo);
    Tensor x = rand({256, 784, 1}, {}, &gen);
    run("fru_all_steps (output layer at every step)", [&] {
      sum(fru.forward(x).last).backward();
      for (auto& [name, p] : fru.named_parameters()) p.zero_grad();
    });
  }
}

// One training step of the toy study's model (models/fourier_toy.h: MLP 2 -> 64 -> 32 -> head
// on GMM-2 data, bins = 50, batch 32) as run_toy_density takes it: loss, zero_grad, backward,
// Adam step; the MLE head also sets the cosine lr and clips the gradient norm. The same batch
// every step (a contiguous slice, as the trainer's per-epoch gather gives).
void run_toy_cases() {
  using models::ToyHead;
  struct ToyCase {
    const char* name;
    ToyHead head;
    double gamma;
  };
  const ToyCase cases[] = {{"linear", ToyHead::Linear, 0.0},
                           {"gmm", ToyHead::GMM, 0.0},
                           {"fourier", ToyHead::Fourier, 0.0},
                           {"fourier_reg", ToyHead::Fourier, 1e-6},
                           {"fourier_mle", ToyHead::FourierMLE, 0.0}};
  std::vector<std::string> names;
  for (const ToyCase& c : cases) names.emplace_back(c.name);
  for (const std::string& c : opt.cases)
    check(std::find(names.begin(), names.end(), c) != names.end(), "bench",
          "--toy: unknown --case '{}' (expected one of {})", c, fmt::join(names, ", "));
  constexpr int64_t kFrequencies = 12, kBatch = 32;
  const auto dataset = data::ToyDistribution::GMM2;
  data::ToyDensityDataset ds = data::make_toy_density(dataset, 1);
  const int64_t bins = ds.train.true_pmf.size(-1);
  for (const ToyCase& c : cases) {
    if (!opt.cases.empty() && std::find(opt.cases.begin(), opt.cases.end(), c.name) == opt.cases.end()) continue;
    models::ToyTensors t = models::toy_tensors(ds.train, c.head);
    Tensor inputs = slice(t.inputs, 0, 0, kBatch).contiguous(), targets = slice(t.targets, 0, 0, kBatch).contiguous();
    Generator gen(models::toy_init_seed(1));
    models::ToyDensityModel model(c.head, bins, dataset, kFrequencies, c.gamma, &gen);
    std::vector<Tensor> params = model.parameters();
    optim::Adam adam(params, {.lr = 1e-3});
    optim::LRScheduler scheduler(adam, optim::cosine_decay(1e-3, 500 * 125, 1e-6));  // 500 epochs of 125 batches
    const bool mle = models::is_mle(c.head);
    int64_t step = 0;
    double ms = time_ms(
        [&] {
          Tensor loss = model.loss(inputs, targets);
          adam.zero_grad();
          loss.backward();
          if (mle) {
            scheduler.apply(step++);
            optim::clip_grad_norm_(params, 1.0);
          }
          adam.step();
        },
        opt.repeat, opt.warmup, Device::cpu());
    std::string label = c.head == ToyHead::Linear ? "linear"
                        : c.head == ToyHead::GMM  ? "gmm K=2"
                                                  : fmt::format("{} N={} gamma={:g}", models::toy_head_name(c.head),
                                                                kFrequencies, c.gamma);
    fmt::print("toy {:<12} {:<28} threads={}  train step {:9.1f} us\n", c.name, label, get_num_threads(), ms * 1e3);
    std::fflush(stdout);
  }
}

void add(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("bench", "Time ops (ms per call, forward and forward+backward)");
  cmd->add_option("--op", opt.op, "Op to time (default: the standard suite)");
  cmd->add_option("--shape", opt.shapes, "Input shapes of one case, e.g. 256x1024,1024 (repeat for more cases)");
  cmd->add_option("--attrs", opt.attrs, "Op attributes as a JSON object");
  cmd->add_option("--case", opt.cases, "Run only these standard cases (by name or op)");
  cmd->add_flag("--list-cases", opt.list_cases, "List the standard cases");
  cmd->add_flag("--fourier", opt.fourier, "Time issue 5's Fourier head, attention and FRU cases instead");
  cmd->add_flag("--toy", opt.toy, "Time one training step of the Fourier head toy study's model per head (us)");
  cmd->add_option("--threads", opt.threads, "CPU threads (default: all)");
  cmd->add_option("--repeat", opt.repeat, "Timed runs per measurement (the median is reported)");
  cmd->add_option("--warmup", opt.warmup, "Untimed calls first");
  cmd->add_flag("--backward", opt.backward, "With --op: also time forward+backward");
  cmd->add_option("--dtype", opt.dtype, "float32 or float64");
  cmd->add_option("--device", opt.device, "cpu or cuda (cuda:0; GPU time per call)");
  cmd->add_option("--json", opt.json_path, "Also write the results as JSON to this file ('-': stdout only)");
}

int run() {
  if (opt.list_cases) {
    for (const BenchCase& c : standard_cases()) fmt::print("{}  ({} {})\n", c.name, c.op, shapes_text(c.shapes));
    return 0;
  }
  check(opt.dtype == "float32" || opt.dtype == "float64", "bench", "--dtype must be float32 or float64, got {}",
        opt.dtype);
  check(opt.repeat >= 1 && opt.warmup >= 0, "bench", "--repeat must be >= 1 and --warmup >= 0");
  DType dtype = opt.dtype == "float32" ? DType::Float32 : DType::Float64;
  check(opt.device == "cpu" || opt.device == "cuda", "bench", "--device must be cpu or cuda, got {}", opt.device);
  const Device device = opt.device == "cuda" ? Device::cuda(0) : Device::cpu();
  if (device.is_cuda() && !cuda::available()) {
    fmt::print("no CUDA device ({}): nothing to time\n", cuda::describe());
    return 0;
  }
  if (opt.threads > 0) set_num_threads(opt.threads);
  if (opt.fourier) {
    check(device.is_cpu() && dtype == DType::Float32, "bench", "--fourier times float32 on the CPU only");
    run_fourier_cases();
    return 0;
  }
  if (opt.toy) {
    check(device.is_cpu() && dtype == DType::Float32, "bench", "--toy times float32 on the CPU only");
    run_toy_cases();
    return 0;
  }
  Json attrs;
  try {
    attrs = Json::parse(opt.attrs);
  } catch (const Json::parse_error& e) {
    throw_error("bench", fmt::format("--attrs is not valid JSON ({}): {}", opt.attrs, e.what()));
  }

  std::vector<BenchCase> cases;
  if (!opt.op.empty()) {
    check(!opt.shapes.empty(), "bench", "--op {} needs at least one --shape", opt.op);
    find_op(opt.op);  // unknown names fail here, with suggestions
    for (const std::string& s : opt.shapes)
      cases.push_back({opt.op + " " + s, opt.op, parse_shapes(s), attrs, opt.backward});
  } else {
    for (const BenchCase& c : standard_cases())
      if (opt.cases.empty() || std::find(opt.cases.begin(), opt.cases.end(), c.name) != opt.cases.end() ||
          std::find(opt.cases.begin(), opt.cases.end(), c.op) != opt.cases.end())
        cases.push_back(c);
    check(!cases.empty(), "bench", "no standard case matches --case; see --list-cases");
  }

  const bool quiet = opt.json_path == "-";
  Json results = Json::array();
  for (const BenchCase& c : cases) {
    BenchResult r = bench_case(c, dtype, device);
    if (!quiet)
      fmt::print("{:<28} {:<8} {}  fwd {} ms  fwd+bwd {} ms\n", c.name, opt.dtype,
                 device.is_cuda() ? std::string("cuda:0") : fmt::format("threads={}", get_num_threads()),
                 ms_text(r.fwd_ms), ms_text(r.fwd_bwd_ms));
    std::fflush(stdout);
    results.push_back({{"case", c.name},
                       {"op", c.op},
                       {"shapes", shapes_text(c.shapes)},
                       {"fwd_ms", std::isnan(r.fwd_ms) ? Json() : Json(r.fwd_ms)},
                       {"fwd_bwd_ms", std::isnan(r.fwd_bwd_ms) ? Json() : Json(r.fwd_bwd_ms)}});
  }
  Json doc = {{"framework", "harmonic"},
              {"threads", get_num_threads()},
              {"device", device.str()},
              {"dtype", opt.dtype},
              {"repeat", opt.repeat},
              {"results", results}};
  if (quiet) {
    fmt::print("{}\n", doc.dump(2));
  } else if (!opt.json_path.empty()) {
    std::ofstream f(opt.json_path);
    check(f.good(), "bench", "cannot write {}", opt.json_path);
    f << doc.dump(2) << "\n";
  }
  return 0;
}

Registration reg{{"bench", add, run}};

}  // namespace
}  // namespace hm::cli
