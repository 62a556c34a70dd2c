// Backend selection by device. The CPU runs the JIT (CGRAD_BACKEND=jit, the default) or the
// reference interpreter (CGRAD_BACKEND=interpreter). CUDA arrives with issue #4: until then
// cuda_available() is false and any CUDA placement raises DeviceError.
#include "backends/cpu/interpreter.h"
#include "backends/cpu/jit_backend.h"
#include "core/env.hpp"
#include "runtime/backend.h"

namespace cgrad {

bool cuda_available() { return false; }

namespace runtime {

Backend& backend_for(Device device) {
  if (device.is_cuda())
    throw Error(ErrorCode::DeviceError, "device " + device.str() + ": CUDA is not available in this build");
  static backends::cpu::Interpreter interpreter;
  static backends::cpu::JitBackend jit;
  if (core::env().backend == "interpreter") return interpreter;
  return jit;
}

}  // namespace runtime
}  // namespace cgrad
