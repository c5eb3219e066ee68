// Tests of tools/report/plot: tick choice, the data -> pixel mapping, well-formed SVG whose
// polylines and bars sit where the layout says, PNG output, metrics.jsonl reading, errors.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "harmonic/core/file_read.h"
#include "tests/helpers.h"
#include "harmonic/tools/report/plot.h"

using namespace hm;
using namespace hm::report;
using hm::test::throws_with;
namespace fs = std::filesystem;

namespace {

struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;  // character data up to the next tag
};

// A strict little XML reader: balanced tags, quoted attributes, only the five entities;
// returns the elements in document order, or fails the test.
std::vector<Element> parse_xml(const std::string& s) {
  std::vector<Element> out;
  std::vector<std::string> open;
  size_t i = 0;
  auto check_text = [&](size_t b, size_t e) {
    for (size_t k = b; k < e; ++k)
      if (s[k] == '&') {
        bool entity = false;
        for (const char* ent : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
          entity |= s.compare(k, std::strlen(ent), ent) == 0;
        REQUIRE_MESSAGE(entity, "bare & at " << k);
      }
  };
  while ((i = s.find('<', i)) != std::string::npos) {
    const size_t end = s.find('>', i);
    REQUIRE(end != std::string::npos);
    std::string tag = s.substr(i + 1, end - i - 1);
    size_t next = s.find('<', end);
    if (tag[0] == '/') {
      REQUIRE_MESSAGE(!open.empty(), "closing </" << tag.substr(1) << "> without an open tag");
      REQUIRE(open.back() == tag.substr(1));
      open.pop_back();
    } else {
      const bool self_closing = tag.back() == '/';
      if (self_closing) tag.pop_back();
      Element e;
      size_t p = tag.find_first_of(" \n");
      e.name = tag.substr(0, p);
      while (p != std::string::npos && (p = tag.find_first_not_of(" \n", p)) != std::string::npos) {
        const size_t eq = tag.find('=', p);
        REQUIRE(eq != std::string::npos);
        REQUIRE(tag[eq + 1] == '"');
        const size_t close = tag.find('"', eq + 2);
        REQUIRE(close != std::string::npos);
        check_text(i + 1 + eq + 2, i + 1 + close);
        e.attrs[tag.substr(p, eq - p)] = tag.substr(eq + 2, close - eq - 2);
        p = close + 1;
      }
      if (!self_closing) open.push_back(e.name);
      if (next != std::string::npos) {
        check_text(end + 1, next);
        e.text = s.substr(end + 1, next - end - 1);
      }
      out.push_back(std::move(e));
    }
    i = end + 1;
  }
  CHECK(open.empty());
  return out;
}

std::vector<const Element*> named(const std::vector<Element>& els, const std::string& name) {
  std::vector<const Element*> out;
  for (const Element& e : els)
    if (e.name == name) out.push_back(&e);
  return out;
}

std::vector<std::pair<double, double>> points_of(const Element& polyline) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(polyline.attrs.at("points"));
  for (std::string pair; in >> pair;) {
    const size_t comma = pair.find(',');
    out.emplace_back(std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1)));
  }
  return out;
}

double attr(const Element& e, const std::string& name) { return std::stod(e.attrs.at(name)); }

}  // namespace

TEST_CASE("plot: nice ticks are 1-2-5 steps covering the range") {
  CHECK(nice_ticks(0, 1) == std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0});
  std::vector<double> t = nice_ticks(0.13, 0.87);
  REQUIRE(t.size() == 7);  // step 0.1 from 0.2 to 0.8
  CHECK(t.front() == doctest::Approx(0.2));
  CHECK(t.back() == doctest::Approx(0.8));
  CHECK(nice_ticks(-3, 47) == std::vector<double>{0, 10, 20, 30, 40});
  CHECK(nice_ticks(0, 300, 6) == std::vector<double>{0, 50, 100, 150, 200, 250, 300});
  CHECK(nice_ticks(5, 5) == std::vector<double>{5});
}

