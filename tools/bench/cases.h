// The cases `harmonic bench` times: the standard op suite, an op at its table example, the
// Fourier cases (head, attention, FRU), the recurrent layers and one training step of the Fourier head toy
// study's model per head. The PyTorch peers in tools/bench/torch/*.py time the same cases.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "harmonic/tools/bench/timing.h"

namespace hm::bench {

// The standard op suite; tools/bench/torch/bench_torch.py defines the same cases.
std::vector<OpCase> standard_cases();

// The op at its table entry's example shapes and attributes (ops/registry), attrs merged over
// the example's: what `harmonic bench --op NAME` times without --shape.
OpCase example_case(const std::string& op, const nlohmann::json& attrs = nlohmann::json::object(),
                    bool backward = true);

// Receives each case's label and its median milliseconds as soon as it is timed.
using Report = std::function<void(const std::string& label, double ms)>;

// Names of the Fourier cases: fourier_head_log_pmf, fourier_attention, fru, fru_all_steps.
std::vector<std::string> fourier_case_names();
// The Fourier cases, forward+backward of a sum in float32 on the CPU, at the shapes of
// tools/bench/torch/bench_fourier_torch.py, bench_fourier_attention_torch.py and bench_fru_torch.py.
// `only` picks cases by name (empty: all).
void run_fourier_cases(const std::vector<std::string>& only, const TimingOptions& opt, const Report& report);

// Names of the recurrent cases: {lstm, gru, rnn}_{pixel, text}, and each with "_composed"
// (the step loop, RecurrentOptions::fused = false; run only when named).
std::vector<std::string> recurrent_case_names();
// Forward+backward of sum(output) of one nn::LSTM / GRU / RNN layer in float32 on `device` at the
// FRU paper's shapes: pixel (T=784, B=256, in=1, H=200) and text (T=300, B=32, in=128, H=128);
// tools/bench/torch/bench_recurrent_torch.py times torch.nn's. `only` picks cases (empty: the fused ones).
void run_recurrent_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                         const Report& report);

// Names of the optimizer cases: fashion_mlp, gpt, dt.
std::vector<std::string> optimizer_case_names();
// One Adam step (lr 1e-4, fixed gradients) over the parameters of the fashion-mlp MLP, the
// kjv-lm GPT and the Decision Transformer (tools/bench/optimizer_case.cpp); prints each list's
// shapes for tools/bench/torch/bench_optimizer_torch.py. Reports ms per step.
void run_optimizer_cases(const std::vector<std::string>& only, const TimingOptions& opt, const Report& report);

// Names of the toy cases: linear, gmm, fourier, fourier_reg, fourier_mle.
std::vector<std::string> toy_case_names();
// One training step of the toy study's model (models/fourier_toy.h) per head, as
// run_toy_density takes it; tools/bench/torch/bench_toy_torch.py times PyTorch. Reports ms per step.
void run_toy_cases(const std::vector<std::string>& only, const TimingOptions& opt, const Report& report);

// Names of the FFT cases: rfft_256x4096, rfft_256x1000, rfft_64x4099 (a prime: Bluestein),
// stft_16x88200 (n_fft 1024, hop 256, periodic Hann, centred).
std::vector<std::string> fft_case_names();
// Receives each FFT case's label, forward ms (no grad) and forward+backward ms (of a sum).
using FftReport = std::function<void(const std::string& label, double fwd_ms, double fwd_bwd_ms)>;
// The FFT op (ops/fft.h) in float32 on the CPU; tools/bench/torch/bench_fft_torch.py times torch.fft.rfft
// and torch.stft on the same shapes. `only` picks cases by name (empty: all).
void run_fft_cases(const std::vector<std::string>& only, const TimingOptions& opt, const FftReport& report);

// Names of the GPT cases: softmax, fourier (the attention kernel), and gpt2 (softmax attention at
// 12 layers, n_embd 768, 12 heads, block 1024, batch 8: the GPU size; run only when named).
std::vector<std::string> gpt_case_names();
// One training step (forward, cross-entropy, backward, AdamW) of models::GPT at 4 layers,
// n_embd 128, 8 heads, block 256, batch 8, vocab 8192, sinusoidal positions, dropout 0.1
// (tools/bench/gpt_case.cpp); tools/bench/torch/bench_gpt_torch.py times the same model in PyTorch.
struct GptTiming {
  std::string label;
  double ms = 0, tokens_per_s = 0;
  double gemm_gflop = 0;  // the step's GEMM work (Fourier attention's sinc work is not a GEMM)
  double floor_ms = NAN;  // those GEMMs timed alone as plain row-major sgemm at this thread count (CPU only)
};
using GptReport = std::function<void(const GptTiming&)>;
void run_gpt_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                   const GptReport& report);

