// The 2-rank test (ctest runs it as `mpirun --oversubscribe -np 2 harmonic_dist_tests`, see
// tests/distributed/mpirun.sh): the MPI collectives, data-parallel gradients against the
// full-batch gradient, and the Trainer: global batch B on 2 ranks against 1 rank with batch B,
// checkpoints moving between 2 ranks and 1. Every rank runs every case in the same order.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "harmonic/core/factories.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/data/shard.h"
#include "harmonic/nn/distributed/data_parallel.h"
#include "harmonic/nn/distributed/process_group.h"
#include "harmonic/nn/linear.h"
#include "harmonic/ops/ops.h"
#include "harmonic/tools/train/task.h"
#include "harmonic/tools/train/trainer.h"

using namespace hm;
using train::Json;

namespace {

std::shared_ptr<dist::ProcessGroup> world2() {
  auto group = dist::world();
  REQUIRE_MESSAGE(group->world_size() == 2, "run under mpirun -np 2 (tests/distributed/mpirun.sh)");
  return group;
}

// max |a - b| / (atol + rtol |b|) <= 1, elementwise.
bool close(const std::vector<double>& a, const std::vector<double>& b, double rtol, double atol) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::abs(a[i] - b[i]) > atol + rtol * std::abs(b[i])) return false;
  return true;
}

// max |a - b| / (1e-3 + |b|): what the tolerance is up against, printed by the trainer cases.
double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]) / (1e-3 + std::abs(b[i])));
  return worst;
}

std::vector<double> flat(const nn::Module& m) {
  std::vector<double> out;
  for (const Tensor& p : m.parameters())
    for (double v : p.to_vector()) out.push_back(v);
  return out;
}

std::string run_dir(const std::string& name) {
  const char* base = std::getenv("HARMONIC_DIST_TEST_DIR");
  return (std::filesystem::path(base ? base : "dist_test_runs") / name).string();
}

}  // namespace

TEST_CASE("mpi: all_reduce, broadcast, all_gather, barrier on 2 ranks") {
  auto g = world2();
  CHECK(g->backend() == "mpi");
  const double r = g->rank();
  Tensor f = tensor({r + 1, 10 * (r + 1)});
  g->all_reduce(f, dist::ReduceOp::Sum);
  CHECK(f.to_vector() == std::vector<double>{3, 30});
  Tensor d = tensor({r, 2 * r + 1}).to(DType::Float64);
  g->all_reduce(d, dist::ReduceOp::Avg);
  CHECK(d.to_vector() == std::vector<double>{0.5, 2});
  Tensor i = full({3}, r + 5, {.dtype = DType::Int64});
  g->all_reduce(i, dist::ReduceOp::Sum);
  CHECK(i.to_vector() == std::vector<double>{11, 11, 11});
  // A strided view is reduced through a contiguous copy and written back into the view.
  Tensor m = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  Tensor col = transpose(m, 0, 1);  // (3, 2) non-contiguous
  g->all_reduce(col, dist::ReduceOp::Sum);
  CHECK(m.to_vector() == std::vector<double>{2, 4, 6, 8, 10, 12});
  Tensor b = full({4}, r == 1 ? 7.0 : -1.0);
  g->broadcast(b, 1);
  CHECK(b.to_vector() == std::vector<double>{7, 7, 7, 7});
  Tensor gathered = g->all_gather(tensor({r, r + 0.5}));  // (2, 2)
  CHECK(gathered.shape() == Shape{2, 2});
  CHECK(gathered.to_vector() == std::vector<double>{0, 0.5, 1, 1.5});
  g->barrier();
  CHECK_THROWS_WITH_AS(g->all_reduce(f.to(DType::Bool), dist::ReduceOp::Sum), doctest::Contains("cannot be reduced"),
                       Error);
}

TEST_CASE("mpi: a config that differs on one rank is detected on every rank, naming it") {
  auto g = world2();
  dist::check_same_on_all_ranks(*g, "same config", "config");
  CHECK_THROWS_WITH_AS(dist::check_same_on_all_ranks(*g, g->rank() == 1 ? "lr 0.2" : "lr 0.1", "resolved config"),
                       doctest::Contains("resolved config differs across ranks: rank(s) 1 differ from rank 0"), Error);
}