TEST_CASE("plot: a line plot's SVG is well-formed and its points sit at the mapped pixels") {
  LinePlot p;
  p.title = "loss & <friends>";
  p.x_label = "step";
  p.y_label = "loss";
  p.series.push_back({"train", {0, 5, 10}, {1, 2, 3}});
  p.series.push_back({"val", {0, 10}, {1.5, 2.5}});
  const Frame f = frame_of(p);
  // Ranges: x exactly the data's; y padded by 5% of the span (2) on both sides.
  CHECK(f.x_min == 0);
  CHECK(f.x_max == 10);
  CHECK(f.y_min == doctest::Approx(0.9));
  CHECK(f.y_max == doctest::Approx(3.1));
  CHECK(f.left == 72);
  CHECK(f.right == p.width - 20);
  CHECK(f.px(0) == f.left);
  CHECK(f.px(10) == f.right);
  CHECK(f.py(0.9) == doctest::Approx(f.bottom));
  CHECK(f.py(3.1) == doctest::Approx(f.top));
  CHECK(f.py(2) == doctest::Approx((f.top + f.bottom) / 2));

  const std::string svg = to_svg(p);
  std::vector<Element> els = parse_xml(svg);
  REQUIRE(els[0].name == "svg");
  CHECK(attr(els[0], "width") == p.width);
  auto lines = named(els, "polyline");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]->attrs.at("data-label") == "train");
  auto pts = points_of(*lines[0]);
  REQUIRE(pts.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(pts[i].first == doctest::Approx(f.px(p.series[0].x[i])).epsilon(1e-4));
    CHECK(pts[i].second == doctest::Approx(f.py(p.series[0].y[i])).epsilon(1e-4));
  }
  CHECK(points_of(*lines[1]).size() == 2);
  CHECK(lines[0]->attrs.at("stroke") != lines[1]->attrs.at("stroke"));
  // Text: the escaped title, axis labels, the legend and tick labels.
  std::vector<std::string> texts;
  for (const Element* t : named(els, "text")) texts.push_back(t->text);
  auto has = [&](const std::string& s) { return std::find(texts.begin(), texts.end(), s) != texts.end(); };
  CHECK(has("loss &amp; &lt;friends&gt;"));
  for (const char* s : {"step", "loss", "train", "val", "0", "2", "10", "1.0", "3.0"}) CHECK_MESSAGE(has(s), s);
}

TEST_CASE("plot: non-finite values break a line, a log axis maps log10 and skips y <= 0") {
  LinePlot p;
  p.series.push_back({"a", {1, 2, 3, 4, 5}, {1, 10, NAN, 100, 1000}});
  std::vector<Element> els = parse_xml(to_svg(p));
  auto lines = named(els, "polyline");
  REQUIRE(lines.size() == 2);
  CHECK(points_of(*lines[0]).size() == 2);
  CHECK(points_of(*lines[1]).size() == 2);

  p.log_y = true;
  p.series[0].y = {0.001, 0.01, -1, 0.1, 1};
  const Frame f = frame_of(p);
  CHECK(f.y_min == doctest::Approx(-3 - 0.15));  // log10 range [-3, 0] padded by 5%
  CHECK(f.y_max == doctest::Approx(0 + 0.15));
  els = parse_xml(to_svg(p));
  lines = named(els, "polyline");
  REQUIRE(lines.size() == 2);
  auto pts = points_of(*lines[1]);
  CHECK(pts[0].second == doctest::Approx(f.py(0.1)).epsilon(1e-4));
  // Equal steps per decade.
  CHECK(f.py(0.01) - f.py(0.1) == doctest::Approx(f.py(0.1) - f.py(1)));
  std::vector<std::string> texts;
  for (const Element* t : named(els, "text")) texts.push_back(t->text);
  for (const char* s : {"0.001", "0.01", "0.1", "1"}) CHECK(std::find(texts.begin(), texts.end(), s) != texts.end());
}

