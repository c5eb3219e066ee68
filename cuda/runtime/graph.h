// CUDA graph capture (no CUDA headers; safe anywhere): record the kernels of a piece of work
// once, then replay them without the host launching each one.
//
//   cuda::Graph graph;
//   graph.begin_capture(0);  // the work below is recorded on cuda:0's stream, not run
//   step();                  // kernels only: no host read, no synchronisation
//   graph.end_capture();
//   graph.replay();          // runs the recorded kernels, in order, on the same buffers
//
// On a GPU this is cudaStreamBeginCapture / cudaStreamEndCapture / cudaGraphInstantiate /
// cudaGraphLaunch on the device's one stream. On the emulated device (cuda/runtime/emulation.h)
// each kernel-slot call (core/dispatch.h) is recorded with copies of its arguments and not
// run, as a GPU's capture runs nothing, and replay() calls the recorded host twins in order.
// Either way a replay reads and writes the memory the capture saw: inputs are copied into the
// tensors the capture read ("static" buffers), outputs are read from the tensors it wrote.
//
// While a graph is being captured, work that a graph cannot hold raises an hm::Error naming
// the op: a host read of device memory (Tensor::item, to(cpu), to_vector), a copy from host
// memory to the device, a synchronisation, and reading the deferred checks' verdicts.
// Random draws on the device (`uniform`, `normal`, `rand`, `randn`, dropout and the fused
// attention ops' dropout) go through reserve_philox (core/philox_draw.h): the kernels read
// their offset from a device tensor that each replay sets, so replays draw eager's numbers
// step for step.
//
// Memory: allocations during capture come from the graph's private pool of the caching
// allocator (cuda/runtime/allocator.h), and every block freed during capture joins that pool
// too (a captured kernel may still use it). The pool's blocks are never handed to other
// allocations while the graph lives, so a replay cannot overwrite another tensor; the pool
// returns to the allocator's cache when the graph is destroyed. Tensors the graph reads that
// were allocated before the capture (parameters, optimizer state, the static inputs) must
// outlive the graph.
//
// One capture at a time per thread; a graph captures on one device.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace hm::cuda {

class Graph {
 public:
  Graph();
  ~Graph();  // ends a capture still in progress, then frees the graph and its pool
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Starts recording the calling thread's work on cuda:device. Throws when a capture is
  // already in progress on this thread or this graph was captured before.
  void begin_capture(int device);
  // Stops recording and makes the graph ready to replay. Throws when no capture is in progress.
  void end_capture();
  // Stops a capture and drops what it recorded (after an error inside it); a no-op otherwise.
  void abort_capture();
  // Runs the recorded work once. Throws unless end_capture() succeeded.
  void replay();

  bool ready() const;        // captured and ended
  int device() const;        // -1 before begin_capture
  size_t node_count() const;  // kernels recorded (emulated device) or graph nodes (GPU)

  struct Impl;  // the runtime's state of the graph (graph.cu)

 private:
  std::unique_ptr<Impl> impl_;
};

// True while the calling thread captures a graph on cuda:device (on a GPU, also when the
// device's stream reports an active capture: cudaStreamIsCapturing).
bool capturing(int device);
// Throws "[fn] <what> while a CUDA graph is being captured on cuda:device ..." when capturing.
void check_not_capturing(int device, std::string_view fn, std::string_view what);

}  // namespace hm::cuda
