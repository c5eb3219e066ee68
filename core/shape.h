// Shapes, strides and the small pieces of index arithmetic every op shares.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace hm {

using Shape = std::vector<int64_t>;    // sizes, outermost first
using Strides = std::vector<int64_t>;  // in elements, not bytes
using Dims = std::vector<int64_t>;     // dims to reduce over; empty = all dims

int64_t numel_of(const Shape& shape);
Strides contiguous_strides(const Shape& shape);
std::string str(const Shape& shape);  // "(2, 3)"
// std::cout << x.shape() prints str(shape). Shape is a std::vector, so argument-dependent lookup
// does not see this: it is found inside namespace hm or after `using namespace hm`.
std::ostream& operator<<(std::ostream& os, const Shape& shape);

// Maps dim in [-ndim, ndim) to [0, ndim); throws naming fn otherwise.
int64_t normalize_dim(int64_t dim, int64_t ndim, std::string_view fn);
// Normalises a list of dims, sorts it and rejects repeats; empty means "all dims".
std::vector<int64_t> normalize_dims(const std::vector<int64_t>& dims, int64_t ndim, std::string_view fn);

// NumPy broadcasting of two shapes; throws naming fn when they are incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view fn);
// True when `shape` broadcasts to `target` unchanged (no more dims; each 1 or equal).
bool broadcasts_to(const Shape& shape, const Shape& target);
// Strides that read a tensor of (shape, strides) as if it had shape `target` (0 on broadcast dims).
Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& target);

}  // namespace hm