TEST_CASE("data parallel: the averaged shard gradients are the full-batch gradient") {
  auto g = world2();
  for (int64_t batch : {16, 7})  // even and uneven shards (7 = 4 + 3)
    for (bool overlap : {true, false})
      for (double bucket_mb : {25.0, 1.0 / 1024}) {  // one bucket, or one per parameter or two
        Generator gen(11);
        nn::Linear a(8, 32, true, &gen), b(32, 4, true, &gen);
        std::vector<Tensor> params = a.parameters();
        for (const Tensor& p : b.parameters()) params.push_back(p);
        Tensor x = randn({batch, 8}, {}, &gen);
        Tensor y = randn({batch, 4}, {}, &gen);
        auto loss_of = [&](const Tensor& xs, const Tensor& ys) { return mse_loss(b.forward(tanh(a.forward(xs))), ys); };
        loss_of(x, y).backward();  // the full batch on this rank alone: the reference
        std::vector<std::vector<double>> full_grads;
        for (const Tensor& p : params) full_grads.push_back(p.grad().to_vector()), p.zero_grad();

        dist::DataParallel ddp(params, g, {.bucket_mb = bucket_mb, .overlap = overlap});
        const data::ShardRange part = data::shard_range(batch, g->rank(), 2);
        const double weight = 2.0 * static_cast<double>(part.size()) / static_cast<double>(batch);
        ddp.begin_sync();
        mul(loss_of(narrow(x, 0, part.begin, part.size()), narrow(y, 0, part.begin, part.size())), weight).backward();
        ddp.finish();
        // float32: the two halves' sums and the full sum differ only in rounding order.
        for (size_t k = 0; k < params.size(); ++k)
          CHECK_MESSAGE(
              close(params[k].grad().to_vector(), full_grads[k], 1e-5, 1e-6),
              "parameter " << k << ", batch " << batch << ", overlap " << overlap << ", bucket_mb " << bucket_mb);
      }
}

namespace {

// mlp-spirals with an uneven last batch and shards (210 examples in batches of 25: 13 + 12 per
// rank, the last batch 10 = 5 + 5), momentum so the steps depend on all earlier gradients.
Json spirals_config(int64_t steps) {
  const train::TaskSpec& spec = train::find_task("mlp-spirals");
  Json c = train::default_config(spec);
  c["points_per_class"] = 70;
  c["batch_size"] = 25;
  c["momentum"] = 0.9;
  c["lr"] = 0.1;
  c["trainer"]["steps"] = steps;
  c["trainer"]["eval_every"] = 0;
  c["trainer"]["log_every"] = 5;
  c["trainer"]["ddp_bucket_mb"] = 0.01;  // several buckets (the weights are 16 KiB)
  return c;
}

// Trains mlp-spirals for `steps` on `group` (null: alone), optionally from a checkpoint;
// returns the parameters.
std::vector<double> train_spirals(int64_t steps, std::shared_ptr<dist::ProcessGroup> group, const std::string& out,
                                  const std::string& resume_from = "") {
  const train::TaskSpec& spec = train::find_task("mlp-spirals");
  const Json c = spirals_config(steps);
  std::unique_ptr<train::Task> task = train::build_task(spec, c, Device::cpu());
  train::Trainer trainer(*task, spec.name, c, out);
  trainer.log = nullptr;
  trainer.process_group = std::move(group);
  if (!resume_from.empty()) trainer.resume(resume_from);
  trainer.fit();
  return flat(task->model());
}

}  // namespace

// Tolerance: float32 parameters after 40 SGD-with-momentum steps; the two runs differ only in
// the order the batch's per-example gradients are summed (two shards, then their mean).
constexpr double kRtol = 1e-4, kAtol = 1e-5;

TEST_CASE("trainer: global batch B on 2 ranks gives the parameters of 1 rank with batch B") {
  auto g = world2();
  const std::string dir = run_dir("two_ranks");
  if (g->rank() == 0) std::filesystem::remove_all(dir);
  g->barrier();
  const std::vector<double> two = train_spirals(40, g, g->rank() == 0 ? dir : "");
  const std::vector<double> one = train_spirals(40, nullptr, "");
  if (g->rank() == 0) MESSAGE("2 ranks vs 1: max relative parameter difference " << max_rel_diff(two, one));
  CHECK(close(two, one, kRtol, kAtol));
  // The ranks hold the same parameters, bit for bit.
  double checksum = 0;
  for (double v : two) checksum = checksum * 1.000001 + v;
  Tensor both = g->all_gather(full({1}, checksum, {.dtype = DType::Float64}));
  CHECK(both.to_vector()[0] == both.to_vector()[1]);
  // Only rank 0 wrote the run.
  g->barrier();
  CHECK(std::filesystem::exists(dir + "/checkpoint_last.safetensors"));
  CHECK(std::filesystem::exists(dir + "/metrics.jsonl"));
}

