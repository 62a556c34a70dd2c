// Backend selection by device. Only the CPU exists until the CUDA backend lands (issue #4):
// cuda_available() is then false and any CUDA placement raises DeviceError.
#include "backends/cpu/interpreter.h"
#include "runtime/backend.h"

namespace cgrad {

bool cuda_available() { return false; }

namespace runtime {

Backend& backend_for(Device device) {
  if (device.is_cuda())
    throw Error(ErrorCode::DeviceError, "device " + device.str() + ": CUDA is not available in this build");
  static backends::cpu::Interpreter interpreter;
  return interpreter;
}

}  // namespace runtime
}  // namespace cgrad