// 1e308 and -1e308 span more than a double holds: the padded range was [-inf, inf] and the
// error "[nice_ticks] bad range [-inf, inf]" named neither the series nor the value.
TEST_CASE("plot: values beyond kMaxPlotMagnitude are refused naming the series, the value and the file") {
  LinePlot p;
  p.series.push_back({"loss", {1, 2}, {1e308, -1e308}});
  CHECK(throws_with([&] { to_svg(p); }, {"[plot] series 'loss': y value 1e+308 is beyond the +-1e+307"}));
  p.series[0] = {"step", {-1e308, 1}, {1, 2}};
  CHECK(throws_with([&] { frame_of(p); }, {"series 'step': x value -1e+308"}));
  p.series[0] = {"edge", {-1e307, 1e307}, {-1e307, 1e307}};  // the largest range still lays out
  const Frame f = frame_of(p);
  CHECK((std::isfinite(f.y_min) && std::isfinite(f.y_max) && std::isfinite(f.x_max - f.x_min)));
  CHECK_NOTHROW(to_svg(p));
  BarPlot b;
  b.title = "bars";
  b.values = {1e308, -1e308};
  CHECK(throws_with([&] { frame_of(b); }, {"bar plot 'bars': value 1e+308"}));

  const fs::path path = fs::temp_directory_path() / fmt::format("hm_test_plot_huge_{}.jsonl", ::getpid());
  std::ofstream(path) << "{\"step\": 1, \"loss\": 2}\n{\"step\": 2, \"loss\": 1e308}\n{\"step\": 3, \"loss\": -1e308}\n";
  CHECK(throws_with([&] { metrics_plot(path.string(), "step", {"loss"}); },
                    {"[metrics_plot]", path.string() + "' line 2: \"loss\" is 1e+308"}));
  fs::remove(path);
}

TEST_CASE("plot: a log x axis maps log10, labels decades and skips x <= 0") {
  LinePlot p;
  p.log_x = true;
  p.series.push_back({"size", {0, 0.1, 1, 10, 100}, {4, 3, 2, 1, 0}});
  const Frame f = frame_of(p);
  CHECK(f.x_min == doctest::Approx(-1 - 0.12));  // log10 range of the positive x [-1, 2], padded by 4%
  CHECK(f.x_max == doctest::Approx(2 + 0.12));
  CHECK(f.px(1) - f.px(0.1) == doctest::Approx(f.px(10) - f.px(1)));  // equal steps per decade
  CHECK_FALSE(f.drawable(0, 4));
  CHECK_FALSE(f.drawable(-1, 4));
  CHECK(f.drawable(0.1, -3));  // y may be anything on a linear y axis
  std::vector<Element> els = parse_xml(to_svg(p));
  auto lines = named(els, "polyline");
  REQUIRE(lines.size() == 1);
  const auto pts = points_of(*lines[0]);
  REQUIRE(pts.size() == 4);  // x = 0 is left out
  CHECK(pts[0].first == doctest::Approx(f.px(0.1)).epsilon(1e-4));
  CHECK(pts[2].first == doctest::Approx(f.px(10)).epsilon(1e-4));
  std::vector<std::string> texts;
  for (const Element* t : named(els, "text")) texts.push_back(t->text);
  for (const char* s : {"0.1", "1", "10", "100"})
    CHECK_MESSAGE(std::find(texts.begin(), texts.end(), s) != texts.end(), s);
  const std::vector<unsigned char> rgb = to_pixels(p);  // the PNG path draws from the same frame
  CHECK(rgb.size() == static_cast<size_t>(p.width * p.height * 3));
}

