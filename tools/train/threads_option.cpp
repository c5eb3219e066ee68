#include "harmonic/tools/train/threads_option.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <string>

namespace hm::train {

CLI::Option* add_threads_option(CLI::App* cmd, int& threads) {
  CLI::Validator non_negative(
      [](std::string& text) -> std::string {
        int n = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (ec != std::errc() || end != text.data() + text.size() || n < 0)
          return "thread count must be an integer >= 0 (0: all cores), got '" + text + "'";
        return "";
      },
      "INT>=0");
  return cmd->add_option("--threads", threads, "CPU threads (0: all)")->check(non_negative);
}

}  // namespace hm::train
