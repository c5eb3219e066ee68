// The fused RNN/LSTM/GRU recurrences (ops/rnn_recurrence.h): float64 gradcheck w.r.t. every
// input, fused == composed (outputs and gradients, float32 and float64, batch 1, T 1, without
// biases or initial states), errors that name the function and the shapes, and nn::LSTM/GRU/RNN
// fused == composed with several layers, batch_first and dropout.
#include "harmonic/autograd/gradcheck.h"
#include "harmonic/nn/recurrent.h"
#include "harmonic/ops/rnn_recurrence.h"
#include "harmonic/ops/rnn_recurrence_kernels.h"
#include "harmonic/ops/shape_copies.h"
#include "harmonic/ops/shape_ops.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

using namespace hm;
using hm::test::allclose;
using hm::test::leaf64;
using hm::test::throws_with;

namespace {

enum class Cell { Tanh, LSTM, GRU };
constexpr Cell kCells[] = {Cell::Tanh, Cell::LSTM, Cell::GRU};

int64_t gates(Cell c) { return c == Cell::Tanh ? 1 : c == Cell::LSTM ? 4 : 3; }
const char* fn_name(Cell c) {
  return c == Cell::Tanh ? "rnn_tanh_recurrence" : c == Cell::LSTM ? "lstm_recurrence" : "gru_recurrence";
}

// in: xw, w_hh, b_hh, h0, c0 (any may be undefined but xw and w_hh).
RecurrenceOutput call(Cell cell, bool fused, const std::vector<Tensor>& in) {
  switch (cell) {
    case Cell::Tanh:
      return fused ? rnn_tanh_recurrence(in[0], in[1], in[2], in[3])
                   : detail::rnn_tanh_recurrence_composed(in[0], in[1], in[2], in[3]);
    case Cell::LSTM:
      return fused ? lstm_recurrence(in[0], in[1], in[2], in[3], in[4])
                   : detail::lstm_recurrence_composed(in[0], in[1], in[2], in[3], in[4]);
    case Cell::GRU:
      return fused ? gru_recurrence(in[0], in[1], in[2], in[3])
                   : detail::gru_recurrence_composed(in[0], in[1], in[2], in[3]);
  }
  return {};
}

// One tensor holding every result: output (T, B, H), then h_n and (LSTM) c_n as extra rows.
Tensor flat(const RecurrenceOutput& r) {
  std::vector<Tensor> parts{r.output, unsqueeze(r.h_n, 0)};
  if (r.c_n.defined()) parts.push_back(unsqueeze(r.c_n, 0));
  return cat(parts, 0);
}

struct Problem {
  int64_t T, B, H;
  bool bias = true, h0 = true;
};

// Float64 leaves of a problem: xw, w_hh, b_hh, h0, c0 (c0 for LSTM only).
std::vector<Tensor> inputs(Cell cell, const Problem& p, uint64_t seed) {
  const int64_t GH = gates(cell) * p.H;
  return {leaf64({p.T, p.B, GH}, seed, 0.8), leaf64({GH, p.H}, seed + 1, 0.5),
          p.bias ? leaf64({GH}, seed + 2, 0.3) : Tensor(), p.h0 ? leaf64({p.B, p.H}, seed + 3, 0.5) : Tensor(),
          p.h0 && cell == Cell::LSTM ? leaf64({p.B, p.H}, seed + 4, 0.5) : Tensor()};
}

std::vector<Tensor> defined_of(const std::vector<Tensor>& v) {
  std::vector<Tensor> out;
  for (const Tensor& t : v)
    if (t.defined()) out.push_back(t);
  return out;
}

// Runs fused and composed on copies of `in` (converted to dtype), loss = sum(flat * weights),
// and compares the results and every input gradient.
void check_fused_equals_composed(Cell cell, const std::vector<Tensor>& in, DType dtype, double rtol, double atol) {
  auto copy = [&] {
    std::vector<Tensor> v;
    for (const Tensor& t : in) v.push_back(t.defined() ? t.detach().to(dtype).requires_grad_(true) : Tensor());
    return v;
  };
  std::vector<Tensor> a = copy(), b = copy();
  Tensor ya = flat(call(cell, true, a)), yb = flat(call(cell, false, b));
  CHECK(ya.dtype() == dtype);
  CHECK(allclose(ya, yb, rtol, atol));
  Tensor w = leaf64(ya.shape(), 77).detach().to(dtype);
  sum(ya * w).backward();
  sum(yb * w).backward();
  for (size_t k = 0; k < in.size(); ++k) {
    if (!in[k].defined()) continue;
    INFO("input ", k);
    REQUIRE(a[k].grad().defined());
    CHECK(allclose(a[k].grad(), b[k].grad(), rtol, atol));
  }
}

}  // namespace

