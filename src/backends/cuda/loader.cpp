// Run-time loading of the CUDA driver, NVRTC and cuBLAS (see loader.h).
#include "backends/cuda/loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <type_traits>
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
template <class T>
bool bind(void* h, T*& fn, const char* name, std::string& why) {
  fn = reinterpret_cast<T*>(dlsym(h, name));
  if (!fn) why = std::string("entry point ") + name + " not found (library too old?)";
  return fn != nullptr;
}

// The CUDA graph entry points: optional (a driver without them still runs every plan).
bool bind_optional_graphs(void* h, Driver& d) {
  auto opt = [h](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
  };
  opt(d.cuGraphCreate, "cuGraphCreate");
  opt(d.cuGraphAddKernelNode, "cuGraphAddKernelNode");
  opt(d.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  opt(d.cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams");
  opt(d.cuGraphLaunch, "cuGraphLaunch");
  opt(d.cuGraphExecDestroy, "cuGraphExecDestroy");
  opt(d.cuGraphDestroy, "cuGraphDestroy");
  return true;
}

// A library's table, or why it is not there.
template <class T>
struct State {
  T table{};
  bool ok = false;
  std::string why;
  int count = 0;  // the driver's device count
};

// Opens the first of `names`, binds every entry point with `bind_all(handle, table, why)`, then
// runs `init(state)` (false: not usable, `why` set). Built once, never destroyed.
template <class T, class Bind, class Init>
State<T>* load(const std::vector<std::string>& names, const std::string& what, Bind bind_all, Init init) {
  auto* st = new State<T>;
  void* h = open_first(names, st->why);
  if (!h) {
    st->why = what + " cannot be loaded: " + st->why;
    return st;
  }
  std::string why;
  if (!bind_all(h, st->table, why)) {
    st->why = what + ": " + why;
    return st;
  }
  st->ok = init(*st);
  return st;
}

const State<Driver>& driver_state() {
  static const State<Driver>* s = load<Driver>(
      {"libcuda.so.1", "libcuda.so"}, "the CUDA driver (libcuda.so.1)",
      [](void* h, Driver& d, std::string& why) {
        return bind(h, d.cuInit, "cuInit", why) && bind(h, d.cuDriverGetVersion, "cuDriverGetVersion", why) &&
               bind(h, d.cuGetErrorString, "cuGetErrorString", why) &&
               bind(h, d.cuDeviceGetCount, "cuDeviceGetCount", why) &&
               bind(h, d.cuDeviceGet, "cuDeviceGet", why) &&
               bind(h, d.cuDeviceGetAttribute, "cuDeviceGetAttribute", why) &&
               bind(h, d.cuDeviceGetName, "cuDeviceGetName", why) &&
               bind(h, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", why) &&
               bind(h, d.cuCtxSetCurrent, "cuCtxSetCurrent", why) &&
               bind(h, d.cuStreamCreate, "cuStreamCreate", why) &&
               bind(h, d.cuStreamSynchronize, "cuStreamSynchronize", why) &&
               bind(h, d.cuMemAlloc, "cuMemAlloc_v2", why) && bind(h, d.cuMemFree, "cuMemFree_v2", why) &&
               bind(h, d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", why) &&
               bind(h, d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", why) &&
               bind(h, d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", why) &&
               bind(h, d.cuModuleLoadData, "cuModuleLoadData", why) &&
               bind(h, d.cuModuleGetFunction, "cuModuleGetFunction", why) &&
               bind(h, d.cuLaunchKernel, "cuLaunchKernel", why) && bind_optional_graphs(h, d);
      },
      [](State<Driver>& st) {
        const Driver& d = st.table;
        if (CUresult r = d.cuInit(0); r != kCudaSuccess) {
          const char* msg = nullptr;
          d.cuGetErrorString(r, &msg);
          st.why = "cuInit failed (" + std::to_string(r) + ": " + (msg ? msg : "unknown error") + ")";
          return false;
        }
        if (d.cuDeviceGetCount(&st.count) != kCudaSuccess || st.count <= 0) {
          st.count = 0;
          st.why = "the CUDA driver reports no device";
          return false;
        }
        return true;
      });
  return *s;
}

const State<Nvrtc>& nvrtc_state() {
  static const State<Nvrtc>* s = load<Nvrtc>(
      toolkit_names("libnvrtc", {"13", "12", "11.2"}), "NVRTC (libnvrtc.so)",
      [](void* h, Nvrtc& n, std::string& why) {
        return bind(h, n.nvrtcGetErrorString, "nvrtcGetErrorString", why) &&
               bind(h, n.nvrtcVersion, "nvrtcVersion", why) &&
               bind(h, n.nvrtcCreateProgram, "nvrtcCreateProgram", why) &&
               bind(h, n.nvrtcDestroyProgram, "nvrtcDestroyProgram", why) &&
               bind(h, n.nvrtcCompileProgram, "nvrtcCompileProgram", why) &&
               bind(h, n.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", why) &&
               bind(h, n.nvrtcGetProgramLog, "nvrtcGetProgramLog", why) &&
               bind(h, n.nvrtcGetPTXSize, "nvrtcGetPTXSize", why) &&
               bind(h, n.nvrtcGetPTX, "nvrtcGetPTX", why) &&
               bind(h, n.nvrtcGetCUBINSize, "nvrtcGetCUBINSize", why) &&
               bind(h, n.nvrtcGetCUBIN, "nvrtcGetCUBIN", why);
      },
      [](State<Nvrtc>& st) {
        if (st.table.nvrtcVersion(&st.table.major, &st.table.minor) == 0) return true;
        st.why = "NVRTC: nvrtcVersion failed";
        return false;
      });
  return *s;
}

const State<Cublas>& cublas_state() {
  static const State<Cublas>* s = load<Cublas>(
      toolkit_names("libcublas", {"13", "12", "11"}), "cuBLAS (libcublas.so)",
      [](void* h, Cublas& c, std::string& why) {
        return bind(h, c.cublasCreate, "cublasCreate_v2", why) &&
               bind(h, c.cublasSetStream, "cublasSetStream_v2", why) &&
               bind(h, c.cublasSetMathMode, "cublasSetMathMode", why) &&
               bind(h, c.cublasSgemmStridedBatched, "cublasSgemmStridedBatched", why) &&
               bind(h, c.cublasDgemmStridedBatched, "cublasDgemmStridedBatched", why);
      },
      [](State<Cublas>&) { return true; });
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
  std::string text =
      std::string(what) + " failed (CUDA error " + std::to_string(r) + ": " + (msg ? msg : "unknown") + ")";
  throw Error(r == kCudaErrorOutOfMemory ? ErrorCode::OutOfMemory : ErrorCode::DeviceError, text);
}

void require_device(Device device, const std::string& what) {
  if (!device.is_cuda()) return;
  if (!driver())
    throw Error(ErrorCode::DeviceError,
                what + ": device " + device.str() + " is not available: " + driver_status());
  if (device.index < 0 || device.index >= device_count())
    throw Error(ErrorCode::DeviceError, what + ": device " + device.str() + " does not exist (" +
                                            std::to_string(device_count()) + " CUDA device(s))");
}

}  // namespace cgrad::backends::cuda
