// Every CGRAD_* environment knob, read once in one place (docs/env.md lists them).
#pragma once

#include <cstdint>
#include <string>

namespace cgrad::core {

struct Env {
  int debug = 0;                    ///< CGRAD_DEBUG: 0 silent .. 4 graph after every pass
  int64_t max_pending_depth = 256;  ///< CGRAD_MAX_PENDING_DEPTH: auto-realize rule, 0 = off
  std::string backend = "jit";      ///< CGRAD_BACKEND: "jit" (fused, compiled) or "interpreter"
  std::string cxx;                  ///< CGRAD_CXX: compiler for CPU kernels ("" = search PATH)
  std::string cache_dir;            ///< CGRAD_CACHE_DIR ("" = $XDG_CACHE_HOME/cgrad or ~/.cache/cgrad)
  std::string
      prebuilt_kernels;  ///< CGRAD_PREBUILT_KERNELS ("" = cgrad-kernels beside cgrad's binary, "0" = none)
  int64_t cache_bytes =
      int64_t(1) << 30;                   ///< CGRAD_CACHE_BYTES: disk kernel cache bound (LRU), 0 = unbounded
  int64_t compile_timeout_s = 120;        ///< CGRAD_COMPILE_TIMEOUT: seconds per kernel compile, 0 = no limit
  int num_threads = 0;                    ///< CGRAD_NUM_THREADS (0 = all hardware threads)
  int64_t pool_bytes = int64_t(2) << 30;  ///< CGRAD_POOL_BYTES: freed host memory kept for reuse
  bool huge_pages = false;       ///< CGRAD_HUGE_PAGES: host blocks of 4 MiB+ in transparent huge pages
  bool jit_async = false;        ///< CGRAD_JIT_ASYNC: interpret while a kernel compiles
  bool optimize = true;          ///< CGRAD_OPTIMIZE: run the graph passes on realize (0 = off)
  bool cuda_tf32 = false;        ///< CGRAD_CUDA_TF32: cuBLAS f32 GEMM may use TF32 tensor cores
  bool cuda_graphs = false;      ///< CGRAD_CUDA_GRAPHS: replay plans as CUDA graphs
  bool cuda_emulator = false;    ///< CGRAD_CUDA_EMULATOR: kernels avoid the instructions the emulated
                                 ///< device lacks (f16 `cvt`, dp4a/dp2a; docs/cuda.md)
  int64_t cuda_pool_bytes = -1;  ///< CGRAD_CUDA_POOL_BYTES: freed device memory kept (-1 = no limit)
  int64_t result_cache_bytes = int64_t(64) << 20;  ///< CGRAD_RESULT_CACHE_BYTES: result cache bound, 0 = off
  bool fp_contract = true;    ///< CGRAD_FP_CONTRACT: kernels may fuse a*b+c into one FMA (0 = never:
                              ///< element-wise results bit-identical to the interpreter)
  bool memory_plan = true;    ///< CGRAD_MEMORY_PLAN: plans reuse dead intermediates' memory (0 = off)
  std::string gemm = "auto";  ///< CGRAD_GEMM: f32/f64 GEMMs on cgrad's kernels ("auto", "avx512",
                              ///< "avx2") or the BLAS ("blas"); docs/jit.md, "GEMM"
};

/// The knobs, read from the environment on first use.
const Env& env();
/// Overrides for tests and tools (not thread-safe against concurrent builds).
Env& env_mut();

}  // namespace cgrad::core
