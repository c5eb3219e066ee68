// GPT and T5 models: HF T5 relative buckets and logits, parameter counts, KV-cache generation
// equal to full recomputation, and a tiny GPT that overfits under plain SGD.
#include <cmath>

#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/models/gpt.h"
#include "harmonic/models/sampling.h"
#include "harmonic/models/t5.h"
#include "tests/helpers.h"
#include "tests/seq_inputs.h"

using namespace hm;
using namespace hm::test;

namespace {

// Parameter i of named_parameters() gets 0.5 seq(shape, 0.1 + 0.07 i, 0.3 i) (the snippet's P).
void set_fixed(nn::Module& m) {
  NoGradGuard no_grad;
  int64_t i = 0;
  for (auto& [name, t] : m.named_parameters()) {
    t.copy_(mul(seq(t.shape(), 0.1 + 0.07 * static_cast<double>(i), 0.3 * static_cast<double>(i)), 0.5));
    ++i;
  }
}

models::T5Config tiny_t5(bool gated) {
  models::T5Config c;
  c.vocab_size = 11, c.d_model = 8, c.d_kv = 3, c.num_heads = 2, c.d_ff = 10;
  c.num_layers = 2, c.num_decoder_layers = 2;
  c.relative_attention_num_buckets = 8, c.relative_attention_max_distance = 12;
  c.dropout_rate = 0.0;
  if (gated) c.feed_forward = nn::FFActivation::GatedGELU, c.tie_word_embeddings = false;
  return c;
}

// HF's _relative_position_bucket(torch.arange(-200, 201), True, 32, 128) and
// (-torch.arange(0, 201), False, 32, 128), evaluated with torch 1.13 (code in the T5 snippet below).
const std::vector<int64_t> kBucketsBi = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 14, 14, 14, 14, 14,
    14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 13, 13, 13, 13, 13, 13, 13, 13,
    13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 11, 11, 11, 11, 11,
    11, 11, 11, 11, 10, 10, 10, 10, 10, 10, 10, 9,  9,  9,  9,  8,  8,  8,  8,  7,  6,  5,  4,  3,  2,  1,  0,  17, 18,
    19, 20, 21, 22, 23, 24, 24, 24, 24, 25, 25, 25, 25, 26, 26, 26, 26, 26, 26, 26, 27, 27, 27, 27, 27, 27, 27, 27, 27,
    28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29,
    29, 29, 29, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
    30, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31};
const std::vector<int64_t> kBucketsUni = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 16, 16, 17, 17, 18, 18, 18, 19, 19, 19, 20, 20,
    20, 20, 21, 21, 21, 21, 22, 22, 22, 22, 22, 23, 23, 23, 23, 23, 23, 24, 24, 24, 24, 24, 24, 25, 25, 25, 25, 25, 25,
    25, 26, 26, 26, 26, 26, 26, 26, 26, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
    29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31};

