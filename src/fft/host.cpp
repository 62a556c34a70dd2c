// The mixed-radix and Bluestein DFT of fft/host.h. The recursion is the textbook decimation in
// time: a length n = p m transform is p transforms of length m (over every p-th input) combined
// by radix-p butterflies with the roots exp(-2 pi i k / n). Inverse transforms conjugate input
// and output around the forward one.
#include "fft/host.h"

#include "fft/lanes.h"

#include "backends/cpu/thread_pool.h"
#include "core/shape.hpp"
#include "runtime/host_scratch.h"

#include <cgrad/tensor.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <string>
#include <vector>

namespace cgrad::fft::host {

namespace {

// ---- the values a transform runs on: one line's (C) or kWidth lines' at once (Lanes, in
// fft/butterflies.inc) ----

// a b without std::complex's NaN/inf recovery (a library call per product under GCC): a NaN in
// gives NaNs out, as in every FFT library
inline C mul(C a, C b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
inline C mul(C a, const double* w) { return mul(a, C(w[0], w[1])); }
inline C times_minus_i(C a) { return {a.imag(), -a.real()}; }
inline C times_i(C a) { return {-a.imag(), a.real()}; }

// The baseline build of the butterflies: two lines per SSE2 vector; host_avx2.cpp builds them
// for four (fft/lanes.h).
constexpr int kWidth = 2;
#include "fft/butterflies.inc"

struct Plan {
  int64_t n = 0;
  std::vector<int64_t> stages;            // (radix, length left) pairs, outermost first
  std::vector<C> roots;                   // exp(-2 pi i k / n), k < n
  std::vector<std::vector<C>> twiddles;   // per stage, in the order its butterfly reads them
  std::vector<const double*> twiddle_at;  // twiddles[s].data() as (re, im) pairs
  PlanView view;                          // the tables above, as the butterflies read them
  // Bluestein (a prime factor past kLargestRadix): X_k = w_k sum_j (x_j w_j) conj(w_{k-j})
  std::shared_ptr<const Plan> pow2;  // the plan of the convolution's length
  std::vector<C> chirp;              // w_k = exp(-i pi k^2 / n), k < n
  std::vector<C> kernel;             // the transform of conj(w), wrapped, over the length
};

std::shared_ptr<const Plan> plan_for(int64_t n);

// Whether the lanes' builds take pl's lines (no Bluestein).
bool lanes_fit(const Plan& pl) { return !pl.pow2 && pl.n > 1; }

// How many lines the widest build this CPU runs transforms at once (fft/lanes.h), at most
// `max_lanes` where a test set it.
std::atomic<int> max_lanes{0};
int lane_width() {
#if defined(__x86_64__)
  static const int best = __builtin_cpu_supports("avx2") ? 4 : kWidth;
#else
  static const int best = kWidth;
#endif
  const int cap = max_lanes.load(std::memory_order_relaxed);
  return cap >= kWidth && cap < best ? cap : best;
}

// b := the forward transforms of `width` lines interleaved in a (fft/lanes.h's layout), or their
// stages s on (fs: the stage's place)
void forward_lanes(int width, const Plan& pl, const double* a, double* b, int64_t fs = 1, int64_t s = 0) {
#if defined(__x86_64__)
  if (width == 4) return forward_lanes_avx2(pl.view, a, b, fs, s);
#endif
  forward_interleaved(pl.view, a, b, fs, s);
}

// One long line whose first stage has radix 2, or 4 where the CPU runs four lanes (AVX2): that
// stage's p sub-transforms (every p-th input) run side by side as the p lanes of the lines'
// builds, then the stage's butterflies combine them. Each sub-transform is the recursion's, stage
// by stage with the plan's own twiddles, so the result has the bits of the one-line recursion
// (work). One thread of the Rocket Lake VM, from Python: 2^20 points 48 -> 25 ms (NumPy 36), 4096
// 35 -> 20 us, 512 6.1 -> 4.8; from kSplitFrom points: at 256 the interleaving cost what the lanes
// saved (3.8 -> 4.0 us a call).
constexpr int64_t kSplitFrom = 512;
bool split_fits(const Plan& pl) {
  if (pl.pow2 || pl.n < kSplitFrom) return false;
  const int64_t p = pl.stages[0];
  return p == kWidth || (p == 4 && lane_width() >= 4);
}
// a (2 n doubles) := the line z(0), z(1), ... as the first stage's p sub-transforms' inputs,
// interleaved: sub-transform q's input j, z(q + p j), in lane q of point j
template <class Get>
void split_in(const Plan& pl, Get z, double* a) {
  const int64_t p = pl.stages[0], m = pl.stages[1];
  for (int64_t j = 0; j < m; ++j)
    for (int64_t q = 0; q < p; ++q) {
      const C v = z(q + p * j);
      a[2 * p * j + q] = v.real();
      a[2 * p * j + p + q] = v.imag();
    }
}
// out := the line's transform from split_in's a (b: 2 n doubles of scratch): the sub-transforms as
// lanes, then the first stage's butterflies, which read them from the lanes
void split_out(const Plan& pl, const double* a, double* b, C* out) {
  const int64_t p = pl.stages[0], m = pl.stages[1];
  forward_lanes(static_cast<int>(p), pl, a, b, p, 1);
  auto sub = [b, p](int q, int64_t k) { return C(b[2 * p * k + q], b[2 * p * k + p + q]); };
  auto put = [out, m](int q, int64_t k, C v) { out[k + q * m] = v; };
  if (p == 4)
    butterfly4<C>(sub, put, pl.view.twiddles[0], m);
  else
    butterfly2<C>(sub, put, pl.view.twiddles[0], m);
}

// out[0, n) := the forward transform of in[0], in[stride], ...; out must not overlap in
void forward(const Plan& pl, const C* in, int64_t stride, C* out) {
  if (pl.n == 1) {
    out[0] = in[0];
    return;
  }
  if (split_fits(pl)) {
    runtime::HostScratch<double> ab(static_cast<std::size_t>(2 * pl.n)),
        bb(static_cast<std::size_t>(2 * pl.n));
    split_in(
        pl, [in, stride](int64_t i) { return in[i * stride]; }, ab.data());
    return split_out(pl, ab.data(), bb.data(), out);
  }
  if (!pl.pow2) {
    work(pl.view, out, in, 1, stride, 0);
    return;
  }
  const Plan& p2 = *pl.pow2;
  const auto len = static_cast<std::size_t>(p2.n);
  runtime::HostScratch<C> ab(len), bb(len);  // (pooled: a long transform faults no fresh pages)
  C* a = ab.data();
  C* b = bb.data();
  for (int64_t k = 0; k < pl.n; ++k) a[k] = mul(in[k * stride], pl.chirp[k]);
  std::fill(a + pl.n, a + len, C(0));
  forward(p2, a, 1, b);
  for (std::size_t k = 0; k < len; ++k) b[k] = std::conj(mul(b[k], pl.kernel[k]));
  forward(p2, b, 1, a);  // the inverse transform, conjugated around
  for (int64_t k = 0; k < pl.n; ++k) out[k] = mul(std::conj(a[k]), pl.chirp[k]);
}

std::shared_ptr<const Plan> build(int64_t n) {
  auto pl = std::make_shared<Plan>();
  pl->n = n;
  std::vector<int64_t> radices;
  int64_t left = n;
  while (left % 4 == 0) radices.push_back(4), left /= 4;
  while (left % 2 == 0) radices.push_back(2), left /= 2;
  for (int64_t p = 3; p * p <= left; p += 2)
    while (left % p == 0) radices.push_back(p), left /= p;
  if (left > 1) radices.push_back(left);
  const int64_t largest = radices.empty() ? 1 : *std::max_element(radices.begin(), radices.end());
  if (largest <= kLargestRadix) {
    pl->roots.resize(static_cast<std::size_t>(n));
    for (int64_t k = 0; k < n; ++k)
      pl->roots[static_cast<std::size_t>(k)] =
          std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n));
    left = n;
    int64_t fs = 1;
    for (int64_t p : radices) {
      left /= p;
      pl->stages.insert(pl->stages.end(), {p, left});
      std::vector<C>& w = pl->twiddles.emplace_back(static_cast<std::size_t>((p - 1) * left));
      for (int64_t q = 1; q < p; ++q)
        for (int64_t k = 0; k < left; ++k)  // q k fs < p left fs = n
          w[static_cast<std::size_t>((q - 1) * left + k)] = pl->roots[static_cast<std::size_t>(q * k * fs)];
      fs *= p;
    }
    // (a std::complex<double> array is one of (re, im) pairs of doubles: [complex.numbers.general])
    for (const std::vector<C>& w : pl->twiddles)
      pl->twiddle_at.push_back(reinterpret_cast<const double*>(w.data()));
    const C ya = std::polar(1.0, -2 * std::numbers::pi / 5), yb = std::polar(1.0, -4 * std::numbers::pi / 5);
    pl->view = {n,
                pl->stages.data(),
                pl->twiddle_at.data(),
                reinterpret_cast<const double*>(pl->roots.data()),
                -std::sin(2 * std::numbers::pi / 3),
                {ya.real(), ya.imag(), yb.real(), yb.imag()}};
    return pl;
  }
  int64_t len = 1;
  while (len < 2 * n - 1) len *= 2;
  pl->pow2 = plan_for(len);
  pl->chirp.resize(static_cast<std::size_t>(n));
  int64_t k2 = 0;  // k^2 mod 2n keeps the angle small and exact
  for (int64_t k = 0; k < n; ++k) {
    pl->chirp[static_cast<std::size_t>(k)] =
        std::polar(1.0, -std::numbers::pi * static_cast<double>(k2) / static_cast<double>(n));
    k2 = (k2 + 2 * k + 1) % (2 * n);
  }
  std::vector<C> b(static_cast<std::size_t>(len));
  for (int64_t k = 0; k < n; ++k) {
    b[static_cast<std::size_t>(k)] = std::conj(pl->chirp[static_cast<std::size_t>(k)]);
    if (k > 0) b[static_cast<std::size_t>(len - k)] = b[static_cast<std::size_t>(k)];
  }
  pl->kernel.resize(b.size());
  forward(*pl->pow2, b.data(), 1, pl->kernel.data());
  for (C& z : pl->kernel) z /= static_cast<double>(len);  // the inverse transform's 1 / len
  return pl;
}

// One plan per length, shared by threads; built outside the lock (a Bluestein plan asks for its
// power-of-two plan), the cache emptied past 64 lengths.
std::shared_ptr<const Plan> plan_for(int64_t n) {
  static std::mutex mu;
  static std::map<int64_t, std::shared_ptr<const Plan>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(n); it != cache.end()) return it->second;
  }
  std::shared_ptr<const Plan> pl = build(n);
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 64) cache.clear();
  return cache.emplace(n, pl).first->second;
}

