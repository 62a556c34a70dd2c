// Measures the hand loops (loops.hpp) for one workload, both builds (loop, loop_fm) and 1 and 2
// threads, and prints their rows. Used by every benchmark program, so each process has its own
// loop reference and every `x loop` ratio comes from one run.
#pragma once

#include "common.hpp"
#include "loops.hpp"

#include <omp.h>

namespace bench::hand {

inline const int kThreads[] = {1, 2};

// for_each_loop(f): f(name, mt, threads) for loop/loop_fm x 1/2 threads, OpenMP set accordingly.
template <class F>
void for_each_loop(F&& f, bool with_plain = true) {
  for (const char* name : {"loop", "loop_fm"}) {
    if (!with_plain && std::string(name) == "loop") continue;
    for (int thr : kThreads) {
      omp_set_num_threads(thr);
      f(std::string(name), thr > 1, thr);
    }
  }
}

template <class T>
void w1(const T* a, const T* b, const T* c, T* d, long n) {
  for_each_loop([&](const std::string& name, bool mt, int thr) {
    auto fn = name == "loop" ? &loop::w1<T> : &loop_fm::w1<T>;
    auto s = measure([&] {
      fn(a, b, c, d, n, mt);
      clobber();
    });
    report(name, "", "W1", dtype_name<T>(), n, thr, s, 4.0 * n * sizeof(T), -1, checksum(d, n));
  });
}
template <class T>
void w2(const T* x, T* y, long n) {
  for_each_loop([&](const std::string& name, bool mt, int thr) {
    auto fn = name == "loop" ? &loop::w2<T> : &loop_fm::w2<T>;
    auto s = measure([&] {
      fn(x, y, n, mt);
      clobber();
    });
    report(name, "", "W2", dtype_name<T>(), n, thr, s, 2.0 * n * sizeof(T), -1, checksum(y, n));
  });
}
template <class T>
void w3(const T* a, const T* b, long n) {
  for_each_loop([&](const std::string& name, bool mt, int thr) {
    auto fn = name == "loop" ? &loop::w3<T> : &loop_fm::w3<T>;
    volatile T sink = 0;
    auto s = measure([&] { sink = fn(a, b, n, mt); });
    report(name, "", "W3", dtype_name<T>(), n, thr, s, 2.0 * n * sizeof(T), -1, static_cast<double>(sink));
  });
}
template <class T>
void w4(const T* x, T* y, long rows, long cols) {
  const long n = rows * cols;
  for_each_loop([&](const std::string& name, bool mt, int thr) {
    auto fn = name == "loop" ? &loop::w4<T> : &loop_fm::w4<T>;
    auto s = measure([&] {
      fn(x, y, rows, cols, mt);
      clobber();
    });
    report(name, "", "W4", dtype_name<T>(), n, thr, s, 2.0 * n * sizeof(T), -1, checksum(y, n));
  });
}
/// W5: `s0` is the initial SoA state (3N); the state evolves across repetitions, so the
/// checksum reported is that of exactly one step from s0 (comparable between implementations).
template <class T>
void w5(const T* s0, long N) {
  const long n3 = 3 * N;
  Buf<T> s(n3), ws(5 * n3);
  const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(n3);
  for_each_loop([&](const std::string& name, bool mt, int thr) {
    auto fused = name == "loop" ? &loop::w5_fused<T> : &loop_fm::w5_fused<T>;
    auto staged = name == "loop" ? &loop::w5_staged<T> : &loop_fm::w5_staged<T>;
    std::memcpy(s.p, s0, bytes);
    auto sf = measure([&] {
      fused(s.p, N, mt);
      clobber();
    });
    std::memcpy(s.p, s0, bytes);
    fused(s.p, N, mt);
    report(name, "fused", "W5", dtype_name<T>(), n3, thr, sf, 2.0 * n3 * sizeof(T), -1, checksum(s.p, n3));
    std::memcpy(s.p, s0, bytes);
    auto ss = measure([&] {
      staged(s.p, ws.p, N, mt);
      clobber();
    });
    std::memcpy(s.p, s0, bytes);
    staged(s.p, ws.p, N, mt);
    report(name, "staged", "W5", dtype_name<T>(), n3, thr, ss, 2.0 * n3 * sizeof(T), -1, checksum(s.p, n3));
  });
}
inline void w6(const float* y0, const float* a, const float* b) {
  alignas(64) float y[W6_N];
  omp_set_num_threads(1);
  for (const char* name : {"loop", "loop_fm"}) {
    auto fn = std::string(name) == "loop" ? &loop::w6 : &loop_fm::w6;
    auto s = measure([&] {
      fn(y0, a, b, y);
      clobber();
    });
    report(name, "", "W6", "f32", W6_N, 1, s, 0, -1, checksum(y, W6_N));
  }
}

/// W5 initial state (anchors' seeds): x, y in [-10, 10), z in [10, 40).
template <class T>
std::vector<T> lorenz_init(long N) {
  std::vector<T> s(static_cast<std::size_t>(3 * N));
  fill_uniform(s.data(), N, 5, -10, 10);
  fill_uniform(s.data() + N, N, 6, -10, 10);
  fill_uniform(s.data() + 2 * N, N, 7, 10, 40);
  return s;
}

}  // namespace bench::hand