// A float64 re-implementation of Hugging Face's modeling_t5 forward in plain torch 1.13
// (RMS norm, unscaled attention + relative bias + (1 - mask) * finfo.min, ReLU or gated
// gelu_new feed-forward, tied head * d_model^-0.5), with every parameter set to P as in
// set_fixed(); vocab 11, d_model 8, d_kv 3, 2 heads, d_ff 10, 2 + 2 layers, 8 buckets,
// max_distance 12; input_ids [[3,7,1,9,0],[2,4,6,8,10]], attention_mask [[1,1,1,1,0],[1]*5],
// decoder_input_ids [[0,5,2,7],[0,1,3,3]] -> logits (2, 4, 11), flattened.
const std::vector<double> kT5ReluTied = {
    -0.19899996281358,   -0.25582025197245,   -0.157463409058598,  0.0364086248368461,  0.208195675462467,
    0.253694023066685,   0.145304980521201,   -0.0512241134053248, -0.216681347500901,  -0.2507025837832,
    -0.132650996843949,  0.0393826409366086,  0.121520786496532,   0.129946053617947,   0.0595477883210892,
    -0.046971366317772,  -0.12499832044268,   -0.127202970701312,  -0.0522480058303098, 0.0543998982773382,
    0.12804955406556,    0.124026068615438,   -0.0824470079641676, -0.077866428823893,  -0.0260531188248519,
    0.0415636634545065,  0.0839684852124564,  0.0754391505879667,  0.0211494395117188,  -0.0459692377744738,
    -0.0852035922738208, -0.0727545910208288, -0.01617363112622,   0.158153057171795,   0.435002972449102,
    0.447985921810704,   0.189226622388083,   -0.184315007000945,  -0.446053626409939,  -0.437222101495932,
    -0.163177516764227,  0.209848360007438,   0.455583037489591,   0.42496715776008,    -0.200072233395723,
    -0.245911243348892,  -0.14258379289443,   0.04723307304146,    0.20839899067657,    0.243152877009627,
    0.130413490942777,   -0.0614329687511904, -0.216015013950915,  -0.239565250327458,  -0.117798420508231,
    -0.17071846056337,   -0.219399982678651,  -0.134996419362366,  0.0312941604634428,  0.178602122478901,
    0.217572433605946,   0.124566226045606,   -0.0440001827178879, -0.185876671069713,  -0.215002864972882,
    -0.113711206041227,  -0.166506061704251,  -0.163368205374621,  -0.061133387852757,  0.0781841224103444,
    0.170076193148171,   0.158802327322766,   0.0512011006632604,  -0.0874580266066598, -0.173066288509506,
    -0.15369486212611,   -0.0410941947613912, -0.163424445509138,  -0.154900091340521,  -0.0524154203217212,
    0.0818637413177309,  0.166485455978369,   0.150119327059973,   0.04269282875236,    -0.0906305665944152,
    -0.168978676388888,  -0.144826588559069,  -0.0328246354930408};
const std::vector<double> kT5GatedUntied = {
    0.206949570106555,   0.0882792266194837,   -0.289282934490562,  0.181519662287296,    0.119989148508719,
    -0.293427193250128,  0.153674871297128,    0.150102770736672,   -0.293667784594627,   0.123785635888066,
    0.178219470700723,   -0.17486764304553,    -0.443541212236889,  0.588535066796662,    -0.105354308973322,
    -0.490276676433606,  0.562609427709027,    -0.0344393727577674, -0.530489646702744,   0.529199001454832,
    0.0369337345486844,  -0.563645141742925,   0.34578297443978,    0.600245230437849,    -0.905599945768964,
    0.244359929533927,   0.677698366999055,    -0.876413343788294,  0.139685993380041,    0.74613560764688,
    -0.835567201414036,  0.0331537166454709,   0.804646483847938,   0.0554031131100523,   -0.0644042992229075,
    0.00466336955944967, 0.0600550211435867,   -0.0606735106565918, -0.00346804759794524, 0.0639079751791849,
    -0.0561355398932785, -0.0115533268897519,  0.066910716671414,   -0.0508507587355972,  0.244303978444749,
    -0.0391701834269496, -0.207772020603971,   0.232948155167959,   -0.00948639993810742, -0.224100691809859,
    0.218493259468266,   0.0203235877716622,   -0.237447994593068,  0.201131594944772,    0.0498631965623477,
    0.317967793143408,   0.209375348906687,    -0.513241104370608,  0.269297476866229,    0.262081594488507,
    -0.513727115000382,  0.217044507687113,    0.311301185104361,   -0.507378654097882,   0.161904043443591,
    0.356379318075807,   0.0818194613563104,   -0.027890171856046,  -0.0558077735551216,  0.0799391298218809,
    -0.0187472237664403, -0.0624545860095052,  0.0769953120685382,  -0.00935486823191352, -0.0682705213743247,
    0.0730271717651973,  0.000161941665163164, 0.0566541647533473,  -0.00934875563888814, -0.0479350749512656,
    0.054055264110566,   -0.00247941016959237, -0.0517428494149724, 0.0507372284388017,   0.00442292062931544,
    -0.0548622525215911, 0.0467441998899719,   0.0112664102180847};

Tensor ids(const std::vector<int64_t>& v, const Shape& s) { return from_vector(v, s); }

}  // namespace

