// Task "fru-text": the FRU paper's IMDB sentiment experiment (fru.txt section 6.4, Table 3) on
// KJV genre classification (data/kjv_genre.h: six classes of Bible passages), the text data set
// of this machine. As the paper's TFLearn model:
//   ids (B, L) int64 -> Embedding(vocab_size, embed) -> dropout -> one recurrent layer
//   (tools/tasks/fru_cells.h) -> o_{L-1} (B, units) -> dropout -> Linear(units, classes),
//   softmax cross-entropy.
// TFLearn's lstm(..., dropout=0.8) is a DropoutWrapper keeping 80% of the cell's inputs (every
// step's embedding, independently) and of its outputs (of which the classifier reads the last):
// `dropout` is the drop probability 1 - keep. The sequences are post-padded with PAD (id 0) to
// max_len and the recurrence runs over the padding without a mask (TFLearn's default static
// RNN), so the classifier reads the state after the last padded step, not after the last word.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"

namespace hm::train {

// The KJV genre classes: the classifier's default width.
inline constexpr int64_t kFruTextClasses = 6;

// Embedding + recurrent layer + classifier of a config (keys model, units, embed, vocab_size,
// max_len, fru_freqs, fru_dims, r_size, f_max, sru_phi, sru_decays, dropout) with `classes`
// outputs. forward: ids (B, L) int64 -> logits (B, classes). Initial weights from init, dropout
// masks from dropout_gen (null: the default generator; not owned).
std::shared_ptr<nn::UnaryModule> make_fru_text_model(const nlohmann::json& config, int64_t classes = kFruTextClasses,
                                                     Generator* init = nullptr, Generator* dropout_gen = nullptr);

// Trainable parameters of that model, split as the paper counts them: its Table 3 counts the
// recurrent layer and the classifier (`model`) but not the embedding table (`embedding`).
struct FruTextParameters {
  int64_t model = 0;      // recurrent layer + Linear(units, classes)
  int64_t embedding = 0;  // vocab_size * embed
};
FruTextParameters fru_text_parameter_count(const nlohmann::json& config, int64_t classes = kFruTextClasses);

}  // namespace hm::train
