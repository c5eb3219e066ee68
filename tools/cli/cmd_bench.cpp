// `harmonic bench`: milliseconds per call of ops on given shapes, forward and forward+backward.
// The cases and the timing are library code in tools/bench (namespace hm::bench).
//   harmonic bench                                   the standard suite (see standard_cases)
//   harmonic bench --op fourier_nll --backward       one op at its table example's shapes (tiny)
//   harmonic bench --op softmax --shape 256x1024 --shape 64x4096 --backward
//   harmonic bench --op layer_norm --shape 256x1024,1024,1024 --threads 2 --json out.json
//   harmonic bench --device cuda                     the suite on cuda:0 (GPU time, CUDA events)
//   harmonic bench --fourier --threads 2             the Fourier cases, fwd+bwd (float32, CPU;
//                                                    --case fourier_head_log_pmf|fourier_attention|fru|fru_all_steps);
//     tools/bench/torch/bench_fourier_torch.py, bench_fourier_attention_torch.py, bench_fru_torch.py time PyTorch
//   harmonic bench --recurrent --threads 2          nn::LSTM/GRU/RNN fwd+bwd at the FRU paper's shapes
//                                                    (--case lstm_pixel|lstm_text|gru_*|rnn_*, and *_composed
//                                                    for the step loop); tools/bench/torch/bench_recurrent_torch.py
//                                                    times torch.nn's
//   harmonic bench --toy --threads 1                 one training step of the Fourier head toy study's
//                                                    MLP per head, us/step (--case linear|gmm|fourier|
//                                                    fourier_reg|fourier_mle); tools/bench/torch/bench_toy_torch.py
//                                                    times PyTorch
//   harmonic bench --fft --threads 1                 the FFT op: rfft and stft, fwd and fwd+bwd (float32, CPU;
//                                                    --case rfft_256x4096|rfft_256x1000|rfft_64x4099|stft_16x88200);
//                                                    tools/bench/torch/bench_fft_torch.py times PyTorch
//                                                    (--compare: ratios)
//   harmonic bench --gpt --threads 1 --repeat 3      one GPT training step (--case softmax|fourier): ms/step,
//                                                    tokens/s, GEMM FLOPs and the GEMM-bound floor;
//                                                    tools/bench/torch/bench_gpt_torch.py times PyTorch
//   harmonic bench --dt --threads 1                  one Decision Transformer training step (--case linear|fourier):
//                                                    ms/step, windows/s; tools/bench/torch/bench_dt_torch.py times
//                                                    PyTorch
//   harmonic bench --vit --threads 2                one ViT training step (--case softmax|fourier: DeiT-tiny,
//                                                    task: fashion-vit's model): ms/step, images/s;
//                                                    tools/bench/torch/bench_vit_torch.py times PyTorch
//   harmonic bench --audio --threads 2              one spectrogram-transformer training step (--case linear|
//                                                    fourier: the audio-bpm task's, ast_linear|ast_fourier: AST's
//                                                    size): ms/step, clips/s; tools/bench/torch/bench_audio_torch.py
//   harmonic bench --chronos --threads 1            the Chronos T5 (--case train|train_quick|forecast|train_mini|
//                                                    forecast_graph, the last on cuda):
//   training
//                                                    step ms and tokens/s, 20-path forecast latency;
//                                                    tools/bench/torch/bench_chronos_torch.py times PyTorch
//   harmonic bench --gpt --dt --vit --audio --chronos --recurrent take --device cuda (GPU time per step; --gpt --case
//   gpt2: the
//                                                    12-layer d768 GPT at T 1024) and --precision bf16 there
//   harmonic bench --attention --device cuda        scaled_dot_product_attention (causal, float32) per path
//                                                    (reference kernels, composed cuBLAS, tiled flash) and
//                                                    fourier_attention, fwd and fwd+bwd (--case sdpa_flash
//                                                    etc., by name prefix; --precision bf16: under autocast,
//                                                    labels *_bf16_*); tools/bench/torch/bench_attention_torch.py
//                                                    --device cuda [--bf16] times PyTorch
//   mpirun -np 2 harmonic bench --allreduce          all-reduce time and bus bandwidth of the job's
//                                                    process group for 1..64 MiB float32 buffers
//                                                    (tools/bench/allreduce_case.h); rank 0 prints
// Method: tools/bench/timing.h. With --device cuda the inputs live on cuda:0 and each call is
// timed on the device; without a device it says so and exits 0.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/json_read.h"
#include "harmonic/core/parallel.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/registry/registry.h"
#include "harmonic/tools/bench/allreduce_case.h"
#include "harmonic/tools/bench/cases.h"
#include "harmonic/tools/cli/commands.h"
#include "harmonic/tools/train/threads_option.h"

