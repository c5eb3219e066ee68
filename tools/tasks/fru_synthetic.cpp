// Task "fru-synthetic" (see fru_synthetic.h). Paper sources of the defaults (fru.txt):
// - section 6: "one layer of above cells with 200 units" (units 200 for every model); SRU
//   alphas {0, .25, .5, .9, .99}, g_t (r) dimension 60, h_t (phi) dimension 200; Adam;
//   FRU_{k,d} = k sampled sparse frequencies with d dimensions each.
// - section 6.1 / Figures 3-4: FRU_{120,5}; T = 176, K = 5, D = 15 (mix-sin), degree 5/10/15
//   (mix-poly); 4000 sequences, 80% train / 20% test; lr 0.001 with decay 0.9 (staircase
//   every 1000 steps, as the authors' released code).
// - The authors' code: FRU frequencies [0] + geometric 0.25 .. f_max, f_max about T/3 on the
//   synthetic tasks (f_max 0 here means steps / 3); FRU r_size 60.
// Not stated by the paper for the synthetic runs: batch size (default 32) and the number of
// epochs (default 100: Figure 5 plots epochs 0..90).
// RNN and LSTM carry one bias per gate, as TensorFlow's BasicRNNCell / BasicLSTMCell (a
// bias-free cell on [x ; 1]). No validation split: the data set is train/test only
// (validate() returns nothing); evaluate() reports the test MSE ("test_mse").
// target "next" (the default, the paper's "predict the next value"): the model reads steps
// 0..T-2 and predicts steps 1..T-1, one output per step. target "sequence" (the authors' released
// code, limbo018/FRU code/load.py and rnn.py): it reads all T steps and regresses steps 1..T-1
// at once from the last step's output through Linear(units, T-1); their configs pair it with lr
// decay 0.7 (mix-sin) or 0.9 (mix-poly) every 1000 steps and clipping at 5.
#include "harmonic/tools/tasks/fru_synthetic.h"

#include <algorithm>
#include <set>

#include "harmonic/core/factories.h"
#include "harmonic/data/mix_series.h"
#include "harmonic/nn/fru.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/recurrent.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/tasks/fru_task.h"

namespace hm::train {
namespace {

constexpr const char* kFruSyntheticTask = "fru-synthetic";

// target "next" or "sequence" (the released code's), checked.
bool whole_sequence_target(const Json& c) {
  const std::string target = c.value("target", std::string("next"));  // absent in older configs
  check(target == "next" || target == "sequence", kFruSyntheticTask, "target must be \"next\" or \"sequence\", got \"{}\"", target);
  return target == "sequence";
}

// Cell + head. x (B, T, 1) -> (B, T, 1) (target next), or x (B, L, 1) -> (B, L-1, 1) from the
// last step (target sequence).
class FruSyntheticModel : public nn::UnaryModule {
 public:
  FruSyntheticModel(const Json& c, Generator* gen) : nn::UnaryModule("FruSyntheticModel") {
    kind_ = c.at("model").get<std::string>();
    sequence_ = whole_sequence_target(c);
    const int64_t units = c.at("units").get<int64_t>(), length = c.at("length").get<int64_t>();
    const int64_t steps = sequence_ ? length : length - 1;  // inputs per sequence
    check(units >= 1, kFruSyntheticTask, "units must be >= 1, got {}", units);
    check(length >= 2, kFruSyntheticTask, "length must be >= 2, got {}", length);
    if (kind_ == "rnn") {
      rnn_ = register_module(
          "rnn", std::make_shared<nn::RNN>(2, units, nn::RecurrentOptions{.bias = false, .batch_first = true}, gen));
    } else if (kind_ == "lstm") {
      lstm_ = register_module("lstm", std::make_shared<nn::SingleBiasLSTM>(1, units, gen));
    } else if (kind_ == "sru") {
      nn::SRUOptions o;
      o.decays = c.at("sru_decays").get<std::vector<double>>();
      o.phi_size = c.at("sru_phi").get<int64_t>();
      o.r_size = c.at("r_size").get<int64_t>();
      o.output_units = units;
      o.gen = gen;
      check(!o.decays.empty() && o.phi_size >= 1 && o.r_size >= 1, kFruSyntheticTask,
            "sru_decays must be non-empty, sru_phi and r_size >= 1");
      cell_ = register_module("sru", std::make_shared<nn::SRU>(1, o));
    } else if (kind_ == "fru") {
      nn::FRUOptions o;
      o.num_freqs = c.at("fru_freqs").get<int64_t>();
      o.dims_per_freq = c.at("fru_dims").get<int64_t>();
      o.r_size = c.at("r_size").get<int64_t>();
      o.output_units = units;
      o.seq_len = steps;
      const double f_max = c.at("f_max").get<double>();
      check(f_max >= 0, kFruSyntheticTask, "f_max must be >= 0 (0: steps / 3), got {}", f_max);
      o.f_max = f_max > 0 ? f_max : static_cast<double>(steps) / 3.0;
      o.gen = gen;
      check(o.num_freqs >= 1 && o.dims_per_freq >= 1 && o.r_size >= 1, kFruSyntheticTask,
            "fru_freqs, fru_dims and r_size must be >= 1");
      cell_ = register_module("fru", std::make_shared<nn::FRU>(1, o));
    } else {
      throw_error(kFruSyntheticTask, fmt::format("model '{}' is not one of rnn, lstm, sru, fru", kind_));
    }
    head_ = register_module("head", std::make_shared<nn::Linear>(units, sequence_ ? length - 1 : 1, true, gen));
  }