TEST_CASE("T5 relative position buckets equal Hugging Face's") {
  for (int64_t r = -200; r <= 200; ++r)
    CHECK(models::t5_relative_position_bucket(r, true, 32, 128) == kBucketsBi[static_cast<size_t>(r + 200)]);
  for (int64_t n = 0; n <= 200; ++n) {
    CHECK(models::t5_relative_position_bucket(-n, false, 32, 128) == kBucketsUni[static_cast<size_t>(n)]);
    CHECK(models::t5_relative_position_bucket(n, false, 32, 128) == 0);  // the future is one bucket
  }
}

TEST_CASE("T5 logits match a float64 Hugging Face re-implementation") {
  for (bool gated : {false, true}) {
    models::T5 t5(tiny_t5(gated));
    t5.to(DType::Float64);
    set_fixed(t5);
    t5.eval();
    Tensor in = ids({3, 7, 1, 9, 0, 2, 4, 6, 8, 10}, {2, 5}), mask = ids({1, 1, 1, 1, 0, 1, 1, 1, 1, 1}, {2, 5});
    Tensor dec = ids({0, 5, 2, 7, 0, 1, 3, 3}, {2, 4});
    Tensor logits = t5.forward(in, mask, dec);
    CHECK(logits.shape() == Shape{2, 4, 11});
    CHECK(allclose(logits, gated ? kT5GatedUntied : kT5ReluTied, 1e-9, 1e-11));
  }
}

TEST_CASE("T5 parameter counts (t5-efficient-mini sizing, vocab 4096 + 2)") {
  // shared 4098*384; encoder layer: q,k,v (384 -> 8*32) and o, ReLU ff 2*384*1536, 2 RMSNorms;
  // decoder layer adds cross-attention and a third norm; final norms; two (32, 8) bias tables.
  const int64_t V = 4098, E = 384, inner = 8 * 32, F = 1536;
  const int64_t attn = 4 * E * inner, ff = 2 * E * F;
  const int64_t expected = V * E + 4 * (attn + ff + 2 * E) + 4 * (2 * attn + ff + 3 * E) + 2 * E + 2 * 32 * 8;
  CHECK(expected == 15738368);
  models::T5Config c = models::T5Config::efficient_mini(V);
  c.d_model = 8, c.d_ff = 12, c.d_kv = 2;  // the full-size model takes a while to initialise
  models::T5 small(c);
  const int64_t e = 8, i2 = 16, f = 12;
  CHECK(small.num_parameters() ==
        V * e + 4 * (4 * e * i2 + 2 * e * f + 2 * e) + 4 * (8 * e * i2 + 2 * e * f + 3 * e) + 2 * e + 2 * 32 * 8);
  c.tie_word_embeddings = false;
  CHECK(models::T5(c).num_parameters() == small.num_parameters() + V * e);
  auto names = small.named_parameters();
  CHECK(names[1].first == "encoder.layers.0.self_attn.q_proj.weight");
  for (auto& [n, t] : names)  // bias-free linears: the only "bias" parameters are the relative tables
    CHECK((n.find("bias") == std::string::npos || n.find("relative_attention_bias") != std::string::npos));
}