TEST_CASE("rnn recurrences: float64 gradcheck w.r.t. xw, w_hh, b_hh, h0 and c0") {
  for (Cell cell : kCells)
    for (Problem p : {Problem{3, 2, 3}, Problem{1, 2, 3}, Problem{4, 1, 2}, Problem{3, 2, 2, false, true},
                      Problem{2, 3, 2, true, false}}) {
      INFO(fn_name(cell), " T=", p.T, " B=", p.B, " H=", p.H, " bias=", p.bias, " h0=", p.h0);
      std::vector<Tensor> in = inputs(cell, p, 11);
      std::vector<size_t> slots;
      for (size_t k = 0; k < in.size(); ++k)
        if (in[k].defined()) slots.push_back(k);
      CHECK(gradcheck(
          [&](const std::vector<Tensor>& v) {
            std::vector<Tensor> full(in.size());
            for (size_t i = 0; i < slots.size(); ++i) full[slots[i]] = v[i];
            return flat(call(cell, true, full));
          },
          defined_of(in)));
    }
}

TEST_CASE("rnn recurrences: fused == composed, float64 and float32, batch 1, T 1, no bias, zero states") {
  for (Cell cell : kCells)
    for (Problem p :
         {Problem{5, 3, 4}, Problem{1, 1, 3}, Problem{6, 1, 5, false, false}, Problem{2, 4, 3, true, false}}) {
      INFO(fn_name(cell), " T=", p.T, " B=", p.B, " H=", p.H, " bias=", p.bias, " h0=", p.h0);
      std::vector<Tensor> in = inputs(cell, p, 21);
      check_fused_equals_composed(cell, in, DType::Float64, 1e-10, 1e-12);
      check_fused_equals_composed(cell, in, DType::Float32, 1e-4, 1e-5);
    }
}

TEST_CASE("rnn recurrences: non-contiguous inputs and results without grad") {
  for (Cell cell : kCells) {
    INFO(fn_name(cell));
    const int64_t H = 3, GH = gates(cell) * H;
    Tensor xw_bt = leaf64({2, 4, GH}, 31).detach();  // (B, T, G*H): a batch_first projection
    Tensor w = leaf64({H, GH}, 32, 0.5).detach();    // transposed below: (G*H, H), not contiguous
    std::vector<Tensor> in{transpose(xw_bt, 0, 1), transpose(w, 0, 1), {}, {}, {}};
    Tensor fused = flat(call(cell, true, in)), composed = flat(call(cell, false, in));
    CHECK(!fused.requires_grad());
    CHECK(allclose(fused, composed, 1e-10, 1e-12));
  }
}

TEST_CASE("rnn recurrences: bad shapes and dtypes raise an hm::Error naming the function and the shapes") {
  for (Cell cell : kCells) {
    INFO(fn_name(cell));
    const std::string fn = fn_name(cell);
    const int64_t H = 3, GH = gates(cell) * H;
    Tensor xw = zeros({4, 2, GH}, {.dtype = DType::Float64}), w = zeros({GH, H}, {.dtype = DType::Float64});
    auto run = [&](std::vector<Tensor> in) {
      in.resize(5);
      return [=] { call(cell, true, in); };
    };
    CHECK(throws_with(run({zeros({4, GH}, {.dtype = DType::Float64}), w}), {fn, "(4, " + std::to_string(GH) + ")"}));
    CHECK(throws_with(run({xw, zeros({GH, H + 1}, {.dtype = DType::Float64})}), {fn, "w_hh", "(4, 2, "}));
    CHECK(throws_with(run({xw, zeros({GH + 1, H}, {.dtype = DType::Float64})}), {fn, "w_hh"}));
    CHECK(throws_with(run({xw, w, zeros({GH + 1}, {.dtype = DType::Float64})}), {fn, "b_hh", std::to_string(GH + 1)}));
    CHECK(throws_with(run({xw, w, {}, zeros({3, H}, {.dtype = DType::Float64})}), {fn, "h0", "(3, 3)"}));
    CHECK_NOTHROW(run({xw, w})());  // valid: no bias, zero states
    CHECK(throws_with(run({xw.to(DType::Float32), w}), {fn, "float32", "float64"}));
    CHECK(throws_with(run({zeros({4, 2, GH}, {.dtype = DType::Int64}), zeros({GH, H}, {.dtype = DType::Int64})}),
                      {fn, "int64"}));
    CHECK(throws_with(run({zeros({0, 2, GH}, {.dtype = DType::Float64}), w}), {fn, "(0, 2, "}));
    CHECK(throws_with(run({Tensor(), w}), {fn, "defined"}));
    if (cell == Cell::LSTM)
      CHECK(throws_with(run({xw, w, {}, {}, zeros({2, H, 1}, {.dtype = DType::Float64})}), {fn, "c0", "(2, 3, 1)"}));
  }
}

