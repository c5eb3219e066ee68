// The process group in one process (the MPI collectives run in the 2-rank test,
// tests/distributed/), the collective watchdog, the data-parallel buckets on a group of one,
// and the sharding of batches across ranks.
#include <cstdlib>
#include <thread>

#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/data/dataset.h"
#include "harmonic/data/loader.h"
#include "harmonic/data/shard.h"
#include "harmonic/nn/distributed/collective_watchdog.h"
#include "harmonic/nn/distributed/data_parallel.h"
#include "harmonic/nn/distributed/process_group.h"
#include "harmonic/nn/linear.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::test;

TEST_CASE("process group: a single process is rank 0 of 1 and its collectives keep the data") {
  auto group = dist::single_process_group();
  CHECK(group->rank() == 0);
  CHECK(group->world_size() == 1);
  CHECK(group->backend() == "single");
  Tensor t = tensor({1.0, 2.0, 3.0});
  group->all_reduce(t, dist::ReduceOp::Sum);
  group->all_reduce(t, dist::ReduceOp::Avg);
  group->broadcast(t, 0);
  group->barrier();
  CHECK(allclose(t, std::vector<double>{1, 2, 3}));
  Tensor gathered = group->all_gather(t);  // (1, 3)
  CHECK(gathered.shape() == Shape{1, 3});
  CHECK(gathered.storage() != t.storage());  // a copy
  CHECK(throws_with([&] { group->broadcast(t, 1); }, {"broadcast", "root 1"}));
  CHECK(throws_with([&] { group->all_reduce(t.to(DType::Bool), dist::ReduceOp::Sum); }, {"all_reduce", "bool"}));
  dist::check_same_on_all_ranks(*group, "anything", "config");  // one rank always agrees
}

TEST_CASE("process group: a process not started by mpirun is not distributed") {
  // ctest and a plain shell start no launcher: world() is the single-process group even in an
  // MPI build, and MPI is never initialised (no mpirun needed).
  if (dist::launched_by_mpi()) {
    MESSAGE("skipped: this test process runs under an MPI launcher");
    return;
  }
  CHECK(dist::world()->world_size() == 1);
  CHECK(dist::world()->backend() == "single");
  CHECK(dist::process_group_for(Device::cpu())->world_size() == 1);
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  CHECK(dist::launched_by_mpi());
  unsetenv("OMPI_COMM_WORLD_SIZE");
  setenv("PMI_SIZE", "4", 1);
  CHECK(dist::launched_by_mpi());
  unsetenv("PMI_SIZE");
  CHECK(!dist::launched_by_mpi());
}

TEST_CASE("collective watchdog: a collective past the timeout is reported once, naming rank and call") {
  std::vector<std::string> reports;
  std::mutex m;
  {
    dist::CollectiveWatchdog dog(3, 0.05, [&](const std::string& message) {
      std::lock_guard<std::mutex> lock(m);
      reports.push_back(message);
    });
    { dist::CollectiveWatchdog::Scope fast(dog, "all_reduce of float32 (4,)"); }
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    CHECK(reports.empty());  // finished in time
    {
      dist::CollectiveWatchdog::Scope slow(dog, "broadcast of float32 (8,)");
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  }
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].find("rank 3") != std::string::npos);
  CHECK(reports[0].find("broadcast of float32 (8,)") != std::string::npos);
  CHECK(reports[0].find("timeout 0.05 s") != std::string::npos);
}