TEST_CASE("trainer: a checkpoint of 2 ranks resumes on 1, and one of 1 rank resumes on 2") {
  auto g = world2();
  const std::string two_dir = run_dir("two_ranks"), one_dir = run_dir("one_rank");
  const std::string two_ckpt = two_dir + "/checkpoint_last.safetensors";
  REQUIRE(std::filesystem::exists(two_ckpt));                           // from the previous case
  const std::vector<double> straight = train_spirals(70, nullptr, "");  // 70 steps in one go, alone
  // 2 ranks for 40 steps, then 1 for 30 (each rank on its own: no collectives).
  const std::vector<double> two_then_one = train_spirals(70, nullptr, "", two_ckpt);
  CHECK(close(two_then_one, straight, kRtol, kAtol));
  // 1 rank for 40 steps (rank 0 writes it), then 2 ranks for 30.
  if (g->rank() == 0) {
    std::filesystem::remove_all(one_dir);
    train_spirals(40, nullptr, one_dir);
  }
  g->barrier();
  const std::vector<double> one_then_two = train_spirals(70, g, "", one_dir + "/checkpoint_last.safetensors");
  CHECK(close(one_then_two, straight, kRtol, kAtol));
}

namespace {

struct GraphRun {
  std::vector<double> losses, params;
  int64_t replays = 0;
  std::string fallback;
};

// spirals_config's 12 steps (9 global batches an epoch, the last of 10 = 5 + 5) on cuda:0 on
// `group`, with trainer.accumulate=k and trainer.cuda_graph=mode.
GraphRun train_spirals_on_cuda(std::shared_ptr<dist::ProcessGroup> group, int64_t k, const std::string& mode) {
  const train::TaskSpec& spec = train::find_task("mlp-spirals");
  Json c = spirals_config(12);
  c["trainer"]["accumulate"] = k;
  c["trainer"]["cuda_graph"] = mode;
  std::unique_ptr<train::Task> task = train::build_task(spec, c, Device::cuda(0));
  train::Trainer trainer(*task, spec.name, c, "");
  trainer.log = nullptr;
  trainer.process_group = std::move(group);
  GraphRun run;
  trainer.on_step = [&](const train::StepRecord& s) { run.losses.push_back(s.loss); };
  trainer.fit();
  run.params = flat(task->model());
  run.replays = trainer.graph_replays();
  run.fallback = trainer.graph_fallback();
  return run;
}

}  // namespace

// ctest runs this case on the emulated CUDA device (HARMONIC_EMULATE_CUDA=1), where the MPI
// group reduces CUDA tensors through the host: each replayed step is the graph of its
// micro-batches, the eager all-reduce of the buckets, and the graph of the update.
TEST_CASE("[cuda] trainer: data parallel with trainer.cuda_graph=on trains bit for bit as eager steps") {
  auto g = world2();
  if (!cuda::available()) {
    MESSAGE("skipped: no CUDA device (ctest runs this case again on the emulated one)");
    return;
  }
  for (int64_t k : {1, 2}) {
    CAPTURE(k);
    const GraphRun eager = train_spirals_on_cuda(g, k, "off");
    const GraphRun graphed = train_spirals_on_cuda(g, k, "on");
    REQUIRE(eager.losses.size() == 12);
    CHECK(graphed.losses == eager.losses);
    CHECK(graphed.params == eager.params);
    CHECK(graphed.fallback.empty());
    // After the 2 warm-up steps, every step of full global batches: k = 1, all but the epoch's
    // last batch (steps 9); k = 2, all but its short last group (steps 5 and 10).
    CHECK(graphed.replays == (k == 1 ? 9 : 8));
  }
}

TEST_CASE("nccl: all_reduce on one GPU per rank") {
  auto g = world2();
  if (!dist::nccl_compiled()) {
    MESSAGE("skipped: built without NCCL (needs CUDA, nccl.h and MPI)");
    return;
  }
  if (cuda::device_count() < 1) {
    MESSAGE("skipped: NCCL is compiled but no GPU is visible (" << cuda::describe() << ")");
    return;
  }
  auto nccl = dist::process_group_for(Device::cuda());
  CHECK(nccl->backend() == "nccl");
  Tensor t = full({1024}, g->rank() + 1.0).to(Device::cuda());
  nccl->all_reduce(t, dist::ReduceOp::Avg);
  CHECK(t.to(Device::cpu()).to_vector()[0] == 1.5);
}
