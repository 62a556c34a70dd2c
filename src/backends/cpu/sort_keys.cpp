// The choice of build for sort_keys (sort_keys.h): AVX-512F where the CPU has it.
#include "backends/cpu/sort_keys.h"

namespace cgrad::backends::cpu {

bool have_sort_keys() {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512;
#else
  return false;
#endif
}

void sort_keys(uint32_t* key, uint32_t* tmp, std::size_t n) {
#if defined(__x86_64__)
  sort_keys32_avx512(key, tmp, n);
#else
  (void)key, (void)tmp, (void)n;
#endif
}

void sort_keys(uint64_t* key, uint64_t* tmp, std::size_t n) {
#if defined(__x86_64__)
  sort_keys64_avx512(key, tmp, n);
#else
  (void)key, (void)tmp, (void)n;
#endif
}

}  // namespace cgrad::backends::cpu
