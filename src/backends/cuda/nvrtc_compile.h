// NVRTC: CUDA C++ source -> PTX or cubin, no GPU needed. Generated kernels include
// cgrad/scalar.hpp, which is handed to NVRTC as an in-memory header (the same text the CPU JIT
// writes into its cache), so the GPU computes exactly what the CPU kernels and the interpreter do.
#pragma once

#include <string>
#include <vector>

namespace cgrad::backends::cuda {

struct NvrtcOutput {
  std::string ptx;
  std::string cubin;  ///< empty unless compiled for a real architecture (sm_XY)
  std::string log;    ///< NVRTC's warnings
};

/// The options cgrad compiles with for `arch` ("sm_90": PTX and cubin, "compute_90": PTX only).
std::vector<std::string> nvrtc_options(const std::string& arch);

/// Compiles `source` (program name `name` in messages). Throws DeviceError when NVRTC cannot be
/// loaded, CompileError with NVRTC's log (and the first lines of the source) when it fails.
NvrtcOutput nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch);

/// "NVRTC <major>.<minor>", or "" without NVRTC (part of the cubin cache key).
std::string nvrtc_version_string();

}  // namespace cgrad::backends::cuda
