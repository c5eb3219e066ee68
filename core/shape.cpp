#include "harmonic/core/shape.h"

#include <algorithm>
#include <ostream>

#include "harmonic/core/error.h"

namespace hm {

int64_t numel_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    int64_t next;
    if (__builtin_mul_overflow(n, s, &next))
      throw_error("numel", fmt::format("shape {} has more elements than int64 can count", str(shape)));
    n = next;
  }
  return n;
}

Strides contiguous_strides(const Shape& shape) {
  Strides strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    if (__builtin_mul_overflow(s, std::max<int64_t>(shape[i], 1), &s))
      throw_error("contiguous_strides", fmt::format("shape {} has more elements than int64 can count", str(shape)));
  }
  return strides;
}

std::string str(const Shape& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

std::ostream& operator<<(std::ostream& os, const Shape& shape) { return os << str(shape); }

int64_t normalize_dim(int64_t dim, int64_t ndim, std::string_view fn) {
  int64_t range = std::max<int64_t>(ndim, 1);  // a 0-d tensor accepts dim 0 and -1
  check(dim >= -range && dim < range, fn, "dim {} out of range for a tensor with {} dims", dim, ndim);
  return dim < 0 ? dim + range : dim;
}

std::vector<int64_t> normalize_dims(const std::vector<int64_t>& dims, int64_t ndim, std::string_view fn) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) out.push_back(normalize_dim(d, ndim, fn));
  std::sort(out.begin(), out.end());
  check(std::adjacent_find(out.begin(), out.end()) == out.end(), fn, "dim repeated in the list of dims");
  if (ndim == 0) out.clear();
  return out;
}

bool broadcasts_to(const Shape& shape, const Shape& target) {
  if (shape.size() > target.size()) return false;
  const size_t off = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && shape[i] != target[off + i]) return false;
  return true;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view fn) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    HM_CHECK(da == db || da == 1 || db == 1, fn, "shapes {} and {} cannot be broadcast together", str(a), str(b));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& target) {
  Strides out(target.size(), 0);
  size_t lead = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    out[lead + i] = shape[i] == 1 && target[lead + i] != 1 ? 0 : strides[i];
  return out;
}

}  // namespace hm
