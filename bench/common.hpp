// Shared timing and output helpers for the cgrad benchmarks (methodology of the anchors in
// /work/shared/anchors: median of N repetitions after warm-ups, short calls timed in calibrated
// batches, compulsory bytes only for GB/s).
//
// Every program prints CSV rows (lines starting with '#' are comments):
//   proc,impl,variant,workload,dtype,n,threads,median_s,min_s,reps,bytes,gbps,kernels,check,note
// median_s/min_s: seconds per call; bytes: compulsory bytes read + written per call (0 = not a
// bandwidth figure); kernels: cgrad kernels launched per call (-1 for other implementations);
// proc: which process measured the row (ratios are only taken between rows of one process);
// note: free text without commas (counters of the JIT rows).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace bench {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Stat {
  double median = 0, min = 0;
  int reps = 0;
  long inner = 1;  ///< calls per sample
};

inline int env_int(const char* name, int dflt) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::atoi(v) : dflt;
}

inline Stat stat_of(std::vector<double> v, long inner = 1) {
  Stat s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.reps = static_cast<int>(n);
  s.min = v.front();
  s.median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.inner = inner;
  return s;
}

/// Warm up, then the inner batch size that makes one sample of `f` last >= min_sample_s (the
/// first calibration call is one more warm-up).
template <class F>
long calibrate(F& f, double min_sample_s, int warmups = 2) {
  for (int w = 0; w < warmups; ++w) f();
  long inner = 1;
  for (;;) {
    const double t0 = now_s();
    for (long i = 0; i < inner; ++i) f();
    const double dt = now_s() - t0;
    if (dt >= min_sample_s || inner >= (1L << 22)) return inner;
    inner *= (dt <= 0 ? 16 : std::max(2L, std::min(16L, static_cast<long>(min_sample_s / dt) + 1)));
  }
}

/// Seconds per call of `f` over one sample of `inner` calls.
template <class F>
double sample(F& f, long inner) {
  const double t0 = now_s();
  for (long i = 0; i < inner; ++i) f();
  return (now_s() - t0) / static_cast<double>(inner);
}

/// Warm up, calibrate an inner batch so one sample lasts >= min_sample_s, then take `reps`
/// samples; per-call median and minimum.
template <class F>
Stat measure(F&& f, int reps = -1, double min_sample_s = 2e-3, int warmups = 2) {
  if (reps < 0) reps = env_int("BENCH_REPS", 15);
  const long inner = calibrate(f, min_sample_s, warmups);
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(reps));
  for (int r = 0; r < reps; ++r) v.push_back(sample(f, inner));
  return stat_of(std::move(v), inner);
}

/// measure() for two functions whose samples alternate (f, g, f, g, ...): on a machine whose
/// speed changes in phases of tens of milliseconds (a shared VM host), both see the same phases,
/// so the ratio of their medians holds even where either median alone moves between runs.
template <class F, class G>
std::pair<Stat, Stat> measure_alternating(F&& f, G&& g, int reps = -1, double min_sample_s = 2e-3) {
  if (reps < 0) reps = env_int("BENCH_REPS", 15);
  const long nf = calibrate(f, min_sample_s), ng = calibrate(g, min_sample_s);
  std::vector<double> vf, vg;
  for (int r = 0; r < reps; ++r) {
    vf.push_back(sample(f, nf));
    vg.push_back(sample(g, ng));
  }
  return {stat_of(std::move(vf), nf), stat_of(std::move(vg), ng)};
}

/// cgrad's thread count: CGRAD_NUM_THREADS, else every core (what the library does).
inline int cgrad_threads() {
  int t = env_int("CGRAD_NUM_THREADS", 0);
  return t > 0 ? t : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

inline std::string& proc_name() {
  static std::string p = "main";
  return p;
}

inline void report(const std::string& impl, const std::string& variant, const std::string& workload,
                   const std::string& dtype, long n, int threads, const Stat& s, double bytes, double kernels,
                   double check, const std::string& note = "") {
  const double gbps = (bytes > 0 && s.median > 0) ? bytes / s.median / 1e9 : 0.0;
  std::printf("%s,%s,%s,%s,%s,%ld,%d,%.6e,%.6e,%d,%.0f,%.3f,%g,%.9e,%s\n", proc_name().c_str(), impl.c_str(),
              variant.c_str(), workload.c_str(), dtype.c_str(), n, threads, s.median, s.min, s.reps, bytes,
              gbps, kernels, check, note.c_str());
  std::fflush(stdout);
}

inline void csv_header() {
  std::printf(
      "proc,impl,variant,workload,dtype,n,threads,median_s,min_s,reps,bytes,gbps,kernels,check,note\n");
}

template <class T>
const char* dtype_name();
template <>
inline const char* dtype_name<float>() {
  return "f32";
}
template <>
inline const char* dtype_name<double>() {
  return "f64";
}

/// Deterministic input data in [lo, hi) (same generator and seeds as the anchors).
template <class T>
void fill_uniform(T* p, long n, unsigned seed, double lo = 0.0, double hi = 1.0) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  for (long i = 0; i < n; ++i) p[i] = static_cast<T>(d(g));
}
template <class T>
std::vector<T> uniform_vec(long n, unsigned seed, double lo, double hi) {
  std::vector<T> v(static_cast<std::size_t>(n));
  fill_uniform(v.data(), n, seed, lo, hi);
  return v;
}

template <class T>
double checksum(const T* p, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += static_cast<double>(p[i]);
  return s;
}

/// A 64-byte aligned, zero-filled (so touched) buffer for the hand loops.
template <class T>
struct Buf {
  T* p = nullptr;
  long n = 0;
  explicit Buf(long n_) : n(n_) {
    const std::size_t bytes = (static_cast<std::size_t>(n) * sizeof(T) + 63) / 64 * 64;
    p = static_cast<T*>(std::aligned_alloc(64, bytes ? bytes : 64));
    std::memset(static_cast<void*>(p), 0, bytes);
  }
  Buf(long n_, const std::vector<T>& init) : Buf(n_) {
    std::memcpy(p, init.data(), sizeof(T) * static_cast<std::size_t>(n));
  }
  ~Buf() { std::free(p); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
};

// Workload constants (the anchors' values).
constexpr long N_BIG = 1L << 24;
constexpr long SM_ROWS = 4096, SM_COLS = 4096;  // W4
constexpr long LZ_N = 1L << 20;                 // W5 ensemble size (state 3N)
constexpr double LZ_SIGMA = 10.0, LZ_R = 28.0, LZ_B = 8.0 / 3.0, LZ_DT = 0.001;
constexpr long W6_N = 16;
constexpr int W6_OPS = 100;  // alternating y = y*a ; y = y+b

inline void clobber() { asm volatile("" ::: "memory"); }

}  // namespace bench
