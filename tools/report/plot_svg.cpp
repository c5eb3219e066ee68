// The SVG side of the plots: each drawing call becomes one element (coordinates with two
// decimals; a series is one <polyline data-label="..."> per unbroken run, a band one
// <polygon class="band" data-label="..."> with fill-opacity).
#include "harmonic/core/error.h"
#include "harmonic/tools/report/plot_canvas.h"

namespace hm::report {

using detail::Anchor;
using detail::Points;
using detail::Rgb;

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string points_attr(const Points& points) {
  std::string pts;
  for (const auto& [x, y] : points) pts += fmt::format("{}{:.2f},{:.2f}", pts.empty() ? "" : " ", x, y);
  return pts;
}

std::string hex(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

class SvgCanvas : public detail::Canvas {
 public:
  SvgCanvas(int w, int h) {
    out_ = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"sans-serif\">\n<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
        w, h);
  }
  void rect(double x, double y, double w, double h, Rgb fill) override {
    out_ += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"/>\n", x, y, w,
                        h, hex(fill));
  }
  void frame(double x, double y, double w, double h, Rgb stroke) override {
    out_ += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"none\" stroke=\"{}\"/>\n", x, y, w,
        h, hex(stroke));
  }
  void line(double x1, double y1, double x2, double y2, Rgb color, double width, bool dashed) override {
    out_ += fmt::format(
        "<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n", x1, y1,
        x2, y2, hex(color), width, dashed ? " stroke-dasharray=\"6 4\"" : "");
  }
  void polyline(const Points& points, Rgb color, double width, const std::string& label, bool dashed) override {
    out_ += fmt::format(
        "<polyline data-label=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-linejoin=\"round\"{} "
        "points=\"{}\"/>\n",
        escape(label), hex(color), width, dashed ? " stroke-dasharray=\"6 4\"" : "", points_attr(points));
  }
  void polygon(const Points& points, Rgb fill, double opacity, const std::string& label) override {
    out_ += fmt::format(
        "<polygon data-label=\"{}\" class=\"band\" fill=\"{}\" fill-opacity=\"{:.2f}\" stroke=\"none\" "
        "points=\"{}\"/>\n",
        escape(label), hex(fill), opacity, points_attr(points));
  }
  void text(double x, double y, const std::string& s, double size, Anchor anchor, bool vertical, Rgb color) override {
    const char* a = anchor == Anchor::Start ? "start" : anchor == Anchor::Middle ? "middle" : "end";
    out_ += fmt::format(
        "<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"{}\" text-anchor=\"{}\" dominant-baseline=\"middle\" "
        "fill=\"{}\"{}>{}</text>\n",
        x, y, size, a, hex(color), vertical ? fmt::format(" transform=\"rotate(-90 {:.2f} {:.2f})\"", x, y) : "",
        escape(s));
  }
  std::string finish() { return out_ + "</svg>\n"; }

 private:
  std::string out_;
};

}  // namespace

std::string to_svg(const LinePlot& plot) {
  SvgCanvas c(plot.width, plot.height);
  detail::draw(plot, c);
  return c.finish();
}

std::string to_svg(const BarPlot& plot) {
  SvgCanvas c(plot.width, plot.height);
  detail::draw(plot, c);
  return c.finish();
}

}  // namespace hm::report
