// Every HARMONIC_* environment variable the library and the `harmonic` command read, with the
// runtime switch that does the same in code where there is one: the one table of them
// (`harmonic info` prints it with the current values; tools/README.md#environment holds it
// for readers; tests/core/test_environment.cpp fails when a getenv("HARMONIC_...") in the sources
// is missing from it).
#pragma once
#include <span>
#include <string>
#include <string_view>

namespace hm {

struct EnvironmentVariable {
  std::string_view name;           // HARMONIC_...
  std::string_view default_value;  // what unset means
  std::string_view effect;         // what a value does
  std::string_view in_code;        // the runtime switch with the same effect, or ""
  std::string_view read_in;        // the file that reads it
};

// The table, sorted by name.
std::span<const EnvironmentVariable> environment_variables();

// The variable's value now, or "(unset)".
std::string environment_value(std::string_view name);

}  // namespace hm
