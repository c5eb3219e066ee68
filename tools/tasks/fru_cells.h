// The four recurrent layers the FRU paper compares (fru.txt section 6), as the classification
// tasks fru-image and fru-text build them from their config keys:
//   rnn   tanh RNN with one bias: a bias-free nn::RNN on [x ; 1], as TensorFlow's BasicRNNCell
//   lstm  nn::SingleBiasLSTM (one bias per gate, as BasicLSTMCell)
//   sru   nn::SRU (sru_decays, sru_phi, r_size, units)
//   fru   nn::FRU_{fru_freqs, fru_dims} (r_size, units, f_max, seq_len)
// fru-synthetic (tools/tasks/fru_synthetic.cpp) builds the same four layers inline, with its
// own parameter names (it predates this file).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/nn/fru.h"
#include "harmonic/nn/module.h"
#include "harmonic/nn/recurrent.h"
#include "harmonic/tools/train/grad_over_time.h"

namespace hm::train {

struct PaperCellOptions {
  std::string model;  // rnn | lstm | sru | fru
  int64_t input_size = 1;
  int64_t units = 200;
  int64_t fru_freqs = 60, fru_dims = 10, r_size = 60;
  double f_max = 784;     // FRU's largest frequency
  double f_min = 0.25;    // and its smallest nonzero one (the task key f_min where a task has it)
  int64_t seq_len = 784;  // FRU's T (cos argument and 1/T scale)
  int64_t sru_phi = 200;
  std::vector<double> sru_decays{0.0, 0.25, 0.5, 0.9, 0.99};
};

// Reads the keys model, units, fru_freqs, fru_dims, r_size, sru_phi, sru_decays of config;
// f_max and seq_len are the caller's (each task resolves its own f_max default).
PaperCellOptions paper_cell_options(const nlohmann::json& config, int64_t input_size, int64_t seq_len, double f_max);

// One recurrent layer of the paper; its only child is named after the model ("fru", ...).
// Throws hm::Error prefixed with `task` for a bad option.
class PaperCell : public nn::Module {
 public:
  PaperCell(const PaperCellOptions& options, const std::string& task, Generator* gen = nullptr);
  // x (B, T, in) -> the output at the last step (B, units). SRU/FRU use forward_last (the
  // fused path that never keeps the per-step outputs).
  Tensor forward_last(const Tensor& x);
  // x (B, T, in), h0 (B, state_size()) or undefined (zeros) -> the output at every step
  // (B, T, units). The LSTM's h0 packs [h ; c].
  Tensor forward_all(const Tensor& x, const Tensor& h0 = {});
  // The recurrence's state size S: RNN units, LSTM 2 units (h and c), SRU/FRU K*d.
  int64_t state_size() const;

  const PaperCellOptions options;

 private:
  std::shared_ptr<nn::RNN> rnn_;  // on [x ; 1]
  std::shared_ptr<nn::SingleBiasLSTM> lstm_;
  std::shared_ptr<nn::FourierStatRecurrent> stat_;  // SRU or FRU
};

// Figure 5 for the classifiers that read the last step (`harmonic grads fru-image|fru-text
// --over-time`): loss_t is the cross-entropy of the classifier applied to the output at step t,
// as if the sequence ended there, so loss_{T-1} is the task's loss. features maps a batch's
// input to the cell's input (the identity for images, the word embedding for text).
class StepClassifierProbe : public RecurrentProbe {
 public:
  StepClassifierProbe(PaperCell* cell, nn::UnaryModule* head, std::function<Tensor(const Tensor&)> features);
  Tensor initial_state(const data::Batch& batch) override;  // zeros (B, S)
  std::vector<Tensor> step_losses(const data::Batch& batch, const Tensor& h0) override;

 private:
  PaperCell* cell_;  // not owned
  nn::UnaryModule* head_;  // (B, T, units) -> (B, T, classes); not owned
  std::function<Tensor(const Tensor&)> features_;
};

}  // namespace hm::train
