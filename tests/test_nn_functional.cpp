// softmax family, losses, normalisations, embedding and dropout: values vs PyTorch 1.13,
// float64 gradcheck of every op, and bad-input errors.
#include "core/philox.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::leaf64;
using hm::test::throws_with;

namespace {
using Inputs = std::vector<Tensor>;
constexpr auto f64 = DType::Float64;

// torch.sin(torch.arange(n, dtype=float64) * step).reshape(shape) * scale (the reference inputs)
Tensor wave(const Shape& shape, double step, double scale) {
  return reshape(mul(sin(mul(arange(0.0, static_cast<double>(numel_of(shape)), 1.0, {.dtype = f64}), step)), scale),
                 shape);
}
Tensor lin(double lo, double hi, const Shape& shape) {
  return reshape(linspace(lo, hi, numel_of(shape), {.dtype = f64}), shape);
}
Tensor ints(std::vector<int64_t> v, const Shape& shape) { return from_vector(v, shape); }
}  // namespace

// Reference: lg3 = torch.sin(torch.arange(24, dtype=torch.float64) * 0.9).reshape(2, 3, 4) * 1.5;
// torch.softmax(lg3, -1), torch.softmax(lg3, 1), torch.log_softmax(lg3, 0), torch.log_softmax(lg3, 1)
TEST_CASE("softmax / log_softmax: values vs PyTorch over every dim") {
  Tensor x = wave({2, 3, 4}, 0.9, 1.5);
  CHECK(allclose(softmax(x, -1), {0.095731292, 0.30998862, 0.41253319, 0.1817469,  0.24695784,  0.11068664,
                                  0.15048322,  0.49187231, 0.33114198, 0.43133288, 0.18683449,  0.050690655,
                                  0.046485668, 0.064558579, 0.21293415, 0.6760216, 0.62683377, 0.2670152,
                                  0.0724982,   0.033652832, 0.035940616, 0.11957968, 0.37572576, 0.46875394}));
  CHECK(allclose(softmax(x, 1), {0.20817581, 0.41767719, 0.6651585,  0.55390772,  0.10718993, 0.029767682,
                                 0.048429406, 0.29921103, 0.68463426, 0.55255513, 0.28641209, 0.14688125,
                                 0.04773008,  0.099315406, 0.21320414, 0.4283238, 0.88488069, 0.56475214,
                                 0.099801437, 0.029315175, 0.067389235, 0.33593246, 0.68699442, 0.54236103}));
  CHECK(allclose(log_softmax(x, 0), {-0.2066912, -0.093921674, -0.21838107, -1.0147799, -2.2264558,  -2.1812092,
                                     -0.94356269, -0.20117291, -0.094009842, -0.22456632, -1.0389948, -2.2405321,
                                     -1.6780955, -2.4118874,  -1.6287179,  -0.45017308, -0.11418849, -0.11980312,
                                     -0.49304894, -1.7024913, -2.4109925,  -1.603767,   -0.43666193, -0.11249913}));
  CHECK(allclose(log_softmax(x, 1), {-1.5693723, -0.87304642, -0.40772991, -0.59075718, -2.233153,  -3.514332,
                                     -3.0276481, -1.2066062,  -0.37887051, -0.59320207, -1.2503236, -1.9181308,
                                     -3.0421935, -2.3094546,  -1.5455051,  -0.84787584, -0.12230246, -0.57136834,
                                     -2.3045727, -3.52965,    -2.69727,    -1.0908452,  -0.37542911, -0.61182339}));
  // float32 (vectorised exp) agrees with float64; a -inf entry gets exactly 0.
  Generator gen(1);
  Tensor big = mul(randn({7, 300}, {.dtype = f64}, &gen), 5.0);
  CHECK(allclose(softmax(big.to(DType::Float32), 1), softmax(big, 1), 1e-5, 1e-7));
  CHECK(allclose(log_softmax(big.to(DType::Float32), 0), log_softmax(big, 0), 1e-5, 1e-5));
  Tensor masked = tensor({0.0, -INFINITY, 1.0});
  CHECK(softmax(masked).to_vector()[1] == 0.0);
  CHECK(allclose(softmax(masked), {0.26894142, 0.0, 0.73105858}));
}

