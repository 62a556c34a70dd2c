// The installed device table (backend.h: Devices) and the copy cache built on its transfers. The
// backends layer implements the table; the frontend installs it, so the runtime calls down into
// the backends only through this interface.
#include "runtime/backend.h"

#include <atomic>
#include <map>
#include <mutex>
#include <tuple>

namespace cgrad::runtime {

namespace {

std::atomic<Devices*> g_devices{nullptr};

Devices& devices() {
  Devices* d = g_devices.load(std::memory_order_acquire);
  if (!d)
    throw Error(
        ErrorCode::Internal,
        "no device table installed: the frontend installs the backends' (frontend::install_devices) before "
        "the first tensor is built");
  return *d;
}

}  // namespace

void install_devices(Devices& d) { g_devices.store(&d, std::memory_order_release); }

Backend& backend_for(Device device) { return devices().backend_for(device); }

void check_device(Device device, const std::string& what) { devices().check(device, what); }

ir::View transfer(const ir::Node& n, Device to) { return devices().transfer(n, to); }
ir::View duplicate(const ir::Node& n) { return devices().duplicate(n); }

ir::NodePtr cached_copy(const ir::NodePtr& n, Device to) {
  struct Entry {
    std::weak_ptr<ir::Storage> source;  // the CPU storage: the copy is valid while it lives ...
    uint64_t version;                   // ... and is not written again (a plan reusing its buffer)
    ir::NodePtr copy;
  };
  using Key = std::tuple<const ir::Storage*, int, int64_t, core::Strides, Shape, DType>;
  static std::mutex mutex;
  static auto* cache = new std::map<Key, Entry>();  // never destroyed: device memory outlives exit order
  const ir::View& v = n->value;
  Key key{v.storage.get(), to.index, v.offset, v.strides, n->shape, n->dtype};
  std::lock_guard<std::mutex> lock(mutex);
  for (auto it = cache->begin(); it != cache->end();)  // drop copies of freed CPU storage
    it = it->second.source.expired() ? cache->erase(it) : std::next(it);
  if (auto it = cache->find(key); it != cache->end()) {
    if (it->second.version == v.storage->version) return it->second.copy;
    cache->erase(it);
  }
  ir::NodePtr copy = ir::make_buffer(n->shape, n->dtype, to, transfer(*n, to));
  cache->emplace(std::move(key), Entry{v.storage, v.storage->version, copy});
  return copy;
}

}  // namespace cgrad::runtime