TEST_CASE("plot: a bar plot with edges, a density overlay and a reference line") {
  BarPlot b;
  b.title = "pmf";
  b.edges = {-1, -0.5, 0, 0.5, 1};
  b.values = {0.1, 0.6, 0.9, 0.4};
  b.bar_label = "pmf";
  b.overlay = {"density", {-1, 0, 1}, {0, 1.0, 0}};
  b.reference = 0.5;
  b.reference_label = "uniform";
  const Frame f = frame_of(b);
  CHECK(f.x_min == -1);
  CHECK(f.x_max == 1);
  CHECK(f.y_min == 0);
  CHECK(f.y_max == doctest::Approx(1.05));

  std::vector<Element> els = parse_xml(to_svg(b));
  // Bars are the filled rects with the bar colour; each spans its bin and grows from 0.
  std::vector<const Element*> bars;
  for (const Element* r : named(els, "rect"))
    if (r->attrs.count("fill") && r->attrs.at("fill") == "#9ecae1" && attr(*r, "height") > 0 && attr(*r, "width") > 25)
      bars.push_back(r);
  REQUIRE(bars.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(attr(*bars[i], "x") == doctest::Approx(f.px(b.edges[i])).epsilon(1e-4));
    CHECK(attr(*bars[i], "width") == doctest::Approx(f.px(b.edges[i + 1]) - f.px(b.edges[i])).epsilon(1e-3));
    CHECK(attr(*bars[i], "y") == doctest::Approx(f.py(b.values[i])).epsilon(1e-4));
    CHECK(attr(*bars[i], "y") + attr(*bars[i], "height") == doctest::Approx(f.py(0)).epsilon(1e-4));
  }
  auto lines = named(els, "polyline");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]->attrs.at("data-label") == "density");
  CHECK(points_of(*lines[0])[1].second == doctest::Approx(f.py(1.0)).epsilon(1e-4));
  bool dashed = false;
  for (const Element* l : named(els, "line"))
    if (l->attrs.count("stroke-dasharray") && attr(*l, "x1") == f.left) {  // not the legend's sample
      dashed = true;
      CHECK(attr(*l, "y1") == doctest::Approx(f.py(0.5)).epsilon(1e-4));
    }
  CHECK(dashed);

  // Categories: bar i spans [i, i + 1], labelled by name.
  BarPlot c;
  c.values = {3, 1, 2};
  c.categories = {"cat", "dog", "emu"};
  std::vector<std::string> texts;
  std::vector<Element> cat_els = parse_xml(to_svg(c));
  for (const Element* t : named(cat_els, "text")) texts.push_back(t->text);
  for (const char* s : {"cat", "dog", "emu"}) CHECK(std::find(texts.begin(), texts.end(), s) != texts.end());
  CHECK(frame_of(c).x_max == 3);
}

TEST_CASE("plot: markers draw a square at each point, also of a one-point series") {
  LinePlot p;
  p.series.push_back({"sweep", {2, 4, 6}, {1, 3, 2}, true});
  p.series.push_back({"single", {4}, {2.5}, true});
  p.series.push_back({"plain", {2, 6}, {1.5, 1.5}});
  const Frame f = frame_of(p);
  std::vector<Element> els = parse_xml(to_svg(p));
  auto lines = named(els, "polyline");
  REQUIRE(lines.size() == 3);
  std::vector<const Element*> squares;  // filled 6 x 6 rects in a series colour
  for (const Element* r : named(els, "rect"))
    if (r->attrs.count("width") && attr(*r, "width") == 6 && attr(*r, "height") == 6) squares.push_back(r);
  REQUIRE(squares.size() == 4);  // 3 + 1, none for "plain"
  CHECK(squares[0]->attrs.at("fill") == lines[0]->attrs.at("stroke"));
  CHECK(squares[3]->attrs.at("fill") == lines[1]->attrs.at("stroke"));
  CHECK(attr(*squares[1], "x") + 3 == doctest::Approx(f.px(4)).epsilon(1e-4));
  CHECK(attr(*squares[1], "y") + 3 == doctest::Approx(f.py(3)).epsilon(1e-4));
  CHECK(attr(*squares[3], "x") + 3 == doctest::Approx(f.px(4)).epsilon(1e-4));
  CHECK(attr(*squares[3], "y") + 3 == doctest::Approx(f.py(2.5)).epsilon(1e-4));
  // The PNG has the one-point series' colour at its point.
  std::vector<unsigned char> px = to_pixels(p);
  const size_t i =
      (static_cast<size_t>(std::lround(f.py(2.5))) * p.width + static_cast<size_t>(std::lround(f.px(4)))) * 3;
  CHECK(std::array<int, 3>{px[i], px[i + 1], px[i + 2]} == std::array<int, 3>{255, 127, 14});  // palette(1)
}

