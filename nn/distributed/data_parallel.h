// Data-parallel gradients, as PyTorch's DistributedDataParallel does them: the parameters are
// packed into buckets (about bucket_mb each, in reverse registration order, roughly the order
// backward finishes them); a grad-ready hook (autograd/grad_ready.h) copies each
// parameter's gradient into its bucket, and a full bucket is all-reduced on a communication
// thread while backward goes on. finish() waits for every bucket and writes the averages back.
//
//   dist::DataParallel ddp(model.parameters(), group, {.bucket_mb = 25});
//   ddp.begin_sync();            // the next backward is the last of the step
//   loss.backward();             // buckets are reduced as their gradients become ready
//   ddp.finish();                // every .grad is now the mean over ranks
//   opt.step();
//
// Buckets are launched strictly in bucket order on every rank (a ready bucket waits for the
// ones before it), so the ranks' collectives always match. A parameter that got no gradient
// in the step contributes zeros, and leaves finish() with a zero .grad.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "harmonic/nn/distributed/process_group.h"

namespace hm::dist {

struct DataParallelOptions {
  double bucket_mb = 25;  // MiB of gradients per all-reduce
  bool overlap = true;    // reduce buckets during backward (false: all of them in finish())
};

// Every rank's tensors become root's (parameters and buffers at the start of training).
void broadcast_tensors(ProcessGroup& group, const std::vector<Tensor>& tensors, int root = 0);

class DataParallel {
 public:
  DataParallel(std::vector<Tensor> params, std::shared_ptr<ProcessGroup> group, DataParallelOptions options = {});
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  // The next backward pass produces the step's final gradients: its ready hooks fill and
  // launch buckets. Backward passes outside begin_sync()..finish() (gradient accumulation's
  // earlier micro-batches) only accumulate locally.
  void begin_sync();
  // Launches the buckets backward did not complete, waits for all, and sets every
  // parameter's .grad to the mean over ranks. Rethrows a failure of the communication thread.
  void finish();

  // The same sync in three calls, for a step replayed as CUDA graphs (the trainer's
  // cuda_graph): pack_grads() copies every .grad (or zeros) into its bucket and unpack_grads()
  // sets every .grad to its bucket's mean, device work only, so each can be captured in a
  // graph; all_reduce_buckets() is the collective between the two graphs. Only the buckets are
  // read and written between them: a graph's gradients stay where its capture put them.
  void pack_grads();
  void all_reduce_buckets();
  void unpack_grads();

  int64_t num_buckets() const { return static_cast<int64_t>(buckets_.size()); }
  // Buckets of the last synced step launched from inside backward (the overlap at work).
  int64_t launched_during_backward() const { return launched_in_backward_; }

 private:
  struct Bucket {
    std::vector<int64_t> params;   // indices into params_
    std::vector<int64_t> offsets;  // element offset of each parameter in flat
    Tensor flat;                   // (numel,) the bucket's gradients, contiguous
    int64_t ready = 0;             // parameters copied in this step
    bool launched = false;
  };
  void on_ready(int64_t param);
  void copy_in(int64_t param);               // the parameter's gradient (or zeros) into its bucket slice
  void launch_in_order(bool from_backward);  // launches complete buckets, in bucket order
  void comm_loop();
  void wait_all();

  std::vector<Tensor> params_;
  std::shared_ptr<ProcessGroup> group_;
  DataParallelOptions options_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<int64_t, int64_t>> where_;  // per parameter: (bucket, index in bucket)
  std::vector<bool> param_ready_;
  std::shared_ptr<DataParallel*> self_;  // the hooks' weak handle: they outlive this object on the tensors
  bool syncing_ = false;
  int64_t next_launch_ = 0, launched_in_backward_ = 0;

  // The communication thread's queue of bucket indices.
  std::thread comm_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<int64_t> queue_;
  int64_t pending_ = 0;  // launched, not yet reduced
  std::exception_ptr error_;
  bool stop_ = false;
};

}  // namespace hm::dist
