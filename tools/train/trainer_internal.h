// Helpers shared by the trainer's .cpp files (not installed API).
#pragma once
#include <string>

namespace hm::train {

double now_seconds();                         // a steady clock, in seconds
std::string format_duration(double seconds);  // "m:ss" or "h:mm:ss"; "?" when not finite

}  // namespace hm::train
