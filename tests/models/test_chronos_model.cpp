// models/chronos.h: the T5 + linear/Fourier head over value bins, teacher-forced loss, and
// sampled forecasts with the encoder run once and the decoder's KV cache.
#include <cmath>

#include "harmonic/core/factories.h"
#include "harmonic/data/ts_mixup.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/models/chronos.h"
#include "harmonic/models/chronos_decode.h"
#include "harmonic/ops/ops.h"
#include "harmonic/optim/adam.h"
#include "tests/helpers.h"

using namespace hm;
using data::SeriesTokenizer;

namespace {

models::ChronosConfig tiny_config(models::ChronosHead head) {
  models::ChronosConfig c;
  c.t5.vocab_size = 4096;
  c.t5.d_model = 16, c.t5.d_kv = 8, c.t5.d_ff = 32, c.t5.num_layers = 1, c.t5.num_heads = 2;
  c.t5.dropout_rate = 0.0;
  c.t5.tie_word_embeddings = false;
  c.head = head;
  c.fourier_frequencies = 8;
  c.context_length = 12;
  c.prediction_length = 4;
  return c;
}

std::vector<double> wave(int64_t n, double phase) {
  std::vector<double> x;
  for (int64_t t = 0; t < n; ++t) x.push_back(3 + std::sin(0.5 * static_cast<double>(t) + phase));
  return x;
}

}  // namespace

