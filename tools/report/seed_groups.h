// Runs grouped by configuration for statistics over seeds: the groups come in the order of their
// first run, each with its runs and their seeds. One seed twice in a group is an error naming the
// run, since two records of the same configuration and seed would count that seed twice.
#pragma once
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "harmonic/core/error.h"
#include "harmonic/tools/report/stats.h"

namespace hm::report {

template <class Run>
struct SeedGroup {
  std::vector<const Run*> runs;  // in the order given
  std::vector<uint64_t> seeds;   // seeds[i] is runs[i]'s seed, distinct

  const Run& first() const { return *runs.front(); }

  // One metric over the group's seeds: value(run) for every run.
  template <class Value>
  MetricStats stats(Value value) const {
    std::vector<double> values;
    values.reserve(runs.size());
    for (const Run* r : runs) values.push_back(value(*r));
    return seed_stats(seeds, values);
  }
};

// key(run) identifies the configuration (compared with ==: a tuple, string or number); seed(run)
// is the run's seed; label(run) names it in the duplicate-seed error raised as [where].
template <class Run, class Key, class Seed, class Label>
std::vector<SeedGroup<Run>> group_over_seeds(const std::vector<Run>& runs, Key key, Seed seed, Label label,
                                             std::string_view where) {
  using KeyValue = std::decay_t<std::invoke_result_t<Key, const Run&>>;
  std::vector<KeyValue> keys;
  std::vector<SeedGroup<Run>> groups;
  for (const Run& r : runs) {
    const KeyValue k = key(r);
    size_t i = 0;
    while (i < keys.size() && !(keys[i] == k)) ++i;
    if (i == keys.size()) keys.push_back(k), groups.emplace_back();
    const uint64_t s = seed(r);
    for (uint64_t earlier : groups[i].seeds) check(earlier != s, where, "'{}' has seed {} twice", label(r), s);
    groups[i].runs.push_back(&r);
    groups[i].seeds.push_back(s);
  }
  return groups;
}

}  // namespace hm::report
