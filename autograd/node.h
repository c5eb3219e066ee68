// One entry on the autograd tape: the op that produced a tensor, where the gradients of its
// inputs go, and the closure that turns the output's gradient into the inputs' gradients.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::autograd {

struct Node;

// Where one input's gradient flows: into the node that produced it, or into a leaf's .grad.
// Both empty when the input does not require grad.
struct Edge {
  std::shared_ptr<Node> node;
  std::shared_ptr<TensorImpl> leaf;
  bool defined() const { return node || leaf; }
};

// needs[i] tells whether input i wants a gradient, so backward can skip work.
using NeedsGrad = std::vector<bool>;
// Returns one gradient per input (an undefined Tensor where none is needed).
using BackwardFn = std::function<std::vector<Tensor>(const Tensor& grad_output, const NeedsGrad& needs)>;
// Adds the gradient of input 0 into `buffer` (input 0's full shape, dtype and device) in place.
using AccumulateFn = std::function<void(const Tensor& buffer, const Tensor& grad_output)>;

struct Node {
  std::string name;               // the op, e.g. "matmul"
  uint64_t sequence = 0;          // position on the tape: inputs always come earlier
  std::vector<Edge> edges;        // one per input
  std::vector<Shape> input_shapes;
  std::vector<DType> input_dtypes;
  BackwardFn backward;            // released after use unless retain_graph
  // Optional, for one-input view ops (narrow/select/slice) whose input gradient is zero
  // outside the view. The engine then adds the view's gradient into one buffer it owns per
  // input instead of calling backward(), which would allocate a full-size zeros tensor per
  // view: taking x[:, t] for t < T and backpropagating would cost O(T^2) otherwise.
  AccumulateFn accumulate_into;
  std::vector<GradHook> hooks;    // hooks registered on the output tensor
  std::weak_ptr<TensorImpl> output;  // for retain_grad()
  bool released = false;
};

// A tensor saved for backward together with its storage version at save time. get()
// throws if the tensor was modified in place afterwards, since backward would be wrong.
class Saved {
 public:
  Saved() = default;
  // Keeps a detached alias: backward needs the values only, and this breaks the cycle
  // output -> grad_fn -> closure -> output when an op saves its own result.
  explicit Saved(const Tensor& t) : tensor_(t.defined() ? t.detach() : t), version_(t.defined() ? t.version() : 0) {}
  const Tensor& get() const;

 private:
  Tensor tensor_;
  uint64_t version_ = 0;
};

// Records `out = name(inputs)` on the tape when grad mode is on and any input requires grad,
// and returns out (now with a grad_fn). Every op ends with this call, which is also where
// anomaly mode checks the forward result for NaN/Inf.
Tensor record(std::string_view name, Tensor out, const std::vector<Tensor>& inputs, BackwardFn backward);

// True when an op on these inputs will be recorded (lets an op skip saving state otherwise).
bool will_record(const std::vector<Tensor>& inputs);

// Runs reverse mode from `root` with upstream gradient `grad` (defined by Tensor::backward).
void run_backward(const Tensor& root, const Tensor& grad, bool retain_graph);

}  // namespace hm::autograd
