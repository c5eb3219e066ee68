// The FourierFormer kernel's flat config keys, shared by the tasks with a Fourier attention
// (kjv-lm, fashion-vit) and the saved GPT config: fourier_p, fourier_r_init, fourier_r_per_dim,
// fourier_eps (A = K / (sum K + eps); the authors' code has 1e-6) and fourier_log_r (learn log R).
#pragma once
#include <nlohmann/json.hpp>

#include "harmonic/nn/attention.h"

namespace hm::train {

nlohmann::json fourier_kernel_json(const nn::FourierKernelOptions& options);
// The keys present in `config` over `defaults` (a config older than a key keeps its default).
nn::FourierKernelOptions fourier_kernel_from_json(const nlohmann::json& config, nn::FourierKernelOptions defaults);

}  // namespace hm::train
