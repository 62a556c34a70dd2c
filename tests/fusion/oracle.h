// Test helpers: evaluate a graph builder with the JIT and with the reference interpreter.
#pragma once

#include <cgrad/cgrad.hpp>

#include "core/env.hpp"

#include <functional>
#include <vector>

namespace cgrad::test {

/// Runs `f` with CGRAD_BACKEND set to `backend` for its duration.
template <class F>
auto with_backend(const char* backend, F&& f) {
  auto& e = core::env_mut();
  std::string saved = e.backend;
  e.backend = backend;
  struct Restore {
    std::string s;
    ~Restore() { core::env_mut().backend = s; }
  } restore{saved};
  return f();
}

/// Turns the result cache off for its lifetime (tests that count launches of repeated graphs).
struct ResultCacheOff {
  int64_t saved = core::env().result_cache_bytes;
  ResultCacheOff() { core::env_mut().result_cache_bytes = 0; }
  ~ResultCacheOff() { core::env_mut().result_cache_bytes = saved; }
  ResultCacheOff(const ResultCacheOff&) = delete;
  ResultCacheOff& operator=(const ResultCacheOff&) = delete;
};

/// Kernels launched while evaluating `outs`.
inline uint64_t kernels_for(const std::vector<Tensor>& outs) {
  reset_stats();
  eval(outs);
  return stats().kernels_launched;
}

}  // namespace cgrad::test
