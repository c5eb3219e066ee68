// IDX files, the MNIST / Fashion-MNIST format: a 4-byte magic (0, 0, element type, ndim),
// ndim big-endian uint32 sizes, then the elements big-endian in row-major order. Files may
// be gzip-compressed (read transparently through zlib). Malformed files raise hm::Error
// naming the file and the byte position.
#pragma once
#include <cstdint>
#include <string>

#include "harmonic/core/tensor.h"

namespace hm::data {

// IDX element type codes (the third magic byte).
enum class IdxType : uint8_t { UInt8 = 0x08, Int8 = 0x09, Int16 = 0x0B, Int32 = 0x0C, Float32 = 0x0D, Float64 = 0x0E };

// Any IDX file as a tensor of `dtype` (float32, float64 or int64), each element times `scale`
// (the scale applies to floating results only).
Tensor read_idx(const std::string& path, DType dtype = DType::Float32, double scale = 1.0);

// MNIST-style images: ubyte (N, H, W) -> float32 (N, H, W) in [0, 1] (divided by 255).
Tensor read_idx_images(const std::string& path);
// MNIST-style labels: ubyte (N,) -> int64 (N,).
Tensor read_idx_labels(const std::string& path);

// Writes x as an IDX file of element type `type` (values converted, uint8/int8 saturate),
// gzip-compressed when `gzip`. Mostly for tests and for exporting data.
void write_idx(const std::string& path, const Tensor& x, IdxType type, bool gzip = false);

}  // namespace hm::data
