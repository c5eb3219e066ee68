// The C++ example of README.md, verbatim between the markers, so the documented API compiles
// and does what the README says (the loss falls).
#include "tests/helpers.h"

// README-EXAMPLE-BEGIN
#include "core/harmonic.h"
#include "data/loader.h"
#include "nn/linear.h"
#include "nn/sequential.h"
#include "nn/activation.h"
#include "optim/adam.h"

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
