// Scoring a GPT language model on a token stream: perplexity over non-overlapping windows,
// and the fixed batches of windows that head studies measure on. Used by the kjv-lm task
// (validation / test perplexity) and by `harmonic eval --text FILE`.
#pragma once
#include <cstdint>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/models/gpt.h"

namespace hm::train {

struct StreamScore {
  int64_t tokens = 0;  // tokens predicted (each scored once)
  double loss = 0;     // mean next-token NLL in nats
  double ppl() const;  // exp(loss)
};

// Inputs of the windows that score_token_stream runs, for a stream of n tokens: window i
// predicts tokens start+1 .. start+len from tokens start .. start+len-1. Non-overlapping
// block_size windows from the start; with max_tokens = 0 (or >= n - 1) all of them plus a
// last partial window, so every token but the first is predicted exactly once; otherwise
// W = ceil(max_tokens / block_size) full windows evenly spaced over the stream (window
// floor(i * F / W) of the F full ones), so a prefix never stands for the whole split.
struct StreamWindow {
  int64_t start, len;
};
std::vector<StreamWindow> lm_eval_windows(int64_t n, int64_t block_size, int64_t max_tokens = 0);

// Mean next-token cross-entropy of gpt over tokens (N,) int64 (any device) on
// lm_eval_windows(N, gpt.config.block_size, max_tokens), batch_size windows per forward,
// without gradients, in the module's current mode (call eval() first). Each window starts
// with no context, as the task's training windows do. Needs N >= 2.
StreamScore score_token_stream(models::GPT& gpt, const Tensor& tokens, int64_t max_tokens = 0, int64_t batch_size = 16);

// count windows of block_size tokens, evenly spaced over tokens (N,) (start floor(i * (N -
// block_size) / max(count - 1, 1))): (count, block_size) int64 on the stream's device.
Tensor lm_spread_windows(const Tensor& tokens, int64_t block_size, int64_t count);

}  // namespace hm::train
