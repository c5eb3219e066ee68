// Plots for training curves and distributions, written as SVG (always) or PNG (through
// Debian's libstb, with a small built-in vector font), without any plotting library:
//   line plots  several series, axes with "nice" ticks and labels, legend, optional log x / y
//   bar plots   a categorical distribution (or histogram with bin edges), optionally with
//               an overlay curve (e.g. the true density under a Fourier head's pmf) and a
//               horizontal reference line
// Both formats are drawn from one layout (Frame), so a value lands on the same pixel in
// each; SVG coordinates are printed with two decimals.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hm::report {

struct Series {
  std::string label;
  std::vector<double> x, y;  // equal lengths; a non-finite point (or one <= 0 on a log axis) breaks the line
  bool markers = false;      // also a 6 px square at each point (line plots; shows one-point series)
  // Optional band (e.g. mean ± std over seeds): y_low[i] .. y_high[i] at x[i], both empty or
  // both of x's length. Line plots draw it as a translucent area of the series colour behind
  // every line; a markers-only series shows it as an error bar at each point. A non-finite
  // bound breaks the band.
  std::vector<double> y_low = {}, y_high = {};
  bool line = true;     // false: open square markers only, no line (e.g. a paper's reported values)
  bool dashed = false;  // a dashed line (e.g. a held-out curve beside its training curve)
  int color = -1;       // palette index (matplotlib's tab10); -1: the series' position
};

struct LinePlot {
  std::string title, x_label, y_label;
  std::vector<Series> series;
  bool log_x = false;  // e.g. model size or a frequency sweep: equal steps per decade
  bool log_y = false;
  // Optional text of each x tick (the ticks stay "nice" numbers), e.g. the date of a time step;
  // "" leaves a tick unlabelled.
  std::function<std::string(double)> x_tick_label = {};
  int width = 720, height = 450;
};

struct BarPlot {
  std::string title, x_label, y_label;
  std::vector<double> values;           // bar heights, one per bar
  std::vector<double> edges;            // values.size() + 1 increasing bin edges; empty: bar i spans [i, i + 1]
  std::vector<std::string> categories;  // labels under the bars (without edges); empty: 0, 1, 2, ...
  std::string bar_label;                // legend entry of the bars ("" : none)
  Series overlay;                       // optional curve over the bars, x in the same units as edges
  std::optional<double> reference;      // optional horizontal dashed line at this y
  std::string reference_label;
  int width = 720, height = 450;
};

// Where the data goes: the data ranges (log10 units for a log axis) and the plot area in
// pixels (y grows downwards).
struct Frame {
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  double left = 0, top = 0, right = 1, bottom = 1;
  bool log_x = false, log_y = false;
  double px(double x) const;  // data x (not log10'd) -> pixel column
  double py(double y) const;  // data y (not log10'd) -> pixel row
  // Both coordinates finite, and positive on a log axis.
  bool drawable(double x, double y) const;
};
Frame frame_of(const LinePlot& plot);
Frame frame_of(const BarPlot& plot);

// The largest magnitude a plot lays out: the padded range of values up to it, and its ticks,
// stay finite (1e308 and -1e308 span more than a double holds). frame_of and metrics_plot
// refuse larger values, naming them.
inline constexpr double kMaxPlotMagnitude = 1e307;

// About `target` round tick values (steps of 1, 2 or 5 x 10^k) covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

std::string to_svg(const LinePlot& plot);
std::string to_svg(const BarPlot& plot);
// RGB pixels (height * width * 3), row-major, top row first.
std::vector<unsigned char> to_pixels(const LinePlot& plot);
std::vector<unsigned char> to_pixels(const BarPlot& plot);
// Writes path atomically as SVG or PNG by its extension (.svg / .png).
void save(const LinePlot& plot, const std::string& path);
void save(const BarPlot& plot, const std::string& path);
// Writes an RGB image (height * width * 3 bytes, row-major, top row first) as a PNG, atomically.
void save_png(const std::vector<unsigned char>& rgb, int width, int height, const std::string& path);
// A study's figure: dir/name.svg and dir/name.png; returns their file names, none when the plot
// has no series (its data did not run).
std::vector<std::string> save_svg_and_png(const LinePlot& plot, const std::string& dir, const std::string& name);

// A line plot of the keys `ys` against `x` from a metrics.jsonl (one JSON object per line;
// lines without a key are skipped for that series), or from a run directory's metrics.jsonl.
// Throws naming the keys the file has when some y never appears.
LinePlot metrics_plot(const std::string& jsonl_path, const std::string& x, const std::vector<std::string>& ys);
// Several runs on one plot: every y of every file, labelled "<run>: <y>" (just "<run>" when
// there is one y), where <run> is the file's directory (its name when the directories'
// names differ, else the whole path). One file gives metrics_plot(path, x, ys).
LinePlot metrics_plot(const std::vector<std::string>& jsonl_paths, const std::string& x,
                      const std::vector<std::string>& ys);

}  // namespace hm::report
