// The parent project's target: configured only (tests/subdir/check.cmake), never built.
#include <harmonic/harmonic.h>

int main() { return hm::ones({2, 3}).numel() == 6 ? 0 : 1; }
