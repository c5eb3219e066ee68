// Transformer layers and stacks: PyTorch 1.13 parity with fixed weights, gradcheck, caches.
#include <cmath>
#include <map>

#include "harmonic/nn/patch_embedding.h"
#include "harmonic/nn/transformer.h"
#include "tests/helpers.h"
#include "tests/seq_inputs.h"

using namespace hm;
using namespace hm::test;

namespace {

// The i-th name of `names` gets 0.5 seq(shape, 0.1 + 0.07 i, 0.3 i), as val(i, shape) in the torch snippet.
void set_fixed(nn::Module& m, const std::vector<std::string>& names) {
  std::map<std::string, Tensor> params;
  for (auto& [n, t] : m.named_parameters()) params[n] = t;
  REQUIRE(params.size() == names.size());
  NoGradGuard no_grad;
  for (size_t i = 0; i < names.size(); ++i) {
    REQUIRE(params.count(names[i]));
    Tensor& t = params[names[i]];
    t.copy_(mul(seq(t.shape(), 0.1 + 0.07 * static_cast<double>(i), 0.3 * static_cast<double>(i)), 0.5));
  }
}

std::vector<std::string> mha_names(const std::string& p) {
  std::vector<std::string> out;
  for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"})
    for (const char* w : {"weight", "bias"}) out.push_back(p + "." + proj + "." + w);
  return out;
}

std::vector<std::string> concat(std::vector<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Tensor bool_tensor(const std::vector<int64_t>& values, const Shape& shape) {
  return ne(from_vector(values, shape), zeros(shape, {.dtype = DType::Int64}));
}

// Reference numbers: /tmp snippet with torch 1.13 (float64), E = 4, H = 2, d_ff = 6:
//   seq(shape, a, b) = sin(a * arange(prod(shape)) + b).reshape(shape); val(i, s) = .5 seq(s, .1 + .07 i, .3 i)
//   enc = nn.TransformerEncoderLayer(4, 2, 6, dropout=0, activation=act, batch_first=True,
//                                    norm_first=nf, dtype=float64).eval()
//   in_proj_weight = cat(val(0), val(2), val(4)), in_proj_bias = cat(val(1), val(3), val(5)),
//   out_proj = val(6), val(7); norm1 = val(8), val(9); linear1 = val(10), val(11);
//   linear2 = val(12), val(13); norm2 = val(14), val(15)
//   enc(seq((2,4,4), .41, 0), src_key_padding_mask=[[F,F,T,T],[F,F,F,F]])
//   dec = nn.TransformerDecoderLayer(...) likewise: self_attn 0-7, norm1 8-9, multihead_attn 10-17,
//   norm2 18-19, linear1 20-21, linear2 22-23, norm3 24-25;
//   dec(seq((2,3,4), .41, 0), seq((2,4,4), .43, .9), tgt_mask=triu(ones(3,3), 1).bool(),
//       memory_key_padding_mask=pad)
const std::vector<double> kEncPost = {
    -1.1548194581026883,  -0.09574584127118124, 0.2523402494777671,   -0.0476994521395439,  -1.216919573815161,
    0.11037269711912923,  0.2288441456900048,   0.39118789351487926,  -1.2209865503070452,  0.10160152661065473,
    0.22948748037181532,  0.36971694855865284,  -1.1715474851875705,  -0.07890480566451481, 0.2499983338814708,
    -0.01904524719687569, -1.2409137908271757,  -0.06871828475469205, 0.22864231212242975,  0.1739361344143057,
    -1.2082354853477522,  0.06331103446358492,  0.21874104979734751,  0.46974435082117566,  -1.1184047206778223,
    0.10121666347592422,  0.2116862695124887,   0.6894287194628195,   -1.2234792507872765,  -0.1341396364557846,
    0.23299385123619948,  0.06930041041139567};
const std::vector<double> kEncPreGelu = {
    0.8633337032412498,   -0.19741903177628511, 0.9145723775894594,  1.2622552712866193,    1.9041044543324308,
    0.17936380016427017,  0.8098022791117041,   0.6869309189826107,  0.7679548711830809,    -1.2298496127431178,
    -0.6377528907459229,  -0.5625119647631761,  -0.1220972858178293, -1.4171672249846492,   -0.3353581350405641,
    0.18727291134526,     1.1544383933242417,   0.03450034420733167, 1.0519762312809133,    1.342557924062261,
    1.8692497170957278,   0.012822090156055066, 0.5507505589313357,  0.4368616372565659,    0.5279734761646204,
    -1.4418746310542279,  -0.7826669153898347,  -0.5587448262962428, -0.004717790071063155, -1.2259403438353098,
    -0.10347965683981136, 0.48161231309099906};
const std::vector<double> kDecPost = {0.8753850068625535, 0.0836676205994044,  -0.6908231086590331, 0.2542937835103375,
                                      0.9089059337660554, 0.1083908656905246,  -0.5782995904022844, 0.25387130490735305,
                                      0.9172789105985447, 0.1523178461367551,  -0.437901470190249,  0.25303435564574406,
                                      0.877314913892901,  0.20648289722990146, -0.3309219607310989, 0.2521251534055718,
                                      0.8741460065739656, 0.0815659754247371,  -0.6970583469753625, 0.254292903234086,
                                      0.8851983057785736, 0.09467375711241133, -0.6516151199203142, 0.2542311127565246};
const std::vector<double> kDecPre = {
    1.3784391386345223,  0.37206235217208194, 0.5111614656208581,   0.5293796843894114,  2.542965133371455,
    0.9310736647541251,  0.1657072347614293,  -0.01439883814396839, 1.4773079512782383,  -0.45083405942383104,
    -1.3771642219474858, -1.2188138859158315, 0.27494425966333985,  -0.6919816466680164, -0.5588880411118586,
    -0.5908823705398079, 1.5083516941008717,  0.7662529584302926,   0.8660033038363069,  0.5095461195869193,
    2.274854525376596,   0.8943711274608186,  0.22659533516632085,  -0.38607572158465675};

const std::vector<std::string> kEncNames = concat({mha_names("self_attn"),
                                                   {"norm1.weight", "norm1.bias", "ff.wi.weight", "ff.wi.bias",
                                                    "ff.wo.weight", "ff.wo.bias", "norm2.weight", "norm2.bias"}});
const std::vector<std::string> kDecNames = concat({mha_names("self_attn"),
                                                   {"norm1.weight", "norm1.bias"},
                                                   mha_names("cross_attn"),
                                                   {"norm2.weight", "norm2.bias", "ff.wi.weight", "ff.wi.bias",
                                                    "ff.wo.weight", "ff.wo.bias", "norm3.weight", "norm3.bias"}});

}  // namespace

TEST_CASE("TransformerEncoderLayer matches torch 1.13 (post-norm ReLU, pre-norm GELU)") {
  Tensor x = seq({2, 4, 4}, 0.41, 0.0);
  Tensor pad = bool_tensor({0, 0, 1, 1, 0, 0, 0, 0}, {2, 4});
  nn::TransformerEncoderLayer post(4, 2, {.d_ff = 6, .dropout = 0.0});
  post.to(DType::Float64);
  set_fixed(post, kEncNames);
  CHECK(allclose(post.forward(x, {.key_padding_mask = pad}), kEncPost, 1e-10, 1e-10));
  nn::TransformerEncoderLayer pre(4, 2,
                                  {.d_ff = 6, .dropout = 0.0, .activation = nn::FFActivation::GELU, .pre_norm = true});
  pre.to(DType::Float64);
  set_fixed(pre, kEncNames);
  CHECK(allclose(pre.forward(x, {.key_padding_mask = pad}), kEncPreGelu, 1e-10, 1e-10));
}

TEST_CASE("TransformerDecoderLayer matches torch 1.13 (post- and pre-norm)") {
  Tensor x = seq({2, 3, 4}, 0.41, 0.0), mem = seq({2, 4, 4}, 0.43, 0.9);
  Tensor pad = bool_tensor({0, 0, 1, 1, 0, 0, 0, 0}, {2, 4});
  for (bool pre_norm : {false, true}) {
    nn::TransformerDecoderLayer dec(4, 2, {.d_ff = 6, .dropout = 0.0, .pre_norm = pre_norm});
    dec.to(DType::Float64);
    set_fixed(dec, kDecNames);
    CHECK(allclose(dec.forward(x, mem, {.causal = true}, {.key_padding_mask = pad}), pre_norm ? kDecPre : kDecPost,
                   1e-10, 1e-10));
  }
}

TEST_CASE("transformer layers: gradcheck in float64") {
  Generator gen(2);
  nn::TransformerEncoderLayer enc(4, 2, {.d_ff = 5, .dropout = 0.0, .pre_norm = true, .norm = nn::NormKind::RMSNorm},
                                  &gen);
  enc.to(DType::Float64);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return enc.forward(in[0], {.causal = true}); },
                  {leaf64({2, 3, 4}, 1)}));
  nn::TransformerDecoderLayer dec(4, 2, {.d_ff = 5, .dropout = 0.0, .activation = nn::FFActivation::GatedGELU}, &gen);
  dec.to(DType::Float64);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return dec.forward(in[0], in[1], {.causal = true}); },
                  {leaf64({1, 3, 4}, 2), leaf64({1, 2, 4}, 3)}));
}