TEST_CASE("nn LSTM/GRU/RNN: fused == composed with 2 layers, batch_first, dropout and initial states") {
  using nn::RecurrentKind;
  for (RecurrentKind kind : {RecurrentKind::LSTM, RecurrentKind::GRU, RecurrentKind::RNN})
    for (bool batch_first : {false, true}) {
      INFO("kind ", static_cast<int>(kind), " batch_first ", batch_first);
      const bool lstm = kind == RecurrentKind::LSTM;
      // One seed each: the same init, then the same dropout masks (the generator is shared).
      Generator ga(5), gb(5);
      nn::RecurrentOptions opt{.num_layers = 2, .batch_first = batch_first, .dropout = 0.3};
      nn::Recurrent a(kind, 3, 4, opt, &ga);
      opt.fused = false;
      nn::Recurrent b(kind, 3, 4, opt, &gb);
      a.to(DType::Float64);
      b.to(DType::Float64);
      const Shape xs = batch_first ? Shape{2, 5, 3} : Shape{5, 2, 3};
      Tensor x[2], h0[2], c0[2];
      nn::RecurrentOutput o[2];
      nn::Recurrent* mods[2] = {&a, &b};
      for (int m = 0; m < 2; ++m) {
        x[m] = leaf64(xs, 41), h0[m] = leaf64({2, 2, 4}, 42, 0.5), c0[m] = leaf64({2, 2, 4}, 43, 0.5);
        o[m] = mods[m]->run(x[m], h0[m], lstm ? c0[m] : Tensor());
      }
      CHECK(allclose(o[0].output, o[1].output, 1e-10, 1e-12));
      CHECK(allclose(o[0].h_n, o[1].h_n, 1e-10, 1e-12));
      if (lstm) CHECK(allclose(o[0].c_n, o[1].c_n, 1e-10, 1e-12));
      Tensor w = leaf64(o[0].output.shape(), 44).detach(), v = leaf64({2, 2, 4}, 45).detach();
      for (int m = 0; m < 2; ++m) {
        Tensor loss = sum(o[m].output * w) + sum(o[m].h_n * v);
        if (lstm) loss = loss + sum(o[m].c_n * v * 0.5);
        loss.backward();
      }
      CHECK(allclose(x[0].grad(), x[1].grad(), 1e-9, 1e-12));
      CHECK(allclose(h0[0].grad(), h0[1].grad(), 1e-9, 1e-12));
      if (lstm) CHECK(allclose(c0[0].grad(), c0[1].grad(), 1e-9, 1e-12));
      auto pa = a.named_parameters(), pb = b.named_parameters();
      REQUIRE(pa.size() == pb.size());
      for (size_t k = 0; k < pa.size(); ++k) {
        INFO(pa[k].first);
        CHECK(allclose(pa[k].second.grad(), pb[k].second.grad(), 1e-9, 1e-12));
      }
    }
}

namespace cuda_cases {

using namespace hm::test;

TEST_CASE("[cuda] fused lstm, gru and tanh recurrences match the CPU (a GEMM and a gate kernel per step)") {
  announce_targets();
  const int64_t T = 4, B = 3, H = 5;
  for (DType dt : {DType::Float64, DType::Float32})
    for (RnnCell cell : {RnnCell::LSTM, RnnCell::GRU, RnnCell::Tanh})
      for (bool with_bias : {true, false}) {
        CAPTURE(static_cast<int>(cell));
        CAPTURE(with_bias);
        const int64_t G = rnn_gates(cell);
        std::vector<Tensor> inputs = {scaled_normal({T, B, G * H}, 31, 0.5, dt), scaled_normal({G * H, H}, 32, 0.4, dt),
                                      scaled_normal({G * H}, 33, 0.2, dt), scaled_normal({B, H}, 34, 0.5, dt),
                                      scaled_normal({B, H}, 35, 0.5, dt)};
        check_against_cpu(
            "rnn recurrence",
            [=](const std::vector<Tensor>& x) {
              const Tensor b = with_bias ? x[2] : Tensor();
              // every output: h_t for all t, and LSTM's c_n, so their gradients flow back too
              if (cell == RnnCell::LSTM) {
                const RecurrenceOutput r = lstm_recurrence(x[0], x[1], b, x[3], x[4]);
                return cat({r.output.reshape({-1}), r.c_n.reshape({-1})}, 0);
              }
              const RecurrenceOutput r =
                  cell == RnnCell::GRU ? gru_recurrence(x[0], x[1], b, x[3]) : rnn_tanh_recurrence(x[0], x[1], b, x[3]);
              return r.output;
            },
            inputs);
      }
}

}  // namespace cuda_cases
