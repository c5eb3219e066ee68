// Task "fru-image": the FRU paper's pixel-MNIST and permuted-MNIST classifiers (Zhang et al.,
// ICML 2018, sections 6.2-6.3, Tables 1-2) on Fashion-MNIST, the MNIST of this
// machine. Each 28x28 image, average-pooled by `pool` to s x s (s = 28 / pool), becomes a
// sequence:
//   data=pixel     x (B, T = s*s, 1), pixels row by row, in [0, 1]
//   data=permuted  the same with one fixed permutation of the pixel order (perm_seed, not the
//                  run's seed: every run sees the same permutation)
//   data=row       x (B, s, s): one image row per step
// then one recurrent layer (tools/tasks/fru_cells.h) and Linear(units, 10) on the last step:
//   x (B, T, in) -> o_{T-1} (B, units) -> logits (B, 10), cross-entropy.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"

namespace hm::train {

// Steps and inputs per step of a config's sequences (keys data, pool): pixel/permuted (s*s, 1),
// row (s, s). Throws hm::Error naming "fru-image" for a bad data or pool.
std::pair<int64_t, int64_t> fru_image_sequence_shape(const nlohmann::json& config);

// The fixed pixel order of data=permuted: a permutation of 0..n-1 from perm_seed alone.
std::vector<int64_t> fru_image_permutation(int64_t n, uint64_t perm_seed);

// Images (N, 28, 28) float32 on the CPU -> sequences (N, T, in) per config (data, pool,
// perm_seed): average-pooled, flattened or row by row, permuted for data=permuted.
Tensor fru_image_sequences(const Tensor& images, const nlohmann::json& config);

// Recurrent layer + Linear(units, 10) of a config (keys model, units, fru_freqs, fru_dims,
// r_size, f_max, f_min, sru_phi, sru_decays, data, pool). forward: x (B, T, in) -> logits (B, 10).
std::shared_ptr<nn::UnaryModule> make_fru_image_model(const nlohmann::json& config, Generator* gen = nullptr);

// Trainable parameters of that model, without loading data.
int64_t fru_image_parameter_count(const nlohmann::json& config);

}  // namespace hm::train
