// The CUDA libraries, opened at run time: the driver API (libcuda.so.1), NVRTC and cuBLAS.
//
// Nothing in cgrad links against CUDA. Each library is dlopen'ed on first use and its entry
// points are looked up into a table of function pointers; the types below are the few the
// tables need, declared here so that building cgrad needs no CUDA headers. A library that is
// missing, too old (an entry point is absent) or, for the driver, cannot initialize or sees no
// device leaves its table null and remembers why, so cuda_available() is false and every use of
// Device::cuda() raises DeviceError with that reason. The tables are built once per process
// and never destroyed (background threads and exit-time destructors may still use them).
#pragma once

#include <cgrad/core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace cgrad::backends::cuda {

// ---- driver API types (ABI of cuda.h) ----
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUstream_st;
struct CUmod_st;
struct CUfunc_st;
using CUcontext = CUctx_st*;
using CUstream = CUstream_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
struct CUgraph_st;
struct CUgraphNode_st;
struct CUgraphExec_st;
using CUgraph = CUgraph_st*;
using CUgraphNode = CUgraphNode_st*;
using CUgraphExec = CUgraphExec_st*;
/// CUDA_KERNEL_NODE_PARAMS (v1 layout, the one the unversioned graph entry points take).
struct KernelNodeParams {
  CUfunction func;
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
  void** kernel_params;
  void** extra;
};
inline constexpr CUresult kCudaSuccess = 0;
inline constexpr CUresult kCudaErrorOutOfMemory = 2;
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;
inline constexpr int kAttrMultiprocessorCount = 16;
inline constexpr unsigned kStreamNonBlocking = 1;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, std::size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, std::size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**);
  // CUDA graphs (optional: null on drivers without them; replays then launch one by one).
  CUresult (*cuGraphCreate)(CUgraph*, unsigned);
  CUresult (*cuGraphAddKernelNode)(CUgraphNode*, CUgraph, const CUgraphNode*, std::size_t,
                                   const KernelNodeParams*);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec*, CUgraph, unsigned long long);
  CUresult (*cuGraphExecKernelNodeSetParams)(CUgraphExec, CUgraphNode, const KernelNodeParams*);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  bool has_graphs() const {
    return cuGraphCreate && cuGraphAddKernelNode && cuGraphInstantiateWithFlags &&
           cuGraphExecKernelNodeSetParams && cuGraphLaunch && cuGraphExecDestroy && cuGraphDestroy;
  }
};

// ---- NVRTC ----
using nvrtcResult = int;
struct _nvrtcProgram;
using nvrtcProgram = _nvrtcProgram*;

struct Nvrtc {
  const char* (*nvrtcGetErrorString)(nvrtcResult);
  nvrtcResult (*nvrtcVersion)(int*, int*);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                    const char* const*);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, std::size_t*);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*);
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, std::size_t*);
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, std::size_t*);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*);
  int major = 0, minor = 0;  ///< nvrtcVersion, filled at load
};

// ---- cuBLAS (v2 API) ----
struct cublasContext;
using cublasHandle_t = cublasContext*;
using cublasStatus_t = int;
inline constexpr int kCublasOpN = 0;
inline constexpr int kCublasOpT = 1;
inline constexpr int kCublasDefaultMath = 0;
inline constexpr int kCublasTf32TensorOpMath = 3;

struct Cublas {
  cublasStatus_t (*cublasCreate)(cublasHandle_t*);
  cublasStatus_t (*cublasSetStream)(cublasHandle_t, CUstream);
  cublasStatus_t (*cublasSetMathMode)(cublasHandle_t, int);
  cublasStatus_t (*cublasSgemmStridedBatched)(cublasHandle_t, int, int, int, int, int, const float*,
                                              const float*, int, long long, const float*, int, long long,
                                              const float*, float*, int, long long, int);
  cublasStatus_t (*cublasDgemmStridedBatched)(cublasHandle_t, int, int, int, int, int, const double*,
                                              const double*, int, long long, const double*, int, long long,
                                              const double*, double*, int, long long, int);
};

/// The driver table when libcuda loads, cuInit succeeds and at least one device exists; else
/// nullptr (driver_status() says why).
const Driver* driver();
/// Why driver() is null ("" when it is not).
const std::string& driver_status();
/// Number of CUDA devices (0 without a usable driver).
int device_count();

/// The NVRTC table, or nullptr (nvrtc_status() says why). Needs no GPU.
const Nvrtc* nvrtc();
const std::string& nvrtc_status();

/// The cuBLAS table, or nullptr (cublas_status() says why).
const Cublas* cublas();
const std::string& cublas_status();

/// Throws DeviceError (or OutOfMemory for CUDA_ERROR_OUT_OF_MEMORY) naming `what` and the
/// driver's message when `r` is not success.
void check(CUresult r, const char* what);

/// Throws DeviceError unless `device` is a CUDA device that exists; `what` names the caller.
void require_device(Device device, const std::string& what);

}  // namespace cgrad::backends::cuda
