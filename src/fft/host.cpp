// The mixed-radix and Bluestein DFT of fft/host.h. The recursion is the textbook decimation in
// time: a length n = p m transform is p transforms of length m (over every p-th input) combined
// by radix-p butterflies with the roots exp(-2 pi i k / n). Inverse transforms conjugate input
// and output around the forward one.
#include "fft/host.h"

#include "backends/cpu/thread_pool.h"
#include "core/shape.hpp"
#include "runtime/host_scratch.h"

#include <cgrad/tensor.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <string>
#include <vector>

namespace cgrad::fft::host {

namespace {

// ---- the values a transform runs on: one line's (C) or kLanes lines' at once (Lanes) ----

// a b without std::complex's NaN/inf recovery (a library call per product under GCC): a NaN in
// gives NaNs out, as in every FFT library
inline C mul(C a, C b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
inline C times_minus_i(C a) { return {a.imag(), -a.real()}; }
inline C times_i(C a) { return {-a.imag(), a.real()}; }

// The same element of kLanes lines, real and imaginary parts apart: the butterflies run on
// vectors of lines (a batch's lines are transformed kLanes at a time). Lane l computes exactly
// what the scalar code computes for its line (the same operations in the same order, no
// contraction), so batching never changes a bit.
constexpr int kLanes = 2;
using Lane = double __attribute__((vector_size(kLanes * sizeof(double))));
struct Lanes {
  Lane re, im;
};
inline Lanes operator+(Lanes a, Lanes b) { return {a.re + b.re, a.im + b.im}; }
inline Lanes operator-(Lanes a, Lanes b) { return {a.re - b.re, a.im - b.im}; }
inline Lanes operator*(Lanes a, double s) { return {a.re * s, a.im * s}; }
inline Lanes& operator+=(Lanes& a, Lanes b) { return a = a + b; }
inline Lanes mul(Lanes a, C w) {
  return {a.re * w.real() - a.im * w.imag(), a.re * w.imag() + a.im * w.real()};
}
inline Lanes times_minus_i(Lanes a) { return {a.im, -a.re}; }
inline Lanes times_i(Lanes a) { return {-a.im, a.re}; }

struct Plan {
  int64_t n = 0;
  std::vector<int64_t> stages;           // (radix, length left) pairs, outermost first
  std::vector<C> roots;                  // exp(-2 pi i k / n), k < n
  std::vector<std::vector<C>> twiddles;  // per stage, in the order its butterfly reads them
  // Bluestein (a prime factor past kLargestRadix): X_k = w_k sum_j (x_j w_j) conj(w_{k-j})
  std::shared_ptr<const Plan> pow2;  // the plan of the convolution's length
  std::vector<C> chirp;              // w_k = exp(-i pi k^2 / n), k < n
  std::vector<C> kernel;             // the transform of conj(w), wrapped, over the length
};

std::shared_ptr<const Plan> plan_for(int64_t n);

// ---- butterflies: f holds p transforms of length m one after the other; w the stage's
// twiddles, w[(q - 1) m + k] = exp(-2 pi i q k / (p m)); fs = n / (p m); V: C or Lanes ----

template <class V>
void butterfly2(V* f, const C* w, int64_t m) {
  for (int64_t k = 0; k < m; ++k) {
    const V t = mul(f[k + m], w[k]);
    f[k + m] = f[k] - t;
    f[k] += t;
  }
}

template <class V>
void butterfly3(V* f, const C* w, int64_t m) {
  const double h = -std::sin(2 * std::numbers::pi / 3);  // Im exp(-2 pi i / 3)
  for (int64_t k = 0; k < m; ++k) {
    const V s1 = mul(f[k + m], w[k]), s2 = mul(f[k + 2 * m], w[m + k]);
    const V s3 = s1 + s2, s0 = (s1 - s2) * h;
    const V mid = f[k] - s3 * 0.5;
    f[k] += s3;
    f[k + m] = mid + times_i(s0);
    f[k + 2 * m] = mid + times_minus_i(s0);
  }
}

template <class V>
void butterfly4(V* f, const C* w, int64_t m) {
  for (int64_t k = 0; k < m; ++k) {
    const V s0 = mul(f[k + m], w[k]), s1 = mul(f[k + 2 * m], w[m + k]), s2 = mul(f[k + 3 * m], w[2 * m + k]);
    const V s5 = f[k] - s1, s6 = f[k] + s1, s3 = s0 + s2, s4 = s0 - s2;
    f[k] = s6 + s3;
    f[k + 2 * m] = s6 - s3;
    f[k + m] = s5 + times_minus_i(s4);
    f[k + 3 * m] = s5 + times_i(s4);
  }
}

template <class V>
void butterfly5(V* f, const C* w, int64_t m) {
  const C ya = std::polar(1.0, -2 * std::numbers::pi / 5), yb = std::polar(1.0, -4 * std::numbers::pi / 5);
  for (int64_t k = 0; k < m; ++k) {
    const V s0 = f[k], s1 = mul(f[k + m], w[k]), s2 = mul(f[k + 2 * m], w[m + k]),
            s3 = mul(f[k + 3 * m], w[2 * m + k]), s4 = mul(f[k + 4 * m], w[3 * m + k]);
    const V s7 = s1 + s4, s10 = s1 - s4, s8 = s2 + s3, s9 = s2 - s3;
    f[k] = s0 + s7 + s8;
    const V s5 = s0 + s7 * ya.real() + s8 * yb.real();
    const V s6 = times_minus_i(s10 * ya.imag() + s9 * yb.imag());
    f[k + m] = s5 - s6;
    f[k + 4 * m] = s5 + s6;
    const V s11 = s0 + s7 * yb.real() + s8 * ya.real();
    const V s12 = times_i(s10 * yb.imag() - s9 * ya.imag());
    f[k + 2 * m] = s11 + s12;
    f[k + 3 * m] = s11 - s12;
  }
}

// any radix p <= kLargestRadix: p^2 products per p outputs
template <class V>
void butterfly(V* f, const Plan& pl, int64_t fs, int64_t m, int64_t p) {
  std::array<V, kLargestRadix> s{};
  const int64_t n = pl.n;
  for (int64_t u = 0; u < m; ++u) {
    for (int64_t q = 0; q < p; ++q) s[static_cast<std::size_t>(q)] = f[u + q * m];
    for (int64_t q1 = 0; q1 < p; ++q1) {
      const int64_t k = u + q1 * m, step = fs * k;  // step < n
      int64_t at = 0;
      V acc = s[0];
      for (int64_t q = 1; q < p; ++q) {
        at += step;
        if (at >= n) at -= n;
        acc += mul(s[static_cast<std::size_t>(q)], pl.roots[static_cast<std::size_t>(at)]);
      }
      f[k] = acc;
    }
  }
}

// out[0, p m) := the transform of in[0], in[fs stride], ... by stages s, s + 1, ...
template <class V>
void work(const Plan& pl, V* out, const V* in, int64_t fs, int64_t stride, std::size_t s) {
  const int64_t p = pl.stages[2 * s], m = pl.stages[2 * s + 1];
  if (m == 1 && p == 4) {  // a leaf: the 4-point DFT of the inputs (every twiddle is 1)
    const int64_t d = fs * stride;
    const V a = in[0], b = in[d], c = in[2 * d], e = in[3 * d];
    const V s0 = a + c, s1 = a - c, s2 = b + e, s3 = b - e;
    out[0] = s0 + s2;
    out[2] = s0 - s2;
    out[1] = s1 + times_minus_i(s3);
    out[3] = s1 + times_i(s3);
    return;
  }
  if (m == 1 && p == 2) {
    const V a = in[0], b = in[fs * stride];
    out[0] = a + b;
    out[1] = a - b;
    return;
  }
  if (m == 1) {
    for (int64_t q = 0; q < p; ++q) out[q] = in[q * fs * stride];
  } else {
    for (int64_t q = 0; q < p; ++q) work(pl, out + q * m, in + q * fs * stride, fs * p, stride, s + 1);
  }
  const C* w = pl.twiddles[s].data();
  switch (p) {
    case 2: butterfly2(out, w, m); break;
    case 3: butterfly3(out, w, m); break;
    case 4: butterfly4(out, w, m); break;
    case 5: butterfly5(out, w, m); break;
    default: butterfly(out, pl, fs, m, p); break;
  }
}

// out[0, n) := the forward transform of in[0], in[stride], ...; out must not overlap in
void forward(const Plan& pl, const C* in, int64_t stride, C* out) {
  if (pl.n == 1) {
    out[0] = in[0];
    return;
  }
  if (!pl.pow2) {
    work(pl, out, in, 1, stride, 0);
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

// b[0, n) := the forward transforms of the kLanes lines interleaved in a[0, n) at once (a plan
// without Bluestein's convolution: lanes_fit)
void forward_lanes(const Plan& pl, const Lanes* a, Lanes* b) { work(pl, b, a, 1, 1, 0); }

// Whether forward_lanes takes pl's lines (no Bluestein).
bool lanes_fit(const Plan& pl) { return !pl.pow2 && pl.n > 1; }

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

// For every line along `axis` (of `in`; `out_shape` as for_each_line): load(read, in offset,
// step, put, tmp) calls put(i, z) for the pl.n values of the line (read from read(offset + j
// step)), the forward transform of pl runs, and store(dst, out offset, stride, get) writes the
// result to dst[offset + j stride] from get(i), the transform's value i. The values go straight
// into and out of the butterflies' buffers: kLanes lines at a time, interleaved, where the plan
// allows (no Bluestein), one at a time otherwise. Lines are split among the CPU backend's
// threads in chunks of about kLineGrain points of `work` each. Where the lines are strided (an
// axis other than the last, in the input or the output), blocks of up to kBlock neighbouring
// lines are first copied element by element across the block into contiguous lines and written
// back the same way, so that each cache line and page a block touches serves all its lines (each
// line alone read one element per cache line, and for a 1024-row c128 array one per page: axis 0
// of 1024 x 1024 ran 3.9x slower than axis 1). A line's result depends on none of this.
constexpr int64_t kLineGrain = 1 << 15;
constexpr int64_t kBlock = 16;
constexpr int64_t kBlockElements = 1 << 17;  // a block's lines at most (2 MiB of C in, as much out)

template <class Out, class Load, class Store>
void run_lines(const Strided& in, const Shape& out_shape, int64_t axis, int64_t work, const Plan& pl,
               Out* out, Load load, Store store) {
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
  const bool lanes = lanes_fit(pl);
  const auto n = static_cast<std::size_t>(pl.n);
  with_reader(in, [&](auto read) {
    backends::cpu::parallel_for(count, grain, [&](int64_t begin, int64_t end) {
      // the chunk's buffers, from the host pool: kLanes lines interleaved in and out, one line in and
      // out (where a line goes alone), a line function's own
      const bool two = lanes && end - begin >= kLanes;
      const bool one = !two || staged || (end - begin) % kLanes != 0;
      runtime::HostScratch<Lanes> ab(two ? n : 0), bb(two ? n : 0);
      runtime::HostScratch<C> xb(one ? n : 0), yb(one ? n : 0);
      Lanes *a = ab.data(), *b = bb.data();
      C *x = xb.data(), *y = yb.data();
      std::vector<C> tmp;
      // the k lines read by rd at in_off[l] + i st, written to dst at out_off[l] + j ost
      auto lines = [&](auto rd, const int64_t* in_off, int64_t st, Out* dst, const int64_t* out_off,
                       int64_t ost, int64_t k) {
        int64_t l = 0;
        for (; two && l + kLanes <= k; l += kLanes) {
          for (int j = 0; j < kLanes; ++j)
            load(
                rd, in_off[l + j], st,
                [a, j](int64_t i, C z) { a[i].re[j] = z.real(), a[i].im[j] = z.imag(); }, tmp);
          forward_lanes(pl, a, b);
          for (int j = 0; j < kLanes; ++j)
            store(dst, out_off[l + j], ost, [b, j](int64_t i) { return C(b[i].re[j], b[i].im[j]); });
        }
        for (; l < k; ++l) {  // one at a time (Bluestein's lengths, a line left over)
          load(
              rd, in_off[l], st, [x](int64_t i, C z) { x[i] = z; }, tmp);
          forward(pl, x, 1, y);
          store(dst, out_off[l], ost, [y](int64_t i) { return y[i]; });
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

}  // namespace

template <class Out>
void c2c(const Strided& in, int64_t axis, bool inverse, Out* out) {
  const int64_t n = in.shape[static_cast<std::size_t>(axis)];
  const std::shared_ptr<const Plan> pl = plan_for(std::max<int64_t>(n, 1));
  run_lines(
      in, in.shape, axis, n, *pl, out,
      [&](auto read, int64_t i0, int64_t step, auto put, std::vector<C>&) {
        for (int64_t i = 0; i < n; ++i) {  // inverse: conjugated around the forward one
          const C z = read(i0 + i * step);
          put(i, inverse ? std::conj(z) : z);
        }
      },
      [&](Out* dst, int64_t o0, int64_t stride, auto z) {
        for (int64_t i = 0; i < n; ++i) dst[o0 + i * stride] = Out(inverse ? std::conj(z(i)) : z(i));
      });
}

void c2c(C* data, const Shape& shape, int64_t axis, bool inverse) {
  // in place: each line is read whole before it is written
  c2c(Strided{data, DType::c128, shape, core::contiguous_strides(shape)}, axis, inverse, data);
}

template <class Out>
void r2c(const Strided& in, int64_t axis, Out* out) {
  const int64_t n = in.shape[static_cast<std::size_t>(axis)], half = n / 2;
  const Shape out_shape = with_length(in.shape, axis, half + 1);
  if (n % 2 != 0) {  // odd: the complex transform, cut
    const std::shared_ptr<const Plan> pl = plan_for(n);
    run_lines(
        in, out_shape, axis, n, *pl, out,
        [&](auto read, int64_t i0, int64_t step, auto put, std::vector<C>&) {
          for (int64_t i = 0; i < n; ++i) put(i, read(i0 + i * step));
        },
        [&](Out* dst, int64_t o0, int64_t stride, auto z) {
          for (int64_t k = 0; k <= half; ++k) dst[o0 + k * stride] = Out(z(k));
        });
    return;
  }
  // even: z_m = x_2m + i x_2m+1, a complex transform of n / 2 points; then X_k = E_k + w^k O_k
  // with E_k = (Z_k + conj Z_{h-k}) / 2 and O_k = (Z_k - conj Z_{h-k}) / 2i
  const std::shared_ptr<const Plan> pl = plan_for(half);
  const std::vector<C> w = half_roots(n);
  run_lines(
      in, out_shape, axis, n, *pl, out,
      [&](auto read, int64_t i0, int64_t step, auto put, std::vector<C>&) {
        for (int64_t m = 0; m < half; ++m)
          put(m, C(read(i0 + 2 * m * step).real(), read(i0 + (2 * m + 1) * step).real()));
      },
      [&](Out* dst, int64_t o0, int64_t stride, auto z) {
        dst[o0] = Out(z(0).real() + z(0).imag());  // X_0 = E_0 + O_0 and X_h = E_0 - O_0, both real
        dst[o0 + half * stride] = Out(z(0).real() - z(0).imag());
        for (int64_t k = 1; k < half; ++k) {
          const C zk = z(k), zc = std::conj(z(half - k));
          const C e = (zk + zc) * 0.5, o = mul(zk - zc, C(0, -0.5));
          dst[o0 + k * stride] = Out(e + mul(w[static_cast<std::size_t>(k)], o));
        }
      });
}

template <class Out>
void c2r(const Strided& in, int64_t axis, int64_t n, Out* out) {
  const int64_t half = n / 2;
  const Shape out_shape = with_length(in.shape, axis, n);
  // x[0, half]: the input line, the imaginary parts of X_0 (and X_h for even n) dropped
  auto read_line = [&](auto read, int64_t i0, int64_t step, std::vector<C>& x) {
    x.resize(static_cast<std::size_t>(half + 1));
    for (int64_t k = 0; k <= half; ++k) x[static_cast<std::size_t>(k)] = read(i0 + k * step);
    x[0].imag(0);
    if (n % 2 == 0) x[static_cast<std::size_t>(half)].imag(0);
  };
  if (n % 2 != 0) {  // odd: the full spectrum's inverse transform (conjugated around a forward one)
    const std::shared_ptr<const Plan> pl = plan_for(n);
    run_lines(
        in, out_shape, axis, n, *pl, out,
        [&](auto read, int64_t i0, int64_t step, auto put, std::vector<C>& x) {
          read_line(read, i0, step, x);
          for (int64_t k = 0; k < n; ++k)
            put(k,
                k <= half ? std::conj(x[static_cast<std::size_t>(k)]) : x[static_cast<std::size_t>(n - k)]);
        },
        [&](Out* dst, int64_t o0, int64_t stride, auto z) {
          for (int64_t j = 0; j < n; ++j) dst[o0 + j * stride] = static_cast<Out>(z(j).real());
        });
    return;
  }
  // even: Z_k = 2 (E_k + i O_k) = (X_k + conj X_{h-k}) + i w^-k (X_k - conj X_{h-k}), whose
  // inverse transform of n / 2 points holds the even samples in its real parts, the odd ones in
  // its imaginary parts
  const std::shared_ptr<const Plan> pl = plan_for(half);
  const std::vector<C> w = half_roots(n);
  run_lines(
      in, out_shape, axis, n, *pl, out,
      [&](auto read, int64_t i0, int64_t step, auto put, std::vector<C>& x) {
        read_line(read, i0, step, x);
        for (int64_t k = 0; k < half; ++k) {
          const C xk = x[static_cast<std::size_t>(k)], xc = std::conj(x[static_cast<std::size_t>(half - k)]);
          put(k, std::conj(xk + xc + times_i(mul(std::conj(w[static_cast<std::size_t>(k)]), xk - xc))));
        }
      },
      [&](Out* dst, int64_t o0, int64_t stride, auto z) {  // z: the conjugate of the inverse transform
        for (int64_t m = 0; m < half; ++m) {
          dst[o0 + 2 * m * stride] = static_cast<Out>(z(m).real());
          dst[o0 + (2 * m + 1) * stride] = static_cast<Out>(-z(m).imag());
        }
      });
}

template void c2c(const Strided&, int64_t, bool, C*);
template void c2c(const Strided&, int64_t, bool, std::complex<float>*);
template void r2c(const Strided&, int64_t, C*);
template void r2c(const Strided&, int64_t, std::complex<float>*);
template void c2r(const Strided&, int64_t, int64_t, double*);
template void c2r(const Strided&, int64_t, int64_t, float*);

}  // namespace cgrad::fft::host
