// The audio training-step cases of `harmonic bench --audio` (tools/bench/cases.h):
// models::SpectrogramTransformer with a linear or a Fourier head (2 frequencies, no
// regulariser, as the audio-bpm task) over 32 tempo classes: forward, cross-entropy, backward,
// AdamW. `linear`, `fourier`: the audio-bpm task's default model (126 frames x 16 bands, a token
// per frame, dim 64, 2 layers, 4 heads), batch 32. `ast_linear`, `ast_fourier` (run only when
// named): the Audio Spectrogram Transformer's size, ViT-Base (dim 768, 12 layers, 12 heads, MLP
// 3072) over 1024 frames x 128 bands, a token per frame (AST has 1212 patches), batch 8.
#include <algorithm>

#include "harmonic/core/factories.h"
#include "harmonic/models/spectrogram_transformer.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/bench/cases.h"

namespace hm::bench {

std::vector<std::string> audio_case_names() { return {"linear", "fourier", "ast_linear", "ast_fourier"}; }

void run_audio_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                     const StepReport& report) {
  const std::vector<std::string> names = audio_case_names();
  for (const std::string& name : only)
    check(std::find(names.begin(), names.end(), name) != names.end(), "bench",
          "--audio: unknown case '{}' (expected linear, fourier, ast_linear, ast_fourier)", name);
  for (const std::string& name : names) {
    const bool ast = name.starts_with("ast_");
    const bool picked = only.empty() ? !ast : std::find(only.begin(), only.end(), name) != only.end();
    if (!picked) continue;
    models::SpectrogramTransformerConfig c;
    c.head = name.ends_with("fourier") ? "fourier" : "linear";
    if (ast) c.frames = 1024, c.bands = 128, c.dim = 768, c.depth = 12, c.heads = 12, c.mlp_ratio = 4.0;
    const int64_t B = ast ? 8 : 32;
    Generator gen(1234);
    models::SpectrogramTransformer model(c, &gen);
    model.to(device);
    model.train();
    optim::AdamW opt_w(model.named_parameters(), {.lr = 3e-3, .weight_decay = 0.01});
    Tensor clips = randn({B, c.frames, c.bands}, {}, &gen).to(device);
    Tensor labels = randint(0, c.num_classes, {B}, &gen).to(device);
    const double ms = time_ms(
        [&] {
          Tensor loss = model.loss(model.forward(clips), labels);
          opt_w.zero_grad();
          loss.backward();
          opt_w.step();
        },
        opt, device);
    report(fmt::format("audio {:<11} frames={} bands={} E={} L={} H={} B={}", name, c.frames, c.bands, c.dim, c.depth,
                       c.heads, B),
           ms, static_cast<double>(B) / (ms * 1e-3));
  }
}

}  // namespace hm::bench