TEST_CASE("transformer stacks: names, parameter counts, options") {
  nn::TransformerLayerOptions o{.d_ff = 16, .dropout = 0.1, .pre_norm = true};
  nn::TransformerEncoder enc(3, 8, 2, o);
  // Per layer: attention 4 (8*8 + 8), two LayerNorms 2 * 16, ff 8*16 + 16 + 16*8 + 8; final norm 16.
  const int64_t layer = 4 * 72 + 32 + (128 + 16 + 128 + 8);
  CHECK(enc.num_parameters() == 3 * layer + 16);
  auto names = enc.named_parameters();
  CHECK(names.front().first == "layers.0.self_attn.q_proj.weight");
  CHECK(names.back().first == "norm.bias");
  nn::TransformerEncoder post(2, 8, 2, {.d_ff = 16});
  CHECK(post.norm == nullptr);
  CHECK(post.num_parameters() == 2 * layer);
  nn::TransformerDecoder dec(2, 8, 2, o);
  CHECK(dec.num_parameters() == 2 * (layer + 4 * 72 + 16) + 16);
  // Gated feed-forward without bias, RMSNorm: 3 * 8 * 16 + 2 * 8 per layer besides attention.
  nn::TransformerEncoderLayer t5ish(8, 2,
                                    {.d_ff = 16,
                                     .activation = nn::FFActivation::GatedGELU,
                                     .norm = nn::NormKind::RMSNorm,
                                     .bias = false,
                                     .head_dim = 3});
  CHECK(t5ish.num_parameters() == 4 * 8 * 6 + 3 * 8 * 16 + 2 * 8);
  CHECK(throws_with([] { nn::TransformerEncoder(0, 8, 2); }, {"[TransformerEncoder]", "num_layers"}));
}

