// The pieces every study run shares: record_eval (tools/studies/driver/study_trainer.h), the
// linear-or-Fourier head run config (tools/studies/driver/head_run.h) and read_run_config's errors.
#include <doctest/doctest.h>

#include "tests/helpers.h"
#include "harmonic/tools/studies/driver/head_run.h"
#include "harmonic/tools/studies/driver/run_config.h"
#include "harmonic/tools/studies/driver/study_trainer.h"

using namespace hm::studies;
using hm::test::throws_with;

TEST_CASE("record_eval: keeps the chosen metrics, drops the last step's second evaluation, sets final") {
  Json result = {{"curve", Json::array()}, {"final", nullptr}};
  const Json* first = record_eval(result, 0, {{"loss", 2.5}, {"acc", 0.1}, {"other", 7}}, {"loss", "acc", "missing"});
  REQUIRE(first != nullptr);
  CHECK(*first == Json{{"step", 0}, {"loss", 2.5}, {"acc", 0.1}});
  CHECK(result["final"].at("other") == 7);
  CHECK(record_eval(result, 100, {{"loss", 1.5}}, {"loss"}) != nullptr);
  // The Trainer's final evaluation of step 100 again: not a second point, final unchanged.
  CHECK(record_eval(result, 100, {{"loss", 9.0}}, {"loss"}) == nullptr);
  CHECK(result["curve"].size() == 2);
  CHECK(result["final"].at("loss") == 1.5);
  // No keys: every metric goes into the point.
  Json all = {{"curve", Json::array()}};
  record_eval(all, 5, {{"a", 1}, {"b", 2}});
  CHECK(all["curve"][0] == Json{{"step", 5}, {"a", 1}, {"b", 2}});
}

TEST_CASE("head_run: the run config round-trips and bad configs name the study") {
  const HeadRunSpec run{.head = {8}, .seed = 3, .device = "cpu", .task_config = {{"steps", 10}}};
  const HeadRunSpec back = head_run_from_json(head_run_json(run), "study x");
  CHECK(back.head.frequencies == 8);
  CHECK(back.seed == 3);
  CHECK(back.task_config == Json{{"steps", 10}});
  CHECK(HeadChoice::parse("linear", "study x").frequencies == 0);
  CHECK(HeadChoice{2}.task_keys() == Json{{"head", "fourier"}, {"fourier_frequencies", 2}});
  CHECK(throws_with([] { HeadChoice::parse("fourier-99999999999999999999", "study x"); }, {"study x", "fourier-9"}));
  CHECK(throws_with([] { head_run_from_json(Json{{"head", "linear"}, {"seed", "one"}}, "study y"); },
                    {"study y", "malformed run config"}));
  CHECK(throws_with([] { head_run_from_json(Json{{"head", "fourier-0"}, {"seed", 1}}, "study z"); },
                    {"study z", "fourier-0"}));
}

TEST_CASE("read_run_config: passes the value through, turns JSON errors into one error naming the config") {
  const Json j = {{"n", 4}};
  CHECK(read_run_config(j, "study q", [&] { return j.at("n").get<int>() * 2; }) == 8);
  CHECK(throws_with([&] { read_run_config(j, "study q", [&] { return j.at("m").get<int>(); }); },
                    {"study q", "malformed run config", "\"n\":4"}));
}