TEST_CASE("T5: cached greedy generation equals full recomputation, shift_right") {
  Generator gen(7);
  models::T5Config c = tiny_t5(false);
  c.vocab_size = 13, c.eos_token_id = 99;  // no early stop
  models::T5 t5(c, &gen);
  t5.eval();
  Tensor in = ids({3, 7, 1, 9, 0, 2, 4, 6, 8, 10}, {2, 5}), mask = ids({1, 1, 1, 1, 0, 1, 1, 1, 1, 1}, {2, 5});
  Tensor out = t5.generate(in, mask, 12);
  CHECK(out.shape() == Shape{2, 13});
  // Reference: re-run the whole decoder on the growing prefix and take the argmax each step.
  Tensor prefix = ids({0, 0}, {2, 1});
  Tensor memory = t5.encode(in, mask);
  for (int64_t s = 0; s < 12; ++s) {
    Tensor logits = t5.decode(prefix, memory, mask);  // (2, s + 1, V)
    prefix = cat({prefix, argmax(select(logits, 1, s), 1, true)}, 1);
  }
  CHECK(out.to_vector() == prefix.to_vector());
  // Sampled generation is reproducible from the seed.
  Generator g1(3), g2(3);
  CHECK(t5.generate(in, mask, 6, 1.0, 5, &g1).to_vector() == t5.generate(in, mask, 6, 1.0, 5, &g2).to_vector());
  // eos stops a row; later tokens are pad.
  c.eos_token_id = out.to_vector_as<int64_t>()[3];  // row 0's third generated token
  models::T5 t5b(c, &gen);
  set_fixed(t5b);
  t5b.eval();
  Tensor o2 = t5b.generate(in, mask, 8);
  auto v2 = o2.to_vector_as<int64_t>();
  const int64_t w = o2.size(1);
  for (int64_t b = 0; b < 2; ++b) {
    bool seen = false;
    for (int64_t t = 1; t < w; ++t) {
      if (seen) CHECK(v2[b * w + t] == 0);
      seen = seen || v2[b * w + t] == c.eos_token_id;
    }
  }
  Tensor labels = ids({5, 6, -100, 4, 3, 2}, {2, 3});
  CHECK(t5.shift_right(labels).to_vector_as<int64_t>() == std::vector<int64_t>{0, 5, 6, 0, 4, 3});
}

TEST_CASE("T5: gradients through the shared relative bias and tied embedding match finite differences") {
  models::T5 t5(tiny_t5(false));
  t5.to(DType::Float64);
  set_fixed(t5);
  Tensor in = ids({3, 7, 1, 9, 0, 2, 4, 6, 8, 10}, {2, 5}), mask = ids({1, 1, 1, 1, 0, 1, 1, 1, 1, 1}, {2, 5});
  Tensor dec = ids({0, 5, 2, 7, 0, 1, 3, 3}, {2, 4});
  auto loss = [&] { return sum(square(t5.forward(in, mask, dec))); };
  t5.zero_grad();
  loss().backward();
  for (Tensor W : {t5.encoder_bias->relative_attention_bias->weight, t5.decoder_bias->relative_attention_bias->weight,
                   t5.shared->weight}) {
    auto analytic = W.grad().to_vector();
    for (int64_t idx : {0, 3, 9, 14}) {
      NoGradGuard no_grad;
      double* p = W.data<double>() + idx;
      const double orig = *p, eps = 1e-6;
      *p = orig + eps;
      double up = loss().item<double>();
      *p = orig - eps;
      double down = loss().item<double>();
      *p = orig;
      CHECK(analytic[idx] == doctest::Approx((up - down) / (2 * eps)).epsilon(1e-6));
    }
  }
}

TEST_CASE("T5 cross_attention_bias: by distance from the decoder step, gradchecked, cached decoding equals recomputation") {
  models::T5Config c = tiny_t5(false);
  c.cross_attention_bias = true;
  c.vocab_size = 13, c.eos_token_id = 99;
  Generator gen(5);
  models::T5 t5(c, &gen);
  REQUIRE(t5.cross_bias != nullptr);
  CHECK(t5.num_parameters() == models::T5(tiny_t5(false)).num_parameters() + 13 * 8 - 11 * 8 + 8 * 2);
  t5.eval();
  Tensor in = ids({3, 7, 1, 9, 0, 2, 4, 6, 8, 10}, {2, 5}), mask = ids({1, 1, 1, 1, 0, 1, 1, 1, 1, 1}, {2, 5});
  Tensor out = t5.generate(in, mask, 9);
  Tensor prefix = ids({0, 0}, {2, 1}), memory = t5.encode(in, mask);
  for (int64_t s = 0; s < 9; ++s) prefix = cat({prefix, argmax(select(t5.decode(prefix, memory, mask), 1, s), 1, true)}, 1);
  CHECK(out.to_vector() == prefix.to_vector());
  // Decoder step t sits at encoder position S - 1 + t: its bias row for key j is bucket (S - 1 + t - j).
  Tensor b = t5.cross_bias->forward(3, 5, 4);  // (1, H, 3, 5)
  const std::vector<double> table = t5.cross_bias->relative_attention_bias->weight.to_vector();
  const std::vector<double> got = b.to_vector();
  for (int64_t t = 0; t < 3; ++t)
    for (int64_t j = 0; j < 5; ++j) {
      const int64_t bucket = models::t5_relative_position_bucket(j - (4 + t), false, 8, 12);
      CHECK(got[(0 * 3 + t) * 5 + j] == table[bucket * 2 + 0]);  // head 0
    }
  // Gradients of the cross table in float64 against finite differences.
  models::T5 g(c);
  g.to(DType::Float64);
  set_fixed(g);
  Tensor dec = ids({0, 5, 2, 7, 0, 1, 3, 3}, {2, 4});
  auto loss = [&] { return sum(square(g.forward(in, mask, dec))); };
  g.zero_grad();
  loss().backward();
  Tensor W = g.cross_bias->relative_attention_bias->weight;
  const auto analytic = W.grad().to_vector();
  for (int64_t idx : {0, 3, 9, 14}) {
    NoGradGuard no_grad;
    double* p = W.data<double>() + idx;
    const double orig = *p, eps = 1e-6;
    *p = orig + eps;
    const double up = loss().item<double>();
    *p = orig - eps;
    const double down = loss().item<double>();
    *p = orig;
    CHECK(analytic[idx] == doctest::Approx((up - down) / (2 * eps)).epsilon(1e-6));
  }
}

