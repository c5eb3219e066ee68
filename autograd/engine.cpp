// The tape: record() appends a node (only when some input requires grad), run_backward()
// replays the reachable part of the tape in reverse order of recording.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <unordered_map>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/grad_ready.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/elementwise.h"

namespace hm::autograd {
namespace {

std::atomic<uint64_t> g_sequence{0};

// Number of NaN/Inf elements (float dtypes only).
int64_t count_nonfinite(const Tensor& t) {
  if (!is_floating(t.dtype())) return 0;
  Tensor c = t.to(Device::cpu()).to(DType::Float64).contiguous();
  const double* p = c.data<double>();
  int64_t n = 0;
  for (int64_t i = 0; i < c.numel(); ++i) n += !std::isfinite(p[i]);
  return n;
}

void check_finite(const Tensor& t, std::string_view what, std::string_view op) {
  NoGradGuard guard;
  int64_t bad = count_nonfinite(t);
  if (bad)
    throw_error("anomaly", fmt::format("{} of op '{}' has {} NaN/Inf value(s) out of {} (shape {})", what, op, bad,
                                       t.numel(), str(t.shape())));
}

Edge edge_of(const Tensor& t) {
  if (!t.defined() || !t.requires_grad()) return {};
  if (t.grad_fn()) return {t.grad_fn(), nullptr};
  return {nullptr, t.impl_ptr()};
}

Tensor apply_hooks(const std::vector<GradHook>& hooks, Tensor grad) {
  for (const auto& hook : hooks) {
    Tensor replaced = hook(grad);
    if (replaced.defined()) grad = replaced;
  }
  return grad;
}

Tensor accumulate(const Tensor& current, const Tensor& incoming) {
  return current.defined() ? add(current, incoming) : incoming;
}

// A gradient being summed for one node or leaf. `owned` when the engine allocated the tensor
// itself (a zero buffer or a clone), so no user, hook or other node can see it yet and it may
// be added into in place; a gradient returned by backward() may be shared and never is.
struct Slot {
  Tensor grad;
  bool owned = false;
};

void accumulate_slot(Slot& slot, const Tensor& incoming) {
  if (!slot.grad.defined()) {
    slot.grad = incoming;
  } else if (slot.owned) {
    add_(slot.grad, incoming);
  } else {
    slot.grad = add(slot.grad, incoming);
  }
}

// Adds a view op's gradient into the full-size buffer of its input (node->accumulate_into).
// The buffer is allocated once per input, so many views of one tensor cost O(their size).
void accumulate_view(Slot& slot, const Node& node, const Tensor& g) {
  if (!slot.grad.defined()) {
    slot.grad = zeros(node.input_shapes[0], {.dtype = g.dtype(), .device = g.device()});
    slot.owned = true;
  } else if (!slot.owned) {
    slot.grad = slot.grad.clone();
    slot.owned = true;
  }
  node.accumulate_into(slot.grad, g);
}

}  // namespace

const Tensor& Saved::get() const {
  if (tensor_.defined() && tensor_.version() != version_)
    throw_error("autograd", fmt::format("a tensor saved for backward ({}) was modified in place after it was saved "
                                        "(version {} -> {}); clone it before modifying",
                                        tensor_.desc(), version_, tensor_.version()));
  return tensor_;
}

bool will_record(const std::vector<Tensor>& inputs) {
  if (!grad_enabled()) return false;
  return std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.defined() && t.requires_grad(); });
}

Tensor record(std::string_view name, Tensor out, const std::vector<Tensor>& inputs, BackwardFn backward) {
  if (anomaly_enabled()) check_finite(out, "forward output", name);
  if (!will_record(inputs)) return out;
  auto node = std::make_shared<Node>();
  node->name = std::string(name);
  node->sequence = g_sequence.fetch_add(1);
  for (const Tensor& t : inputs) {
    node->edges.push_back(edge_of(t));
    node->input_shapes.push_back(t.defined() ? t.shape() : Shape{});
    node->input_dtypes.push_back(t.defined() ? t.dtype() : DType::Float32);
  }
  node->backward = std::move(backward);
  node->output = out.impl_ptr();
  out.impl()->grad_fn = node;
  out.impl()->requires_grad = true;
  return out;
}