  Tensor forward(const Tensor& x) override { return forward_from(x, Tensor()); }

  // The recurrence's state size S: RNN H, LSTM 2H (h and c packed), SRU/FRU K*d.
  int64_t state_size() const {
    if (rnn_) return rnn_->hidden_size;
    if (lstm_) return 2 * lstm_->lstm->hidden_size;
    return cell_->state_size();
  }

  // x (B, T, 1), h0 (B, S) or undefined (zeros) -> (B, T, 1), or (B, L-1, 1) from the last step
  // with target sequence. The LSTM's h0 packs [h ; c].
  Tensor forward_from(const Tensor& x, const Tensor& h0) {
    const Tensor h = hidden_from(x, h0);
    if (!sequence_) return head_->forward(h);
    return unsqueeze(head_->forward(select(h, 1, h.size(1) - 1)), 2);  // (B, L-1, 1)
  }

  // The head at every step: (B, T, 1), or (B, T, L-1) with target sequence (Figure 5's probe).
  Tensor head_at_every_step(const Tensor& x, const Tensor& h0) { return head_->forward(hidden_from(x, h0)); }
  bool whole_sequence() const { return sequence_; }

 private:
  // x (B, T, 1) -> the cell's outputs (B, T, units).
  Tensor hidden_from(const Tensor& x, const Tensor& h0) {
    Tensor h;  // (B, T, units)
    if (rnn_) {
      Tensor one = ones({x.size(0), x.size(1), 1}, {.dtype = x.dtype(), .device = x.device()});
      h = rnn_->forward(cat({x, one}, 2), h0.defined() ? unsqueeze(h0, 0) : Tensor()).output;
    } else if (lstm_) {
      nn::LSTMState s;
      if (h0.defined()) {
        const int64_t H = lstm_->lstm->hidden_size;
        s = {unsqueeze(slice(h0, 1, 0, H), 0), unsqueeze(slice(h0, 1, H, 2 * H), 0)};  // (1, B, H) each
      }
      h = lstm_->forward(x, s).output;
    } else {
      h = cell_->forward(x, h0).output;
    }
    return h;
  }

  std::string kind_;
  bool sequence_ = false;
  std::shared_ptr<nn::RNN> rnn_;  // on [x ; 1]: one bias, as BasicRNNCell
  std::shared_ptr<nn::SingleBiasLSTM> lstm_;
  std::shared_ptr<nn::FourierStatRecurrent> cell_;  // SRU or FRU
  std::shared_ptr<nn::Linear> head_;
};

// Figure 5 of the FRU paper: loss_t = mean over the batch of (yhat_t - y_t)^2, from one forward
// started at h0 (B, S); their mean over t is the training loss.
class FruSyntheticProbe : public RecurrentProbe {
 public:
  explicit FruSyntheticProbe(FruSyntheticModel* model) : model_(model) {}
  Tensor initial_state(const data::Batch& b) override {
    return zeros({b.input.size(0), model_->state_size()}, {.dtype = b.input.dtype(), .device = b.input.device()});
  }
  // Target sequence: loss_t is the MSE of the head applied to step t's output against the whole
  // target, as fru-image applies its classifier at every step.
  std::vector<Tensor> step_losses(const data::Batch& b, const Tensor& h0) override {
    Tensor y = model_->head_at_every_step(b.input, h0);                               // (B, T, 1) or (B, T, L-1)
    Tensor target = model_->whole_sequence() ? transpose(b.target, 1, 2) : b.target;  // (B, 1, L-1) or (B, T, 1)
    Tensor err = mean(square(sub(y, target)), {2}, true);                             // (B, T, 1)
    std::vector<Tensor> out;
    for (int64_t t = 0; t < err.size(1); ++t) out.push_back(mean(select(err, 1, t)));
    return out;
  }