TEST_CASE("GPT parameter counts follow the GPT-2 formula") {
  auto count = [](int64_t V, int64_t T, int64_t L, int64_t E, bool tied) {
    return V * E + T * E + L * (4 * E * E + 4 * E + 4 * E + 8 * E * E + 4 * E + E) + 2 * E + (tied ? 0 : V * E);
  };
  // gpt2 (12, 12, 768), vocab 50257, block 1024, tied: 124,439,808 like Hugging Face's gpt2
  // (checked once with GPT(preset("gpt2")) outside the suite; too slow to build here).
  CHECK(count(50257, 1024, 12, 768, true) == 124439808);
  models::GPT nano(models::GPTConfig::preset("gpt-nano", 65, 32));
  CHECK(nano.num_parameters() == count(65, 32, 3, 48, false));
  models::GPTConfig c = models::GPTConfig::preset("gpt-nano", 65, 32);
  c.tie_weights = true, c.learned_positions = false;
  models::GPT tied(c);
  CHECK(tied.num_parameters() == count(65, 32, 3, 48, true) - 32 * 48);
  CHECK(tied.lm_head == nullptr);
  CHECK(tied.named_buffers().front().first == "pos_table");
  CHECK(throws_with([] { models::GPTConfig::preset("gpt-huge", 10, 10); }, {"[GPTConfig::preset]", "gpt-huge"}));
}

TEST_CASE("GPT: cached generation equals full recomputation, also past block_size") {
  for (bool learned : {true, false}) {
    Generator gen(1);
    models::GPTConfig c{.vocab_size = 17,
                        .block_size = 10,
                        .n_layer = 2,
                        .n_head = 2,
                        .n_embd = 16,
                        .dropout = 0.1,
                        .learned_positions = learned};
    models::GPT gpt(c, &gen);
    gpt.eval();
    Tensor prompt = ids({1, 2, 3, 4, 5, 6}, {2, 3});
    Tensor a = gpt.generate(prompt, 12, 0.0, 0, nullptr, true);  // crosses block_size 10
    Tensor b = gpt.generate(prompt, 12, 0.0, 0, nullptr, false);
    CHECK(a.shape() == Shape{2, 15});
    CHECK(a.to_vector() == b.to_vector());
    // The logits of a cached step equal those of the full forward at that position.
    std::vector<nn::KVCache> caches;
    Tensor full = gpt.forward(narrow(a, 1, 0, 8));
    Tensor s1 = gpt.forward(narrow(a, 1, 0, 5), &caches);
    Tensor s2 = gpt.forward(narrow(a, 1, 5, 3), &caches);
    CHECK(allclose(cat({s1, s2}, 1), full, 1e-5, 1e-5));
    CHECK(throws_with([&] { gpt.forward(narrow(a, 1, 0, 3), &caches); }, {"[GPT]", "block_size 10"}));
    Generator g1(5), g2(5);
    CHECK(gpt.generate(prompt, 5, 0.8, 3, &g1).to_vector() == gpt.generate(prompt, 5, 0.8, 3, &g2).to_vector());
  }
}

