// Task "fashion-vit": FourierFormer's image experiment (Nguyen et al., NeurIPS 2022, section
// 4.2, Table 2, DeiT-tiny on ImageNet) scaled to Fashion-MNIST: a small DeiT-layout vision
// transformer (models/vit.h) with softmax or Fourier self-attention, AdamW with label
// smoothing, warmup and cosine decay. The images (N, 28, 28) in [0, 1] are standardised with
// Fashion-MNIST's training mean and std and fed as (N, 1, 28, 28); val_fraction of the
// training images are held out (validate: "accuracy", "loss"); evaluate() reports test
// accuracy, top-5, loss, the head redundancy of Table 3 and the mean Fourier bandwidth R.
#pragma once
#include <nlohmann/json.hpp>

#include "harmonic/models/vit.h"

namespace hm::train {

// The model part of a fashion-vit config (keys patch, dim, depth, heads, mlp_ratio, dropout,
// attention "softmax" | "fourier", fourier_p, fourier_r_init, fourier_r_per_dim, fourier_eps, fourier_log_r; the task's fourier_r_lr: fourier_kernel_config.h) for 28x28
// single-channel images and 10 classes. Throws hm::Error naming "fashion-vit" for a bad
// attention name; shape errors come from the ViT constructor.
models::ViTConfig fashion_vit_config(const nlohmann::json& config);

}  // namespace hm::train