TEST_CASE("collective watchdog: a timeout of 0 never fires") {
  int reports = 0;
  {
    dist::CollectiveWatchdog dog(0, 0, [&](const std::string&) { ++reports; });
    dist::CollectiveWatchdog::Scope slow(dog, "barrier");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(reports == 0);
}

TEST_CASE("data parallel: buckets of bucket_mb, filled by the grad-ready hooks during backward") {
  Generator gen(1);
  nn::Linear a(64, 64, true, &gen), b(64, 64, true, &gen), unused(64, 64, true, &gen);
  std::vector<Tensor> params = a.parameters();
  for (const Tensor& p : b.parameters()) params.push_back(p);
  for (const Tensor& p : unused.parameters()) params.push_back(p);
  // A weight is 16 KiB, a bias 256 B; buckets of 20 KiB, filled in reverse order:
  // {unused.bias, unused.weight, b.bias}, {b.weight, a.bias}, {a.weight}.
  dist::DataParallel ddp(params, dist::single_process_group(), {.bucket_mb = 20.0 / 1024, .overlap = true});
  CHECK(ddp.num_buckets() == 3);
  Tensor x = randn({8, 64}, {}, &gen);
  Tensor loss = sum(b.forward(tanh(a.forward(x))));
  ddp.begin_sync();
  loss.backward();
  // The first bucket holds unused's parameters, which backward never reaches: in bucket order
  // nothing can launch before finish().
  CHECK(ddp.launched_during_backward() == 0);
  std::vector<Tensor> before;
  for (const Tensor& p : params) before.push_back(p.grad().defined() ? p.grad().clone() : Tensor());
  ddp.finish();
  for (size_t i = 0; i < params.size(); ++i) {
    REQUIRE(params[i].grad().defined());  // unused's parameters get zeros
    if (before[i].defined())
      CHECK(allclose(params[i].grad(), before[i], 0, 0));  // the mean over one rank is the gradient
    else
      CHECK(allclose(params[i].grad(), zeros(params[i].shape()), 0, 0));
  }
  CHECK(throws_with([&] { ddp.finish(); }, {"DataParallel::finish", "begin_sync"}));
}

TEST_CASE("data parallel: with the used layers first in bucket order, buckets launch inside backward") {
  Generator gen(2);
  nn::Linear a(32, 32, true, &gen), b(32, 32, true, &gen);
  std::vector<Tensor> params = a.parameters();
  for (const Tensor& p : b.parameters()) params.push_back(p);
  dist::DataParallel ddp(params, dist::single_process_group(), {.bucket_mb = 4.5 / 1024, .overlap = true});
  CHECK(ddp.num_buckets() == 2);
  for (int step = 0; step < 2; ++step) {  // the state resets between steps
    for (const Tensor& p : params) p.zero_grad();
    ddp.begin_sync();
    sum(b.forward(tanh(a.forward(randn({4, 32}, {}, &gen))))).backward();
    CHECK(ddp.launched_during_backward() == 2);  // b's bucket, then a's, while backward ran
    ddp.finish();
  }
  // Outside begin_sync()..finish() the hooks do nothing (gradient accumulation's micro-batches).
  sum(b.forward(randn({4, 32}, {}, &gen))).backward();
  CHECK(ddp.launched_during_backward() == 2);
}

TEST_CASE("shard_range / shard_batches: the ranks' parts tile every global batch in order") {
  for (int64_t n : {0, 1, 5, 8, 13})
    for (int world : {1, 2, 3, 4}) {
      int64_t next = 0;
      for (int r = 0; r < world; ++r) {
        const data::ShardRange part = data::shard_range(n, r, world);
        CHECK(part.begin == next);
        CHECK(part.size() >= n / world);
        CHECK(part.size() <= n / world + 1);
        next = part.end;
      }
      CHECK(next == n);
    }
  std::vector<int64_t> order(10);
  for (int64_t i = 0; i < 10; ++i) order[static_cast<size_t>(i)] = 100 + i;
  // Batches of 4: {100..103}, {104..107}, {108, 109}.
  auto r0 = data::shard_batches(order, 4, 3, 0, 2), r1 = data::shard_batches(order, 4, 3, 1, 2);
  CHECK(r0 == std::vector<std::vector<int64_t>>{{100, 101}, {104, 105}, {108}});
  CHECK(r1 == std::vector<std::vector<int64_t>>{{102, 103}, {106, 107}, {109}});
  auto r2of3 = data::shard_batches(order, 4, 3, 2, 3);  // 4 = 2 + 1 + 1; 2 = 1 + 1 + 0
  CHECK(r2of3 == std::vector<std::vector<int64_t>>{{103}, {107}, {}});
  CHECK(data::shard_batches(order, 4, 2, 0, 2).size() == 2);  // drop_last: 2 batches
  CHECK(throws_with([&] { data::shard_batches(order, 4, 4, 0, 2); }, {"shard_batches", "4 batches of 4"}));
  CHECK(throws_with([] { data::shard_range(4, 2, 2); }, {"shard_range", "rank 2"}));
}

TEST_CASE("Epoch over given batches: a rank's shards, an empty one as an empty Batch") {
  auto ds = std::make_shared<data::TensorDataset>(reshape(arange(0.0, 6.0), {6, 1}), arange(0.0, 6.0));
  for (bool prefetch : {false, true}) {
    data::Epoch epoch(ds, {{4, 5}, {}, {0}}, prefetch);
    std::vector<std::vector<double>> seen;
    for (data::Batch& b : epoch) seen.push_back(b.target.defined() ? b.target.to_vector() : std::vector<double>{});
    CHECK(seen == std::vector<std::vector<double>>{{4, 5}, {}, {0}});
  }
}

TEST_CASE("NCCL backend: compiled with CUDA, run only on GPUs") {
  if (!dist::nccl_compiled()) {
    MESSAGE("skipped: built without NCCL (needs CUDA, nccl.h and MPI)");
    return;
  }
  if (!cuda::available()) {
    MESSAGE("skipped: the NCCL backend is compiled but no GPU is visible (" << cuda::describe() << ")");
    return;
  }
  // One process: the NCCL group is only made for jobs of several ranks; a CUDA device gets the
  // host group, whose collectives keep the data.
  Tensor t = tensor({1.0, 2.0}).to(Device::cuda());
  dist::process_group_for(Device::cuda())->all_reduce(t, dist::ReduceOp::Avg);
  CHECK(allclose(t.to(Device::cpu()), std::vector<double>{1, 2}));
}
