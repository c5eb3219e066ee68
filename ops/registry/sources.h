// Where each op of the registry lives, by one stem through every layer:
//   ops/<stem>.h          its API            ops/<stem>.cpp        forward and backward
//   ops/<stem>_kernels.h  its kernel slots   ops/cpu/<stem>.cpp    the CPU kernels
//   cuda/<stem>.cu        the CUDA kernels   tests/ops/test_<stem>.cpp  its tests, [cuda] cases beside
// A stem without kernels of a layer says so (views need none; some ops run their composed
// form on CUDA). `harmonic op --where NAME` prints the files; tests/ops/test_op_sources.cpp
// checks every listed file exists, every unlisted one does not, and the header and test name
// the op.
#pragma once
#include <string>
#include <vector>

namespace hm::ops {

struct OpStem {
  std::string stem;
  std::vector<std::string> ops;  // registry names
  bool slots = true;             // ops/<stem>_kernels.h
  bool cpu = true;               // ops/cpu/<stem>.cpp
  bool cuda = true;              // cuda/<stem>.cu; false: the composed form runs on CUDA
};

const std::vector<OpStem>& op_stems();

// The stem of a registry op; throws an hm::Error naming `op` when no stem lists it.
const OpStem& stem_of(const std::string& op);

// The source files of a stem, relative to the repository root, one "layer: path" per line
// ("cuda: composed on CUDA (no kernel)" where a layer has none).
std::vector<std::string> source_lines(const OpStem& stem);

}  // namespace hm::ops