TEST_CASE("TransformerDecoder: cached incremental decoding equals full recomputation") {
  Generator gen(4);
  nn::TransformerDecoder dec(2, 8, 2, {.d_ff = 12, .pre_norm = true}, &gen);
  dec.eval();
  Tensor x = randn({2, 5, 8}, {}, &gen), mem = randn({2, 3, 8}, {}, &gen);
  Tensor pad = bool_tensor({0, 0, 1, 0, 0, 0}, {2, 3});
  Tensor full = dec.forward(x, mem, {.causal = true}, {.key_padding_mask = pad});
  std::vector<nn::DecoderLayerCache> caches;
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < 5; ++t)
    steps.push_back(dec.forward(narrow(x, 1, t, 1), mem, {.causal = true}, {.key_padding_mask = pad}, &caches));
  CHECK(caches.size() == 2);
  CHECK(caches[0].self_attn.length() == 5);
  CHECK(caches[0].cross_attn.length() == 3);
  CHECK(allclose(cat(steps, 1), full, 1e-5, 1e-6));
  // Encoder stack used as a decoder-only model (GPT) with a cache.
  nn::TransformerEncoder gpt(2, 8, 2, {.d_ff = 12, .pre_norm = true}, &gen);
  gpt.eval();
  Tensor ref = gpt.forward(x, {.causal = true});
  std::vector<nn::KVCache> kv;
  Tensor a = gpt.forward(narrow(x, 1, 0, 2), {.causal = true}, &kv);
  Tensor b = gpt.forward(narrow(x, 1, 2, 3), {.causal = true}, &kv);
  CHECK(allclose(cat({a, b}, 1), ref, 1e-5, 1e-6));
}

