// Plot layout (ranges, ticks, legend) drawn through a Canvas. The two canvases:
// tools/report/plot_svg.cpp and tools/report/plot_png.cpp; metrics.jsonl: plot_metrics.cpp.
#include "harmonic/tools/report/plot.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/error.h"
#include "harmonic/tools/report/plot_canvas.h"

namespace hm::report {

using detail::Anchor;
using detail::Canvas;
using detail::Points;
using detail::Rgb;

namespace {

// matplotlib's tab10.
constexpr Rgb kPalette[] = {{31, 119, 180}, {255, 127, 14},  {44, 160, 44},   {214, 39, 40},  {148, 103, 189},
                            {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};
constexpr Rgb kBarFill{158, 202, 225}, kBarStroke{49, 130, 189};
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kBandOpacity = 0.2;

Rgb palette(size_t i) { return kPalette[i % std::size(kPalette)]; }

// The plot area of a width x height image (room for title, tick labels and axis labels).
Frame area(int width, int height) {
  check(width >= 160 && height >= 120, "plot", "image size {}x{} is too small (at least 160x120)", width, height);
  // 8192 x 8192 RGB is 192 MiB of pixels; 100000 x 100000 would be 30 GB.
  check(width <= 8192 && height <= 8192, "plot", "image size {}x{} is too large (at most 8192x8192)", width, height);
  Frame f;
  f.left = 72, f.top = 36, f.right = width - 20, f.bottom = height - 52;
  return f;
}

// Widens a degenerate range; returns false when there was no finite value.
bool finish_range(double& lo, double& hi) {
  if (lo > hi) {
    lo = 0, hi = 1;
    return false;
  }
  if (lo == hi) {
    double pad = lo == 0 ? 0.5 : std::fabs(lo) * 0.05;
    lo -= pad, hi += pad;
  }
  return true;
}

// A finite value beyond kMaxPlotMagnitude (non-finite ones break the line instead).
void check_magnitude(double v, std::string_view what, const std::string& label, const char* fn) {
  check(!std::isfinite(v) || std::fabs(v) <= kMaxPlotMagnitude, fn,
        "series '{}': {} value {} is beyond the +-{} a plot can lay out", label, what, v, kMaxPlotMagnitude);
}

void check_series(const Series& s, const char* fn) {
  check(s.x.size() == s.y.size(), fn, "series '{}' has {} x values and {} y values", s.label, s.x.size(), s.y.size());
  check(s.y_low.size() == s.y_high.size() && (s.y_low.empty() || s.y_low.size() == s.x.size()), fn,
        "series '{}': the band needs y_low and y_high of {} values each, got {} and {}", s.label, s.x.size(),
        s.y_low.size(), s.y_high.size());
  for (double v : s.x) check_magnitude(v, "x", s.label, fn);
  for (const auto* ys : {&s.y, &s.y_low, &s.y_high})
    for (double v : *ys) check_magnitude(v, "y", s.label, fn);
}

std::string format_tick(double v, double step) {
  if (std::fabs(v) < step * 1e-9) return "0";
  if (std::fabs(v) >= 1e6 || step < 1e-4) return fmt::format("{:.3g}", v);
  int decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 8);
  return fmt::format("{:.{}f}", v, decimals);
}

// Ticks of a log axis: decades, else 1-2-5 multiples, else linear ticks (all in log10 units).
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> out;
  for (double e = std::ceil(lo); e <= hi + 1e-9; ++e) out.push_back(e);
  if (out.size() > 10) {
    std::vector<double> thin;
    const size_t every = (out.size() + 7) / 8;
    for (size_t i = 0; i < out.size(); i += every) thin.push_back(out[i]);
    return thin;
  }
  if (out.size() >= 2) return out;
  out.clear();
  for (double e = std::floor(lo); e <= std::ceil(hi); ++e)
    for (double m : {1.0, 2.0, 5.0}) {
      double t = e + std::log10(m);
      if (t >= lo - 1e-9 && t <= hi + 1e-9) out.push_back(t);
    }
  if (out.size() >= 2) return out;
  out.clear();
  for (double v : nice_ticks(std::pow(10.0, lo), std::pow(10.0, hi)))
    if (v > 0) out.push_back(std::log10(v));
  return out;
}

// A markers-only series' point: an open 10 px square with a 2 px dot at its centre (apart
// from the filled squares of line series).
void open_marker(Canvas& c, double x, double y, Rgb color) {
  c.line(x - 5, y - 5, x + 5, y - 5, color, 2);
  c.line(x + 5, y - 5, x + 5, y + 5, color, 2);
  c.line(x + 5, y + 5, x - 5, y + 5, color, 2);
  c.line(x - 5, y + 5, x - 5, y - 5, color, 2);
  c.rect(x - 1, y - 1, 2, 2, color);
}

// The legend goes in the corner of the plot area that hides the fewest drawn points.
void draw_legend(Canvas& c, const Frame& f, const std::vector<std::pair<std::string, int>>& entries,
                 const std::vector<Rgb>& colors, const std::vector<Points>& drawn) {
  // entries: (label, kind) with kind 0 line, 1 bar swatch, 2 dashed line, 3 marker.
  if (entries.empty()) return;
  double w = 0;
  for (const auto& [label, kind] : entries) w = std::max(w, detail::text_width(label, 12));
  const double box_w = w + 42, box_h = 18.0 * static_cast<double>(entries.size()) + 8;
  double x0 = f.right - box_w - 8, y0 = f.top + 8;
  size_t best = std::numeric_limits<size_t>::max();
  for (double cx : {f.right - box_w - 8, f.left + 8})  // top right first: the usual place
    for (double cy : {f.top + 8, f.bottom - box_h - 8}) {
      size_t hidden = 0;
      auto inside = [&](double x, double y) { return x >= cx && x <= cx + box_w && y >= cy && y <= cy + box_h; };
      for (const Points& run : drawn)
        for (size_t i = 0; i < run.size(); ++i) {
          hidden += inside(run[i].first, run[i].second);
          if (i == 0) continue;  // samples every ~4 px along the segment
          const auto [x0s, y0s] = run[i - 1];
          const auto [x1s, y1s] = run[i];
          const int n = static_cast<int>(std::hypot(x1s - x0s, y1s - y0s) / 4);
          for (int k = 1; k < n; ++k) {
            const double t = static_cast<double>(k) / n;
            hidden += inside(x0s + t * (x1s - x0s), y0s + t * (y1s - y0s));
          }
        }
      if (hidden < best) best = hidden, x0 = cx, y0 = cy;
    }
  c.rect(x0, y0, box_w, box_h, detail::kWhite);
  c.frame(x0, y0, box_w, box_h, detail::kGrid);
  for (size_t i = 0; i < entries.size(); ++i) {
    const double y = y0 + 13 + 18.0 * static_cast<double>(i);
    if (entries[i].second == 1)
      c.rect(x0 + 8, y - 5, 22, 10, colors[i]);
    else if (entries[i].second == 3)
      open_marker(c, x0 + 19, y, colors[i]);
    else
      c.line(x0 + 8, y, x0 + 30, y, colors[i], 2, entries[i].second == 2);
    c.text(x0 + 36, y, entries[i].first, 12, Anchor::Start);
  }
}

// Axes, grid, tick labels, title and axis labels around the plot area.
void draw_axes(Canvas& c, const Frame& f, const std::string& title, const std::string& x_label,
               const std::string& y_label, const std::vector<double>& xticks,
               const std::vector<std::string>& xtick_labels, bool x_grid = true) {
  std::vector<double> yticks = f.log_y ? log_ticks(f.y_min, f.y_max) : nice_ticks(f.y_min, f.y_max);
  const double ystep = yticks.size() >= 2 ? yticks[1] - yticks[0] : 1.0;
  for (double t : yticks) {
    const double y = f.log_y ? f.py(std::pow(10.0, t)) : f.py(t);
    c.line(f.left, y, f.right, y, detail::kGrid, 1);
    c.line(f.left - 5, y, f.left, y, detail::kBlack, 1);
    const double v = f.log_y ? std::pow(10.0, t) : t;
    c.text(f.left - 8, y, f.log_y ? fmt::format("{:g}", v) : format_tick(v, ystep), 11, Anchor::End);
  }
  for (size_t i = 0; i < xticks.size(); ++i) {
    const double x = f.px(xticks[i]);
    if (x_grid) c.line(x, f.top, x, f.bottom, detail::kGrid, 1);
    c.line(x, f.bottom, x, f.bottom + 5, detail::kBlack, 1);
    c.text(x, f.bottom + 16, xtick_labels[i], 11, Anchor::Middle);
  }
  c.frame(f.left, f.top, f.right - f.left, f.bottom - f.top, detail::kBlack);
  if (!title.empty()) c.text((f.left + f.right) / 2, 18, title, 15, Anchor::Middle);
  if (!x_label.empty()) c.text((f.left + f.right) / 2, f.bottom + 38, x_label, 12, Anchor::Middle);
  if (!y_label.empty()) c.text(16, (f.top + f.bottom) / 2, y_label, 12, Anchor::Middle, true);
}

std::pair<std::vector<double>, std::vector<std::string>> numeric_xticks(const Frame& f) {
  if (f.log_x) {  // ticks in data units (px takes them), labelled as on a log y axis
    std::vector<double> ticks;
    std::vector<std::string> labels;
    for (double t : log_ticks(f.x_min, f.x_max)) {
      ticks.push_back(std::pow(10.0, t));
      labels.push_back(fmt::format("{:g}", ticks.back()));
    }
    return {ticks, labels};
  }
  std::vector<double> ticks = nice_ticks(f.x_min, f.x_max);
  const double step = ticks.size() >= 2 ? ticks[1] - ticks[0] : 1.0;
  std::vector<std::string> labels;
  for (double t : ticks) labels.push_back(format_tick(t, step));
  return {ticks, labels};
}

// Splits a series into drawable runs of pixel points.
std::vector<Points> runs(const Series& s, const Frame& f) {
  std::vector<Points> out(1);
  for (size_t i = 0; i < s.x.size(); ++i) {
    if (!f.drawable(s.x[i], s.y[i])) {
      if (!out.back().empty()) out.emplace_back();
      continue;
    }
    out.back().emplace_back(f.px(s.x[i]), f.py(s.y[i]));
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

// Splits a band into drawable runs of closed polygons: the upper edge left to right, then the
// lower edge back. Also returns the edges (what a legend would hide).
std::vector<Points> band_runs(const Series& s, const Frame& f) {
  std::vector<Points> out;
  Points upper, lower;
  auto flush = [&] {
    if (upper.size() >= 2) {
      Points poly = upper;
      poly.insert(poly.end(), lower.rbegin(), lower.rend());
      out.push_back(std::move(poly));
    }
    upper.clear(), lower.clear();
  };
  for (size_t i = 0; i < s.y_low.size(); ++i) {
    if (!f.drawable(s.x[i], s.y_low[i]) || !f.drawable(s.x[i], s.y_high[i])) {
      flush();
      continue;
    }
    upper.emplace_back(f.px(s.x[i]), f.py(s.y_high[i]));
    lower.emplace_back(f.px(s.x[i]), f.py(s.y_low[i]));
  }
  flush();
  return out;
}

template <class Plot>
void save_any(const Plot& plot, const std::string& path) {
  if (path.ends_with(".svg")) return write_file_atomic(path, to_svg(plot));
  check(path.ends_with(".png"), "plot::save", "'{}': unknown image type (use .svg or .png)", path);
  write_file_atomic(path, detail::encode_png(to_pixels(plot), plot.width, plot.height));
}

}  // namespace

void save_png(const std::vector<unsigned char>& rgb, int width, int height, const std::string& path) {
  write_file_atomic(path, detail::encode_png(rgb, width, height));
}

// -- layout -------------------------------------------------------------------------------------

double Frame::px(double x) const {
  const double v = log_x ? std::log10(x) : x;
  return left + (v - x_min) / (x_max - x_min) * (right - left);
}

double Frame::py(double y) const {
  const double v = log_y ? std::log10(y) : y;
  return bottom - (v - y_min) / (y_max - y_min) * (bottom - top);
}

bool Frame::drawable(double x, double y) const {
  return std::isfinite(x) && std::isfinite(y) && (!log_x || x > 0) && (!log_y || y > 0);
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  check(std::isfinite(lo) && std::isfinite(hi) && lo <= hi && target >= 1, "nice_ticks", "bad range [{}, {}]", lo, hi);
  if (lo == hi) return {lo};
  const double raw = (hi - lo) / target, mag = std::pow(10.0, std::floor(std::log10(raw))), norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  std::vector<double> out;
  const double first = std::ceil(lo / step - 1e-9);
  for (double k = first; k * step <= hi + step * 1e-9; ++k) out.push_back(std::fabs(k) < 1e-12 ? 0.0 : k * step);
  return out;
}

Frame frame_of(const LinePlot& plot) {
  Frame f = area(plot.width, plot.height);
  f.log_x = plot.log_x, f.log_y = plot.log_y;
  double x_lo = kInf, x_hi = -kInf, y_lo = kInf, y_hi = -kInf;
  for (const Series& s : plot.series) {
    check_series(s, "plot");
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!f.drawable(s.x[i], s.y[i])) continue;
      const double x = plot.log_x ? std::log10(s.x[i]) : s.x[i];
      const double y = plot.log_y ? std::log10(s.y[i]) : s.y[i];
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
    for (size_t i = 0; i < s.y_low.size(); ++i)
      for (double b : {s.y_low[i], s.y_high[i]})
        if (f.drawable(s.x[i], b)) {
          const double y = plot.log_y ? std::log10(b) : b;
          y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
        }
  }
  if (finish_range(x_lo, x_hi) && plot.log_x) {  // a log x axis holds a few sizes: whole end markers
    const double pad = 0.04 * (x_hi - x_lo);
    x_lo -= pad, x_hi += pad;
  }
  if (finish_range(y_lo, y_hi)) {
    const double pad = 0.05 * (y_hi - y_lo);
    y_lo -= pad, y_hi += pad;
  }
  f.x_min = x_lo, f.x_max = x_hi, f.y_min = y_lo, f.y_max = y_hi;
  return f;
}

Frame frame_of(const BarPlot& plot) {
  const size_t n = plot.values.size();
  check(n > 0, "plot", "bar plot '{}' has no values", plot.title);
  check(plot.edges.empty() || plot.edges.size() == n + 1, "plot", "bar plot '{}': {} edges for {} bars (need {})",
        plot.title, plot.edges.size(), n, n + 1);
  for (size_t i = 1; i < plot.edges.size(); ++i)
    check(plot.edges[i] > plot.edges[i - 1], "plot", "bar plot '{}': edges must increase (edge {} is {} after {})",
          plot.title, i, plot.edges[i], plot.edges[i - 1]);
  check_series(plot.overlay, "plot");
  Frame f = area(plot.width, plot.height);
  f.x_min = plot.edges.empty() ? 0.0 : plot.edges.front();
  f.x_max = plot.edges.empty() ? static_cast<double>(n) : plot.edges.back();
  auto check_value = [&](double v, const char* what) {
    check(!std::isfinite(v) || std::fabs(v) <= kMaxPlotMagnitude, "plot",
          "bar plot '{}': {} {} is beyond the +-{} a plot can lay out", plot.title, what, v, kMaxPlotMagnitude);
  };
  for (double v : plot.values) check_value(v, "value");
  for (double v : plot.edges) check_value(v, "edge");
  if (plot.reference) check_value(*plot.reference, "reference");
  double lo = 0, hi = 0;  // bars grow from 0
  for (double v : plot.values)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  for (size_t i = 0; i < plot.overlay.y.size(); ++i)
    if (f.drawable(plot.overlay.x[i], plot.overlay.y[i]))
      lo = std::min(lo, plot.overlay.y[i]), hi = std::max(hi, plot.overlay.y[i]);
  if (plot.reference) lo = std::min(lo, *plot.reference), hi = std::max(hi, *plot.reference);
  finish_range(lo, hi);
  const double pad = 0.05 * (hi - lo);
  f.y_min = lo < 0 ? lo - pad : 0.0;
  f.y_max = hi > 0 ? hi + pad : 0.0;
  return f;
}

// -- drawing ------------------------------------------------------------------------------------

namespace detail {

void draw(const LinePlot& plot, Canvas& c) {
  const Frame f = frame_of(plot);
  auto [ticks, labels] = numeric_xticks(f);
  if (plot.x_tick_label)
    for (size_t i = 0; i < ticks.size(); ++i) labels[i] = plot.x_tick_label(ticks[i]);
  draw_axes(c, f, plot.title, plot.x_label, plot.y_label, ticks, labels);
  std::vector<std::pair<std::string, int>> legend;
  std::vector<Rgb> colors;
  std::vector<Points> drawn;
  auto color_of = [&](size_t i) {
    return palette(plot.series[i].color >= 0 ? static_cast<size_t>(plot.series[i].color) : i);
  };
  for (size_t i = 0; i < plot.series.size(); ++i)  // bands first: behind every line
    if (plot.series[i].line)
      for (Points& poly : band_runs(plot.series[i], f)) {
        c.polygon(poly, color_of(i), kBandOpacity, plot.series[i].label);
        drawn.push_back(std::move(poly));
      }
  for (size_t i = 0; i < plot.series.size(); ++i) {
    const Series& s = plot.series[i];
    if (!s.line)  // error bars with 4 px caps
      for (size_t k = 0; k < s.y_low.size(); ++k) {
        if (!f.drawable(s.x[k], s.y_low[k]) || !f.drawable(s.x[k], s.y_high[k])) continue;
        const double x = f.px(s.x[k]), lo = f.py(s.y_low[k]), hi = f.py(s.y_high[k]);
        c.line(x, lo, x, hi, color_of(i), 1.5);
        c.line(x - 4, lo, x + 4, lo, color_of(i), 1.5);
        c.line(x - 4, hi, x + 4, hi, color_of(i), 1.5);
        drawn.push_back({{x, lo}, {x, hi}});
      }
    for (Points& run : runs(s, f)) {
      if (s.line) c.polyline(run, color_of(i), 1.8, s.label, s.dashed);
      for (const auto& [x, y] : run) {
        if (!s.line)
          open_marker(c, x, y, color_of(i));
        else if (s.markers)
          c.rect(x - 3, y - 3, 6, 6, color_of(i));
      }
      drawn.push_back(std::move(run));
    }
    if (!s.label.empty()) legend.emplace_back(s.label, !s.line ? 3 : s.dashed ? 2 : 0), colors.push_back(color_of(i));
  }
  draw_legend(c, f, legend, colors, drawn);
}

void draw(const BarPlot& plot, Canvas& c) {
  const Frame f = frame_of(plot);
  const size_t n = plot.values.size();
  std::vector<double> ticks;
  std::vector<std::string> labels;
  if (plot.edges.empty()) {  // category labels under the bars, thinned to fit
    const size_t every = std::max<size_t>(1, static_cast<size_t>(std::ceil(n * 40.0 / (f.right - f.left))));
    for (size_t i = 0; i < n; i += every) {
      ticks.push_back(static_cast<double>(i) + 0.5);
      labels.push_back(i < plot.categories.size() ? plot.categories[i] : std::to_string(i));
    }
  } else {
    std::tie(ticks, labels) = numeric_xticks(f);
  }
  draw_axes(c, f, plot.title, plot.x_label, plot.y_label, ticks, labels, !plot.edges.empty());
  Points bar_tops;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(plot.values[i])) continue;
    const double x0 = f.px(plot.edges.empty() ? static_cast<double>(i) : plot.edges[i]);
    const double x1 = f.px(plot.edges.empty() ? static_cast<double>(i + 1) : plot.edges[i + 1]);
    const double gap = plot.edges.empty() ? 0.1 * (x1 - x0) : 0.0;
    const double y0 = f.py(std::max(plot.values[i], 0.0)), y1 = f.py(std::min(plot.values[i], 0.0));
    c.rect(x0 + gap, y0, x1 - x0 - 2 * gap, y1 - y0, kBarFill);
    c.frame(x0 + gap, y0, x1 - x0 - 2 * gap, y1 - y0, kBarStroke);
    for (double x = x0; x <= x1; x += 4) bar_tops.emplace_back(x, y0);  // what a legend would hide
  }
  std::vector<std::pair<std::string, int>> legend;
  std::vector<Rgb> colors;
  std::vector<Points> drawn = {bar_tops};
  if (!plot.bar_label.empty()) legend.emplace_back(plot.bar_label, 1), colors.push_back(kBarFill);
  for (Points& run : runs(plot.overlay, f)) {
    c.polyline(run, palette(3), 2, plot.overlay.label);
    drawn.push_back(std::move(run));
  }
  if (!plot.overlay.label.empty() && !plot.overlay.x.empty())
    legend.emplace_back(plot.overlay.label, 0), colors.push_back(palette(3));
  if (plot.reference) {
    c.line(f.left, f.py(*plot.reference), f.right, f.py(*plot.reference), kGray, 1.5, true);
    if (!plot.reference_label.empty()) legend.emplace_back(plot.reference_label, 2), colors.push_back(kGray);
    for (double x = f.left; x <= f.right; x += 4) drawn.back().emplace_back(x, f.py(*plot.reference));
  }
  draw_legend(c, f, legend, colors, drawn);
}

}  // namespace detail

std::vector<unsigned char> to_pixels(const LinePlot& plot) {
  return detail::rasterize(plot.width, plot.height, &plot, nullptr);
}
std::vector<unsigned char> to_pixels(const BarPlot& plot) {
  return detail::rasterize(plot.width, plot.height, nullptr, &plot);
}

void save(const LinePlot& plot, const std::string& path) { save_any(plot, path); }
void save(const BarPlot& plot, const std::string& path) { save_any(plot, path); }

std::vector<std::string> save_svg_and_png(const LinePlot& plot, const std::string& dir, const std::string& name) {
  if (plot.series.empty()) return {};
  std::vector<std::string> written;
  for (const char* ext : {".svg", ".png"}) {
    save(plot, (std::filesystem::path(dir) / (name + ext)).string());
    written.push_back(name + ext);
  }
  return written;
}

}  // namespace hm::report