TEST_CASE("softmax / log_softmax: gradcheck over dims and non-contiguous input") {
  for (int64_t dim : {0, 1, 2, -1}) {
    CAPTURE(dim);
    CHECK(gradcheck([dim](const Inputs& in) { return softmax(in[0], dim); }, {leaf64({2, 3, 4}, 1)}));
    CHECK(gradcheck([dim](const Inputs& in) { return log_softmax(in[0], dim); }, {leaf64({2, 3, 4}, 2)}));
  }
  CHECK(gradcheck([](const Inputs& in) { return softmax(transpose(in[0], 0, 1), -1); }, {leaf64({5, 3}, 3)}));
  CHECK(gradcheck([](const Inputs& in) { return log_softmax(transpose(in[0], 0, 1), 0); }, {leaf64({5, 3}, 4)}));
  CHECK(throws_with([] { softmax(zeros({2, 3}), 2); }, {"[softmax]", "2"}));
  CHECK(throws_with([] { log_softmax(zeros({2}, {.dtype = DType::Int64})); }, {"[log_softmax]", "int64"}));
}

// Reference: lg = torch.sin(torch.arange(20, dtype=torch.float64) * 0.7).reshape(4, 5) * 2;
// F.cross_entropy(lg, [1, 0, 4, 2]); F.cross_entropy(lg, t2 = [1, 2, 4, 2], ignore_index=2, label_smoothing=0.1,
// reduction=mean/sum/none); F.cross_entropy(lg3, t3, label_smoothing=0.2, reduction=mean/none) with
// t3 = [[0, 2, -100, 1], [2, 2, 0, -100]]; F.nll_loss(torch.log_softmax(lg, 1), t2, ignore_index=2, mean/none)
TEST_CASE("cross_entropy / nll_loss: values vs PyTorch with ignore_index, smoothing, class dim") {
  Tensor lg = wave({4, 5}, 0.7, 2.0);
  CHECK(allclose(cross_entropy(lg, ints({1, 0, 4, 2}, {4})), {2.4350627}));
  Tensor t2 = ints({1, 2, 4, 2}, {4});
  CrossEntropyOptions opt{.ignore_index = 2, .label_smoothing = 0.1};
  CHECK(allclose(cross_entropy(lg, t2, opt), {2.5943888}));
  opt.reduction = Reduction::Sum;
  CHECK(allclose(cross_entropy(lg, t2, opt), {5.1887776}));
  opt.reduction = Reduction::None;
  CHECK(allclose(cross_entropy(lg, t2, opt), {1.6914793, 0, 3.4972983, 0}));

  Tensor lg3 = wave({2, 3, 4}, 0.9, 1.5);
  Tensor t3 = ints({0, 2, -100, 1, 2, 2, 0, -100}, {2, 4});
  CHECK(allclose(cross_entropy(lg3, t3, {.label_smoothing = 0.2}), {1.4596669}));
  Tensor none3 = cross_entropy(lg3, t3, {.label_smoothing = 0.2, .reduction = Reduction::None});
  CHECK(none3.shape() == Shape{2, 4});
  CHECK(allclose(none3, {1.5342576, 0.80660035, 0, 1.2129845, 2.5486004, 1.137454, 1.5181046, 0}));
  // The class dim is an option: classes last gives the same losses.
  Tensor last = permute(lg3, {0, 2, 1});  // (2, 4, 3), non-contiguous
  CHECK(allclose(cross_entropy(last, t3, {.label_smoothing = 0.2, .class_dim = -1}), {1.4596669}));
  // Float32 matches float64.
  CHECK(allclose(cross_entropy(lg3.to(DType::Float32), t3, {.label_smoothing = 0.2}), {1.4596669}, 1e-6, 1e-6));
  // Unbatched logits (C) with a 0-d target: F.cross_entropy(lg[0], torch.tensor(1)).
  CHECK(allclose(cross_entropy(select(lg, 0, 0), from_vector<int64_t>({1}, {})), {1.6757503}));

  Tensor lp = log_softmax(lg, 1);
  CHECK(allclose(nll_loss(lp, t2, {.ignore_index = 2}), {2.6722197}));
  CHECK(allclose(nll_loss(lp, t2, {.ignore_index = 2, .reduction = Reduction::None}), {1.6757503, 0, 3.6686891, 0}));
  // Every target ignored: the mean is 0/0 = NaN, like PyTorch.
  CHECK(std::isnan(cross_entropy(lg, ints({3, 3, 3, 3}, {4}), {.ignore_index = 3}).item<double>()));
}

