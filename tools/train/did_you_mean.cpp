#include "harmonic/tools/train/did_you_mean.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>

namespace hm::train {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string_view last_part(std::string_view key) {
  const size_t dot = key.rfind('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

// Options given to `app` that it does not have, with its own long option names.
void collect_unknown(const CLI::App& app, const std::string& path, std::vector<std::string>& lines) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  for (const std::string& arg : app.remaining()) {
    if (arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) continue;  // values such as -3
    const std::string flag = arg.substr(0, arg.find('='));
    lines.push_back(fmt::format("{}: unknown option '{}'{}", path, flag, did_you_mean(flag, names)));
  }
  for (const CLI::App* sub : app.get_subcommands())
    collect_unknown(*sub, path + " " + sub->get_name(), lines);
}

}  // namespace

std::vector<std::string> close_names(std::string_view name, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(name, c);
    if (last_part(c) == last_part(name)) d = std::min<size_t>(d, 1);
    if (name.size() >= 3 && c.starts_with(name)) d = std::min(d, limit);  // "trainer.warmup" -> "..._steps"
    if (d <= limit && c != name) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored)  // only the closest: "--step" suggests --steps, not --set too
    if (d == scored.front().first && out.size() < 3 && std::find(out.begin(), out.end(), c) == out.end())
      out.push_back(c);
  return out;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::vector<std::string> close = close_names(name, candidates);
  if (close.empty()) return "";
  std::string list;
  for (size_t i = 0; i < close.size(); ++i)
    list += fmt::format("{}'{}'", i == 0 ? "" : i + 1 == close.size() ? " or " : ", ", close[i]);
  return fmt::format(" (did you mean {}?)", list);
}

std::string unknown_options_message(const CLI::App& app) {
  std::vector<std::string> lines;
  const std::string name = app.get_name().substr(app.get_name().rfind('/') + 1);  // argv[0] without its folder
  collect_unknown(app, name, lines);
  return fmt::format("{}", fmt::join(lines, "\n"));
}

}  // namespace hm::train
