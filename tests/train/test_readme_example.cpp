// The C++ example of README.md, verbatim between the markers, so the documented API compiles
// and does what the README says (the loss falls).
#include "tests/helpers.h"

// README-EXAMPLE-BEGIN
#include <harmonic/harmonic.h>  // the whole API; or one header each, e.g. <harmonic/nn/linear.h>

double train_xor_like(int epochs) {
  using namespace hm;
  Generator gen(0);
  Tensor x = randn({512, 2}, {}, &gen);                               // (N, 2)
  Tensor y = gt(mul(select(x, 1, 0), select(x, 1, 1)), 0.0).to(DType::Int64);  // (N,) class = sign(x0 x1) > 0

  auto model = std::make_shared<nn::Sequential>();
  model->emplace<nn::Linear>(2, 32, true, &gen);
  model->emplace<nn::ReLU>();
  model->emplace<nn::Linear>(32, 2, true, &gen);
  optim::AdamW opt(model->named_parameters(), {.lr = 1e-2});

  data::DataLoader loader(std::make_shared<data::TensorDataset>(x, y), {.batch_size = 64, .shuffle = true});
  double last = 0;
  for (int epoch = 0; epoch < epochs; ++epoch)
    for (data::Batch& batch : loader.epoch(epoch)) {
      Tensor loss = cross_entropy(model->forward(batch.input), batch.target);  // logits (B, 2)
      opt.zero_grad();
      loss.backward();
      opt.step();
      last = loss.item<double>();
    }
  return last;
}
// README-EXAMPLE-END

TEST_CASE("README example: the documented training loop learns") {
  double loss = train_xor_like(40);
  CHECK(loss < 0.3);  // chance level is log 2 = 0.69
}

TEST_CASE("README tensor snippet runs as documented") {
  using namespace hm;
  Tensor a = randn({4, 3}, {.dtype = DType::Float64, .requires_grad = true});
  Tensor b = tensor({1, 2, 3}).to(DType::Float64);
  CHECK(tensor({1, 2, 3}).dtype() == DType::Int64);
  Tensor loss = mean(pow(a * b - 1.0, 2.0));
  CHECK(hm::test::allclose(loss, (a * b - 1.0).pow(2).mean(), 0, 0));
  Tensor p = a.detach().relu().softmax(-1);
  CHECK(hm::test::allclose(p.sum({-1}), ones({4}, {.dtype = DType::Float64})));
  loss.backward();
  CHECK(a.grad().shape() == Shape{4, 3});
  CHECK(fmt::format("{}", a.grad()).find("tensor([[") == 0);
  CHECK(gradcheck([](const std::vector<Tensor>& v) { return tanh(v[0]); }, {a}));
  a.register_hook([](const Tensor& g) { return g * 0.5; });
  CHECK_THROWS_AS(gradcheck([](const std::vector<Tensor>& v) { return tanh(v[0]); }, {a}), Error);  // the hook halves it
  CHECK(hm::test::throws_with([&] { add(a.detach().to(DType::Float32), b); },
                              {"[add] dtype mismatch: float32 (4, 3) cpu and float64 (3,) cpu"}));
}
