// Host allocation. Later issues pool buffers here; every allocation is counted in stats.
#include "runtime/backend.h"
#include "runtime/stats.h"

#include <cstdlib>
#include <new>

namespace cgrad::runtime {

namespace {
void free_host(void* p, std::size_t) { std::free(p); }
}  // namespace

std::shared_ptr<ir::Storage> allocate_host(std::size_t nbytes) {
  auto s = std::make_shared<ir::Storage>();
  std::size_t rounded = (nbytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw Error(ErrorCode::OutOfMemory, "cannot allocate " + std::to_string(nbytes) + " bytes of host memory");
  s->data = p;
  s->nbytes = nbytes;
  s->device = Device::cpu();
  s->release = free_host;
  counters().bytes_allocated.fetch_add(nbytes, std::memory_order_relaxed);
  return s;
}

}  // namespace cgrad::runtime