TEST_CASE("Chronos: decoder inputs, shapes and a loss that trains, for both heads") {
  Tensor labels = from_vector<int64_t>({3, -100, 5, 7}, {1, 4});
  CHECK(models::Chronos::decoder_inputs(labels).to_vector_as<int64_t>() == std::vector<int64_t>{0, 5, 0, 7});
  for (auto head : {models::ChronosHead::Linear, models::ChronosHead::Fourier}) {
    CAPTURE(static_cast<int>(head));
    Generator gen(1);
    models::Chronos model(tiny_config(head), SeriesTokenizer::uniform(4096), &gen);
    CHECK((model.fourier_head != nullptr) == (head == models::ChronosHead::Fourier));
    const SeriesTokenizer tok = model.tokenizer();
    CHECK(tok.bins() == 4094);
    std::vector<int64_t> ctx, lab;
    for (double phase : {0.0, 1.0}) {
      std::vector<double> x = wave(16, phase);
      SeriesTokenizer::Context c = tok.encode_context(std::vector<double>(x.begin(), x.begin() + 12), 12);
      ctx.insert(ctx.end(), c.ids.begin(), c.ids.end());
      std::vector<int64_t> l = tok.encode_labels(std::vector<double>(x.begin() + 12, x.end()), c.scale);
      lab.insert(lab.end(), l.begin(), l.end());
    }
    Tensor context = from_vector(ctx, {2, 13}), target = from_vector(lab, {2, 4});
    CHECK(model.forward(context, target).shape() == Shape{2, 4, 4094});
    optim::Adam opt(model.named_parameters(), {.lr = 3e-3});
    double first = 0, last = 0;
    for (int step = 0; step < 30; ++step) {
      Tensor loss = model.loss(context, target);
      if (step == 0) first = loss.item<double>();
      last = loss.item<double>();
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    CHECK(std::isfinite(first));
    CHECK(last < first - 1.0);  // memorising two series
  }
  CHECK(hm::test::throws_with(
      [] {
        auto c = tiny_config(models::ChronosHead::Fourier);
        c.fourier_frequencies = 2047;
        models::Chronos m(c, SeriesTokenizer::uniform(4096));
      },
      {"Chronos", "fourier_frequencies"}));
}

TEST_CASE("Chronos forecast: encoder once, S*H decoder tokens with the cache, the same paths as recomputation") {
  for (auto head : {models::ChronosHead::Linear, models::ChronosHead::Fourier}) {
    CAPTURE(static_cast<int>(head));
    Generator gen(2);
    models::Chronos model(tiny_config(head), SeriesTokenizer::uniform(4096), &gen);
    std::vector<std::vector<double>> hist = {wave(20, 0.0), wave(7, 1.0), {NAN, 2.0, 2.5, NAN, 3.0}};
    const int64_t S = 5, H = 6, B = 3;
    models::ForecastOptions o{.horizon = H, .samples = S, .seed = 9};
    std::vector<models::SeriesForecast> cached = models::forecast(model, hist, o);
    CHECK(model.encoder_calls == 1);
    CHECK(model.decoder_tokens == B * S * H);
    model.encoder_calls = model.decoder_tokens = 0;
    o.use_cache = false;
    std::vector<models::SeriesForecast> recomputed = models::forecast(model, hist, o);
    CHECK(model.encoder_calls == 1);
    CHECK(model.decoder_tokens == B * S * H * (H + 1) / 2);  // the whole prefix every step
    REQUIRE(cached.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
      CHECK(cached[i].paths == recomputed[i].paths);
      REQUIRE(cached[i].paths.size() == static_cast<size_t>(S));
      CHECK(cached[i].median.size() == static_cast<size_t>(H));
      CHECK(cached[i].quantiles.size() == 9);
      for (double v : cached[i].paths[0]) CHECK(std::isfinite(v));
    }
    CHECK(cached[1].scale == doctest::Approx(data::mean_abs_scale(std::vector<double>(hist[1]))));
    // Another seed, other paths; the same seed, the same paths.
    o.use_cache = true;
    CHECK(models::forecast(model, hist, o)[0].paths == cached[0].paths);
    o.seed = 10;
    CHECK(models::forecast(model, hist, o)[0].paths != cached[0].paths);
    // Series split over several encoder batches give the same paths as one batch? The draws
    // differ (one uniform per row and step), but every batch is encoded once.
    model.encoder_calls = 0;
    o.batch_series = 2;
    models::forecast(model, hist, o);
    CHECK(model.encoder_calls == 2);
  }
}

TEST_CASE("Chronos forecast top_k: 1 is the greedy path, k >= bins the whole pmf, negative refused") {
  Generator gen(2);
  models::Chronos model(tiny_config(models::ChronosHead::Linear), SeriesTokenizer::uniform(4096), &gen);
  std::vector<std::vector<double>> hist = {wave(20, 0.0), wave(9, 2.0)};
  models::ForecastOptions o{.horizon = 5, .samples = 6, .seed = 3};
  const std::vector<models::SeriesForecast> full = models::forecast(model, hist, o);
  o.top_k = 1;  // every draw is the most likely bin: the six paths coincide
  const std::vector<models::SeriesForecast> greedy = models::forecast(model, hist, o);
  for (const models::SeriesForecast& f : greedy)
    for (const std::vector<double>& path : f.paths) CHECK(path == f.paths.front());
  CHECK(greedy[0].paths != full[0].paths);  // an untrained model's pmf is wide: sampling differs
  o.top_k = 4094;  // every bin kept: the same draws as the whole pmf
  CHECK(models::forecast(model, hist, o)[0].paths == full[0].paths);
  o.top_k = -1;
  CHECK(test::throws_with([&] { models::forecast(model, hist, o); }, {"top_k must be >= 0", "-1"}));
}

TEST_CASE("summarize_paths: median and quantiles per step") {
  models::SeriesForecast f = models::summarize_paths({{1, 10}, {2, 20}, {3, 30}, {4, 40}, {5, 50}}, 2.0);
  CHECK(f.median == std::vector<double>{3, 30});
  CHECK(f.quantiles[0][0] == doctest::Approx(1.4));  // 0.1 quantile of 1..5: 1 + 0.4
  CHECK(f.quantiles[8][1] == doctest::Approx(46.0));
  CHECK(f.scale == 2.0);
}

TEST_CASE("pmf_quantile: the mass of a bin spread evenly between the midpoints to its neighbours") {
  const std::vector<double> centres = {0, 1, 2, 3};
  const std::vector<double> pmf = {0, 0.5, 0.5, 0};  // bin 1 covers [0.5, 1.5], bin 2 [1.5, 2.5]
  CHECK(models::pmf_quantile(centres, pmf, 0.25) == doctest::Approx(1.0));
  CHECK(models::pmf_quantile(centres, pmf, 0.5) == doctest::Approx(1.5));
  CHECK(models::pmf_quantile(centres, pmf, 0.75) == doctest::Approx(2.0));
  CHECK(models::pmf_quantile({0, 1}, {1, 0}, 0.0) == doctest::Approx(-0.5));  // the end bin as wide as its gap
  CHECK(models::pmf_quantile({0, 1}, {1, 0}, 1.0) == doctest::Approx(0.5));
  CHECK(test::throws_with([] { models::pmf_quantile({0, 1}, {1}, 0.5); }, {"[pmf_quantile]", "2 and 1"}));
}

TEST_CASE("Chronos forecast pmf_quantiles: the same paths, and step 1's quantiles exact, whatever the paths") {
  Generator gen(2);
  models::Chronos model(tiny_config(models::ChronosHead::Linear), SeriesTokenizer::uniform(4096), &gen);
  std::vector<std::vector<double>> hist = {wave(20, 0.0), wave(9, 2.0)};
  models::ForecastOptions o{.horizon = 3, .samples = 2, .seed = 3};
  const std::vector<models::SeriesForecast> drawn = models::forecast(model, hist, o);
  o.pmf_quantiles = true;
  const std::vector<models::SeriesForecast> few = models::forecast(model, hist, o);
  o.samples = 9;
  const std::vector<models::SeriesForecast> many = models::forecast(model, hist, o);
  for (size_t i = 0; i < hist.size(); ++i) {
    CHECK(few[i].paths == drawn[i].paths);
    // Every path shares step 1's pmf, so its quantiles do not depend on how many paths there are.
    for (size_t q = 0; q < few[i].quantiles.size(); ++q)
      CHECK(few[i].quantiles[q][0] == doctest::Approx(many[i].quantiles[q][0]).epsilon(1e-9));
    CHECK(few[i].median[0] == doctest::Approx(many[i].median[0]).epsilon(1e-9));
    for (size_t h = 0; h < 3; ++h)
      for (size_t q = 1; q < many[i].quantiles.size(); ++q)
        CHECK(many[i].quantiles[q - 1][h] <= many[i].quantiles[q][h]);
  }
  // Two drawn paths give at most two distinct values per step; the pmf's nine quantiles differ.
  CHECK(many[0].quantiles[0][0] < many[0].quantiles[8][0]);
  CHECK(few[0].quantiles[3][0] != few[0].quantiles[5][0]);
}

TEST_CASE("[cuda] Chronos forecast as CUDA graphs: replays draw the eager paths and pmfs, across batches and calls") {
  if (!cuda::available()) return;  // ctest runs it again on the emulated device
  Generator gen(4);
  models::Chronos model(tiny_config(models::ChronosHead::Fourier), SeriesTokenizer::uniform(4096), &gen);
  model.to(Device::cuda(0));
  const std::vector<std::vector<double>> hist = {wave(20, 0.0), wave(9, 1.0), wave(15, 2.0), wave(12, 0.5),
                                                 {NAN, 2.0, 2.5, NAN, 3.0}};
  for (bool use_cache : {true, false}) {
    for (int64_t top_k : {0, 7}) {
      INFO("use_cache ", use_cache, " top_k ", top_k);
      // Batches of 2, 2 and 1 series: the first call warms each shape up, captures the second
      // batch of two; the second call replays every batch (capturing the one-series batch first).
      models::ForecastOptions o{.horizon = 3, .samples = 4, .seed = 5, .use_cache = use_cache, .batch_series = 2,
                                .top_k = top_k, .pmf_quantiles = true};
      model.forecast_graphs.reset();
      model.encoder_calls = model.decoder_tokens = 0;
      const std::vector<models::SeriesForecast> eager = models::forecast(model, hist, o);
      const int64_t encoder_calls = model.encoder_calls, decoder_tokens = model.decoder_tokens;
      o.cuda_graph = "on";
      for (int call = 1; call <= 2; ++call) {
        INFO("call ", call);
        model.encoder_calls = model.decoder_tokens = 0;
        const std::vector<models::SeriesForecast> graphed = models::forecast(model, hist, o);
        REQUIRE(graphed.size() == eager.size());
        for (size_t i = 0; i < eager.size(); ++i) {
          CHECK(graphed[i].paths == eager[i].paths);
          CHECK(graphed[i].median == eager[i].median);
          CHECK(graphed[i].quantiles == eager[i].quantiles);
        }
        CHECK(model.encoder_calls == encoder_calls);
        CHECK(model.decoder_tokens == decoder_tokens);
      }
      CHECK(model.forecast_graphs->captured() == 2);
      CHECK(model.forecast_graphs->replays() == 4);
    }
  }
  // Parameters moved to other memory: the graphs go, and the next batches warm up again.
  model.to(Device::cpu());
  model.to(Device::cuda(0));
  models::ForecastOptions o{.horizon = 2, .samples = 2, .batch_series = 2, .cuda_graph = "on"};
  models::forecast(model, hist, o);
  CHECK(model.forecast_graphs->captured() == 1);
}

TEST_CASE("Chronos forecast cuda_graph: on needs a CUDA model, auto says why it decodes eagerly, others refused") {
  Generator gen(4);
  models::Chronos model(tiny_config(models::ChronosHead::Linear), SeriesTokenizer::uniform(4096), &gen);
  const std::vector<std::vector<double>> hist = {wave(20, 0.0)};
  models::ForecastOptions o{.horizon = 2, .samples = 2, .cuda_graph = "on"};
  CHECK(test::throws_with([&] { models::forecast(model, hist, o); },
                          {"[forecast] cuda_graph=on", "the model is on cpu, not a CUDA device"}));
  o.cuda_graph = "auto";
  const auto forecast_auto = models::forecast(model, hist, o);
  CHECK(model.forecast_graphs->fallback().find("not a CUDA device") != std::string::npos);
  o.cuda_graph = "off";
  CHECK(models::forecast(model, hist, o)[0].paths == forecast_auto[0].paths);
  o.cuda_graph = "sometimes";
  CHECK(test::throws_with([&] { models::forecast(model, hist, o); }, {"cuda_graph 'sometimes' is not off, on or auto"}));
}
