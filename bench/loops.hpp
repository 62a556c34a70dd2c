// Hand-written reference loops (OpenMP). The same source (loops_impl.inc) is compiled twice:
// bench::loop with -O3 -march=native, bench::loop_fm with -ffast-math in addition, which lets
// GCC call glibc's libmvec vector exp (_ZGVeN16v_expf / _ZGVeN8v_exp); without it exp is
// scalar. `mt` selects the `omp parallel for` version (thread count: omp_set_num_threads).
#pragma once

#define BENCH_DECLARE_LOOPS(NS)                                                      \
  namespace bench::NS {                                                              \
  template <class T>                                                                 \
  void w1(const T* a, const T* b, const T* c, T* d, long n, bool mt);                \
  template <class T>                                                                 \
  void w2(const T* x, T* y, long n, bool mt);                                        \
  template <class T>                                                                 \
  T w3(const T* a, const T* b, long n, bool mt);                                     \
  template <class T>                                                                 \
  void w4(const T* x, T* y, long rows, long cols, bool mt);                          \
  /* W5: SoA state s = [x (N), y (N), z (N)], one RK4 step of dt = LZ_DT per call */ \
  template <class T>                                                                 \
  void w5_fused(T* s, long N, bool mt);                                              \
  /* the sweeps odeint's runge_kutta4 makes; ws holds 5 buffers of 3N */             \
  template <class T>                                                                 \
  void w5_staged(T* s, T* ws, long N, bool mt);                                      \
  void w6(const float* y0, const float* a, const float* b, float* y);                \
  }

BENCH_DECLARE_LOOPS(loop)
BENCH_DECLARE_LOOPS(loop_fm)
