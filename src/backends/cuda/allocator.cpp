// Caching device allocator (see allocator.h).
#include "backends/cuda/allocator.h"

#include "backends/cuda/device.h"
#include "core/env.hpp"
#include "runtime/stats.h"

#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cgrad::backends::cuda {

namespace {

// Size classes: multiples of 512 bytes up to 1 MiB, then of 2 MiB (large tensors waste < 2 MiB).
std::size_t size_class(std::size_t n) {
  constexpr std::size_t kSmall = 512, kLarge = std::size_t(2) << 20;
  if (n == 0) n = 1;
  if (n <= (std::size_t(1) << 20)) return (n + kSmall - 1) / kSmall * kSmall;
  return (n + kLarge - 1) / kLarge * kLarge;
}

struct Pool {
  std::mutex mutex;
  std::vector<std::multimap<std::size_t, CUdeviceptr>> free;          // per device: class -> blocks
  std::unordered_map<CUdeviceptr, std::pair<int, std::size_t>> live;  // block -> (device, class)
  std::size_t cached = 0;

  // Frees every cached block of every device (the caller holds the mutex).
  void trim_locked() {
    for (std::size_t d = 0; d < free.size(); ++d) {
      if (free[d].empty()) continue;
      device_context(static_cast<int>(d)).make_current();
      for (auto& [cls, p] : free[d]) driver()->cuMemFree(p);
      free[d].clear();
    }
    cached = 0;
  }
};

Pool& pool() {
  static auto* p = new Pool;  // never destroyed: storages may be released during exit
  return *p;
}

void release(void* data, std::size_t nbytes) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  auto it = p.live.find(reinterpret_cast<CUdeviceptr>(data));
  if (it == p.live.end()) return;
  const auto [device, cls] = it->second;
  p.live.erase(it);
  runtime::counters().sub_in_use(nbytes);
  const int64_t limit = core::env().cuda_pool_bytes;
  if (limit >= 0 && p.cached + cls > static_cast<std::size_t>(limit)) {
    device_context(device).make_current();
    driver()->cuMemFree(reinterpret_cast<CUdeviceptr>(data));
    return;
  }
  p.free[static_cast<std::size_t>(device)].emplace(cls, reinterpret_cast<CUdeviceptr>(data));
  p.cached += cls;
}

}  // namespace

std::shared_ptr<ir::Storage> allocate_device(int device, std::size_t nbytes) {
  DeviceContext& dc = device_context(device);
  const std::size_t cls = size_class(nbytes);
  Pool& p = pool();
  CUdeviceptr ptr = 0;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.free.size() <= static_cast<std::size_t>(device))
      p.free.resize(static_cast<std::size_t>(device) + 1);
    auto& fl = p.free[static_cast<std::size_t>(device)];
    if (auto it = fl.find(cls); it != fl.end()) {
      ptr = it->second;
      fl.erase(it);
      p.cached -= cls;
    } else {
      dc.make_current();
      CUresult r = driver()->cuMemAlloc(&ptr, cls);
      if (r == kCudaErrorOutOfMemory) {
        p.trim_locked();  // give the cache back to the driver and try once more
        dc.make_current();
        r = driver()->cuMemAlloc(&ptr, cls);
      }
      check(r, ("cuMemAlloc of " + std::to_string(cls) + " bytes on " + Device::cuda(device).str()).c_str());
    }
    p.live[ptr] = {device, cls};
  }
  runtime::counters().bytes_allocated.fetch_add(nbytes, std::memory_order_relaxed);
  runtime::counters().add_in_use(nbytes);
  auto s = std::make_shared<ir::Storage>();
  s->data = reinterpret_cast<void*>(ptr);
  s->nbytes = nbytes;
  s->device = Device::cuda(device);
  s->release = release;
  return s;
}

std::size_t device_pool_cached_bytes() {
  std::lock_guard<std::mutex> lock(pool().mutex);
  return pool().cached;
}

void device_pool_trim() {
  std::lock_guard<std::mutex> lock(pool().mutex);
  pool().trim_locked();
}

}  // namespace cgrad::backends::cuda
