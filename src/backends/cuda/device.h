// One CUDA device as cgrad uses it: its primary context, the one stream all of cgrad's work on
// it goes to (kernels, copies, cuBLAS; so work is ordered without events and freed memory can
// be reused at once), its architecture and its cuBLAS handle. Created on first use, never
// destroyed (the driver tears contexts down at exit).
#pragma once

#include "backends/cuda/loader.h"

#include <string>

namespace cgrad::backends::cuda {

struct DeviceContext {
  int index = 0;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::string name;
  cublasHandle_t blas = nullptr;  ///< created on the first GEMM
  /// "sm_90": what NVRTC compiles for on this device.
  std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
  /// Makes this device's context current on the calling thread.
  void make_current() const;
  /// Waits for all work queued on the stream (the host is about to read).
  void synchronize() const;
};

/// The context of CUDA device `index`; throws DeviceError when it cannot be used.
DeviceContext& device_context(int index);

/// The cuBLAS handle of `d` (bound to its stream; TF32 only when CGRAD_CUDA_TF32=1); throws
/// DeviceError when cuBLAS cannot be loaded.
cublasHandle_t blas_handle(DeviceContext& d);

}  // namespace cgrad::backends::cuda