TEST_CASE("GPT overfits a tiny sequence with plain SGD") {
  Generator gen(2);
  models::GPTConfig c{.vocab_size = 8, .block_size = 8, .n_layer = 2, .n_head = 2, .n_embd = 32, .dropout = 0.0};
  models::GPT gpt(c, &gen);
  // Two sequences of a fixed pattern; predict token t+1 from tokens <= t.
  Tensor data = ids({1, 5, 2, 7, 3, 3, 6, 0, 4, 2, 2, 7, 1, 6, 5, 3}, {2, 8});
  Tensor x = narrow(data, 1, 0, 7), y = narrow(data, 1, 1, 7).contiguous();
  std::vector<double> losses;
  for (int step = 0; step < 40; ++step) {
    gpt.zero_grad();
    Tensor loss = models::GPT::loss(gpt.forward(x), y);
    loss.backward();
    losses.push_back(loss.item<double>());
    NoGradGuard no_grad;
    for (Tensor p : gpt.parameters()) add_(p, p.grad(), -0.5);
  }
  MESSAGE("GPT SGD loss " << losses.front() << " -> " << losses.back());
  CHECK(losses.front() > 1.8);  // ~log(8) = 2.08 at init
  CHECK(losses.back() < 0.2);
  gpt.eval();
  // The memorised continuation comes back from greedy generation.
  CHECK(gpt.generate(narrow(data, 1, 0, 2), 6, 0.0).to_vector() == data.to_vector());
}

TEST_CASE("sample_next_token: greedy, top-k and errors") {
  Tensor logits = from_vector(std::vector<double>{0.1, 2.0, 1.9, -1.0, 5.0, 0.0, 0.0, 4.9}, {2, 4});
  CHECK(models::sample_next_token(logits, 0.0).to_vector_as<int64_t>() == std::vector<int64_t>{1, 0});
  Generator gen(4);
  for (int i = 0; i < 20; ++i) {
    auto s = models::sample_next_token(logits, 1.0, 2, &gen).to_vector_as<int64_t>();
    CHECK((s[0] == 1 || s[0] == 2));
    CHECK((s[1] == 0 || s[1] == 3));
    CHECK(models::sample_next_token(logits, 3.0, 1, &gen).to_vector_as<int64_t>() == std::vector<int64_t>{1, 0});
  }
  CHECK(throws_with([&] { models::sample_next_token(reshape(logits, {8}), 1.0); }, {"[sample_next_token]", "(8,)"}));
  CHECK(throws_with([&] { models::sample_next_token(logits, -1.0); }, {"[sample_next_token]", "temperature"}));
}

TEST_CASE("[cuda] sample_next_token draws the CPU's tokens on a CUDA device, greedy, tempered and top-k") {
  if (!cuda::available()) return;  // ctest runs it again on the emulated device
  Generator init(8);
  const Tensor logits = randn({6, 40}, {}, &init);
  for (const models::SamplingOptions& o : {models::SamplingOptions{.temperature = 0.0},
                                           models::SamplingOptions{.temperature = 0.7},
                                           models::SamplingOptions{.temperature = 1.3, .top_k = 5},
                                           models::SamplingOptions{.temperature = 1.0, .top_p = 0.8}}) {
    INFO("temperature ", o.temperature, " top_k ", o.top_k, " top_p ", o.top_p);
    Generator on_cpu(3), on_cuda(3);
    for (int i = 0; i < 5; ++i) {
      const Tensor got = models::sample_next_token(logits.to(Device::cuda(0)), o, &on_cuda);
      CHECK(got.device() == Device::cuda(0));
      CHECK(got.to(Device::cpu()).to_vector_as<int64_t>() == models::sample_next_token(logits, o, &on_cpu).to_vector_as<int64_t>());
    }
    CHECK(on_cpu.offset() == on_cuda.offset());
  }
}
