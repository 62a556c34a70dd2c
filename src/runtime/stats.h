// Process-wide counters behind cgrad::stats(). Atomics: realizes on several threads may count.
#pragma once

#include <atomic>
#include <cstdint>

namespace cgrad::runtime {

struct Counters {
  std::atomic<uint64_t> kernels_launched{0}, kernels_compiled{0}, kernel_cache_hits{0}, disk_cache_hits{0},
      plans_built{0}, plan_cache_hits{0}, bytes_allocated{0}, auto_realizes{0}, bytes_in_use{0},
      peak_bytes_in_use{0}, traces{0}, result_cache_hits{0}, buffers_reused{0}, host_kernels{0};
  /// Not in cgrad::Stats: bytes of the blocks HostPrefault handed to the pool (runtime/backend.h).
  std::atomic<uint64_t> bytes_prefaulted{0};
  void add_in_use(uint64_t n) {
    uint64_t now = bytes_in_use.fetch_add(n, std::memory_order_relaxed) + n;
    uint64_t peak = peak_bytes_in_use.load(std::memory_order_relaxed);
    while (now > peak && !peak_bytes_in_use.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void sub_in_use(uint64_t n) { bytes_in_use.fetch_sub(n, std::memory_order_relaxed); }
};
Counters& counters();

}  // namespace cgrad::runtime
