// Tensor files in the safetensors format (https://github.com/huggingface/safetensors):
//   8-byte little-endian header length N | N bytes of JSON header | raw little-endian data
// with the header {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]},
// "__metadata__": {"key": "value"}} and offsets relative to the start of the data.
// Supported dtypes: F32, F64, I64, BOOL, BF16 and F16 (F16 is kept as stored bytes in a
// Float16 tensor: Harmonic has no F16 kernels). Writes are atomic (core/atomic_file.h).
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm {

struct SafetensorsFile {
  std::vector<std::pair<std::string, Tensor>> tensors;  // in header order
  std::map<std::string, std::string> metadata;          // "__metadata__"

  bool contains(const std::string& name) const;
  // The tensor called name; throws naming the file's tensors when absent.
  const Tensor& at(const std::string& name) const;
};

// Writes the header in the given order, the data by decreasing element size (so each
// tensor is aligned). CUDA and non-contiguous tensors are copied to contiguous CPU memory
// first; autograd state is not saved. Names must be unique.
void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

// Reads every tensor into CPU memory. A malformed file (truncated, bad JSON, unknown
// dtype, offsets out of range, overlapping or not matching shape * dtype size) raises
// hm::Error naming the file and the problem.
SafetensorsFile load_safetensors(const std::string& path);

}  // namespace hm
