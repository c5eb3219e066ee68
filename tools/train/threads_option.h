// The --threads option the commands share (train, eval, grads in tools/train; bench, demo,
// forecast, sample in tools/cli): 0 (the default) keeps OpenMP's count, N > 0 sets it, and a
// negative count is refused while parsing instead of being ignored.
#pragma once

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace hm::train {

CLI::Option* add_threads_option(CLI::App* cmd, int& threads);

}  // namespace hm::train
