#include "harmonic/core/environment.h"

#include <cstdlib>

namespace hm {
namespace {

// clang-format off
constexpr EnvironmentVariable kVariables[] = {
    {"HARMONIC_CUDA_NO_CACHE", "0",
     "1: the CUDA allocator frees each block at once instead of caching it (compute-sanitizer, leak hunts)",
     "", "cuda/runtime/allocator.cu"},
    {"HARMONIC_CUDA_SYNC", "0",
     "1: wait for the device after every kernel launch, so an error names the launch that caused it",
     "", "cuda/runtime/context.cu"},
    {"HARMONIC_CUDNN_RNN", "0",
     "1: the recurrent layers (LSTM, GRU, tanh RNN) run on CUDA through cuDNN's RNN API where it covers the case, "
     "instead of the own fused kernels (ops/rnn_layer.h)",
     "hm::cuda::set_rnn_backend(RnnBackend)", "ops/rnn_layer.cpp"},
    {"HARMONIC_DATA_DIR", "$XDG_CACHE_HOME/harmonic, else ~/.cache/harmonic",
     "where datasets are downloaded and cached", "", "data/datasets.cpp"},
    {"HARMONIC_DEFER_INDEX_CHECKS", "1",
     "0: index checks on CUDA inside a DeferredChecks scope (the trainer's steps) throw at their op, a wait "
     "for the device per check, instead of at the host's next wait",
     "", "cuda/runtime/deferred_checks.cpp"},
    {"HARMONIC_DETERMINISTIC", "0",
     "1: deterministic mode from start-up: ops with a fixed-order kernel take it (core/deterministic.h)",
     "hm::set_deterministic(bool)", "core/deterministic.cpp"},
    {"HARMONIC_DIST_TIMEOUT", "300",
     "seconds a collective may wait before the run aborts (outside the trainer, which sets trainer.dist_timeout)",
     "", "nn/distributed/process_group.cpp"},
    {"HARMONIC_EMULATE_CUDA", "0",
     "1 on a machine without a GPU: cuda:0 is the emulated device (host memory, the kernels' host twins)",
     "", "cuda/runtime/runtime.cu"},
    {"HARMONIC_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist",
     "where the Fashion-MNIST IDX files are", "", "data/datasets.cpp"},
    {"HARMONIC_FLASH", "the tiled kernels where they measured faster",
     "softmax attention on CUDA: 0 never takes the tiled kernels, 1 takes them wherever they cover the case; "
     "unset, where they measured faster (cuda/scaled_dot_product_attention_route.h)",
     "hm::cuda::ScopedSdpaPath", "cuda/scaled_dot_product_attention_route.cpp"},
    {"HARMONIC_FLUSH_DENORMAL", "1 in the harmonic command, 0 in the library",
     "0: the harmonic command keeps subnormal floats on the CPU instead of flushing them to zero",
     "hm::set_flush_denormal(bool)", "tools/cli/main.cpp"},
    {"HARMONIC_PRETRAINED", "the install's share/harmonic/pretrained, then the source tree's",
     "the only directory searched for the shipped Chronos forecaster", "", "tools/tasks/chronos_model.cpp"},
    {"HARMONIC_TEST_RAISE_AT", "no fault",
     "RANK:STEP: that rank raises when it starts that (1-based) step (fault injection for the data-parallel tests)",
     "", "tools/train/trainer.cpp"},
};
// clang-format on

}  // namespace

std::span<const EnvironmentVariable> environment_variables() { return kVariables; }

std::string environment_value(std::string_view name) {
  const char* v = std::getenv(std::string(name).c_str());
  return v ? std::string(v) : std::string("(unset)");
}

}  // namespace hm
