// The choice of build for sort_keys (sort_keys.h): AVX-512F where the CPU has it.
#include "backends/cpu/sort_keys.h"

#include <atomic>

namespace cgrad::backends::cpu {

namespace {
std::atomic<bool> allowed{true};
}  // namespace

void set_sort_keys_allowed(bool allow) { allowed.store(allow, std::memory_order_relaxed); }

#if defined(__x86_64__)
bool have_sort_keys() {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 && allowed.load(std::memory_order_relaxed);
}
void sort_keys(uint32_t* key, std::size_t n) { sort_keys32_avx512(key, n); }
void sort_keys(uint64_t* key, std::size_t n) { sort_keys64_avx512(key, n); }
void sort_keys(int32_t* x, std::size_t n) { sort_ints32_avx512(x, n); }
void sort_keys(int64_t* x, std::size_t n) { sort_ints64_avx512(x, n); }
void sort_keys(float* x, std::size_t n) { sort_floats32_avx512(x, n); }
void sort_keys(double* x, std::size_t n) { sort_floats64_avx512(x, n); }
#else
bool have_sort_keys() { return false; }
// (never called: callers check have_sort_keys)
void sort_keys(uint32_t*, std::size_t) {}
void sort_keys(uint64_t*, std::size_t) {}
void sort_keys(int32_t*, std::size_t) {}
void sort_keys(int64_t*, std::size_t) {}
void sort_keys(float*, std::size_t) {}
void sort_keys(double*, std::size_t) {}
#endif

}  // namespace cgrad::backends::cpu
