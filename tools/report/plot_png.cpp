// The PNG side of the plots: a small rasteriser (filled rectangles, thick lines stamped as
// squares, translucent polygons filled by scanline, stb_easy_font's segment glyphs for text)
// and the encoder from Debian's libstb.
#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"
#include "harmonic/tools/report/plot_canvas.h"

// stb_easy_font is all static functions (no implementation macro); stb_image_write's
// implementation is in -lstb.
#include <stb/stb_easy_font.h>
#include <stb/stb_image_write.h>

namespace hm::report::detail {
namespace {

// stb_easy_font has glyphs for ASCII 32..126 only and indexes its table by (char - 32), so any
// other byte (a UTF-8 "±" in a legend) read out of bounds: "±" becomes "+-", every other
// non-ASCII character one '?', control characters '?'.
std::string printable_ascii(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 32 && c <= 126) {
      out += static_cast<char>(c);
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xB1) {
      out += "+-", ++i;
    } else if ((c & 0xC0) != 0x80) {  // a character's first byte (continuation bytes are dropped)
      out += '?';
    }
  }
  return out;
}

class RasterCanvas : public Canvas {
 public:
  RasterCanvas(int w, int h) : w_(w), h_(h), rgb_(static_cast<size_t>(w) * h * 3, 255) {}

  void rect(double x, double y, double w, double h, Rgb fill) override {
    if (w < 0) x += w, w = -w;
    if (h < 0) y += h, h = -h;
    fill_box(static_cast<int>(std::lround(x)), static_cast<int>(std::lround(y)), static_cast<int>(std::lround(x + w)),
             static_cast<int>(std::lround(y + h)), fill);
  }
  void frame(double x, double y, double w, double h, Rgb stroke) override {
    line(x, y, x + w, y, stroke, 1);
    line(x + w, y, x + w, y + h, stroke, 1);
    line(x + w, y + h, x, y + h, stroke, 1);
    line(x, y + h, x, y, stroke, 1);
  }
  // Stamps a width x width square every half pixel along the segment (dashes: 6 on, 4 off).
  void line(double x1, double y1, double x2, double y2, Rgb color, double width, bool dashed = false) override {
    const double len = std::hypot(x2 - x1, y2 - y1);
    const int steps = std::max(1, static_cast<int>(std::ceil(len * 2)));
    const double r = std::max(0.5, width / 2);
    for (int i = 0; i <= steps; ++i) {
      const double t = static_cast<double>(i) / steps;
      if (dashed && std::fmod(t * len, 10.0) >= 6.0) continue;
      const double x = x1 + t * (x2 - x1), y = y1 + t * (y2 - y1);
      fill_box(static_cast<int>(std::floor(x - r + 0.5)), static_cast<int>(std::floor(y - r + 0.5)),
               static_cast<int>(std::floor(x + r + 0.5)), static_cast<int>(std::floor(y + r + 0.5)), color);
    }
  }
  void polyline(const Points& points, Rgb color, double width, const std::string&, bool dashed) override {
    if (points.size() == 1) line(points[0].first, points[0].second, points[0].first, points[0].second, color, width);
    for (size_t i = 1; i < points.size(); ++i)
      line(points[i - 1].first, points[i - 1].second, points[i].first, points[i].second, color, width, dashed);
  }
  // Scanline fill at pixel centres (even-odd rule), each covered pixel blended with the fill.
  void polygon(const Points& points, Rgb fill, double opacity, const std::string&) override {
    if (points.size() < 3) return;
    for (int y = 0; y < h_; ++y) {
      const double yc = y + 0.5;
      std::vector<double> xs;  // where the edges cross this row
      for (size_t i = 0; i < points.size(); ++i) {
        const auto [x0, y0] = points[i];
        const auto [x1, y1] = points[(i + 1) % points.size()];
        if ((y0 <= yc) != (y1 <= yc)) xs.push_back(x0 + (yc - y0) / (y1 - y0) * (x1 - x0));
      }
      std::sort(xs.begin(), xs.end());
      for (size_t k = 0; k + 1 < xs.size(); k += 2) {
        const int a = std::max(0, static_cast<int>(std::ceil(xs[k] - 0.5)));
        const int b = std::min(w_ - 1, static_cast<int>(std::floor(xs[k + 1] - 0.5)));
        for (int x = a; x <= b; ++x) blend(x, y, fill, opacity);
      }
    }
  }
  // stb_easy_font draws ~7 px tall capitals as axis-aligned quads on an integer grid; an
  // integer scale keeps its one-unit strokes crisp. Vertical text is turned a quarter
  // (the quads stay axis-aligned).
  void text(double x, double y, const std::string& s, double size, Anchor anchor, bool vertical, Rgb color) override {
    if (s.empty()) return;
    const std::string copy = printable_ascii(s);
    std::vector<char> buffer(copy.size() * 1024 + 64);  // up to 16 quads of 64 bytes per glyph
    unsigned char col[4] = {color.r, color.g, color.b, 255};
    const int quads = stb_easy_font_print(0, 0, const_cast<char*>(copy.data()), col, buffer.data(),
                                          static_cast<int>(buffer.size()));
    const int scale = std::max(1, static_cast<int>(std::lround(size / 10.0)));
    const int width = stb_easy_font_width(const_cast<char*>(copy.data())) * scale, height = 7 * scale;
    const int shift = anchor == Anchor::Start ? 0 : anchor == Anchor::Middle ? -width / 2 : -width;
    const int bx = static_cast<int>(std::lround(x)), by = static_cast<int>(std::lround(y));
    for (int q = 0; q < quads; ++q) {
      const float* v = reinterpret_cast<const float*>(buffer.data() + q * 64);  // 4 vertices of 16 bytes
      // Corners 0 and 2 are opposite; offsets from the anchor point (text centred on y).
      int x0 = static_cast<int>(v[0]) * scale + shift, y0 = static_cast<int>(v[1]) * scale - height / 2;
      int x1 = static_cast<int>(v[8]) * scale + shift, y1 = static_cast<int>(v[9]) * scale - height / 2;
      if (vertical) {  // (dx, dy) -> (dy, -dx): reads bottom to top
        const int ax0 = y0, ay0 = -x0, ax1 = y1, ay1 = -x1;
        x0 = std::min(ax0, ax1), x1 = std::max(ax0, ax1), y0 = std::min(ay0, ay1), y1 = std::max(ay0, ay1);
      }
      fill_box(bx + x0, by + y0, bx + x1, by + y1, color);
    }
  }

