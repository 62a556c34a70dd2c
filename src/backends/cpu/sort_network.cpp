// sort_network.inc for the baseline instruction set, and the choice of build for this CPU.
#include "backends/cpu/sort_network.h"

namespace cgrad::backends::cpu {

namespace {

inline void compare_exchange_lanes(uint64_t* a, uint64_t* b, bool ascending) {
  for (std::size_t r = 0; r < kNetworkLanes; ++r) {
    const uint64_t x = a[r], y = b[r], lo = x < y ? x : y, hi = x < y ? y : x;
    a[r] = ascending ? lo : hi;
    b[r] = ascending ? hi : lo;
  }
}

#include "backends/cpu/sort_network.inc"

}  // namespace

void bitonic_lanes_baseline(uint64_t* c, std::size_t p) { sort_lanes(c, p); }

void bitonic_lanes(uint64_t* c, std::size_t p) {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) return bitonic_lanes_avx512(c, p);
#endif
  sort_lanes(c, p);
}

}  // namespace cgrad::backends::cpu
