// Backend selection by device and copies between devices. The CPU runs the JIT
// (CGRAD_BACKEND=jit, the default) or the reference interpreter (CGRAD_BACKEND=interpreter).
// CUDA devices run the CUDA backend when the driver loads and the device exists; otherwise every
// CUDA placement raises DeviceError.
#include "backends/cpu/interpreter.h"
#include "backends/cpu/jit_backend.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/loader.h"
#include "core/env.hpp"
#include "runtime/backend.h"

#include <map>
#include <mutex>
#include <tuple>

namespace cgrad {

bool cuda_available() { return backends::cuda::driver() != nullptr; }

namespace runtime {

void check_device(Device device, const std::string& what) { backends::cuda::require_device(device, what); }

Backend& backend_for(Device device) {
  if (device.is_cuda()) return backends::cuda::cuda_backend(device.index);
  static backends::cpu::Interpreter interpreter;
  static backends::cpu::JitBackend jit;
  if (core::env().backend == "interpreter") return interpreter;
  return jit;
}

ir::View transfer(const ir::Node& n, Device to) {
  check_device(to, "to");
  const ir::View& v = n.value;
  const Device from = v.storage->device;
  if (from == to) return v;
  ir::View host = v;
  if (from.is_cuda()) host = backends::cuda::cuda_backend(from.index).download(v, n.shape, n.dtype);
  if (!to.is_cuda()) return host.strides == core::contiguous_strides(n.shape) && host.offset == 0
                                ? host
                                : backends::cpu::contiguous_copy(host, n.shape, n.dtype);
  return backends::cuda::cuda_backend(to.index).upload(host, n.shape, n.dtype);
}

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

}  // namespace runtime
}  // namespace cgrad
