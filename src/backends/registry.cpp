// Backend selection by device. The CPU runs the JIT (CGRAD_BACKEND=jit, the default) or the
// reference interpreter (CGRAD_BACKEND=interpreter). CUDA devices run the CUDA backend when the
// driver loads and the device exists; otherwise every CUDA placement raises DeviceError.
#include "backends/cpu/interpreter.h"
#include "backends/cpu/jit_backend.h"
#include "backends/cuda/loader.h"
#include "core/env.hpp"
#include "runtime/backend.h"

namespace cgrad {

bool cuda_available() { return backends::cuda::driver() != nullptr; }

namespace runtime {

void check_device(Device device, const std::string& what) { backends::cuda::require_device(device, what); }

Backend& backend_for(Device device) {
  if (device.is_cuda()) {
    backends::cuda::require_device(device, "run");
    throw Error(ErrorCode::DeviceError, "device " + device.str() + ": the CUDA backend is not part of this build yet");
  }
  static backends::cpu::Interpreter interpreter;
  static backends::cpu::JitBackend jit;
  if (core::env().backend == "interpreter") return interpreter;
  return jit;
}

}  // namespace runtime
}  // namespace cgrad