TEST_CASE("cross_entropy / nll_loss: gradcheck over options") {
  Tensor t = ints({1, 2, 4, 2}, {4});
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None})
    for (double eps : {0.0, 0.3}) {
      CrossEntropyOptions opt{.ignore_index = 2, .label_smoothing = eps, .reduction = r};
      CHECK(gradcheck([&](const Inputs& in) { return cross_entropy(in[0], in[1], opt); }, {leaf64({4, 5}, 1), t}));
    }
  Tensor t3 = ints({0, 2, -100, 1, 2, 2, 0, -100}, {2, 4});
  CHECK(gradcheck([&](const Inputs& in) { return cross_entropy(in[0], in[1], {.label_smoothing = 0.2}); },
                  {leaf64({2, 3, 4}, 2), t3}));
  CHECK(gradcheck(
      [&](const Inputs& in) {
        return cross_entropy(in[0], in[1], {.label_smoothing = 0.1, .class_dim = 2, .reduction = Reduction::None});
      },
      {leaf64({2, 4, 3}, 3), t3}));
  CHECK(gradcheck([&](const Inputs& in) { return nll_loss(in[0], in[1], {.ignore_index = 2}); }, {leaf64({4, 5}, 4), t}));
  CHECK(gradcheck([&](const Inputs& in) { return nll_loss(in[0], in[1], {.reduction = Reduction::None}); },
                  {leaf64({2, 3, 4}, 5), ints({0, 2, 1, 1, 2, 2, 0, 0}, {2, 4})}));
}

TEST_CASE("cross_entropy / nll_loss: bad targets") {
  Tensor lg = zeros({4, 5});
  CHECK(throws_with([&] { cross_entropy(lg, ints({1, 7, 0, 0}, {4})); }, {"[cross_entropy]", "target 7", "5 classes"}));
  CHECK(throws_with([&] { cross_entropy(lg, ints({1, -1, 0, 0}, {4})); }, {"[cross_entropy]", "target -1"}));
  CHECK(throws_with([&] { cross_entropy(lg, zeros({4})); }, {"[cross_entropy]", "int64", "float32"}));
  CHECK(throws_with([&] { cross_entropy(lg, ints({1, 2, 3}, {3})); }, {"[cross_entropy]", "(3,)", "(4, 5)"}));
  CHECK(throws_with([&] { cross_entropy(lg, ints({1, 2, 3, 4}, {4}), {.label_smoothing = 1.5}); },
                    {"[cross_entropy]", "1.5"}));
  CHECK(throws_with([&] { nll_loss(lg, ints({1, 2, 3, 5}, {4})); }, {"[nll_loss]", "target 5"}));
}

// Reference: a = L(-1, 2, 2, 3), b = L(0.5, -0.5, 2, 3) with L = torch.linspace(...).reshape;
// F.mse_loss(a, b) and reduction='sum'
TEST_CASE("mse_loss: values, gradcheck, shape errors") {
  Tensor a = lin(-1, 2, {2, 3}), b = lin(0.5, -0.5, {2, 3});
  CHECK(allclose(mse_loss(a, b), {2.1166667}));
  CHECK(allclose(mse_loss(a, b, Reduction::Sum), {12.7}));
  CHECK(allclose(mse_loss(a, b, Reduction::None), mul(sub(a, b), sub(a, b))));
  for (Reduction r : {Reduction::Mean, Reduction::Sum, Reduction::None})
    CHECK(gradcheck([r](const Inputs& in) { return mse_loss(in[0], in[1], r); }, {leaf64({2, 3}, 1), leaf64({2, 3}, 2)}));
  CHECK(throws_with([] { mse_loss(zeros({2, 3}), zeros({3})); }, {"[mse_loss]", "(2, 3)", "(3,)"}));
}

