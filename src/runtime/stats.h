// Process-wide counters behind cgrad::stats(). Atomics: realizes on several threads may count.
#pragma once

#include <atomic>
#include <cstdint>

namespace cgrad::runtime {

struct Counters {
  std::atomic<uint64_t> kernels_launched{0}, kernels_compiled{0}, kernel_cache_hits{0}, disk_cache_hits{0},
      plans_built{0}, plan_cache_hits{0}, bytes_allocated{0}, auto_realizes{0};
};
Counters& counters();

}  // namespace cgrad::runtime