  std::vector<unsigned char> take() { return std::move(rgb_); }

 private:
  // Fills [x0, x1) x [y0, y1), clipped to the image.
  void fill_box(int x0, int y0, int x1, int y1, Rgb c) {
    x0 = std::max(x0, 0), y0 = std::max(y0, 0), x1 = std::min(x1, w_), y1 = std::min(y1, h_);
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) {
        unsigned char* p = &rgb_[(static_cast<size_t>(y) * w_ + x) * 3];
        p[0] = c.r, p[1] = c.g, p[2] = c.b;
      }
  }

  void blend(int x, int y, Rgb c, double a) {
    unsigned char* p = &rgb_[(static_cast<size_t>(y) * w_ + x) * 3];
    p[0] = static_cast<unsigned char>(std::lround(p[0] * (1 - a) + c.r * a));
    p[1] = static_cast<unsigned char>(std::lround(p[1] * (1 - a) + c.g * a));
    p[2] = static_cast<unsigned char>(std::lround(p[2] * (1 - a) + c.b * a));
  }

  int w_, h_;
  std::vector<unsigned char> rgb_;
};

}  // namespace

std::vector<unsigned char> rasterize(int width, int height, const LinePlot* line, const BarPlot* bar) {
  line ? frame_of(*line) : frame_of(*bar);  // checks the size (and the data) before the pixels are allocated
  RasterCanvas canvas(width, height);
  if (line) draw(*line, canvas);
  if (bar) draw(*bar, canvas);
  return canvas.take();
}

std::string encode_png(const std::vector<unsigned char>& rgb, int width, int height) {
  check(rgb.size() == static_cast<size_t>(width) * height * 3, "encode_png", "{} bytes for a {}x{} RGB image",
        rgb.size(), width, height);
  std::string out;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
  };
  const int ok = stbi_write_png_to_func(append, &out, width, height, 3, rgb.data(), width * 3);
  check(ok != 0 && !out.empty(), "encode_png", "stbi_write_png_to_func failed for a {}x{} image", width, height);
  return out;
}

}  // namespace hm::report::detail
