// The FourierFormer kernel's flat config keys, shared by the tasks with a Fourier attention
// (kjv-lm, fashion-vit) and the saved GPT config: fourier_p, fourier_r_init, fourier_r_per_dim,
// fourier_eps (A = K / (sum K + eps); the authors' code has 1e-6) and fourier_log_r (learn log R).
#pragma once
#include <nlohmann/json.hpp>

#include <vector>

#include "harmonic/nn/attention.h"
#include "harmonic/optim/optimizer.h"

namespace hm::train {

nlohmann::json fourier_kernel_json(const nn::FourierKernelOptions& options);
// The keys present in `config` over `defaults` (a config older than a key keeps its default).
nn::FourierKernelOptions fourier_kernel_from_json(const nlohmann::json& config, nn::FourierKernelOptions defaults);

// The task key fourier_r_lr: 0 leaves the bandwidths in `groups` (at the task's lr); r_lr > 0 moves
// every parameter named "R" or "log_R" (a FourierScore's, by the last name component) into a group
// of its own, appended last, at initial lr r_lr and no weight decay, as the released code's optimiser
// allows any parameter group its own lr. The trainer scales it by the schedule like every group.
// Throws when r_lr is negative, or positive with no such parameter (softmax attention).
std::vector<optim::ParamGroup> with_fourier_r_group(std::vector<optim::ParamGroup> groups, double r_lr,
                                                    const char* task);

}  // namespace hm::train
