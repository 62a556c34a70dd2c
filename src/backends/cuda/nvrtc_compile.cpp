// NVRTC compilation of generated kernels (see nvrtc_compile.h).
#include "backends/cuda/nvrtc_compile.h"

#include "backends/cpu/jit/compiler.h"
#include "backends/cuda/loader.h"
#include "core/env.hpp"

#include <cgrad/core.hpp>

#include <memory>
#include <sstream>

namespace cgrad::backends::cuda {

std::vector<std::string> nvrtc_options(const std::string& arch) {
  // C++17 is what the scalar header needs (if constexpr); no fast-math. Multiply-adds are
  // contracted into FMAs as in the CPU kernels, unless CGRAD_FP_CONTRACT=0 (--fmad=false: each
  // product rounded, as the interpreter does). The options are part of the cubin cache key.
  // Warning 177 (declared but never referenced): every kernel declares all its pointers and
  // offsets; the unused ones cost nothing and would drown real messages.
  std::vector<std::string> o = {"--gpu-architecture=" + arch, "--std=c++17",
                                core::env().fp_contract ? "--fmad=true" : "--fmad=false",
                                "--diag-suppress=177"};
  // CGRAD_CUDA_EMULATOR=1: kernels avoid the instructions the emulated device cannot run: float16
  // conversions are the host's integer code instead of `cvt`, and narrow integer products are
  // hidden from NVRTC's dp4a/dp2a matching (scalar.hpp; docs/cuda.md).
  if (core::env().cuda_emulator) o.push_back("-DCGRAD_CUDA_EMULATOR=1");
  return o;
}

std::string nvrtc_version_string() {
  const Nvrtc* n = nvrtc();
  return n ? "NVRTC " + std::to_string(n->major) + "." + std::to_string(n->minor) : std::string();
}

NvrtcOutput nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch) {
  const Nvrtc* n = nvrtc();
  if (!n) throw Error(ErrorCode::DeviceError, "cannot compile CUDA kernels: " + nvrtc_status());
  const std::string header(cpu::jit::scalar_header_text());
  const char* headers[] = {header.c_str()};
  const char* include_names[] = {"cgrad/scalar.hpp"};
  nvrtcProgram prog = nullptr;
  if (nvrtcResult r = n->nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 1, headers, include_names);
      r != 0)
    throw Error(ErrorCode::CompileError, std::string("nvrtcCreateProgram: ") + n->nvrtcGetErrorString(r));
  auto destroy = [n](nvrtcProgram* p) { n->nvrtcDestroyProgram(p); };
  std::unique_ptr<nvrtcProgram, decltype(destroy)> guard(&prog, destroy);
  const std::vector<std::string> opts = nvrtc_options(arch);
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  const nvrtcResult rc = n->nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  NvrtcOutput out;
  std::size_t log_size = 0;
  if (n->nvrtcGetProgramLogSize(prog, &log_size) == 0 && log_size > 1) {
    out.log.resize(log_size);
    n->nvrtcGetProgramLog(prog, out.log.data());
    out.log.resize(log_size - 1);
  }
  if (rc != 0) {
    std::istringstream lines(source);
    std::string line, head;
    for (int i = 0; i < 5 && std::getline(lines, line); ++i) head += "  " + line + "\n";
    throw Error(ErrorCode::CompileError, "NVRTC failed to compile " + name + " for " + arch + " (" +
                                             n->nvrtcGetErrorString(rc) + "):\n" + out.log +
                                             "\nsource begins:\n" + head);
  }
  std::size_t size = 0;
  if (n->nvrtcGetPTXSize(prog, &size) == 0 && size > 0) {
    out.ptx.resize(size);
    n->nvrtcGetPTX(prog, out.ptx.data());
  }
  if (arch.rfind("sm_", 0) == 0 && n->nvrtcGetCUBINSize(prog, &size) == 0 && size > 0) {
    out.cubin.resize(size);
    n->nvrtcGetCUBIN(prog, out.cubin.data());
  }
  return out;
}

}  // namespace cgrad::backends::cuda