// Reference: xl = torch.sin(torch.arange(24, dtype=torch.float64) * 1.3).reshape(2, 3, 4) * 2 + 0.5;
// F.layer_norm(xl, (3, 4), L(0.5, 1.5, 3, 4), L(-0.2, 0.3, 3, 4)); F.layer_norm(xl, (4,));
// xl * torch.rsqrt(xl.pow(2).mean(-1, keepdim=True) + 1e-6) * L(0.8, 1.2, 4)
TEST_CASE("layer_norm / rms_norm: values vs PyTorch") {
  Tensor x = add(wave({2, 3, 4}, 1.3, 2.0), 0.5);
  CHECK(allclose(layer_norm(x, {3, 4}, lin(0.5, 1.5, {3, 4}), lin(-0.2, 0.3, {3, 4})),
                 {-0.27488222, 0.57053947,   0.29102526,  -0.93876207, -1.2377534, 0.17772929,
                  1.4078325,   0.46613202,   -1.4718865,  -1.4235631,  0.88950087, 2.1903556,
                  -0.055572395, -0.8584274,  -0.60565317, 0.70862393,  1.2434274,  0.0081623365,
                  -1.2588436,  -0.40857791,  1.6652342,   1.9437867,   -0.19866751, -1.6353076}));
  CHECK(allclose(layer_norm(x, {4}),
                 {-0.32190003, 1.246011,   0.51692869,  -1.4410396, -1.5502454, 0.078259623, 1.2395907, 0.23239508,
                  -1.0080561,  -0.92319154, 0.60047666, 1.330771,   0.52170975, -1.2070071, -0.66633809, 1.3516355,
                  1.5446915,   0.054432662, -1.207205,  -0.39191925, 0.90693549, 0.99149298, -0.50628235, -1.3921461}));
  CHECK(allclose(rms_norm(x, lin(0.8, 1.2, {4})),
                 {0.26301813, 1.4895431,   1.0738173,  -0.69084263, -0.64096799, 0.54907618, 1.6844696, 0.86377256,
                  -0.57617007, -0.59560192, 0.89099458, 1.8498399,  0.47584099,  -1.0538375, -0.62927474, 1.7069048,
                  1.3399434,  0.18747005,  -1.116875,  -0.28877032, 0.97676715,  1.212455,   -0.089957022, -1.0830565}));
  Tensor x32 = x.to(DType::Float32);
  CHECK(allclose(layer_norm(x32, {4}), layer_norm(x, {4}), 1e-5, 1e-5));
  CHECK(allclose(rms_norm(x32), rms_norm(x), 1e-5, 1e-5));
}

TEST_CASE("layer_norm / rms_norm: gradcheck with and without affine, errors") {
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {3, 4}, in[1], in[2]); },
                  {leaf64({2, 3, 4}, 1), leaf64({3, 4}, 2), leaf64({3, 4}, 3)}));
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {4}); }, {leaf64({2, 3, 4}, 4)}));
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {4}, in[1]); }, {leaf64({3, 4}, 5), leaf64({4}, 6)}));
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {4}, Tensor(), in[1]); },
                  {leaf64({3, 4}, 7), leaf64({4}, 8)}));
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(transpose(in[0], 0, 1), {3}, in[1], in[2]); },
                  {leaf64({3, 5}, 9), leaf64({3}, 10), leaf64({3}, 11)}));
  // Many rows: the blocked dweight/dbias reduction.
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {3}, in[1], in[2]); },
                  {leaf64({70, 3}, 12), leaf64({3}, 13), leaf64({3}, 14)}));
  CHECK(gradcheck([](const Inputs& in) { return rms_norm(in[0], in[1]); }, {leaf64({2, 3, 4}, 15), leaf64({4}, 16)}));
  CHECK(gradcheck([](const Inputs& in) { return rms_norm(in[0]); }, {leaf64({3, 5}, 17)}));
  CHECK(gradcheck([](const Inputs& in) { return rms_norm(transpose(in[0], 0, 1), in[1]); },
                  {leaf64({4, 3}, 18), leaf64({4}, 19)}));
  CHECK(throws_with([] { layer_norm(zeros({2, 3}), {4}); }, {"[layer_norm]", "(4,)", "(2, 3)"}));
  CHECK(throws_with([] { layer_norm(zeros({2, 3}), {3}, zeros({4})); }, {"[layer_norm]", "weight", "(4,)"}));
  CHECK(throws_with([] { rms_norm(zeros({2, 3}), zeros({2})); }, {"[rms_norm]", "weight", "(2,)"}));
}

