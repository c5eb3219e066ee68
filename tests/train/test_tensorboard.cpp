// TensorBoard event files (tools/train/tensorboard.h): the CRC, the records read back, a run's
// metrics and config through `trainer.tensorboard`, and a corrupted file refused by name.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/helpers.h"
#include "tests/trainer_helpers.h"
#include "harmonic/tools/train/tensorboard.h"
#include "harmonic/tools/train/train_cli_args.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::test {
namespace {

std::string only_event_file(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().starts_with("events.out.tfevents.")) files.push_back(e.path().string());
  REQUIRE(files.size() == 1);
  return files[0];
}

}  // namespace

TEST_CASE("tensorboard: CRC-32C of the standard check string and TFRecord's mask") {
  CHECK(train::crc32c("123456789", 9) == 0xE3069283u);  // the CRC-32C check value
  CHECK(train::crc32c("", 0) == 0u);
  const uint32_t c = train::crc32c("a", 1);
  CHECK(train::masked_crc32c("a", 1) == ((c >> 15) | (c << 17)) + 0xa282ead8u);
}

TEST_CASE("tensorboard: scalars and text are read back with their steps") {
  ScratchDir dir;
  train::TensorBoardWriter w(dir / "tb");
  w.scalars(3, {{"loss", 0.25}, {"lr", 1e-3}});
  w.text(3, "config", "{\"lr\": 0.001}");
  w.scalars(6, {{"loss", 0.125}});
  const std::vector<train::TensorBoardValue> v = train::read_tensorboard_events(w.path());
  REQUIRE(v.size() == 5);
  CHECK(v[0].tag == "file_version");
  CHECK(v[0].text == "brain.Event:2");
  CHECK((v[1].tag == "loss" && v[1].step == 3 && v[1].scalar == 0.25));
  CHECK((v[2].tag == "lr" && v[2].scalar == doctest::Approx(1e-3)));
  CHECK((v[3].tag == "config" && v[3].is_text && v[3].text == "{\"lr\": 0.001}"));
  CHECK((v[4].tag == "loss" && v[4].step == 6 && v[4].scalar == 0.125));
  CHECK(v[4].wall_time > 1.6e9);  // seconds since 1970, as TensorBoard expects
}

TEST_CASE("tensorboard: a run's metrics.jsonl values and its config, via trainer.tensorboard") {
  ScratchDir dir;
  const train::TaskSpec& spec = train::find_task("mlp-spirals");
  train::Json c = small_spirals(6);
  train::apply_override(c, "trainer.log_every=3");
  train::apply_override(c, "trainer.tensorboard=" + dir / "tb");
  auto task = train::build_task(spec, c, Device::cpu());
  train::Trainer trainer(*task, spec.name, c, dir / "run");
  trainer.log = nullptr;
  trainer.fit();
  const std::vector<train::TensorBoardValue> v = train::read_tensorboard_events(only_event_file(dir / "tb"));
  std::vector<double> losses;
  bool config = false;
  for (const train::TensorBoardValue& x : v) {
    if (x.tag == "loss") losses.push_back(x.scalar);
    if (x.tag == "config") config = x.text.find("\"log_every\": 3") != std::string::npos;
  }
  CHECK(config);
  std::vector<double> expected;
  for (const train::Json& line : read_jsonl(dir / "run/metrics.jsonl"))
    if (line.contains("loss")) expected.push_back(static_cast<float>(line["loss"].get<double>()));
  CHECK(losses == expected);  // float32, as TensorBoard keeps scalars
  CHECK(expected.size() == 2);
  // The key is recorded only when set, and --tensorboard is its shorthand.
  CHECK(!train::TrainerOptions{}.to_json().contains("tensorboard"));
  train::TrainArgs a;
  a.tensorboard = "runs/tb";
  const std::vector<std::string> o = a.shorthand_overrides();
  CHECK(std::find(o.begin(), o.end(), "trainer.tensorboard=runs/tb") != o.end());
}

TEST_CASE("tensorboard: a corrupted event file is refused naming the file and the record") {
  ScratchDir dir;
  train::TensorBoardWriter w(dir / "tb");
  w.scalars(1, {{"loss", 1.0}});
  {
    std::fstream f(w.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-6, std::ios::end);  // inside the second record's payload
    f.put('\x7f');
  }
  CHECK(throws_with([&] { train::read_tensorboard_events(w.path()); },
                    {"[read_tensorboard_events]", w.path(), "record 2", "CRC"}));
}

}  // namespace hm::test
