// Tests of the Decision Transformer (models/decision_transformer.h): the parameter count
// formula, causality over the interleaved (R, s, a) tokens, the Fourier head's pmf, bad
// inputs named, and that a few Adam steps fit a small batch of actions with either head.
#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/models/decision_transformer.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/adam.h"
#include "tests/helpers.h"

using namespace hm;
using hm::models::DecisionTransformer;
using hm::models::DecisionTransformerConfig;
using namespace hm::test;

namespace {

DecisionTransformerConfig small(const std::string& head) {
  DecisionTransformerConfig c;
  c.state_dim = 5, c.num_actions = 18, c.context_length = 4, c.max_timestep = 20;
  c.n_layer = 2, c.n_head = 2, c.n_embd = 16, c.dropout = 0.0, c.head = head, c.fourier_frequencies = 3;
  return c;
}

struct Batch {
  Tensor rtgs, states, actions, timesteps;
};

Batch random_batch(const DecisionTransformerConfig& c, int64_t B, int64_t T, uint64_t seed) {
  Generator gen(seed);
  return {randn({B, T, 1}, {}, &gen), randn({B, T, c.state_dim}, {}, &gen), randint(0, c.num_actions, {B, T}, &gen),
          randint(0, c.max_timestep - T + 1, {B}, &gen)};
}

Tensor scores(DecisionTransformer& dt, const Batch& b) { return dt.forward(b.rtgs, b.states, b.actions, b.timesteps); }

}  // namespace

TEST_CASE("decision transformer: parameter count matches the minGPT layout") {
  for (const std::string head : {"linear", "fourier"}) {
    DecisionTransformerConfig c = small(head);
    Generator gen(1);
    DecisionTransformer dt(c, &gen);
    const int64_t E = c.n_embd, S = c.state_dim, A = c.num_actions, K = c.context_length, N = c.fourier_frequencies;
    const int64_t trunk = 2 * E + (S * E + E) + A * E + (c.max_timestep + 1) * E + 3 * K * E +
                          c.n_layer * (12 * E * E + 13 * E) + 2 * E;
    const int64_t head_params = head == "linear" ? E * A : E * 2 * (N + 1) + 2 * (N + 1);
    CHECK(dt.num_parameters() == trunk + head_params);
  }
  // The paper's size (6 layers, 8 heads, d 128, K 30): the transformer blocks hold 1.19M of the
  // original's ~2.0M parameters; the rest there is the convnet state encoder.
  DecisionTransformerConfig paper;
  paper.state_dim = 5;
  Generator gen(1);
  DecisionTransformer dt(paper, &gen);
  CHECK(dt.transformer->num_parameters() == 6 * (12 * 128 * 128 + 13 * 128) + 2 * 128);
}

TEST_CASE("decision transformer: an action score sees returns and states up to t and actions before t") {
  NoGradGuard no_grad;
  for (const std::string head : {"linear", "fourier"}) {
    DecisionTransformerConfig c = small(head);
    Generator gen(2);
    DecisionTransformer dt(c, &gen);
    dt.eval();
    Batch b = random_batch(c, 2, 4, 3);
    Tensor base = scores(dt, b);  // (2, 4, 18)
    CHECK(base.shape() == Shape{2, 4, 18});

    // Change a_2: scores at t <= 2 unchanged, t = 3 changed.
    Batch later = b;
    later.actions = b.actions.clone();
    int64_t* a = later.actions.data<int64_t>();
    a[0 * 4 + 2] = (a[0 * 4 + 2] + 5) % 18;  // row 0, t = 2
    Tensor moved = select(scores(dt, later), 0, 0), base0 = select(base, 0, 0);  // row 0: (4, 18)
    CHECK(allclose(narrow(moved, 0, 0, 3), narrow(base0, 0, 0, 3), 0, 0));
    CHECK_FALSE(allclose(narrow(moved, 0, 3, 1), narrow(base0, 0, 3, 1)));

    // Change s_1 (state of row 1): scores from t = 1 on change, t = 0 does not.
    Batch state = b;
    state.states = b.states.clone();
    state.states.data<float>()[(1 * 4 + 1) * 5 + 0] = 3.0f;  // row 1, t = 1, feature 0
    Tensor st = select(scores(dt, state), 0, 1), base1 = select(base, 0, 1);  // row 1: (4, 18)
    CHECK(allclose(narrow(st, 0, 0, 1), narrow(base1, 0, 0, 1), 0, 0));
    CHECK_FALSE(allclose(narrow(st, 0, 1, 3), narrow(base1, 0, 1, 3)));
    CHECK(allclose(select(scores(dt, state), 0, 0), select(base, 0, 0), 0, 0));  // row 0 untouched

    // Change the return-to-go at t = 3 only: earlier scores unchanged, t = 3 changed.
    Batch rtg = b;
    rtg.rtgs = b.rtgs.clone();
    rtg.rtgs.data<float>()[0 * 4 + 3] = 10.0f;  // row 0, t = 3
    Tensor rt = select(scores(dt, rtg), 0, 0);
    CHECK(allclose(narrow(rt, 0, 0, 3), narrow(base0, 0, 0, 3), 0, 0));
    CHECK_FALSE(allclose(narrow(rt, 0, 3, 1), narrow(base0, 0, 3, 1)));

    // A shorter window (the first steps of an episode) gives the same scores as the longer one's prefix.
    Batch prefix{narrow(b.rtgs, 1, 0, 2), narrow(b.states, 1, 0, 2), narrow(b.actions, 1, 0, 2), b.timesteps};
    CHECK(allclose(scores(dt, prefix), narrow(base, 1, 0, 2), 1e-5, 1e-6));

    Tensor p = DecisionTransformer::probabilities(base);
    CHECK(allclose(sum(p, {-1}), ones({2, 4}), 1e-5, 1e-6));
  }
}