TEST_CASE("embedding: gather, repeated indices and padding_idx in backward, errors") {
  Tensor w = lin(0, 11, {4, 3});
  Tensor out = embedding(w, ints({2, 0, 2, 3}, {2, 2}));
  CHECK(out.shape() == Shape{2, 2, 3});
  CHECK(allclose(out, {6, 7, 8, 0, 1, 2, 6, 7, 8, 9, 10, 11}));
  // Repeated index 2 sums its gradient rows; padding row 1 gets none.
  Tensor wl = leaf64({5, 3}, 1);
  Tensor idx = ints({2, 1, 2, 4, 2, 0, 1}, {7});
  Tensor y = embedding(wl, idx, 1);
  y.backward(lin(1, 21, {7, 3}));
  CHECK(allclose(wl.grad(), {16, 17, 18, 0, 0, 0, 21, 24, 27, 0, 0, 0, 10, 11, 12}));
  // (No gradcheck with padding_idx in use: like PyTorch, the padding row is read but gets no gradient.)
  CHECK(gradcheck([&](const Inputs& in) { return embedding(in[0], in[1]); },
                  {leaf64({4, 2}, 3), ints({3, 3, 0, 1, 3, 2}, {2, 3})}));
  // Many rows and repeats across thread chunks: matches a serial sum.
  Generator gen(5);
  Tensor many = randint(0, 50, {4000}, &gen);
  Tensor wb = zeros({50, 8}).requires_grad_(true);
  embedding(wb, many).backward(ones({4000, 8}));
  std::vector<double> counts(50, 0.0);
  for (int64_t v : many.to_vector_as<int64_t>()) counts[v] += 1;
  CHECK(allclose(select(wb.grad(), 1, 0), from_vector(counts, {50})));
  CHECK(throws_with([&] { embedding(w, ints({1, 4}, {2})); }, {"[embedding]", "index 4", "4 rows"}));
  CHECK(throws_with([&] { embedding(w, ints({-1}, {1})); }, {"[embedding]", "index -1"}));
  CHECK(throws_with([&] { embedding(w, zeros({2})); }, {"[embedding]", "int64", "float32"}));
}

TEST_CASE("dropout: philox mask, scale, backward reuses the mask, p edge cases") {
  Tensor x = add(rand({1000}, {.dtype = f64}), 1.0);
  Generator gen(42);
  const uint64_t offset = Generator(42).reserve(1000);  // the offset the first draw of gen gets
  Tensor y = dropout(x, 0.3, true, &gen);
  std::vector<double> xv = x.to_vector(), yv = y.to_vector();
  int kept = 0;
  bool mask_ok = true;
  for (size_t i = 0; i < xv.size(); ++i) {
    const bool keep = philox::uniform<float>(42, offset, i) >= 0.3f;  // the documented mask definition
    kept += keep;
    if (std::fabs(yv[i] - (keep ? xv[i] / 0.7 : 0.0)) > 1e-12) mask_ok = false;
  }
  CHECK(mask_ok);
  CHECK(std::abs(kept - 700) < 60);
  CHECK(gen.offset() > 0);  // the generator advanced
  // Backward applies the same mask and scale.
  Tensor xl = x.clone().requires_grad_(true);
  Generator g2(42);
  Tensor y2 = dropout(xl, 0.3, true, &g2);
  CHECK(allclose(y2, y, 0, 0));
  y2.backward(ones({1000}, {.dtype = f64}));
  CHECK(allclose(mul(xl.grad(), x), y, 1e-12, 1e-12));
  CHECK(gradcheck(
      [](const Inputs& in) {
        Generator g(7);  // a fixed generator: every evaluation draws the same mask
        return dropout(in[0], 0.4, true, &g);
      },
      {leaf64({3, 4}, 1)}));
  // Float32 masks equal float64 masks (both draw float uniforms).
  Generator g3(42);
  Tensor y32 = dropout(x.to(DType::Float32), 0.3, true, &g3);
  CHECK(allclose(eq(y32, 0.0), eq(y, 0.0)));
  CHECK(dropout(x, 0.0, true, &gen).same(x));
  CHECK(dropout(x, 0.5, false, &gen).same(x));
  CHECK(allclose(dropout(x, 1.0, true, &gen), zeros({1000}, {.dtype = f64})));
  CHECK(throws_with([&] { dropout(x, 1.5); }, {"[dropout]", "1.5"}));
  CHECK(throws_with([&] { dropout(x, -0.1); }, {"[dropout]", "-0.1"}));
}
