// Parameter initialisers (torch.nn.init): each fills a tensor in place under NoGradGuard,
// draws from `gen` (the default generator when null) and returns the same handle.
// Fans follow PyTorch: for a weight (out, in, k...) fan_in = in * prod(k), fan_out = out * prod(k).
#pragma once
#include <string>
#include <utility>

#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"

namespace hm::nn {
namespace init {

enum class FanMode { FanIn, FanOut };

// (fan_in, fan_out) of a weight with at least two dims; throws naming `fn` otherwise.
std::pair<int64_t, int64_t> fan_in_and_fan_out(const Shape& shape, const char* fn = "fan_in_and_fan_out");
// torch.nn.init.calculate_gain: linear/identity/conv*/sigmoid 1, tanh 5/3, relu sqrt(2),
// leaky_relu sqrt(2 / (1 + param^2)), selu 3/4.
double calculate_gain(const std::string& nonlinearity, double param = 0.01);

Tensor uniform_(Tensor t, double lo = 0.0, double hi = 1.0, Generator* gen = nullptr);
Tensor normal_(Tensor t, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
// Normal(mean, std) restricted to [a, b] (absolute bounds, like PyTorch), by inverse CDF.
Tensor trunc_normal_(Tensor t, double mean = 0.0, double std = 1.0, double a = -2.0, double b = 2.0,
                     Generator* gen = nullptr);
Tensor constant_(Tensor t, double value);
Tensor zeros_(Tensor t);
Tensor ones_(Tensor t);

// U(-bound, bound), bound = gain * sqrt(3 / fan); gain from `nonlinearity` with param a.
// nn.Linear's default is kaiming_uniform_(w, sqrt(5)), i.e. bound = 1 / sqrt(fan_in).
Tensor kaiming_uniform_(Tensor t, double a = 0.0, Generator* gen = nullptr, FanMode mode = FanMode::FanIn,
                        const std::string& nonlinearity = "leaky_relu");
// N(0, std), std = gain / sqrt(fan).
Tensor kaiming_normal_(Tensor t, double a = 0.0, Generator* gen = nullptr, FanMode mode = FanMode::FanIn,
                       const std::string& nonlinearity = "leaky_relu");
// U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out)).
Tensor xavier_uniform_(Tensor t, double gain = 1.0, Generator* gen = nullptr);
// N(0, std), std = gain * sqrt(2 / (fan_in + fan_out)).
Tensor xavier_normal_(Tensor t, double gain = 1.0, Generator* gen = nullptr);

}  // namespace init

// The initialisers are also reachable as nn::kaiming_uniform_(...) etc.
using init::constant_;
using init::FanMode;
using init::kaiming_normal_;
using init::kaiming_uniform_;
using init::normal_;
using init::ones_;
using init::trunc_normal_;
using init::uniform_;
using init::xavier_normal_;
using init::xavier_uniform_;
using init::zeros_;

}  // namespace hm::nn
