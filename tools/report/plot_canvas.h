// Internal to tools/report/plot*.cpp: the drawing surface both plot formats implement, so one
// layout routine serves SVG and PNG.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "harmonic/tools/report/plot.h"

namespace hm::report::detail {

struct Rgb {
  unsigned char r = 0, g = 0, b = 0;
};
inline constexpr Rgb kBlack{0, 0, 0}, kWhite{255, 255, 255}, kGrid{225, 225, 225}, kGray{90, 90, 90};

enum class Anchor { Start, Middle, End };
using Points = std::vector<std::pair<double, double>>;  // pixel coordinates

class Canvas {
 public:
  virtual ~Canvas() = default;
  virtual void rect(double x, double y, double w, double h, Rgb fill) = 0;
  virtual void frame(double x, double y, double w, double h, Rgb stroke) = 0;  // outline only
  virtual void line(double x1, double y1, double x2, double y2, Rgb color, double width, bool dashed = false) = 0;
  // One connected line; `label` names the series (kept in the SVG as data-label).
  virtual void polyline(const Points& points, Rgb color, double width, const std::string& label,
                        bool dashed = false) = 0;
  // A filled polygon (even-odd rule) blended over what is drawn: opacity 0..1.
  virtual void polygon(const Points& points, Rgb fill, double opacity, const std::string& label) = 0;
  // Text centred vertically on y; vertical text reads bottom to top, centred on (x, y).
  virtual void text(double x, double y, const std::string& s, double size, Anchor anchor, bool vertical = false,
                    Rgb color = kBlack) = 0;
};

// The width both backends lay text out with (an average sans-serif glyph is ~0.55 em).
inline double text_width(const std::string& s, double size) { return 0.58 * size * static_cast<double>(s.size()); }

void draw(const LinePlot& plot, Canvas& canvas);
void draw(const BarPlot& plot, Canvas& canvas);

// plot_png.cpp: a white RGB raster canvas and the PNG encoder.
std::vector<unsigned char> rasterize(int width, int height, const LinePlot* line, const BarPlot* bar);
std::string encode_png(const std::vector<unsigned char>& rgb, int width, int height);

}  // namespace hm::report::detail
