// The ViT training-step cases of `harmonic bench --vit` (tools/bench/cases.h): models::ViT at
// DeiT-tiny's size (224 x 224 x 3 images, patch 16: 196 patches and a class token, dim 192, 12
// layers, 3 heads, MLP 768, 1000 classes) with softmax or Fourier attention (FourierFormer's
// image setting, R init 1), batch 32, dropout 0: forward, cross-entropy, backward, AdamW. The
// `task` case is the fashion-vit task's default model (28 x 28, patch 7, dim 64, 4 layers) at
// its batch of 128, a CPU-sized step.
#include <algorithm>

#include "harmonic/core/factories.h"
#include "harmonic/models/vit.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/bench/cases.h"

namespace hm::bench {

std::vector<std::string> vit_case_names() { return {"softmax", "fourier", "task"}; }

void run_vit_cases(const std::vector<std::string>& only, const TimingOptions& opt, Device device,
                   const StepReport& report) {
  const std::vector<std::string> names = vit_case_names();
  for (const std::string& name : only)
    check(std::find(names.begin(), names.end(), name) != names.end(), "bench",
          "--vit: unknown case '{}' (expected softmax, fourier, task)", name);
  for (const std::string& name : names) {
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    models::ViTConfig c = name == "task" ? models::ViTConfig{} : models::ViTConfig::deit_tiny();
    if (name == "task") c.patch = 7;  // the fashion-vit task's default
    if (name == "fourier") c.attention = nn::AttentionKernel::Fourier;
    const int64_t B = name == "task" ? 128 : 32;
    Generator gen(1234);
    models::ViT model(c, &gen);
    model.to(device);
    model.train();
    optim::AdamW opt_w(model.named_parameters(), {.lr = 1e-3, .weight_decay = 0.05});
    Tensor images = randn({B, c.channels, c.image_size, c.image_size}, {}, &gen).to(device);
    Tensor labels = randint(0, c.num_classes, {B}, &gen).to(device);
    const double ms = time_ms(
        [&] {
          Tensor loss = cross_entropy(model.forward(images), labels);
          opt_w.zero_grad();
          loss.backward();
          opt_w.step();
        },
        opt, device);
    report(
        fmt::format("vit {:<8} S={} P={} E={} L={} H={} B={}", name, c.image_size, c.patch, c.dim, c.depth, c.heads, B),
        ms, static_cast<double>(B) / (ms * 1e-3));
  }
}

}  // namespace hm::bench
