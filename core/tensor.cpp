#include "harmonic/core/tensor.h"

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/checked_math.h"

namespace hm {

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  for (int64_t s : shape) HM_CHECK(s >= 0, "empty", "negative size in shape {}", str(shape));
  auto impl = std::make_shared<TensorImpl>();
  const int64_t bytes = checked_mul(numel_of(shape), static_cast<int64_t>(dtype_size(dtype)), "empty");
  impl->storage = std::make_shared<Storage>(static_cast<size_t>(bytes), device);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor Tensor::view_of(std::shared_ptr<Storage> storage, Shape shape, Strides strides, int64_t offset, DType dtype) {
  numel_of(shape);  // every view's element count must fit in int64 (throws naming the shape)
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->shape = std::move(shape);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

static const TensorImpl& checked(const std::shared_ptr<TensorImpl>& impl) {
  if (!impl) throw_error("Tensor", "operation on an undefined tensor");
  return *impl;
}

const Shape& Tensor::shape() const { return checked(impl_).shape; }
const Strides& Tensor::strides() const { return checked(impl_).strides; }
int64_t Tensor::offset() const { return checked(impl_).offset; }
DType Tensor::dtype() const { return checked(impl_).dtype; }
Device Tensor::device() const { return checked(impl_).storage->device; }
const std::shared_ptr<Storage>& Tensor::storage() const { return checked(impl_).storage; }

int64_t Tensor::size(int64_t d) const { return shape()[normalize_dim(d, dim(), "size")]; }

bool Tensor::is_contiguous() const {
  const auto& s = shape();
  const auto& st = strides();
  int64_t expected = 1;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] != 1 && st[i] != expected) return false;
    expected *= s[i];
  }
  return true;
}

std::string Tensor::desc() const {
  if (!defined()) return "undefined";
  return fmt::format("{} {} {}", dtype_name(dtype()), str(shape()), device().str());
}

void throw_device_memory_access(std::string_view fn, const Tensor& t) {
  throw_error(fn, fmt::format("host access to the device memory of a {} tensor: copy it to the host first "
                              "(.to(Device::cpu()), item(), to_vector()); a kernel reads device memory, host code does not",
                              t.desc()));
}

void* Tensor::raw_data() const {
  const TensorImpl& t = checked(impl_);
  return static_cast<char*>(t.storage->data) + t.offset * static_cast<int64_t>(dtype_size(t.dtype));
}

template <class T>
T Tensor::item() const {
  HM_CHECK(defined() && numel() == 1, "item", "expected a tensor with one element, got {}", desc());
  if (device().is_cuda()) cuda_check_not_capturing(device().index, "item", "reads device memory on the host");
  NoGradGuard guard;
  Tensor c = to(Device::cpu()).to(DType::Float64).contiguous();
  return static_cast<T>(*c.data<double>());
}
template float Tensor::item<float>() const;
template double Tensor::item<double>() const;
template int64_t Tensor::item<int64_t>() const;
template int Tensor::item<int>() const;
template bool Tensor::item<bool>() const;

template <class T>
std::vector<T> Tensor::to_vector_as() const {
  if (device().is_cuda())
    cuda_check_not_capturing(device().index, "to_vector", "reads device memory on the host");
  NoGradGuard guard;
  Tensor c = to(Device::cpu()).to(dtype_of<T>()).contiguous();
  const T* p = c.data<T>();
  return std::vector<T>(p, p + c.numel());
}
template std::vector<float> Tensor::to_vector_as<float>() const;
template std::vector<double> Tensor::to_vector_as<double>() const;
template std::vector<int64_t> Tensor::to_vector_as<int64_t>() const;

std::vector<double> Tensor::to_vector() const { return to_vector_as<double>(); }

// -- conversions ----------------------------------------------------------------------------

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor out = empty(shape(), dtype(), device());
  copy_kernel(device(), *this, out);
  return autograd::record("clone", out, {*this}, [](const Tensor& g, const autograd::NeedsGrad&) {
    return std::vector<Tensor>{g};
  });
}

Tensor Tensor::to(DType target) const {
  if (target == dtype()) return *this;
  Tensor out = empty(shape(), target, device());
  copy_kernel(device(), *this, out);
  if (!is_floating(target) || !is_floating(dtype())) return autograd::record("to", out, {}, nullptr);
  DType source = dtype();
  return autograd::record("to", out, {*this}, [source](const Tensor& g, const autograd::NeedsGrad&) {
    return std::vector<Tensor>{g.to(source)};
  });
}