 private:
  FruSyntheticModel* model_;  // not owned
};

class FruSynthetic : public FruTask {
 public:
  FruSynthetic(const Json& c, Device device) {
    const uint64_t seed = c.at("seed").get<uint64_t>();
    Generator gen(seed);  // the model's initial weights (the data have their own stream)
    model_ = make_fru_synthetic_model(c, &gen);
    probe_ = std::make_unique<FruSyntheticProbe>(static_cast<FruSyntheticModel*>(model_.get()));
    model_->to(device);
    const std::string data_name = c.at("data").get<std::string>();
    check(data_name == "mix-sin" || data_name == "mix-poly", kFruSyntheticTask, "data '{}' is not one of mix-sin, mix-poly",
          data_name);
    const data::MixKind kind = data::parse_mix_kind(data_name);
    data::MixSeriesOptions mo;
    mo.size = c.at("size").get<int64_t>();
    mo.length = c.at("length").get<int64_t>();
    mo.seed = seed;
    if (kind == data::MixKind::Poly) {
      mo.terms = c.at("degree").get<int64_t>();
      check(mo.terms == 5 || mo.terms == 10 || mo.terms == 15, kFruSyntheticTask,
            "degree must be 5, 10 or 15 (the paper's mix-poly degrees), got {}", mo.terms);
    } else {
      mo.terms = c.at("sines").get<int64_t>();
      check(mo.terms >= 1, kFruSyntheticTask, "sines must be >= 1, got {}", mo.terms);
    }
    check(mo.size >= 5, kFruSyntheticTask, "size must be >= 5 (80/20 split), got {}", mo.size);
    const int64_t batch = c.at("batch_size").get<int64_t>();
    check(batch >= 1, kFruSyntheticTask, "batch_size must be >= 1, got {}", batch);
    const data::MixSeries series = data::make_mix_series(kind, mo);
    // next: steps 0..T-2 -> 1..T-1 step by step; sequence: all T steps -> 1..T-1 at the end.
    const bool sequence = static_cast<FruSyntheticModel*>(model_.get())->whole_sequence();
    auto pairs = [&](const Tensor& s) {
      if (!sequence) return data::next_step_pairs(s);
      return data::Example{s.clone(), narrow(s, 1, 1, s.size(1) - 1).clone()};
    };
    data::Example test = pairs(series.test), train = pairs(series.train);
    test_x_ = test.input.to(device), test_y_ = test.target.to(device);  // (N_test, T-1, 1) each

    set_training(std::make_shared<data::TensorDataset>(train.input, train.target), batch, seed,
                 c.at("lr").get<double>());
  }

  Tensor loss(const data::Batch& b) override { return mse_loss(model_->forward(b.input), b.target); }

  // Mean squared error over every test sequence and step, in chunks of 200 sequences.
  Json evaluate() override {
    const int64_t n = test_x_.size(0), chunk = 200;
    double sum_sq = 0;
    for (int64_t i = 0; i < n; i += chunk) {
      const int64_t e = std::min(n, i + chunk);
      Tensor err = mse_loss(model_->forward(slice(test_x_, 0, i, e)), slice(test_y_, 0, i, e));
      sum_sq += err.item<double>() * static_cast<double>(e - i);
    }
    return {{"test_mse", sum_sq / static_cast<double>(n)}};
  }
};

TaskSpec fru_synthetic_task() {
  return {kFruSyntheticTask,
          "FRU paper section 6.1: next-step regression on mix-sin / mix-poly with RNN, LSTM, SRU or FRU_{120,5}, "
          "Adam with staircase lr decay (target=sequence: the released code's whole-sequence regression)",
          {{"seed", 0},
           {"data", "mix-sin"},
           {"degree", 15},
           {"sines", 15},
           {"size", 4000},
           {"length", 176},
           {"model", "fru"},
           {"units", 200},
           {"fru_freqs", 120},
           {"fru_dims", 5},
           {"r_size", 60},
           {"f_max", 0.0},
           {"sru_phi", 200},
           {"sru_decays", {0.0, 0.25, 0.5, 0.9, 0.99}},
           {"lr", 1e-3},
           {"batch_size", 32},
           {"target", "next"},
           {"trainer",
            {{"epochs", 100},
             {"log_every", 50},
             {"eval_every", 1000},
             {"lr_schedule", "staircase"},
             {"lr_decay", 0.9},
             {"lr_decay_every", 1000}}}},
          [](const Json& config, Device device) { return std::make_unique<FruSynthetic>(config, device); }};
}

const TaskRegistration fru_synthetic_registration{with_smoke(fru_synthetic_task(), {{"model", "fru"}, {"size", 40}, {"length", 24}, {"units", 8}, {"fru_freqs", 6}, {"fru_dims", 4}, {"r_size", 8}, {"sru_phi", 12}, {"batch_size", 4}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}}}})};

}  // namespace

std::shared_ptr<nn::UnaryModule> make_fru_synthetic_model(const Json& config, Generator* gen) {
  return std::make_shared<FruSyntheticModel>(config, gen);
}

int64_t fru_synthetic_parameter_count(const Json& config) {
  Generator gen(0);
  return make_fru_synthetic_model(config, &gen)->num_parameters();
}

}  // namespace hm::train
