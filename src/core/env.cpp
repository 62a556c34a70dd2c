// Reads the CGRAD_* environment variables once; nothing else in the library calls getenv.
#include "core/env.hpp"

#include <cstdlib>
#include <string>

namespace cgrad::core {

namespace {
int64_t read_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long long x = std::strtoll(v, &end, 10);
  return (end && *end == '\0') ? static_cast<int64_t>(x) : fallback;
}
std::string read_str(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
Env load() {
  Env e;
  e.debug = static_cast<int>(read_int("CGRAD_DEBUG", 0));
  e.max_pending_depth = read_int("CGRAD_MAX_PENDING_DEPTH", e.max_pending_depth);
  if (auto b = read_str("CGRAD_BACKEND"); !b.empty()) e.backend = b;
  e.cxx = read_str("CGRAD_CXX");
  e.cache_dir = read_str("CGRAD_CACHE_DIR");
  e.prebuilt_kernels = read_str("CGRAD_PREBUILT_KERNELS");
  e.cache_bytes = read_int("CGRAD_CACHE_BYTES", e.cache_bytes);
  e.compile_timeout_s = read_int("CGRAD_COMPILE_TIMEOUT", e.compile_timeout_s);
  e.num_threads = static_cast<int>(read_int("CGRAD_NUM_THREADS", 0));
  e.pool_bytes = read_int("CGRAD_POOL_BYTES", e.pool_bytes);
  e.huge_pages = read_int("CGRAD_HUGE_PAGES", 0) != 0;
  e.jit_async = read_int("CGRAD_JIT_ASYNC", 0) != 0;
  e.optimize = read_int("CGRAD_OPTIMIZE", 1) != 0;
  e.cuda_tf32 = read_int("CGRAD_CUDA_TF32", 0) != 0;
  e.cuda_graphs = read_int("CGRAD_CUDA_GRAPHS", 0) != 0;
  e.cuda_emulator = read_int("CGRAD_CUDA_EMULATOR", 0) != 0;
  e.cuda_pool_bytes = read_int("CGRAD_CUDA_POOL_BYTES", e.cuda_pool_bytes);
  e.result_cache_bytes = read_int("CGRAD_RESULT_CACHE_BYTES", e.result_cache_bytes);
  e.fp_contract = read_int("CGRAD_FP_CONTRACT", 1) != 0;
  e.memory_plan = read_int("CGRAD_MEMORY_PLAN", 1) != 0;
  if (auto g = read_str("CGRAD_GEMM"); !g.empty()) e.gemm = g;
  return e;
}
}  // namespace

Env& env_mut() {
  static Env e = load();
  return e;
}
const Env& env() { return env_mut(); }

}  // namespace cgrad::core
