// Shared test utilities: value comparison, float64 gradcheck inputs, exception matching.
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/parallel.h"
#include "harmonic/core/print.h"
#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/nn/module.h"
#include "harmonic/ops/ops.h"

namespace hm::test {

// Max |a - b| <= atol + rtol |b| elementwise, with a readable failure message.
inline bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-6) {
  if (a.shape() != b.shape()) {
    MESSAGE("shape mismatch " << str(a.shape()) << " vs " << str(b.shape()));
    return false;
  }
  std::vector<double> x = a.to_vector(), y = b.to_vector();
  for (size_t i = 0; i < x.size(); ++i) {
    bool both_nan = std::isnan(x[i]) && std::isnan(y[i]);
    if (!both_nan && !(std::fabs(x[i] - y[i]) <= atol + rtol * std::fabs(y[i]))) {
      MESSAGE("element " << i << ": " << x[i] << " vs " << y[i]);
      return false;
    }
  }
  return true;
}

inline bool allclose(const Tensor& a, const std::vector<double>& expected, double rtol = 1e-5, double atol = 1e-6) {
  return allclose(a, from_vector(expected, a.shape(), {.dtype = DType::Float64}), rtol, atol);
}

// 0, 1, ..., n-1 as float64 with the given shape.
inline Tensor iota(const Shape& shape) {
  return reshape(arange(0.0, static_cast<double>(numel_of(shape)), 1.0, {.dtype = DType::Float64}), shape);
}

// A float64 leaf requiring grad with seeded normal values (for gradcheck).
inline Tensor leaf64(const Shape& shape, uint64_t seed = 1, double scale = 1.0) {
  Generator gen(seed);
  Tensor t = mul(randn(shape, {.dtype = DType::Float64}, &gen), scale);
  return t.requires_grad_(true);
}

// True when f throws an hm::Error whose message contains every fragment.
template <class F>
bool throws_with(F&& f, const std::vector<std::string>& fragments) {
  try {
    f();
  } catch (const Error& e) {
    std::string msg = e.what();
    for (const auto& frag : fragments)
      if (msg.find(frag) == std::string::npos) {
        MESSAGE("message '" << msg << "' lacks '" << frag << "'");
        return false;
      }
    return true;
  }
  MESSAGE("no exception thrown");
  return false;
}

// The names of a module's named parameters/buffers/state, in order.
inline std::vector<std::string> names_of(const nn::NamedTensors& list) {
  std::vector<std::string> out;
  for (const auto& [name, t] : list) out.push_back(name);
  return out;
}

// Every value of a module's state (parameters then buffers) in one flat list, for exact
// comparisons between runs.
inline std::vector<double> flat_params(const nn::Module& m) {
  std::vector<double> out;
  for (const auto& [name, t] : m.state_dict())
    for (double v : t.to_vector()) out.push_back(v);
  return out;
}

// A fresh directory under the system temp dir, removed with its contents at scope exit.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() / fmt::format("hm_test_{}_{}", ::getpid(), counter++);
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string str() const { return path.string(); }
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::string operator/(const std::string& name) const { return file(name); }
  // Names of the entries, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

// The whole content of a text file ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What f(log) writes to the std::FILE* it is given (an in-memory stream), e.g. a run_study log.
template <class F>
std::string capture_log(F&& f) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* log = ::open_memstream(&buffer, &size);
  REQUIRE(log != nullptr);
  struct Close {
    std::FILE* log;
    char*& buffer;
    ~Close() {
      std::fclose(log);
      std::free(buffer);
    }
  } close{log, buffer};
  f(log);
  std::fflush(log);
  return std::string(buffer, size);
}

// What f() writes to `stream` (whose file descriptor is fd: fmt::print and std::cout or std::cerr
// alike; std::cout only if flushed), captured through a temporary file; the stream is restored even when f throws.
template <class F>
std::string capture_fd(int fd, std::FILE* stream, F&& f) {
  std::fflush(stream);
  char name[] = "/tmp/hm_test_capture_XXXXXX";
  const int file = ::mkstemp(name);
  REQUIRE(file >= 0);
  const int saved = ::dup(fd);
  ::dup2(file, fd);
  struct Restore {
    int fd, saved, file;
    std::FILE* stream;
    ~Restore() {
      std::fflush(stream);
      ::dup2(saved, fd);
      ::close(saved);
      ::close(file);
    }
  };
  {
    Restore restore{fd, saved, file, stream};
    f();
  }
  std::string out = read_text(name);
  ::unlink(name);
  return out;
}

// What f() writes to stderr (fd 2) and to stdout (fd 1).
template <class F>
std::string capture_stderr(F&& f) {
  return capture_fd(2, stderr, std::forward<F>(f));
}
template <class F>
std::string capture_stdout(F&& f) {
  return capture_fd(1, stdout, std::forward<F>(f));
}

}  // namespace hm::test
