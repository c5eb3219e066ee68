// Target "metrics": `harmonic plot --metrics RUN/metrics.jsonl`: the file read into a line plot
// of loss and val_loss against step, then drawn (SVG with a linear and a log y axis, and the
// pixels of a small PNG).
#include "tests/fuzz/fuzz_targets.h"
#include "harmonic/tools/report/plot.h"

namespace hm::fuzz {

int fuzz_metrics(const uint8_t* data, size_t size) {
  const std::string path = write_scratch("metrics.jsonl", as_text(data, size));
  return reject_errors([&] {
    report::LinePlot plot = report::metrics_plot(path, "step", {"loss", "val_loss"});
    (void)report::to_svg(plot);
    plot.log_y = true;
    (void)report::to_svg(plot);
    plot.width = 160;
    plot.height = 100;
    (void)report::to_pixels(plot);
  });
}

}  // namespace hm::fuzz