TEST_CASE("plot: PNG output and pixels") {
  LinePlot p;
  p.width = 200, p.height = 150;
  p.series.push_back({"", {0, 1}, {0, 1}});  // unlabelled: no legend over the line
  std::vector<unsigned char> px = to_pixels(p);
  REQUIRE(px.size() == 200u * 150 * 3);
  const Frame f = frame_of(p);
  auto at = [&](double x, double y) {
    const size_t i = (static_cast<size_t>(std::lround(y)) * 200 + static_cast<size_t>(std::lround(x))) * 3;
    return std::array<int, 3>{px[i], px[i + 1], px[i + 2]};
  };
  CHECK(at(f.px(0.5), f.py(0.5)) == std::array<int, 3>{31, 119, 180});  // the first palette colour on the line
  CHECK(at(5, 5) == std::array<int, 3>{255, 255, 255});                 // background

  const fs::path dir = fs::temp_directory_path() / fmt::format("hm_test_plot_{}", ::getpid());
  fs::create_directories(dir);
  save(p, (dir / "a.png").string());
  save(p, (dir / "a.svg").string());
  std::ifstream in(dir / "a.png", std::ios::binary);
  char sig[8];
  in.read(sig, 8);
  CHECK(std::string(sig, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(fs::file_size(dir / "a.svg") > 500);
  CHECK(throws_with([&] { save(p, (dir / "a.jpg").string()); }, {"unknown image type", ".svg or .png"}));
  fs::remove_all(dir);
  // An image too large to allocate (100000 x 100000 RGB is 30 GB) or too small is refused.
  p.width = 100000, p.height = 100000;
  CHECK(throws_with([&] { to_pixels(p); }, {"[plot]", "100000x100000 is too large"}));
  p.width = 8192, p.height = -5;
  CHECK(throws_with([&] { to_pixels(p); }, {"[plot]", "8192x-5 is too small"}));
}

TEST_CASE("plot: metrics.jsonl series and errors") {
  const fs::path path = fs::temp_directory_path() / fmt::format("hm_test_plot_{}.jsonl", ::getpid());
  std::ofstream(path) << R"({"step": 10, "loss": 2.0, "lr": 0.1})"
                         "\n"
                      << R"({"step": 20, "loss": 1.5, "lr": 0.1, "val_loss": 1.8})"
                         "\n\n"
                      << R"({"step": 30, "loss": 1.0, "lr": 0.05})"
                         "\n";
  LinePlot p = metrics_plot(path.string(), "step", {"loss", "val_loss"});
  REQUIRE(p.series.size() == 2);
  CHECK(p.series[0].x == std::vector<double>{10, 20, 30});
  CHECK(p.series[0].y == std::vector<double>{2.0, 1.5, 1.0});
  CHECK(p.series[1].x == std::vector<double>{20});
  CHECK(p.x_label == "step");
  CHECK(p.y_label == "loss, val_loss");  // titled and labelled without being asked
  CHECK(p.title == fmt::format("loss, val_loss against step ({})", path.parent_path().filename().string()));
  std::vector<Element> els = parse_xml(to_svg(p));
  CHECK(named(els, "polyline").size() == 2);
  CHECK(throws_with([&] { metrics_plot(path.string(), "step", {"acc"}); },
                    {"no numeric 'acc'", "keys present: loss, lr, step, val_loss"}));
  std::ofstream(path, std::ios::app) << "{broken\n";
  CHECK(throws_with([&] { metrics_plot(path.string(), "step", {"loss"}); }, {"line 5", "not JSON"}));
  fs::remove(path);
  // /dev/zero (no newline, ever) stops at the line bound instead of eating memory.
  if (fs::exists("/dev/zero"))
    CHECK(throws_with([&] { metrics_plot("/dev/zero", "step", {"loss"}); },
                      {"[metrics_plot]", "'/dev/zero' line 1: longer than 16777216 bytes"}));

  // Several runs: one series per (run, y), labelled by the run directory.
  const fs::path root = fs::temp_directory_path() / fmt::format("hm_test_plot_runs_{}", ::getpid());
  for (const char* run : {"a", "b"}) {
    fs::create_directories(root / run);
    std::ofstream(root / run / "metrics.jsonl") << R"({"step": 1, "loss": 2.0, "val_loss": 2.5})"
                                                   "\n";
  }
  const std::vector<std::string> runs = {(root / "a" / "metrics.jsonl").string(),
                                         (root / "b" / "metrics.jsonl").string()};
  LinePlot two = metrics_plot(runs, "step", {"loss"});
  REQUIRE(two.series.size() == 2);
  CHECK(two.series[0].label == "a");
  CHECK(two.series[1].label == "b");
  CHECK(two.y_label == "loss");
  CHECK(two.title == "loss against step, 2 runs");
  LinePlot four = metrics_plot(runs, "step", {"loss", "val_loss"});
  REQUIRE(four.series.size() == 4);
  CHECK(four.series[3].label == "b: val_loss");
  CHECK(throws_with([&] { metrics_plot(std::vector<std::string>{}, "step", {"loss"}); }, {"no metrics files"}));
  // A run directory stands for its metrics.jsonl (`plot --metrics runs/a`); one without it says so.
  LinePlot dirs =
      metrics_plot(std::vector<std::string>{(root / "a").string(), (root / "b").string()}, "step", {"loss"});
  REQUIRE(dirs.series.size() == 2);
  CHECK(dirs.series[1].label == "b");
  CHECK(metrics_plot((root / "a").string(), "step", {"loss"}).series.at(0).y == std::vector<double>{2.0});
  CHECK(throws_with([&] { metrics_plot(root.string(), "step", {"loss"}); },
                    {"[metrics_plot]", (root / "metrics.jsonl").string(), "no such file"}));
  fs::remove_all(root);

  // Bad plots.
  BarPlot b;
  CHECK(throws_with([&] { frame_of(b); }, {"no values"}));
  b.values = {1, 2};
  b.edges = {0, 1};
  CHECK(throws_with([&] { frame_of(b); }, {"2 edges for 2 bars (need 3)"}));
  b.edges = {0, 2, 1};
  CHECK(throws_with([&] { frame_of(b); }, {"edges must increase"}));
  LinePlot l;
  l.series.push_back({"s", {1, 2}, {1}});
  CHECK(throws_with([&] { to_svg(l); }, {"series 's' has 2 x values and 1 y values"}));
}

TEST_CASE("plot: a band is a translucent polygon behind its line, markers-only series get error bars") {
  LinePlot p;
  Series mean{"mean", {0, 1, 2}, {1, 2, 1}};
  mean.y_low = {0.5, 1.5, 0.5}, mean.y_high = {1.5, 2.5, 1.5};
  Series paper{"paper", {1}, {2.2}};
  paper.line = false, paper.y_low = {2.0}, paper.y_high = {2.4};
  Series test{"test", {0, 2}, {1.2, 1.2}};
  test.dashed = true, test.color = 0;  // the colour of "mean"
  p.series = {mean, paper, test};
  const Frame f = frame_of(p);
  CHECK(f.y_min < 0.5);  // the band is inside the range
  CHECK(f.y_max > 2.5);
  const std::string svg = to_svg(p);
  std::vector<Element> els = parse_xml(svg);
  auto polys = named(els, "polygon");
  REQUIRE(polys.size() == 1);
  auto lines = named(els, "polyline");
  REQUIRE(lines.size() == 2);  // "mean" and "test"; "paper" has no line
  CHECK(polys[0]->attrs.at("data-label") == "mean");
  CHECK(polys[0]->attrs.at("fill") == lines[0]->attrs.at("stroke"));
  CHECK(attr(*polys[0], "fill-opacity") == doctest::Approx(0.2));
  // Upper edge left to right, then the lower edge back: 6 points, starting at (0, 1.5).
  const std::string pts = polys[0]->attrs.at("points");
  CHECK(std::count(pts.begin(), pts.end(), ',') == 6);
  CHECK(pts.rfind(fmt::format("{:.2f},{:.2f} ", f.px(0), f.py(1.5)), 0) == 0);
  CHECK(svg.find("<polygon") < svg.find("<polyline"));  // behind the lines
  CHECK(lines[1]->attrs.at("stroke") == lines[0]->attrs.at("stroke"));
  CHECK(lines[1]->attrs.count("stroke-dasharray") == 1);
  CHECK(lines[0]->attrs.count("stroke-dasharray") == 0);
  // The error bar of the paper's value: a vertical line at x = 1 from 2.0 to 2.4.
  bool bar = false;
  for (const Element* l : named(els, "line"))
    bar |= std::fabs(attr(*l, "x1") - f.px(1)) < 0.01 && std::fabs(attr(*l, "x2") - f.px(1)) < 0.01 &&
           std::fabs(attr(*l, "y1") - f.py(2.0)) < 0.01 && std::fabs(attr(*l, "y2") - f.py(2.4)) < 0.01;
  CHECK(bar);
  CHECK(throws_with(
      [] {
        LinePlot q;
        Series s{"s", {0, 1}, {0, 1}};
        s.y_low = {0};
        q.series = {s};
        to_svg(q);
      },
      {"band", "y_low and y_high of 2 values"}));

  // PNG (no labels, so no legend): inside the band the series colour blended at 0.2 over white
  // (255 * 0.8 + (31, 119, 180) * 0.2), outside it white.
  for (Series& s : p.series) s.label.clear();
  std::vector<unsigned char> px = to_pixels(p);
  auto at = [&](double x, double y) {
    const size_t i =
        (static_cast<size_t>(std::lround(f.py(y))) * p.width + static_cast<size_t>(std::lround(f.px(x)))) * 3;
    return std::array<int, 3>{px[i], px[i + 1], px[i + 2]};
  };
  CHECK(at(0.3, 1.05) == std::array<int, 3>{210, 228, 240});  // band from 0.8 to 1.8 at x = 0.3, line at 1.3
  CHECK(at(0.3, 0.65) == std::array<int, 3>{255, 255, 255});
  CHECK(at(1, 2.2) == std::array<int, 3>{255, 127, 14});  // the paper's marker, palette(1)
}

TEST_CASE("read_line_limited: lines, a last line without newline, the bound") {
  std::istringstream in("ab\n\ncde\nxyz");
  std::string line;
  int64_t n = 1;
  std::vector<std::string> lines;
  while (read_line_limited(in, line, 3, "t", "mem", n)) lines.push_back(line), ++n;
  CHECK(lines == std::vector<std::string>{"ab", "", "cde", "xyz"});
  std::istringstream big("abcd\n");
  CHECK(throws_with([&] { read_line_limited(big, line, 3, "t", "mem", 7); }, {"[t]", "'mem' line 7: longer than 3"}));
  std::istringstream empty("");
  CHECK(!read_line_limited(empty, line, 3, "t", "mem", 1));
}
