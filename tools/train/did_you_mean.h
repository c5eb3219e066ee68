// "Did you mean ...?" for a mistyped config key or command-line option.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace hm::train {

// The candidates closest to `name`: within a small edit distance, whose last dotted part is
// `name`'s ("steps" -> "trainer.steps"), or that start with it; only the closest, at most three.
std::vector<std::string> close_names(std::string_view name, const std::vector<std::string>& candidates);

// " (did you mean 'a' or 'b'?)", or "" when no candidate is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

// After app.parse threw CLI::ExtrasError: one line per unexpected option of app or of the
// subcommand it was given to, with the options that subcommand does have that are close;
// "" when the unexpected arguments are not options.
std::string unknown_options_message(const CLI::App& app);

}  // namespace hm::train
