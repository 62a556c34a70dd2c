// Run-time loading of the CUDA driver, NVRTC and cuBLAS (see loader.h).
#include "backends/cuda/loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace cgrad::backends::cuda {

namespace {

// Opens the first library of `names` that loads; `why` collects the dlerror of each attempt.
void* open_first(const std::vector<std::string>& names, std::string& why) {
  for (const auto& n : names) {
    if (void* h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = dlerror();
    why += (why.empty() ? "" : "; ") + std::string(e ? e : n.c_str());
  }
  return nullptr;
}

// Names to try for a toolkit library: the plain soname, the major versions cgrad knows, and the
// same under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda (a toolkit not on the loader's path).
std::vector<std::string> toolkit_names(const std::string& stem, const std::vector<const char*>& versions) {
  std::vector<std::string> files{stem + ".so"};
  for (const char* v : versions) files.push_back(stem + ".so." + v);
  std::vector<std::string> out = files;
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* r = std::getenv(var); r && *r) roots.emplace_back(r);
  roots.emplace_back("/usr/local/cuda");
  for (const auto& r : roots)
    for (const auto& f : files) {
      out.push_back(r + "/lib64/" + f);
      out.push_back(r + "/lib/" + f);
    }
  return out;
}

// Looks up every entry point of a table; false (and `why`) if one is missing.
template <class T> bool bind(void* h, T*& fn, const char* name, std::string& why) {
  fn = reinterpret_cast<T*>(dlsym(h, name));
  if (!fn) why = std::string("entry point ") + name + " not found (library too old?)";
  return fn != nullptr;
}

struct DriverState {
  Driver table{};
  bool ok = false;
  int count = 0;
  std::string why;
};

const DriverState& driver_state() {
  static const DriverState* s = [] {
    auto* st = new DriverState;
    void* h = open_first({"libcuda.so.1", "libcuda.so"}, st->why);
    if (!h) {
      st->why = "the CUDA driver (libcuda.so.1) cannot be loaded: " + st->why;
      return st;
    }
    Driver& d = st->table;
    std::string why;
    bool all = bind(h, d.cuInit, "cuInit", why) && bind(h, d.cuDriverGetVersion, "cuDriverGetVersion", why) &&
               bind(h, d.cuGetErrorString, "cuGetErrorString", why) &&
               bind(h, d.cuDeviceGetCount, "cuDeviceGetCount", why) && bind(h, d.cuDeviceGet, "cuDeviceGet", why) &&
               bind(h, d.cuDeviceGetAttribute, "cuDeviceGetAttribute", why) &&
               bind(h, d.cuDeviceGetName, "cuDeviceGetName", why) &&
               bind(h, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", why) &&
               bind(h, d.cuCtxSetCurrent, "cuCtxSetCurrent", why) && bind(h, d.cuStreamCreate, "cuStreamCreate", why) &&
               bind(h, d.cuStreamSynchronize, "cuStreamSynchronize", why) &&
               bind(h, d.cuMemAlloc, "cuMemAlloc_v2", why) && bind(h, d.cuMemFree, "cuMemFree_v2", why) &&
               bind(h, d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", why) &&
               bind(h, d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", why) &&
               bind(h, d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", why) &&
               bind(h, d.cuModuleLoadData, "cuModuleLoadData", why) &&
               bind(h, d.cuModuleGetFunction, "cuModuleGetFunction", why) &&
               bind(h, d.cuLaunchKernel, "cuLaunchKernel", why);
    if (!all) {
      st->why = "the CUDA driver: " + why;
      return st;
    }
    if (CUresult r = d.cuInit(0); r != kCudaSuccess) {
      const char* msg = nullptr;
      d.cuGetErrorString(r, &msg);
      st->why = "cuInit failed (" + std::to_string(r) + ": " + (msg ? msg : "unknown error") + ")";
      return st;
    }
    if (d.cuDeviceGetCount(&st->count) != kCudaSuccess || st->count <= 0) {
      st->count = 0;
      st->why = "the CUDA driver reports no device";
      return st;
    }
    st->ok = true;
    return st;
  }();
  return *s;
}

struct NvrtcState {
  Nvrtc table{};
  bool ok = false;
  std::string why;
};

const NvrtcState& nvrtc_state() {
  static const NvrtcState* s = [] {
    auto* st = new NvrtcState;
    void* h = open_first(toolkit_names("libnvrtc", {"13", "12", "11.2"}), st->why);
    if (!h) {
      st->why = "NVRTC (libnvrtc.so) cannot be loaded: " + st->why;
      return st;
    }
    Nvrtc& n = st->table;
    std::string why;
    bool all = bind(h, n.nvrtcGetErrorString, "nvrtcGetErrorString", why) && bind(h, n.nvrtcVersion, "nvrtcVersion", why) &&
               bind(h, n.nvrtcCreateProgram, "nvrtcCreateProgram", why) &&
               bind(h, n.nvrtcDestroyProgram, "nvrtcDestroyProgram", why) &&
               bind(h, n.nvrtcCompileProgram, "nvrtcCompileProgram", why) &&
               bind(h, n.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", why) &&
               bind(h, n.nvrtcGetProgramLog, "nvrtcGetProgramLog", why) && bind(h, n.nvrtcGetPTXSize, "nvrtcGetPTXSize", why) &&
               bind(h, n.nvrtcGetPTX, "nvrtcGetPTX", why) && bind(h, n.nvrtcGetCUBINSize, "nvrtcGetCUBINSize", why) &&
               bind(h, n.nvrtcGetCUBIN, "nvrtcGetCUBIN", why);
    if (!all) {
      st->why = "NVRTC: " + why;
      return st;
    }
    if (n.nvrtcVersion(&n.major, &n.minor) != 0) {
      st->why = "NVRTC: nvrtcVersion failed";
      return st;
    }
    st->ok = true;
    return st;
  }();
  return *s;
}

struct CublasState {
  Cublas table{};
  bool ok = false;
  std::string why;
};

const CublasState& cublas_state() {
  static const CublasState* s = [] {
    auto* st = new CublasState;
    void* h = open_first(toolkit_names("libcublas", {"13", "12", "11"}), st->why);
    if (!h) {
      st->why = "cuBLAS (libcublas.so) cannot be loaded: " + st->why;
      return st;
    }
    Cublas& c = st->table;
    std::string why;
    bool all = bind(h, c.cublasCreate, "cublasCreate_v2", why) && bind(h, c.cublasSetStream, "cublasSetStream_v2", why) &&
               bind(h, c.cublasSetMathMode, "cublasSetMathMode", why) &&
               bind(h, c.cublasSgemmStridedBatched, "cublasSgemmStridedBatched", why) &&
               bind(h, c.cublasDgemmStridedBatched, "cublasDgemmStridedBatched", why);
    if (!all) {
      st->why = "cuBLAS: " + why;
      return st;
    }
    st->ok = true;
    return st;
  }();
  return *s;
}

}  // namespace

const Driver* driver() { return driver_state().ok ? &driver_state().table : nullptr; }
const std::string& driver_status() { return driver_state().why; }
int device_count() { return driver_state().count; }

const Nvrtc* nvrtc() { return nvrtc_state().ok ? &nvrtc_state().table : nullptr; }
const std::string& nvrtc_status() { return nvrtc_state().why; }

const Cublas* cublas() { return cublas_state().ok ? &cublas_state().table : nullptr; }
const std::string& cublas_status() { return cublas_state().why; }

void check(CUresult r, const char* what) {
  if (r == kCudaSuccess) return;
  const char* msg = nullptr;
  if (const Driver* d = driver()) d->cuGetErrorString(r, &msg);
  std::string text = std::string(what) + " failed (CUDA error " + std::to_string(r) + ": " + (msg ? msg : "unknown") + ")";
  throw Error(r == kCudaErrorOutOfMemory ? ErrorCode::OutOfMemory : ErrorCode::DeviceError, text);
}

void require_device(Device device, const std::string& what) {
  if (!device.is_cuda()) return;
  if (!driver()) throw Error(ErrorCode::DeviceError, what + ": device " + device.str() + " is not available: " + driver_status());
  if (device.index < 0 || device.index >= device_count())
    throw Error(ErrorCode::DeviceError, what + ": device " + device.str() + " does not exist (" +
                                            std::to_string(device_count()) + " CUDA device(s))");
}

}  // namespace cgrad::backends::cuda
