// cgrad::stats() and reset_stats().
#include "runtime/stats.h"

#include <cgrad/core.hpp>

namespace cgrad {
namespace runtime {
Counters& counters() {
  static Counters c;
  return c;
}
}  // namespace runtime

Stats stats() {
  auto& c = runtime::counters();
  Stats s;
  s.kernels_launched = c.kernels_launched.load();
  s.kernels_compiled = c.kernels_compiled.load();
  s.kernel_cache_hits = c.kernel_cache_hits.load();
  s.disk_cache_hits = c.disk_cache_hits.load();
  s.plans_built = c.plans_built.load();
  s.plan_cache_hits = c.plan_cache_hits.load();
  s.bytes_allocated = c.bytes_allocated.load();
  s.auto_realizes = c.auto_realizes.load();
  s.bytes_in_use = c.bytes_in_use.load();
  s.peak_bytes_in_use = c.peak_bytes_in_use.load();
  s.traces = c.traces.load();
  s.result_cache_hits = c.result_cache_hits.load();
  s.buffers_reused = c.buffers_reused.load();
  s.host_kernels = c.host_kernels.load();
  return s;
}

void reset_stats() {
  auto& c = runtime::counters();
  for (auto* a : {&c.kernels_launched, &c.kernels_compiled, &c.kernel_cache_hits, &c.disk_cache_hits,
                  &c.plans_built, &c.plan_cache_hits, &c.bytes_allocated, &c.auto_realizes, &c.traces,
                  &c.result_cache_hits, &c.buffers_reused, &c.host_kernels})
    a->store(0);
  c.peak_bytes_in_use.store(c.bytes_in_use.load());  // live memory is not reset, its peak restarts
}

}  // namespace cgrad
