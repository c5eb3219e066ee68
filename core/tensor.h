// Tensor: a cheap handle (one shared_ptr) over a TensorImpl that holds a view of shared
// storage (shape, element strides, offset, dtype) plus its autograd state. Views made by
// reshape/permute/slice/expand share storage; contiguous() copies only when needed.
#pragma once
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "harmonic/core/dtype.h"
#include "harmonic/core/shape.h"
#include "harmonic/core/storage.h"

namespace hm {

namespace autograd {
struct Node;
}
class Tensor;

// A gradient hook sees the gradient flowing into a tensor; it may return a replacement
// gradient, or an undefined Tensor to leave it unchanged.
using GradHook = std::function<Tensor(const Tensor& grad)>;

struct TensorImpl;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  // An uninitialised contiguous tensor.
  static Tensor empty(const Shape& shape, DType dtype = DType::Float32, Device device = Device::cpu());
  // A view of existing storage.
  static Tensor view_of(std::shared_ptr<Storage> storage, Shape shape, Strides strides, int64_t offset, DType dtype);

  // -- metadata ---------------------------------------------------------------------------
  bool defined() const { return impl_ != nullptr; }
  const Shape& shape() const;
  const Strides& strides() const;
  int64_t offset() const;
  int64_t dim() const { return static_cast<int64_t>(shape().size()); }
  int64_t size(int64_t d) const;  // negative d counts from the back
  int64_t numel() const { return numel_of(shape()); }
  DType dtype() const;
  Device device() const;
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const;
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool same(const Tensor& other) const { return impl_ == other.impl_; }
  // "float32 (2, 3) cpu", for error messages.
  std::string desc() const;

  // -- data -------------------------------------------------------------------------------
  void* raw_data() const;                    // address of the first element (a device address on CUDA: never dereference it on the host)
  template <class T> T* data() const;        // typed; checks the dtype, and that the memory is the host's (or a CUDA kernel's, core/dispatch.h)
  template <class T> T item() const;         // the single element of a 1-element tensor, converted to T
  std::vector<double> to_vector() const;     // all elements in row-major order (for tests, printing)
  template <class T> std::vector<T> to_vector_as() const;

  // -- conversions (differentiable where it makes sense) ------------------------------------
  Tensor contiguous() const;   // self when already contiguous
  Tensor clone() const;        // always a fresh contiguous copy
  Tensor to(DType dtype) const;
  Tensor to(Device device) const;

  // -- autograd ---------------------------------------------------------------------------
  bool requires_grad() const;
  Tensor& requires_grad_(bool on = true);
  bool is_leaf() const;
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  Tensor grad() const;                       // accumulated gradient of a leaf (or retained non-leaf)
  void set_grad(const Tensor& g) const;
  void zero_grad() const;                    // drops the accumulated gradient
  Tensor detach() const;                     // same storage, no history
  // Replaces this tensor's data (storage, shape, strides, dtype) with src's, keeping the
  // handle and its autograd flags: how Module::to() moves parameters that layers hold.
  void set_data(const Tensor& src) const;
  // Reverse-mode pass from this tensor. grad defaults to 1 for a one-element tensor.
  void backward(const Tensor& grad = {}, bool retain_graph = false) const;
  void register_hook(GradHook hook) const;
  void retain_grad() const;                  // keep .grad on a non-leaf

  // -- in-place writes (never recorded on the tape; they bump the version counter) ---------
  Tensor& fill_(double value);
  Tensor& zero_() { return fill_(0.0); }
  Tensor& copy_(const Tensor& src);          // broadcasts and converts src into this view
  uint64_t version() const;
  void bump_version() const;

  // -- PyTorch-style methods: thin forwards to the free functions of the same name ---------
  // (ops/shape_views.h, ops/sum.h, ops/matmul.h...; defined above core, in ops/tensor_methods.cpp).
  // Inside Tensor's own member functions these names mean the members: call the ops as hm::sum(...).
  Tensor reshape(Shape shape) const;
  Tensor view(Shape shape) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor permute(const std::vector<int64_t>& dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor squeeze(int64_t dim) const;
  Tensor squeeze() const;  // every size-1 dim
  Tensor unsqueeze(int64_t dim) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const;  // select(0, index): x[i] drops the first dim
  Tensor sum(const Dims& dims = {}, bool keepdim = false) const;
  Tensor mean(const Dims& dims = {}, bool keepdim = false) const;
  Tensor matmul(const Tensor& other) const;
  // Elementwise (ops/unary.h, ops/binary.h) and along a dim (ops/softmax.h).
  Tensor relu() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor abs() const;
  Tensor pow(double exponent) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor clamp(double lo, double hi) const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  // Full reductions to a 0-d tensor, like torch's x.max() (ops/extrema.h amax/amin over all dims).
  Tensor max() const;
  Tensor min() const;
  // In place, not recorded (ops/binary.h): x += alpha * other, x *= s.
  Tensor& add_(const Tensor& other, double alpha = 1.0);
  Tensor& mul_(double s);
  // x.float() and x.double() cannot be spelled in C++ (keywords): use to(DType::Float32), as
  // libtorch's x.to(torch::kFloat).

 private:
  std::shared_ptr<TensorImpl> impl_;
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape;      // sizes
  Strides strides;  // element strides
  int64_t offset = 0;
  DType dtype = DType::Float32;

  bool requires_grad = false;
  bool retains_grad = false;
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;  // null for leaves
  std::vector<GradHook> hooks;              // hooks of a leaf; a non-leaf keeps them on grad_fn
};

// The values as hm::to_string prints them (core/print.h): std::cout << x.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

// Throws: `fn` asked for host access to t's device memory outside a kernel.
[[noreturn]] void throw_device_memory_access(std::string_view fn, const Tensor& t);

template <class T>
T* Tensor::data() const {
  check(defined(), "data", "undefined tensor");
  check(dtype() == dtype_of<T>(), "data", "requested {} pointer from a {} tensor", dtype_name(dtype_of<T>()),
        dtype_name(dtype()));
  if (device().is_cuda() && !KernelScope::active()) [[unlikely]]
    throw_device_memory_access("data", *this);
  return static_cast<T*>(raw_data());
}

// Converts and copies a strided tensor of any dtype into a contiguous tensor of dst's shape.
// Shapes must match exactly (callers expand first). Bound per device like every kernel.
inline Kernel<void(const Tensor& src, const Tensor& dst)> copy_kernel{"copy_"};
inline Kernel<void(const Tensor& dst, double value)> fill_kernel{"fill_"};

}  // namespace hm
