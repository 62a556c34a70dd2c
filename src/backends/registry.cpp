// The device table the runtime is given (runtime/backend.h: Devices): backend selection by
// device and copies between devices. The CPU runs the JIT (CGRAD_BACKEND=jit, the default) or the
// reference interpreter (CGRAD_BACKEND=interpreter). CUDA devices run the CUDA backend when the
// driver loads and the device exists; otherwise every CUDA placement raises DeviceError. The
// frontend installs the table (frontend::install_devices); nothing here is called from below.
#include "backends/registry.h"

#include "backends/cpu/interpreter.h"
#include "backends/cpu/jit/compiler.h"
#include "backends/cpu/jit_backend.h"
#include "backends/cpu/thread_pool.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/loader.h"
#include "core/env.hpp"

namespace cgrad {

bool cuda_available() { return backends::cuda::driver() != nullptr; }

Config config() {
  const backends::cpu::jit::Compiler& c = backends::cpu::jit::compiler();
  return Config{
      core::env().backend,          c.available ? c.path : std::string(), c.identity,
      runtime::default_cache_dir(), runtime::default_prebuilt_dir(),      backends::cpu::num_threads()};
}

namespace backends {

namespace {

class Registry final : public runtime::Devices {
 public:
  runtime::Backend& backend_for(Device device) override {
    if (device.is_cuda()) return cuda::cuda_backend(device.index);
    if (core::env().backend == "interpreter") return interpreter_;
    return jit_;
  }

  void check(Device device, const std::string& what) override { cuda::require_device(device, what); }

  ir::View transfer(const ir::Node& n, Device to) override {
    check(to, "to");
    const ir::View& v = n.value;
    const Device from = v.storage->device;
    if (from == to) return v;
    ir::View host = v;
    if (from.is_cuda()) host = cuda::cuda_backend(from.index).download(v, n.shape, n.dtype);
    if (!to.is_cuda())
      return host.strides == core::contiguous_strides(n.shape) && host.offset == 0
                 ? host
                 : cpu::contiguous_copy(host, n.shape, n.dtype);
    return cuda::cuda_backend(to.index).upload(host, n.shape, n.dtype);
  }

  ir::View duplicate(const ir::Node& n) override {
    const ir::View& v = n.value;
    const Device at = v.storage->device;
    if (!at.is_cuda()) return cpu::contiguous_copy(v, n.shape, n.dtype);
    cuda::CudaBackend& cuda = cuda::cuda_backend(at.index);  // through the host, as between two devices
    return cuda.upload(cuda.download(v, n.shape, n.dtype), n.shape, n.dtype);
  }

 private:
  cpu::Interpreter interpreter_;
  cpu::JitBackend jit_;
};

}  // namespace

runtime::Devices& devices() {
  static auto* registry = new Registry();  // never destroyed: backends outlive static destructors
  return *registry;
}

}  // namespace backends
}  // namespace cgrad