// ---- lines: the 1-D sequences along one axis ----

// f(in offset, out offset) for every line along `axis`: input offsets from `strides`, output
// offsets in the row-major layout of out_shape (which differs from `shape` along `axis` only).
template <class F>
void for_each_line(const Shape& shape, const std::vector<int64_t>& strides, const Shape& out_shape,
                   int64_t axis, F f) {
  const auto nd = static_cast<int64_t>(shape.size());
  const std::vector<int64_t> out_strides = core::contiguous_strides(out_shape);
  for (int64_t d = 0; d < nd; ++d)
    if (d != axis && shape[d] == 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  int64_t in_off = 0, out_off = 0;
  for (;;) {
    f(in_off, out_off);
    int64_t d = nd - 1;
    for (; d >= 0; --d) {  // the odometer, skipping `axis`
      if (d == axis) continue;
      if (++idx[d] < shape[d]) {
        in_off += strides[d];
        out_off += out_strides[d];
        break;
      }
      in_off -= strides[d] * (shape[d] - 1);
      out_off -= out_strides[d] * (shape[d] - 1);
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// f(read) with read(offset) -> C for the view's element type
template <class F>
void with_reader(const Strided& v, F f) {
  switch (v.dtype) {
    case DType::c128: {
      const auto* p = static_cast<const double*>(v.data);
      return f([p](int64_t o) { return C(p[2 * o], p[2 * o + 1]); });
    }
    case DType::c64: {
      const auto* p = static_cast<const float*>(v.data);
      return f([p](int64_t o) { return C(p[2 * o], p[2 * o + 1]); });
    }
    case DType::f64: {
      const auto* p = static_cast<const double*>(v.data);
      return f([p](int64_t o) { return C(p[o], 0.0); });
    }
    case DType::f32: {
      const auto* p = static_cast<const float*>(v.data);
      return f([p](int64_t o) { return C(p[o], 0.0); });
    }
    default: throw Error(ErrorCode::Internal, std::string("fft: cannot read ") + dtype_name(v.dtype));
  }
}

Shape with_length(Shape s, int64_t axis, int64_t n) {
  s[static_cast<std::size_t>(axis)] = n;
  return s;
}

// exp(-2 pi i k / n), k <= n / 2: the twiddles of the half-length real transforms
std::vector<C> half_roots(int64_t n) {
  std::vector<C> w(static_cast<std::size_t>(n / 2 + 1));
  for (std::size_t k = 0; k < w.size(); ++k)
    w[k] = std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n));
  return w;
}

// For every line along `axis` (of `in`; `out_shape` as for_each_line), three functions say what
// goes in and out of the transform: prep(read, in offset, step, tmp) once per line (tmp: the
// line's own scratch), at(read, in offset, step, tmp, i) the transform's input i < pl.n (read(o)
// gives the input element at offset o), and put(dst, out offset, stride, get) writes the line's
// result to dst[offset + j stride] from get(i), the transform's value i. The values go straight
// into and out of the butterflies' buffers: W lines at a time, interleaved, where the plan allows
// (no Bluestein), the widest build first (4 lines with AVX2, then 2), one at a time otherwise
// (a line alone through split_in and split_out where split_fits).
// The buffer is filled point by point, the W lines' values of a point side by side (filled line
// by line, each value went to another cache line). Lines are split among the CPU backend's
// threads in chunks of about kLineGrain points of `work` each. Where the lines are strided (an
// axis other than the last, in the input or the output), blocks of up to kBlock neighbouring
// lines are first copied element by element across the block into contiguous lines and written
// back the same way, so that each cache line and page a block touches serves all its lines (each
// line alone read one element per cache line, and for a 1024-row c128 array one per page: axis 0
// of 1024 x 1024 ran 3.9x slower than axis 1). A line's result depends on none of this.
constexpr int64_t kLineGrain = 1 << 15;
constexpr int64_t kBlock = 16;
constexpr int64_t kBlockElements = 1 << 17;  // a block's lines at most (2 MiB of C in, as much out)
constexpr int kMaxWidth = 4;

template <class Out, class Prep, class At, class Put>
void run_lines(const Strided& in, const Shape& out_shape, int64_t axis, int64_t work, const Plan& pl,
               Out* out, Prep prep, At at, Put put) {
  std::vector<int64_t> ins, outs;
  for_each_line(in.shape, in.strides, out_shape, axis, [&](int64_t i0, int64_t o0) {
    ins.push_back(i0);
    outs.push_back(o0);
  });
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t n_in = in.shape[ax], n_out = out_shape[ax], step = in.strides[ax];
  const int64_t inner = core::contiguous_strides(out_shape)[ax];
  const auto count = static_cast<int64_t>(ins.size());
  const int64_t block = std::min(kBlock, kBlockElements / std::max<int64_t>({n_in, n_out, 1}));
  const bool staged = (step != 1 || inner != 1) && block >= 4 && count >= 4;
  int64_t grain = std::max<int64_t>(1, kLineGrain / std::max<int64_t>(work, 1));
  if (staged) grain = std::max(grain, block);
  const int wide = lanes_fit(pl) ? lane_width() : 1;
  const bool split = split_fits(pl);  // (a line alone: its first stage's sub-transforms as lanes)
  const int64_t n = pl.n;
  with_reader(in, [&](auto read) {
    backends::cpu::parallel_for(count, grain, [&](int64_t begin, int64_t end) {
      // the chunk's buffers, from the host pool: W lines interleaved in and out (or a line alone's
      // sub-transforms), one line in and out where a line goes alone, the lines' own scratch
      const int width = end - begin >= kWidth ? wide : 1;
      // (groups of the widest build, then of 2, take all of an even count of lines)
      const bool alone = width == 1 || staged || (end - begin) % kWidth != 0;
      const auto lanes_len =
          static_cast<std::size_t>(std::max(width > 1 ? 2 * width * n : 0, alone && split ? 2 * n : 0));
      runtime::HostScratch<double> ab(lanes_len), bb(lanes_len);
      runtime::HostScratch<C> xb(static_cast<std::size_t>(alone && !split ? n : 0)),
          yb(static_cast<std::size_t>(alone ? n : 0));
      double *a = ab.data(), *b = bb.data();
      C *x = xb.data(), *y = yb.data();
      std::array<std::vector<C>, kMaxWidth> tmp;
      // the k lines read by rd at in_off[l] + i st, written to dst at out_off[l] + o ost
      auto lines = [&](auto rd, const int64_t* in_off, int64_t st, Out* dst, const int64_t* out_off,
                       int64_t ost, int64_t k) {
        int64_t l = 0;
        for (int w = width; w >= kWidth; w = w == kWidth ? 0 : kWidth)  // the widest build, then 2
          for (; l + w <= k; l += w) {
            const int64_t* io = in_off + l;
            const int64_t* oo = out_off + l;
            for (int j = 0; j < w; ++j) prep(rd, io[j], st, tmp[static_cast<std::size_t>(j)]);
            for (int64_t i = 0; i < n; ++i) {
              double* ai = a + 2 * w * i;
              for (int j = 0; j < w; ++j) {
                const C z = at(rd, io[j], st, tmp[static_cast<std::size_t>(j)], i);
                ai[j] = z.real();
                ai[w + j] = z.imag();
              }
            }
            forward_lanes(w, pl, a, b);
            for (int j = 0; j < w; ++j)
              put(dst, oo[j], ost,
                  [b, w, j](int64_t i) { return C(b[2 * w * i + j], b[2 * w * i + w + j]); });
          }
        for (; l < k; ++l) {  // one at a time (Bluestein's lengths, a line left over)
          prep(rd, in_off[l], st, tmp[0]);
          auto z = [&, i0 = in_off[l]](int64_t i) { return at(rd, i0, st, tmp[0], i); };
          if (split) {
            split_in(pl, z, a);
            split_out(pl, a, b, y);
          } else {
            for (int64_t i = 0; i < n; ++i) x[i] = z(i);
            forward(pl, x, 1, y);
          }
          put(dst, out_off[l], ost, [y](int64_t i) { return y[i]; });
        }
      };
      if (!staged) {
        lines(read, ins.data() + begin, step, out, outs.data() + begin, inner, end - begin);
        return;
      }
      runtime::HostScratch<C> block_in(static_cast<std::size_t>(block * n_in));
      runtime::HostScratch<Out> block_out(static_cast<std::size_t>(block * n_out));
      std::array<int64_t, kBlock> in_off{}, out_off{};
      for (int64_t l = 0; l < block; ++l) in_off[l] = l * n_in, out_off[l] = l * n_out;
      auto read_block = [bi = block_in.data()](int64_t o) { return bi[o]; };
      for (int64_t i = begin; i < end; i += block) {
        const int64_t k = std::min(block, end - i);
        const int64_t* li = ins.data() + i;
        const int64_t* lo = outs.data() + i;
        for (int64_t j = 0; j < n_in; ++j)
          for (int64_t l = 0; l < k; ++l)
            block_in[static_cast<std::size_t>(l * n_in + j)] = read(li[l] + j * step);
        lines(read_block, in_off.data(), 1, block_out.data(), out_off.data(), 1, k);
        for (int64_t j = 0; j < n_out; ++j)
          for (int64_t l = 0; l < k; ++l)
            out[lo[l] + j * inner] = block_out[static_cast<std::size_t>(l * n_out + j)];
      }
    });
  });
}

// no per-line preparation
constexpr auto kNoPrep = [](auto&&, int64_t, int64_t, std::vector<C>&) {};

}  // namespace

void set_max_lanes(int lanes) { max_lanes.store(lanes, std::memory_order_relaxed); }

template <class Out>
void c2c(const Strided& in, int64_t axis, bool inverse, double scale, Out* out) {
  const int64_t n = in.shape[static_cast<std::size_t>(axis)];
  const std::shared_ptr<const Plan> pl = plan_for(std::max<int64_t>(n, 1));
  run_lines(
      in, in.shape, axis, n, *pl, out, kNoPrep,
      [inverse](auto& read, int64_t i0, int64_t step, const std::vector<C>&, int64_t i) {
        const C z = read(i0 + i * step);  // inverse: conjugated around the forward one
        return inverse ? std::conj(z) : z;
      },
      [n, inverse, scale](Out* dst, int64_t o0, int64_t stride, auto z) {
        for (int64_t i = 0; i < n; ++i)
          dst[o0 + i * stride] = Out(scale * (inverse ? std::conj(z(i)) : z(i)));
      });
}

void c2c(C* data, const Shape& shape, int64_t axis, bool inverse, double scale) {
  // in place: each line is read whole before it is written
  c2c(Strided{data, DType::c128, shape, core::contiguous_strides(shape)}, axis, inverse, scale, data);
}

template <class Out>
void r2c(const Strided& in, int64_t axis, double scale, Out* out) {
  const int64_t n = in.shape[static_cast<std::size_t>(axis)], half = n / 2;
  const Shape out_shape = with_length(in.shape, axis, half + 1);
  if (n % 2 != 0) {  // odd: the complex transform, cut
    const std::shared_ptr<const Plan> pl = plan_for(n);
    run_lines(
        in, out_shape, axis, n, *pl, out, kNoPrep,
        [](auto& read, int64_t i0, int64_t step, const std::vector<C>&, int64_t i) {
          return read(i0 + i * step);
        },
        [half, scale](Out* dst, int64_t o0, int64_t stride, auto z) {
          for (int64_t k = 0; k <= half; ++k) dst[o0 + k * stride] = Out(scale * z(k));
        });
    return;
  }
  // even: z_m = x_2m + i x_2m+1, a complex transform of n / 2 points; then X_k = E_k + w^k O_k
  // with E_k = (Z_k + conj Z_{h-k}) / 2 and O_k = (Z_k - conj Z_{h-k}) / 2i
  const std::shared_ptr<const Plan> pl = plan_for(half);
  const std::vector<C> w = half_roots(n);
  run_lines(
      in, out_shape, axis, n, *pl, out, kNoPrep,
      [](auto& read, int64_t i0, int64_t step, const std::vector<C>&, int64_t m) {
        return C(read(i0 + 2 * m * step).real(), read(i0 + (2 * m + 1) * step).real());
      },
      [half, &w, scale](Out* dst, int64_t o0, int64_t stride, auto z) {
        dst[o0] = Out(scale * (z(0).real() + z(0).imag()));  // X_0 = E_0 + O_0, X_h = E_0 - O_0: real
        dst[o0 + half * stride] = Out(scale * (z(0).real() - z(0).imag()));
        for (int64_t k = 1; k < half; ++k) {
          const C zk = z(k), zc = std::conj(z(half - k));
          const C e = (zk + zc) * 0.5, o = times_minus_i((zk - zc) * 0.5);  // (zk - zc) / 2i
          dst[o0 + k * stride] = Out(scale * (e + mul(w[static_cast<std::size_t>(k)], o)));
        }
      });
}

template <class Out>
void c2r(const Strided& in, int64_t axis, int64_t n, double scale, Out* out) {
  const int64_t half = n / 2;
  const Shape out_shape = with_length(in.shape, axis, n);
  // x[0, half]: the input line, the imaginary parts of X_0 (and X_h for even n) dropped
  auto read_line = [half, n](auto& read, int64_t i0, int64_t step, std::vector<C>& x) {
    x.resize(static_cast<std::size_t>(half + 1));
    for (int64_t k = 0; k <= half; ++k) x[static_cast<std::size_t>(k)] = read(i0 + k * step);
    x[0].imag(0);
    if (n % 2 == 0) x[static_cast<std::size_t>(half)].imag(0);
  };
  if (n % 2 != 0) {  // odd: the full spectrum's inverse transform (conjugated around a forward one)
    const std::shared_ptr<const Plan> pl = plan_for(n);
    run_lines(
        in, out_shape, axis, n, *pl, out, read_line,
        [half, n](auto&, int64_t, int64_t, const std::vector<C>& x, int64_t k) {
          return k <= half ? std::conj(x[static_cast<std::size_t>(k)]) : x[static_cast<std::size_t>(n - k)];
        },
        [n, scale](Out* dst, int64_t o0, int64_t stride, auto z) {
          for (int64_t j = 0; j < n; ++j) dst[o0 + j * stride] = static_cast<Out>(scale * z(j).real());
        });
    return;
  }
  // even: Z_k = 2 (E_k + i O_k) = (X_k + conj X_{h-k}) + i w^-k (X_k - conj X_{h-k}), whose
  // inverse transform of n / 2 points holds the even samples in its real parts, the odd ones in
  // its imaginary parts
  const std::shared_ptr<const Plan> pl = plan_for(half);
  const std::vector<C> w = half_roots(n);
  run_lines(
      in, out_shape, axis, n, *pl, out, read_line,
      [half, &w](auto&, int64_t, int64_t, const std::vector<C>& x, int64_t k) {
        const C xk = x[static_cast<std::size_t>(k)], xc = std::conj(x[static_cast<std::size_t>(half - k)]);
        return std::conj(xk + xc + times_i(mul(std::conj(w[static_cast<std::size_t>(k)]), xk - xc)));
      },
      [half, scale](Out* dst, int64_t o0, int64_t stride, auto z) {  // z: the inverse transform's conjugate
        for (int64_t m = 0; m < half; ++m) {
          dst[o0 + 2 * m * stride] = static_cast<Out>(scale * z(m).real());
          dst[o0 + (2 * m + 1) * stride] = static_cast<Out>(-scale * z(m).imag());
        }
      });
}

template void c2c(const Strided&, int64_t, bool, double, C*);
template void c2c(const Strided&, int64_t, bool, double, std::complex<float>*);
template void r2c(const Strided&, int64_t, double, C*);
template void r2c(const Strided&, int64_t, double, std::complex<float>*);
template void c2r(const Strided&, int64_t, int64_t, double, double*);
template void c2r(const Strided&, int64_t, int64_t, double, float*);

}  // namespace cgrad::fft::host
