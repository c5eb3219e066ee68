// The FRU paper's four recurrent layers for the classification tasks (see fru_cells.h).
#include "harmonic/tools/tasks/fru_cells.h"

#include "harmonic/core/factories.h"
#include "harmonic/ops/ops.h"

namespace hm::train {

PaperCellOptions paper_cell_options(const nlohmann::json& c, int64_t input_size, int64_t seq_len, double f_max) {
  PaperCellOptions o;
  o.model = c.at("model").get<std::string>();
  o.input_size = input_size;
  o.units = c.at("units").get<int64_t>();
  o.fru_freqs = c.at("fru_freqs").get<int64_t>();
  o.fru_dims = c.at("fru_dims").get<int64_t>();
  o.r_size = c.at("r_size").get<int64_t>();
  o.f_max = f_max;
  o.f_min = c.value("f_min", 0.25);
  o.seq_len = seq_len;
  o.sru_phi = c.at("sru_phi").get<int64_t>();
  o.sru_decays = c.at("sru_decays").get<std::vector<double>>();
  return o;
}

PaperCell::PaperCell(const PaperCellOptions& o, const std::string& task, Generator* gen)
    : nn::Module("PaperCell"), options(o) {
  const char* fn = task.c_str();
  check(o.units >= 1, fn, "units must be >= 1, got {}", o.units);
  check(o.input_size >= 1 && o.seq_len >= 1, fn, "input size and sequence length must be >= 1, got {} and {}",
        o.input_size, o.seq_len);
  if (o.model == "rnn") {
    rnn_ = register_module("rnn",
                           std::make_shared<nn::RNN>(o.input_size + 1, o.units,
                                                     nn::RecurrentOptions{.bias = false, .batch_first = true}, gen));
  } else if (o.model == "lstm") {
    lstm_ = register_module("lstm", std::make_shared<nn::SingleBiasLSTM>(o.input_size, o.units, gen));
  } else if (o.model == "sru") {
    check(!o.sru_decays.empty() && o.sru_phi >= 1 && o.r_size >= 1, fn,
          "sru_decays must be non-empty, sru_phi and r_size >= 1");
    nn::SRUOptions s;
    s.decays = o.sru_decays;
    s.phi_size = o.sru_phi;
    s.r_size = o.r_size;
    s.output_units = o.units;
    s.gen = gen;
    stat_ = register_module("sru", std::make_shared<nn::SRU>(o.input_size, s));
  } else if (o.model == "fru") {
    check(o.fru_freqs >= 1 && o.fru_dims >= 1 && o.r_size >= 1, fn, "fru_freqs, fru_dims and r_size must be >= 1");
    check(o.f_max > 0, fn, "f_max must be > 0, got {}", o.f_max);
    nn::FRUOptions f;
    f.num_freqs = o.fru_freqs;
    f.dims_per_freq = o.fru_dims;
    f.r_size = o.r_size;
    f.output_units = o.units;
    f.seq_len = o.seq_len;
    f.f_max = o.f_max;
    f.f_min = o.f_min;
    f.gen = gen;
    stat_ = register_module("fru", std::make_shared<nn::FRU>(o.input_size, f));
  } else {
    throw_error(fn, fmt::format("model '{}' is not one of rnn, lstm, sru, fru", o.model));
  }
}

Tensor PaperCell::forward_last(const Tensor& x) {
  if (rnn_) {
    Tensor one = ones({x.size(0), x.size(1), 1}, {.dtype = x.dtype(), .device = x.device()});
    return select(rnn_->forward(cat({x, one}, 2)).h_n, 0, 0);  // h_n (1, B, H) -> (B, H)
  }
  if (lstm_) return select(lstm_->forward(x).h_n, 0, 0);
  return stat_->forward_last(x).last;
}

Tensor PaperCell::forward_all(const Tensor& x, const Tensor& h0) {
  if (rnn_) {
    Tensor one = ones({x.size(0), x.size(1), 1}, {.dtype = x.dtype(), .device = x.device()});
    return rnn_->forward(cat({x, one}, 2), h0.defined() ? unsqueeze(h0, 0) : Tensor()).output;
  }
  if (lstm_) {
    nn::LSTMState s;
    if (h0.defined()) {
      const int64_t H = options.units;
      s = {unsqueeze(slice(h0, 1, 0, H), 0), unsqueeze(slice(h0, 1, H, 2 * H), 0)};  // (1, B, H) each
    }
    return lstm_->forward(x, s).output;
  }
  return stat_->forward(x, h0).output;
}

int64_t PaperCell::state_size() const {
  if (rnn_) return options.units;
  if (lstm_) return 2 * options.units;
  return stat_->state_size();
}

StepClassifierProbe::StepClassifierProbe(PaperCell* cell, nn::UnaryModule* head,
                                         std::function<Tensor(const Tensor&)> features)
    : cell_(cell), head_(head), features_(std::move(features)) {}

Tensor StepClassifierProbe::initial_state(const data::Batch& b) {
  return zeros({b.input.size(0), cell_->state_size()},
               {.dtype = cell_->parameters().front().dtype(), .device = b.input.device()});
}

std::vector<Tensor> StepClassifierProbe::step_losses(const data::Batch& b, const Tensor& h0) {
  Tensor o = cell_->forward_all(features_(b.input), h0);                  // (B, T, units)
  Tensor logits = head_->forward(o);                                      // (B, T, classes)
  std::vector<Tensor> out;
  for (int64_t t = 0; t < logits.size(1); ++t) out.push_back(cross_entropy(select(logits, 1, t), b.target));
  return out;
}

}  // namespace hm::train