namespace hm::cli {
using namespace hm::bench;
namespace {

struct BenchOptions {
  std::string op, attrs = "{}", dtype = "float32", json_path, device = "cpu", precision = "fp32";
  std::vector<std::string> shapes, cases;
  int threads = 0, repeat = 20, warmup = 3;
  bool backward = false, list_cases = false, fourier = false, recurrent = false, toy = false, gpt = false, fft = false,
       dt = false, optimizer = false, vit = false, audio = false, chronos = false, allreduce = false, attention = false;
} opt;

std::string ms_text(double ms) { return std::isnan(ms) ? fmt::format("{:>9}", "-") : fmt::format("{:9.4f}", ms); }

void add(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("bench", "Time ops (ms per call, forward and forward+backward)");
  cmd->add_option("--op", opt.op, "Op to time (default: the standard suite)");
  cmd->add_option("--shape", opt.shapes,
                  "Input shapes of one case, e.g. 256x1024,1024 (repeat for more cases; default: the op's example)");
  cmd->add_option("--attrs", opt.attrs, "Op attributes as a JSON object");
  cmd->add_option("--case", opt.cases, "Run only these standard cases (by name or op)");
  cmd->add_flag("--list-cases", opt.list_cases, "List the standard cases");
  cmd->add_flag("--fourier", opt.fourier, "Time the Fourier head, attention and FRU cases instead");
  cmd->add_flag("--recurrent", opt.recurrent, "Time nn::LSTM/GRU/RNN forward+backward at the FRU paper's shapes");
  cmd->add_flag("--toy", opt.toy, "Time one training step of the Fourier head toy study's model per head (us)");
  cmd->add_flag("--fft", opt.fft, "Time the FFT op (rfft, stft) forward and forward+backward");
  cmd->add_flag("--allreduce", opt.allreduce,
                "All-reduce time and bus bandwidth for 1..64 MiB float32 buffers (run under mpirun -np N)");
  cmd->add_flag("--gpt", opt.gpt,
                "Time one GPT training step (softmax and Fourier attention) against its GEMM-bound floor");
  cmd->add_flag("--dt", opt.dt, "Time one Decision Transformer training step (linear and Fourier-8 action heads)");
  cmd->add_flag("--optimizer", opt.optimizer,
                "Time one Adam step over the parameters of fashion-mlp, the kjv-lm GPT and the Decision Transformer");
  cmd->add_flag("--vit", opt.vit, "Time one ViT training step (DeiT-tiny with softmax or Fourier attention)");
  cmd->add_flag("--audio", opt.audio,
                "Time one spectrogram-transformer training step (linear and Fourier heads; AST's size when named)");
  cmd->add_flag("--chronos", opt.chronos,
                "Time the Chronos T5: a training step (task default and quick sizes) and a 20-path forecast");
  cmd->add_flag("--attention", opt.attention,
                "Time scaled_dot_product_attention per path (reference, composed, flash) and fourier_attention");
  train::add_threads_option(cmd, opt.threads);
  cmd->add_option("--repeat", opt.repeat, "Timed runs per measurement (the median is reported)");
  cmd->add_option("--warmup", opt.warmup, "Untimed calls first");
  cmd->add_flag("--backward", opt.backward, "With --op: also time forward+backward");
  cmd->add_option("--dtype", opt.dtype, "float32 or float64");
  cmd->add_option("--device", opt.device, "cpu or cuda (cuda:0; GPU time per call)");
  cmd->add_option("--precision", opt.precision,
                  "fp32, or bf16 / bf16-activations on cuda for --gpt/--dt/--vit/--audio/--chronos/--recurrent/"
                  "--attention (autocast: bf16 GEMMs, float32 weights; bf16-activations: their products stay bf16)");
  cmd->add_option("--json", opt.json_path, "Also write the results as JSON to this file ('-': stdout only)");
}

int run() {
  if (!opt.json_path.empty() && opt.json_path != "-")
    check_output_file(opt.json_path, "bench --json");  // before timing
  if (opt.list_cases) {
    for (const OpCase& c : standard_cases()) fmt::print("{}  ({} {})\n", c.name, c.op, ops::shapes_text(c.shapes));
    fmt::print(
        "--fourier: {}\n--recurrent: {}\n--toy: {}\n--gpt: {}\n--fft: {}\n--dt: {}\n--vit: {}\n--audio: {}\n"
        "--chronos: {}\n--attention --device cuda: {}\n",
        fmt::join(fourier_case_names(), ", "), fmt::join(recurrent_case_names(), ", "),
        fmt::join(toy_case_names(), ", "), fmt::join(gpt_case_names(), ", "), fmt::join(fft_case_names(), ", "),
        fmt::join(dt_case_names(), ", "), fmt::join(vit_case_names(), ", "), fmt::join(audio_case_names(), ", "),
        fmt::join(chronos_case_names(), ", "), fmt::join(attention_case_names(Device::cuda(0)), ", "));
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
  const TimingOptions timing{.repeat = opt.repeat, .warmup = opt.warmup};
  if (opt.fourier) {
    check(device.is_cpu() && dtype == DType::Float32, "bench", "--fourier times float32 on the CPU only");
    run_fourier_cases(opt.cases, timing, [](const std::string& label, double ms) {
      fmt::print("{:<44} threads={}  fwd+bwd {} ms\n", label, get_num_threads(), ms_text(ms));
      std::fflush(stdout);
    });
    return 0;
  }
  // Where a case ran, for its line: the GPU or the CPU's thread count.
  const std::string where = device.is_cuda() ? "cuda:0" : fmt::format("threads={}", get_num_threads());
  const std::optional<AutocastProducts> products = autocast_for_precision(opt.precision, "bench");
  const bool autocast_cases =
      opt.gpt || opt.dt || opt.vit || opt.audio || opt.chronos || opt.recurrent || opt.attention;
  check(opt.precision == "fp32" || (device.is_cuda() && autocast_cases), "bench",
        "--precision {} needs --device cuda and one of --gpt, --dt, --vit, --audio, --chronos, --recurrent, "
        "--attention (the CPU GEMMs have no bf16 kernel)",
        opt.precision);
  // bf16: the GEMMs (the composed attention's too) in bfloat16 with float32 master weights, as `harmonic
  // train --precision bf16`; bf16-activations: their products stay bfloat16 (ops/autocast.h).
  std::optional<AutocastGuard> autocast;
  if (products) autocast.emplace(DType::BFloat16, *products);
  if (opt.attention) {
    check(dtype == DType::Float32, "bench", "--attention times float32 inputs only");
    run_attention_cases(opt.cases, timing, device, [&](std::string label, double fwd, double fwd_bwd) {
      // Under bf16 autocast only the GEMMs change (the composed path's): "sdpa_composed_bf16_8x12x1024x64".
      if (products) label.insert(label.rfind('_'), *products == AutocastProducts::BFloat16 ? "_bf16act" : "_bf16");
      fmt::print("{:<36} {}  fwd {} ms  fwd+bwd {} ms\n", label, where, ms_text(fwd), ms_text(fwd_bwd));
      std::fflush(stdout);
    });
    return 0;
  }
  if (opt.recurrent) {
    check(dtype == DType::Float32, "bench", "--recurrent times float32 only");
    run_recurrent_cases(opt.cases, timing, device, [&](const std::string& label, double ms) {
      fmt::print("{:<50} {}  fwd+bwd {} ms\n", label, where, ms_text(ms));
      std::fflush(stdout);
    });
    return 0;
  }
  if (opt.toy) {
    check(device.is_cpu() && dtype == DType::Float32, "bench", "--toy times float32 on the CPU only");
    run_toy_cases(opt.cases, timing, [](const std::string& label, double ms) {
      fmt::print("{:<45} threads={}  train step {:9.1f} us\n", label, get_num_threads(), ms * 1e3);
      std::fflush(stdout);
    });
    return 0;
  }
  if (opt.optimizer) {
    check(device.is_cpu() && dtype == DType::Float32, "bench", "--optimizer times float32 on the CPU only");
    run_optimizer_cases(opt.cases, timing, [](const std::string& label, double ms) {
      fmt::print("{:<52} threads={}  step {:9.4f} ms\n", label, get_num_threads(), ms);
      std::fflush(stdout);
    });
    return 0;
  }
  if (opt.fft) {
    check(device.is_cpu() && dtype == DType::Float32, "bench", "--fft times float32 on the CPU only");
    run_fft_cases(opt.cases, timing, [](const std::string& label, double fwd, double fwd_bwd) {
      fmt::print("{:<44} threads={}  fwd {} ms  fwd+bwd {} ms\n", label, get_num_threads(), ms_text(fwd),
                 ms_text(fwd_bwd));
      std::fflush(stdout);
    });
    return 0;
  }
  // A model's training step: label, where, ms/step and examples per second, in `unit`.
  const auto step_report = [&](const char* unit) {
    return [&where, unit](const std::string& label, double ms, double per_s) {
      fmt::print("{:<48} {}  {:8.1f} ms/step  {:7.0f} {}/s\n", label, where, ms, per_s, unit);
      std::fflush(stdout);
    };
  };
  if (opt.dt) {
    check(dtype == DType::Float32, "bench", "--dt times float32 only");
    run_dt_cases(opt.cases, timing, device, step_report("windows"));
    return 0;
  }
  if (opt.vit) {
    check(dtype == DType::Float32, "bench", "--vit times float32 only");
    run_vit_cases(opt.cases, timing, device, step_report("images"));
    return 0;
  }
  if (opt.audio) {
    check(dtype == DType::Float32, "bench", "--audio times float32 only");
    run_audio_cases(opt.cases, timing, device, step_report("clips"));
    return 0;
  }
  if (opt.chronos) {
    check(dtype == DType::Float32, "bench", "--chronos times float32 only");
    run_chronos_cases(opt.cases, timing, device, [&](const ChronosTiming& t) {
      if (std::isnan(t.initial_loss))
        fmt::print("{:<62} {}  {:8.1f} ms/forecast  {:7.0f} sampled tok/s  params {}\n", t.label, where, t.ms,
                   t.tokens_per_s, t.parameters);
      else
        fmt::print("{:<62} {}  {:8.1f} ms/step  {:7.0f} tok/s  params {}  loss@init {:.3f}\n", t.label, where, t.ms,
                   t.tokens_per_s, t.parameters, t.initial_loss);
      std::fflush(stdout);
    });
    return 0;
  }
  if (opt.allreduce) {
    std::shared_ptr<dist::ProcessGroup> group = dist::world();
    const bool lead = group->rank() == 0;
    if (lead)
      fmt::print(
          "all-reduce (sum, float32) over {} rank(s), backend {}; median of {} (slowest rank); bus bandwidth "
          "= 2(n-1)/n * size / time\n{:>10} {:>10} {:>12} {:>12}\n",
          group->world_size(), group->backend(), opt.repeat, "MiB", "ms", "algo GB/s", "bus GB/s");
    run_allreduce_cases(*group, {1, 2, 4, 8, 16, 32, 64}, opt.repeat, opt.warmup, [&](const AllReduceTiming& t) {
      if (!lead) return;
      fmt::print("{:>10.0f} {:>10.3f} {:>12.2f} {:>12.2f}\n", t.bytes / 1048576.0, t.ms, t.algo_gb_s, t.bus_gb_s);
      std::fflush(stdout);
    });
    return 0;
  }
  if (opt.gpt) {
    check(dtype == DType::Float32, "bench", "--gpt times float32 only");
    run_gpt_cases(opt.cases, timing, device, [&](const GptTiming& t) {
      if (std::isnan(t.floor_ms))  // on a GPU: the GEMM work's rate instead of a CPU floor
        fmt::print("{:<48} {}  {:8.1f} ms/step  {:7.0f} tok/s  GEMM {:.2f} GFLOP  {:7.1f} GEMM TFLOP/s\n", t.label,
                   where, t.ms, t.tokens_per_s, t.gemm_gflop, t.gemm_gflop / t.ms);
      else
        fmt::print(
            "{:<48} {}  {:8.1f} ms/step  {:7.0f} tok/s  GEMM {:.2f} GFLOP  floor {:7.1f} ms  {:5.1f}% of floor\n",
            t.label, where, t.ms, t.tokens_per_s, t.gemm_gflop, t.floor_ms, 100.0 * t.floor_ms / t.ms);
      std::fflush(stdout);
    });
    return 0;
  }
  Json attrs;
  try {
    attrs = parse_json(opt.attrs, "bench", "--attrs");
  } catch (const Json::parse_error& e) {
    throw_error("bench", fmt::format("--attrs is not valid JSON ({}): {}", opt.attrs, e.what()));
  }

  std::vector<OpCase> cases;
  if (!opt.op.empty()) {
    ops::find_op(opt.op);  // unknown names fail here, with suggestions
    if (opt.shapes.empty()) cases.push_back(example_case(opt.op, attrs, opt.backward));
    for (const std::string& s : opt.shapes)
      cases.push_back({opt.op + " " + s, opt.op, ops::parse_shapes(s), attrs, opt.backward});
  } else {
    for (const OpCase& c : standard_cases())
      if (opt.cases.empty() || std::find(opt.cases.begin(), opt.cases.end(), c.name) != opt.cases.end() ||
          std::find(opt.cases.begin(), opt.cases.end(), c.op) != opt.cases.end())
        cases.push_back(c);
    check(!cases.empty(), "bench", "no standard case matches --case; see --list-cases");
  }

  const bool quiet = opt.json_path == "-";
  Json results = Json::array();
  for (const OpCase& c : cases) {
    OpTiming r = time_op(c, dtype, device, timing);
    if (!quiet)
      fmt::print("{:<28} {:<8} {}  fwd {} ms  fwd+bwd {} ms\n", c.name, opt.dtype,
                 device.is_cuda() ? std::string("cuda:0") : fmt::format("threads={}", get_num_threads()),
                 ms_text(r.fwd_ms), ms_text(r.fwd_bwd_ms));
    std::fflush(stdout);
    results.push_back({{"case", c.name},
                       {"op", c.op},
                       {"shapes", ops::shapes_text(c.shapes)},
                       {"fwd_ms", std::isnan(r.fwd_ms) ? Json() : Json(r.fwd_ms)},
                       {"fwd_bwd_ms", std::isnan(r.fwd_bwd_ms) ? Json() : Json(r.fwd_bwd_ms)}});
  }
  Json doc = {{"framework", "harmonic"}, {"threads", get_num_threads()}, {"device", device.str()},
              {"dtype", opt.dtype},      {"repeat", opt.repeat},         {"results", results}};
  if (quiet) {
    fmt::print("{}\n", doc.dump(2));
  } else if (!opt.json_path.empty()) {
    std::ofstream f(opt.json_path);
    check(f.good(), "bench --json", "cannot write '{}': {}", opt.json_path, std::strerror(errno));
    f << doc.dump(2) << "\n";
  }
  return 0;
}

Registration reg{{"bench", add, run}};

}  // namespace
}  // namespace hm::cli
