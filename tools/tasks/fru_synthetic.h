// Task "fru-synthetic": the FRU paper's synthetic next-step experiments (Zhang et al., ICML
// 2018, section 6.1, Figures 3-4) on mix-sin / mix-poly (data/mix_series.h) with one of
// RNN, LSTM, SRU or FRU as sequence-to-sequence regressors:
//   x (B, T-1, 1) -> recurrent outputs (B, T-1, units) -> Linear(units, 1) -> MSE vs (B, T-1, 1).
// Its recurrent probe (`harmonic grads fru-synthetic --over-time`, Figure 5) starts the cell
// from h0 (B, S) -- RNN: h (S = units); LSTM: [h ; c] (S = 2 units); SRU/FRU: mu (S = K*d) --
// and gives loss_t = mean over the batch of (yhat_t - y_t)^2, whose mean over t is the loss.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"

namespace hm::train {

// The recurrent cell plus the per-step Linear(units, 1) head of a fru-synthetic config (its
// keys model, units, fru_freqs, fru_dims, r_size, f_max, sru_phi, sru_decays, length).
// forward: x (B, T, 1) -> (B, T, 1). Throws hm::Error naming a bad key.
std::shared_ptr<nn::UnaryModule> make_fru_synthetic_model(const nlohmann::json& config, Generator* gen = nullptr);

// Trainable parameters of that model (cell + head), without building data.
int64_t fru_synthetic_parameter_count(const nlohmann::json& config);

}  // namespace hm::train