TEST_CASE("transformer dropout is active in training only") {
  Generator gen(6);
  nn::TransformerEncoderLayer layer(8, 2, {.d_ff = 16, .dropout = 0.5}, &gen);
  Tensor x = randn({2, 4, 8}, {}, &gen);
  layer.eval();
  Tensor a = layer.forward(x), b = layer.forward(x);
  CHECK(allclose(a, b, 0, 0));
  layer.train();
  CHECK(sum(abs(sub(layer.forward(x), a))).item<double>() > 1e-3);
}

TEST_CASE("PatchEmbedding equals a stride-p convolution (torch 1.13), with class token and positions") {
  // conv = torch.nn.Conv2d(2, 3, kernel_size=2, stride=2, dtype=torch.float64),
  // weight = seq((3,2,2,2), .37, .1), bias = seq((3,), .5, .2), x = seq((2,2,4,6), .23, .4):
  // conv(x).flatten(2).transpose(1, 2)  -> (2, 6, 3)
  nn::PatchEmbedding pe(4, 2, 2, 3);
  pe.to(DType::Float64);
  {
    NoGradGuard no_grad;
    pe.proj->weight.copy_(reshape(seq({3, 2, 2, 2}, 0.37, 0.1), {3, 8}));
    pe.proj->bias.copy_(seq({3}, 0.5, 0.2));
  }
  Tensor x = seq({2, 2, 4, 6}, 0.23, 0.4);
  CHECK(allclose(pe.forward(x), {2.637401647792482,   -1.6631333155486954,   3.0321306740235996,  3.3983255882561707,
                                 -2.394743302015835,  3.7103674385168426,    3.494056975240044,   -2.4945684785824485,
                                 3.811003616406976,   -1.2137175524507335,   1.9707184800353028,  -0.26495314178997353,
                                 -2.4115482528742387, 3.115876151278009,     -1.31977884562198,   -3.0667277558229795,
                                 3.74718837390694,    -1.9064628494221147,   -1.9757753283288886, 2.7278004371417133,
                                 -0.9921623568680349, -0.6230931791752795,   1.4447404705380174,  0.1790815204068209,
                                 0.9004292910554709,  -0.004744184061641676, 1.5068615145002,     3.161788501505372,
                                 -2.184096211088133,  3.5325375517650808,    2.167654687978131,   -1.2448021696118472,
                                 2.678972318125786,   0.7641786538749012,    0.08720966435284239, 1.4622283915413985},
                 1e-12, 1e-12));
  // Class token first, then positions added to every token.
  Generator gen(3);
  nn::PatchEmbedding vit(4, 2, 2, 3, {.class_token = true, .learned_positions = true}, &gen);
  vit.to(DType::Float64);
  CHECK(vit.num_parameters() == 3 * 8 + 3 + 3 + 5 * 3);
  Tensor img = seq({2, 2, 4, 4}, 0.31, 0.0);
  Tensor out = vit.forward(img);  // (2, 5, 3)
  CHECK(out.shape() == Shape{2, 5, 3});
  CHECK(allclose(select(out, 1, 0),
                 broadcast_to(add(reshape(vit.cls_token, {1, 3}), select(vit.pos_embed, 1, 0)), {2, 3}), 0, 0));
  CHECK(
      allclose(narrow(out, 1, 1, 4),
               add(vit.proj->forward(reshape(permute(reshape(img, {2, 2, 2, 2, 2, 2}), {0, 2, 4, 1, 3, 5}), {2, 4, 8})),
                   narrow(vit.pos_embed, 1, 1, 4)),
               1e-12, 1e-12));
  // gradcheck through a non-contiguous image (a transposed view).
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return vit.forward(transpose(in[0], 2, 3)); },
                  {leaf64({1, 2, 4, 4}, 1)}));
  CHECK(throws_with(
      [&] {
        vit.forward(zeros({1, 2, 6, 6}, {.dtype = DType::Float64}));
      },
      {"[PatchEmbedding]", "4x4", "(1, 2, 6, 6)"}));
  CHECK(throws_with([&] { vit.forward(zeros({1, 3, 4, 4})); }, {"[PatchEmbedding]", "(1, 3, 4, 4)"}));
  CHECK(throws_with([] { nn::PatchEmbedding(10, 3, 3, 8); }, {"[PatchEmbedding]", "patch_size 3"}));
}
