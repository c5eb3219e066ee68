// The hooks live in a table keyed by the leaf's TensorImpl (TensorImpl itself stays a plain
// struct). Each entry keeps a weak_ptr to its leaf: a freed leaf's entry is expired, never
// handed to a new tensor that reuses the address, and is dropped at the next registration.
#include "harmonic/autograd/grad_ready.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace hm::autograd {
namespace {

struct Entry {
  std::weak_ptr<TensorImpl> leaf;
  std::vector<GradReadyHook> hooks;
};

std::mutex g_mutex;
std::unordered_map<const TensorImpl*, Entry> g_table;
std::atomic<size_t> g_entries{0};

}  // namespace

void register_grad_ready_hook(const Tensor& leaf, GradReadyHook hook) {
  HM_CHECK(leaf.defined() && leaf.requires_grad() && !leaf.grad_fn(), "register_grad_ready_hook",
           "tensor {} is not a leaf that requires grad", leaf.defined() ? leaf.desc() : std::string("(undefined)"));
  std::lock_guard<std::mutex> lock(g_mutex);
  std::erase_if(g_table, [](const auto& kv) { return kv.second.leaf.expired(); });
  Entry& e = g_table[leaf.impl()];
  if (e.leaf.lock() != leaf.impl_ptr()) e = Entry{leaf.impl_ptr(), {}};
  e.hooks.push_back(std::move(hook));
  g_entries = g_table.size();
}

std::vector<GradReadyHook> grad_ready_hooks(const TensorImpl* leaf) {
  if (g_entries.load() == 0) return {};
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_table.find(leaf);
  if (it == g_table.end() || it->second.leaf.lock().get() != leaf) return {};
  return it->second.hooks;
}

bool any_grad_ready_hooks() { return g_entries.load() > 0; }

}  // namespace hm::autograd