void run_backward(const Tensor& root, const Tensor& grad, bool retain_graph) {
  NoGradGuard no_grad;
  const std::shared_ptr<Node>& start = root.grad_fn();
  if (!start) {  // a leaf: its gradient is the upstream gradient itself
    TensorImpl* leaf = root.impl();
    Tensor g = apply_hooks(leaf->hooks, grad);
    leaf->grad = accumulate(leaf->grad, g);
    for (const auto& hook : grad_ready_hooks(leaf)) hook(root);
    return;
  }

  // Collect the reachable part of the tape; recording order is a topological order.
  std::vector<Node*> nodes;
  std::unordered_map<Node*, Slot> grads;
  {
    std::vector<Node*> stack{start.get()};
    grads[start.get()] = Slot{};
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      nodes.push_back(n);
      for (const Edge& e : n->edges)
        if (e.node && grads.emplace(e.node.get(), Slot{}).second) stack.push_back(e.node.get());
    }
  }
  std::sort(nodes.begin(), nodes.end(), [](Node* a, Node* b) { return a->sequence > b->sequence; });
  grads[start.get()].grad = grad;
  // View gradients summed per leaf (leaves without hooks only), added to .grad at the end or
  // when the leaf is ready.
  std::vector<std::pair<std::shared_ptr<TensorImpl>, Slot>> leaf_buffers;
  std::unordered_map<TensorImpl*, size_t> leaf_buffer_index;
  auto flush_leaf_buffer = [](std::shared_ptr<TensorImpl>& leaf, Slot& slot) {
    if (!leaf || !slot.grad.defined()) return;
    Tensor hooked = apply_hooks(leaf->hooks, slot.grad);
    leaf->grad = accumulate(leaf->grad, hooked.contiguous());
    slot = Slot{};
  };
  // Leaves with grad-ready hooks: the edges into them still to be processed. A leaf is ready
  // when its count reaches zero, i.e. after the last reachable node that feeds it.
  std::unordered_map<TensorImpl*, int64_t> pending_edges;
  std::unordered_map<TensorImpl*, std::vector<GradReadyHook>> ready_hooks;
  if (any_grad_ready_hooks())
    for (Node* n : nodes)
      for (const Edge& e : n->edges) {
        if (!e.leaf) continue;
        auto [it, fresh] = ready_hooks.try_emplace(e.leaf.get());
        if (fresh) it->second = grad_ready_hooks(e.leaf.get());
        if (!it->second.empty()) ++pending_edges[e.leaf.get()];
      }
  auto edges_done = [&](const Node& n) {
    if (pending_edges.empty()) return;
    for (const Edge& e : n.edges) {
      if (!e.leaf) continue;
      auto it = pending_edges.find(e.leaf.get());
      if (it == pending_edges.end() || --it->second > 0) continue;
      pending_edges.erase(it);
      if (auto b = leaf_buffer_index.find(e.leaf.get()); b != leaf_buffer_index.end())
        flush_leaf_buffer(leaf_buffers[b->second].first, leaf_buffers[b->second].second);
      const Tensor leaf(e.leaf);
      for (const auto& hook : ready_hooks[e.leaf.get()]) hook(leaf);
    }
  };

  for (Node* node : nodes) {
    Tensor g = std::move(grads[node].grad);
    grads.erase(node);
    if (!g.defined()) {  // nothing flowed into this node
      edges_done(*node);
      continue;
    }
    if (node->released)
      throw_error("backward", fmt::format("the graph behind op '{}' was already freed by an earlier backward(); "
                                          "pass retain_graph=true to backward through it twice",
                                          node->name));
    g = apply_hooks(node->hooks, g);
    if (auto out = node->output.lock(); out && out->retains_grad) out->grad = accumulate(out->grad, g);

    // Fast path for views: add into the input's buffer instead of calling backward(). Anomaly
    // mode and leaves with hooks keep the full-size gradient, so they see exactly what they did.
    if (node->accumulate_into && !anomaly_enabled() && node->edges.size() == 1 && node->edges[0].defined() &&
        g.dtype() == node->input_dtypes[0] && (node->edges[0].node || node->edges[0].leaf->hooks.empty())) {
      const Edge& e = node->edges[0];
      try {
        if (e.node) {
          accumulate_view(grads[e.node.get()], *node, g);
        } else {
          auto [it, fresh] = leaf_buffer_index.emplace(e.leaf.get(), leaf_buffers.size());
          if (fresh) leaf_buffers.push_back({e.leaf, Slot{}});
          accumulate_view(leaf_buffers[it->second].second, *node, g);
        }
      } catch (const Error& err) {
        throw Error(fmt::format("[backward of {}] {}", node->name, err.what()));
      }
      if (!retain_graph) {
        node->backward = nullptr;
        node->accumulate_into = nullptr;
        node->released = true;
      }
      edges_done(*node);
      continue;
    }

    NeedsGrad needs(node->edges.size());
    for (size_t i = 0; i < needs.size(); ++i) needs[i] = node->edges[i].defined();
    std::vector<Tensor> input_grads;
    try {
      input_grads = node->backward(g, needs);
    } catch (const Error& e) {
      throw Error(fmt::format("[backward of {}] {}", node->name, e.what()));
    }
    check(input_grads.size() == node->edges.size(), "backward", "op '{}' returned {} gradients for {} inputs",
          node->name, input_grads.size(), node->edges.size());
    if (!retain_graph) {
      node->backward = nullptr;  // frees the saved tensors
      node->accumulate_into = nullptr;
      node->released = true;
    }

    for (size_t i = 0; i < input_grads.size(); ++i) {
      const Edge& e = node->edges[i];
      Tensor& gi = input_grads[i];
      if (!e.defined() || !gi.defined()) continue;
      // Ops that mix bfloat16 with float32 (binary ops promote to float32) return the float32
      // gradient; it is rounded to the input's dtype here, as PyTorch's engine does.
      if (gi.dtype() != node->input_dtypes[i] && mixes_bf16_and_float32(gi.dtype(), node->input_dtypes[i]))
        gi = gi.to(node->input_dtypes[i]);
      HM_CHECK(gi.shape() == node->input_shapes[i] && gi.dtype() == node->input_dtypes[i], "backward",
               "op '{}' produced a gradient {} for input {} of shape {} and dtype {}", node->name, gi.desc(), i,
               str(node->input_shapes[i]), dtype_name(node->input_dtypes[i]));
      if (anomaly_enabled()) check_finite(gi, fmt::format("gradient of input {}", i), node->name);
      if (e.node) {
        accumulate_slot(grads[e.node.get()], gi);
      } else {
        TensorImpl* leaf = e.leaf.get();
        Tensor hooked = apply_hooks(leaf->hooks, gi);
        leaf->grad = accumulate(leaf->grad, hooked.contiguous());
      }
    }
    edges_done(*node);
  }

  for (auto& [leaf, slot] : leaf_buffers) flush_leaf_buffer(leaf, slot);
}

}  // namespace hm::autograd