TEST_CASE("decision transformer: masked padding at a window's start is invisible to the real steps") {
  NoGradGuard no_grad;
  DecisionTransformerConfig c = small("linear");
  Generator gen(10);
  DecisionTransformer dt(c, &gen);
  dt.eval();
  Batch b = random_batch(c, 1, 4, 11);
  Tensor mask = from_vector(std::vector<float>{0, 0, 1, 1}, {1, 4});  // two padded steps, then two real
  Tensor base = narrow(dt.forward(b.rtgs, b.states, b.actions, b.timesteps, mask), 1, 2, 2);
  Batch other = random_batch(c, 1, 4, 12);  // different padding contents, same real steps
  for (Tensor* t : {&other.rtgs, &other.states}) narrow(*t, 1, 2, 2).copy_(narrow(t == &other.rtgs ? b.rtgs : b.states, 1, 2, 2));
  narrow(other.actions, 1, 2, 2).copy_(narrow(b.actions, 1, 2, 2));
  Tensor moved = narrow(dt.forward(other.rtgs, other.states, other.actions, b.timesteps, mask), 1, 2, 2);
  CHECK(allclose(moved, base, 1e-5, 1e-6));
  // Without the mask the padding's contents leak into the real steps.
  CHECK_FALSE(allclose(narrow(dt.forward(other.rtgs, other.states, other.actions, b.timesteps), 1, 2, 2),
                       narrow(dt.forward(b.rtgs, b.states, b.actions, b.timesteps), 1, 2, 2)));
  CHECK(throws_with([&] { dt.forward(b.rtgs, b.states, b.actions, b.timesteps, ones({1, 3})); }, {"mask must be (1, 4)"}));
}

TEST_CASE("decision transformer: the Fourier head's probabilities are its pmf") {
  NoGradGuard no_grad;
  DecisionTransformerConfig c = small("fourier");
  Generator gen(4);
  DecisionTransformer dt(c, &gen);
  dt.eval();
  Batch b = random_batch(c, 1, 3, 5);
  Tensor log_pmf = scores(dt, b);
  // forward returns log(pmf + 1e-5) with pmf summing to 1: exp sums to 1 + 18e-5.
  CHECK(allclose(sum(exp(log_pmf), {-1}), full({1, 3}, 1.0 + 18e-5), 1e-5, 1e-7));
}

TEST_CASE("decision transformer: the Fourier head's init, its own or the released code's trunk init") {
  auto head_weight = [](bool trunk) {
    DecisionTransformerConfig c = small("fourier");
    c.n_embd = 64, c.fourier_frequencies = 16;  // 34 x 64 weights: a sample std within ~5% of the truth
    c.head_trunk_init = trunk;
    Generator gen(6);
    DecisionTransformer dt(c, &gen);
    return std::pair{dt.fourier->linear->weight.to(DType::Float64), dt.fourier->linear->bias.to(DType::Float64)};
  };
  auto std_of = [](const Tensor& t) { return std::sqrt(mean(mul(t, t)).item<double>()); };
  const auto [own_w, own_b] = head_weight(false);
  const auto [trunk_w, trunk_b] = head_weight(true);
  CHECK(std::abs(std_of(trunk_w) - 0.02) < 0.002);  // N(0, 0.02), as minGPT's _init_weights
  CHECK(amax(abs(trunk_b)).item<double>() == 0.0);  // zero bias
  CHECK(std_of(own_w) < 0.01);                      // the head's own init is scaled down further
  CHECK(amax(abs(own_b)).item<double>() > 0.0);
}

TEST_CASE("decision transformer: bad inputs are named") {
  DecisionTransformerConfig c = small("linear");
  Generator gen(6);
  DecisionTransformer dt(c, &gen);
  Batch b = random_batch(c, 2, 4, 7);
  CHECK(throws_with([&] { dt.forward(b.rtgs, randn({2, 4, 6}), b.actions, b.timesteps); },
                    {"DecisionTransformer::forward", "states", "(B, T, 5)"}));
  CHECK(throws_with([&] { dt.forward(randn({2, 5, 1}), randn({2, 5, 5}), randint(0, 18, {2, 5}), b.timesteps); },
                    {"window of 5 timesteps", "[1, 4]"}));
  CHECK(throws_with([&] { dt.forward(b.rtgs, b.states, b.actions.to(DType::Float32), b.timesteps); },
                    {"actions must be int64"}));
  c.head = "softmax";
  CHECK(throws_with([&] { DecisionTransformer bad(c); }, {"head 'softmax'"}));
}

TEST_CASE("decision transformer: Adam fits a small batch of actions with either head") {
  for (const std::string head : {"linear", "fourier"}) {
    DecisionTransformerConfig c = small(head);
    c.fourier_frequencies = 9;
    Generator gen(8);
    DecisionTransformer dt(c, &gen);
    Batch b = random_batch(c, 4, 4, 9);
    optim::AdamW opt(dt.parameters(), {.lr = 3e-3, .weight_decay = 0.0});
    double first = 0, last = 0;
    for (int step = 0; step < 150; ++step) {
      Tensor loss = dt.loss(scores(dt, b), b.actions);
      if (step == 0) first = loss.item<double>();
      last = loss.item<double>();
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    INFO(head << ": loss " << first << " -> " << last);
    CHECK(first > 2.5);  // ~ log 18 = 2.89 at init
    CHECK(last < 0.5 * first);
  }
}
