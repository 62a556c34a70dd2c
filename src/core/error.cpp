// Error code names and the CUDA availability probe stub that later issues replace.
#include <cgrad/core.hpp>

namespace cgrad {

const char* error_code_name(ErrorCode c) {
  switch (c) {
    case ErrorCode::ShapeMismatch: return "ShapeMismatch";
    case ErrorCode::InvalidArgument: return "InvalidArgument";
    case ErrorCode::InvalidOperation: return "InvalidOperation";
    case ErrorCode::DTypeMismatch: return "DTypeMismatch";
    case ErrorCode::DeviceError: return "DeviceError";
    case ErrorCode::OutOfMemory: return "OutOfMemory";
    case ErrorCode::CompileError: return "CompileError";
    case ErrorCode::ExecutionFailed: return "ExecutionFailed";
    case ErrorCode::Internal: return "Internal";
  }
  return "?";
}

std::string Device::str() const { return is_cuda() ? "cuda:" + std::to_string(index) : "cpu"; }

}  // namespace cgrad
