// sort_network.inc for AVX-512F (vpminuq/vpmaxuq over 8 rows). Built with -mavx512f
// (src/CMakeLists.txt); nothing in it runs unless sort_network.cpp found AVX-512F on the CPU.
#include "backends/cpu/sort_network.h"

#include <immintrin.h>

namespace cgrad::backends::cpu {

namespace {

static_assert(kNetworkLanes == 8, "one 512-bit vector of 64-bit words per network element");

inline void compare_exchange_lanes(uint64_t* a, uint64_t* b, bool ascending) {
  const __m512i x = _mm512_loadu_si512(a), y = _mm512_loadu_si512(b);
  // (the zero-masking forms: the plain ones trip GCC 12's -Wmaybe-uninitialized in its header)
  const __m512i lo = _mm512_maskz_min_epu64(0xFF, x, y), hi = _mm512_maskz_max_epu64(0xFF, x, y);
  _mm512_storeu_si512(a, ascending ? lo : hi);
  _mm512_storeu_si512(b, ascending ? hi : lo);
}

#include "backends/cpu/sort_network.inc"

}  // namespace

void bitonic_lanes_avx512(uint64_t* c, std::size_t p) { sort_lanes(c, p); }

}  // namespace cgrad::backends::cpu
