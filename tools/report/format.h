// Small text formatting shared by progress lines and reports.
#pragma once
#include <string>

namespace hm::report {

// "1h02m", "4m05s", "12.3s"; "?" for a negative or non-finite value.
std::string format_duration(double seconds);

}  // namespace hm::report