// Receives a training-step case's label, its median ms per step and the examples it trains on
// per second (windows, images, clips).
using StepReport = std::function<void(const std::string& label, double ms, double items_per_s)>;

// Names of the Decision Transformer cases: linear, fourier (the action head).
std::vector<std::string> dt_case_names();
// One training step (forward, cross-entropy, backward, AdamW) of models::DecisionTransformer
// at the paper's size with a linear or Fourier-8 head, batch 64 (tools/bench/dt_case.cpp);
// tools/bench/torch/bench_dt_torch.py times the same model in PyTorch.
void run_dt_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                  const StepReport& report);

// Names of the ViT cases: softmax, fourier (DeiT-tiny with that attention), task (fashion-vit's model).
std::vector<std::string> vit_case_names();
// One training step of models::ViT (tools/bench/vit_case.cpp); tools/bench/torch/bench_vit_torch.py
// times the same model in PyTorch.
void run_vit_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                   const StepReport& report);

// Names of the audio cases: linear, fourier (the audio-bpm task's model), ast_linear, ast_fourier
// (the Audio Spectrogram Transformer's size; run only when named).
std::vector<std::string> audio_case_names();
// One training step of models::SpectrogramTransformer (tools/bench/audio_case.cpp);
// tools/bench/torch/bench_audio_torch.py times the same model in PyTorch.
void run_audio_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                     const StepReport& report);

// Names of the Chronos cases: train, train_quick, forecast, train_mini (run only when named).
std::vector<std::string> chronos_case_names();
// The Chronos T5 (models/chronos.h, linear head, the chronos task's config; tools/bench/chronos_case.cpp):
//   train        one training step (forward, cross-entropy, backward, AdamW) of the task's default
//                model (d_model 64, 2 + 2 layers, 4 heads of 16, d_ff 256, 4096 tokens, untied
//                head, dropout 0.1) on context 128 + horizon 16, batch 32
//   train_quick  the same step at the quick study's size (d32: 1 + 1 layers, 2 heads, d_ff 128,
//                context 32 + horizon 8, no dropout), batch 32
//   forecast     models::forecast of 20 sample paths x 16 steps for 8 series (the default
//                model, context 128; encoder once, decoder KV cache)
//   train_mini   the training step at the paper's size, t5-efficient-mini (d_model 384, 4 + 4
//                layers, 8 heads of 64, d_ff 1536; 20M parameters) on context 512 + horizon 64,
//                batch 32 (only when named)
// tools/bench/torch/bench_chronos_torch.py times the same T5 in PyTorch.
struct ChronosTiming {
  std::string label;
  double ms = 0;            // per step / per forecast
  double tokens_per_s = 0;  // train: encoder + decoder positions, B (C + 1 + T); forecast: sampled tokens
  int64_t parameters = 0;
  double initial_loss = NAN;  // train: the loss before any update (~ln 4094 for uniform predictions)
};
using ChronosReport = std::function<void(const ChronosTiming&)>;
void run_chronos_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                       const ChronosReport& report);

// Names of the attention cases on `device`: sdpa_<path>_BxHxNxD (paths reference, composed, flash
// on CUDA; kernel, composed on the CPU) and fourier_attention_kernel_8x8x512x16.
std::vector<std::string> attention_case_names(Device device);
// Receives each attention case's label, forward ms (no grad) and forward+backward ms (of a sum).
using AttentionReport = std::function<void(const std::string& label, double fwd_ms, double fwd_bwd_ms)>;
// scaled_dot_product_attention (causal, float32) per cuda::SdpaPath at 8x16x1024x64, 8x12xNx64 for
// N = 256, 1024, 4096 and 4x16x1024x128 (the reference kernels at N <= 1024 only), and
// fourier_attention (causal, p = 4) at 8x8x512x16 (tools/bench/attention_cases.cpp);
// tools/bench/torch/bench_attention_torch.py times PyTorch. `only` picks cases by name prefix.
void run_attention_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                         const AttentionReport& report);

}  // namespace hm::bench