Tensor Tensor::to(Device target) const {
  if (target == device()) return *this;
  if (device().is_cuda() && target.is_cpu())
    cuda_check_not_capturing(device().index, "to", "reads device memory on the host");
  if (target.is_cuda() && device().is_cpu())
    cuda_check_not_capturing(target.index, "to", "copies a host tensor to the device");
  Tensor src = contiguous();
  Tensor out = empty(shape(), dtype(), target);
  Device via = target.is_cuda() ? target : device();  // the CUDA side knows both directions
  device_copy_kernel(via, out.raw_data(), target, src.raw_data(), device(), numel() * dtype_size(dtype()));
  Device source = device();
  return autograd::record("to_device", out, {*this}, [source](const Tensor& g, const autograd::NeedsGrad&) {
    return std::vector<Tensor>{g.to(source)};
  });
}

// -- autograd -------------------------------------------------------------------------------

bool Tensor::requires_grad() const { return checked(impl_).requires_grad; }

Tensor& Tensor::requires_grad_(bool on) {
  check(is_leaf(), "requires_grad_", "can only be changed on a leaf tensor (this one was produced by '{}')",
        impl_->grad_fn ? impl_->grad_fn->name : "");
  check(!on || is_floating(dtype()), "requires_grad_", "only floating-point tensors can require grad, got {}",
        dtype_name(dtype()));
  impl_->requires_grad = on;
  return *this;
}

bool Tensor::is_leaf() const { return checked(impl_).grad_fn == nullptr; }
const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const { return checked(impl_).grad_fn; }
Tensor Tensor::grad() const { return checked(impl_).grad; }

void Tensor::set_grad(const Tensor& g) const {
  HM_CHECK(!g.defined() || (g.shape() == shape() && g.dtype() == dtype()), "set_grad",
           "gradient {} does not match tensor {}", g.desc(), desc());
  impl_->grad = g;
}

void Tensor::zero_grad() const { checked(impl_), impl_->grad = Tensor(); }

Tensor Tensor::detach() const {
  const TensorImpl& t = checked(impl_);
  return view_of(t.storage, t.shape, t.strides, t.offset, t.dtype);
}

void Tensor::set_data(const Tensor& src) const {
  check(src.defined(), "set_data", "source tensor is undefined");
  HM_CHECK(is_leaf(), "set_data", "only leaf tensors can have their data replaced, got {}", desc());
  TensorImpl& t = *impl_;
  t.storage = src.storage();
  t.shape = src.shape();
  t.strides = src.strides();
  t.offset = src.offset();
  t.dtype = src.dtype();
  t.grad = Tensor();
}

void Tensor::backward(const Tensor& grad, bool retain_graph) const {
  HM_CHECK(requires_grad(), "backward", "tensor {} does not require grad and has no grad_fn", desc());
  Tensor g = grad;
  if (!g.defined()) {
    HM_CHECK(numel() == 1, "backward", "grad can be implied only for one-element outputs, got {}; pass a gradient",
             desc());
    g = empty(shape(), dtype(), device());
    g.fill_(1.0);
  }
  HM_CHECK(g.shape() == shape() && g.dtype() == dtype(), "backward", "gradient {} does not match output {}", g.desc(),
           desc());
  autograd::run_backward(*this, g, retain_graph);
}

void Tensor::register_hook(GradHook hook) const {
  HM_CHECK(requires_grad(), "register_hook", "tensor {} does not require grad", desc());
  if (impl_->grad_fn)
    impl_->grad_fn->hooks.push_back(std::move(hook));
  else
    impl_->hooks.push_back(std::move(hook));
}

void Tensor::retain_grad() const {
  HM_CHECK(requires_grad(), "retain_grad", "tensor {} does not require grad", desc());
  impl_->retains_grad = true;
}

// -- in-place writes ------------------------------------------------------------------------

static void check_inplace(const Tensor& t, std::string_view fn) {
  HM_CHECK(!(grad_enabled() && t.requires_grad()), fn,
           "in-place write to {} which requires grad; wrap it in NoGradGuard (as optimizers do) or detach() first",
           t.desc());
}

Tensor& Tensor::fill_(double value) {
  check_inplace(*this, "fill_");
  fill_kernel(device(), *this, value);
  bump_version();
  return *this;
}

Tensor& Tensor::copy_(const Tensor& src) {
  check_inplace(*this, "copy_");
  check(src.defined(), "copy_", "source tensor is undefined");
  Shape b = broadcast_shapes(src.shape(), shape(), "copy_");
  HM_CHECK(b == shape(), "copy_", "cannot copy {} into {}", str(src.shape()), str(shape()));
  Tensor s = src.device() == device() ? src : src.detach().to(device());
  Tensor expanded = view_of(s.storage(), shape(), broadcast_strides(s.shape(), s.strides(), shape()), s.offset(),
                            s.dtype());
  copy_kernel(device(), expanded, *this);
  bump_version();
  return *this;
}

uint64_t Tensor::version() const { return checked(impl_).storage->version; }
void Tensor::bump_version() const { ++checked(impl_).storage->version; }

}  // namespace hm
