// cgrad::fft (include/cgrad/fft.hpp): every function is lazy cgrad ops around one operator, the
// complex-to-complex transform over some axes times a real factor (a CustomOp whose forward
// evaluates its input and runs fft/host.h's transform; its backward is the opposite transform
// with the same factor, since the DFT matrix F is symmetric and F^H = conj(F)). The real-input
// and real-output transforms are two more such operators. The norm's factor is the operators'
// own, applied by the host as it writes each output (a multiply after the transform cost a
// standalone call a pass over its output: irfft of 256 x 513 c128 took 0.90 ms against 0.71
// unscaled). The padding and cutting of n / s and the shifts are built around them, so their
// gradients come from the ops they are made of.
#include <cgrad/extend.hpp>
#include <cgrad/fft.hpp>
#include <cgrad/interop.hpp>
#include <cgrad/manipulation.hpp>
#include <cgrad/scalar.hpp>

#include "core/shape.hpp"
#include "fft/host.h"
#include "frontend/build.h"
#include "runtime/host_scratch.h"

#include <cmath>
#include <complex>
#include <string>
#include <type_traits>

namespace cgrad::fft {

namespace {

using host::C;

enum class Norm { backward, ortho, forward };

Error bad(const char* fn, const std::string& what) {
  return Error(ErrorCode::InvalidArgument, std::string(fn) + ": " + what);
}

Norm parse_norm(std::string_view s, const char* fn) {
  if (s == "backward") return Norm::backward;
  if (s == "ortho") return Norm::ortho;
  if (s == "forward") return Norm::forward;
  throw bad(fn, "norm must be 'backward', 'ortho' or 'forward', got '" + std::string(s) + "'");
}

// hfft and ihfft are irfft and rfft with the scaling of the other direction
Norm swapped(Norm n) { return n == Norm::ortho ? n : (n == Norm::forward ? Norm::backward : Norm::forward); }

// the factor a transform over `count` points is scaled by
double factor(Norm norm, bool inverse, double count) {
  switch (norm) {
    case Norm::backward: return inverse ? 1 / count : 1;
    case Norm::ortho: return 1 / std::sqrt(count);
    case Norm::forward: return inverse ? 1 : 1 / count;
  }
  return 1;
}

void check_defined(const Tensor& x, const char* fn) {
  if (!x.defined()) throw bad(fn, "undefined tensor");
}

// x as a complex tensor: a complex one as it is, a real floating one cast to its complex dtype
Tensor as_complex(const Tensor& x, const char* fn) {
  check_defined(x, fn);
  if (is_complex(x.dtype())) return x;
  if (!is_floating(x.dtype()))
    throw Error(ErrorCode::DTypeMismatch,
                std::string(fn) + ": needs a floating-point or complex tensor, got " + dtype_name(x.dtype()));
  return x.cast(complex_dtype(x.dtype()));
}

void check_real_dtype(DType t, const char* fn) {
  if (!is_floating(t))
    throw Error(ErrorCode::DTypeMismatch,
                std::string(fn) + ": needs a real floating-point dtype, got " + dtype_name(t));
}

void check_real(const Tensor& x, const char* fn) {
  check_defined(x, fn);
  check_real_dtype(x.dtype(), fn);
}

int64_t check_length(int64_t n, const char* fn) {
  if (n < 1) throw bad(fn, "invalid number of data points (" + std::to_string(n) + "), needs at least 1");
  return n;
}

// x with `axis` padded with zeros or cut to n
Tensor resize(const Tensor& x, int64_t axis, int64_t n) {
  const int64_t have = x.shape()[static_cast<std::size_t>(axis)];
  if (have == n) return x;
  if (have > n) return x.slice(axis, 0, n);
  Shape pad = x.shape();
  pad[static_cast<std::size_t>(axis)] = n - have;
  return cat({x, zeros(pad, x.dtype(), x.device())}, axis);
}

// ---- the three host operators ----

// An evaluated tensor's memory on the host (copied there first from another device); `owner`
// keeps it alive.
struct HostView {
  host::Strided view;
  std::shared_ptr<const void> owner;
};

HostView host_view(const Tensor& x) {
  const MemoryView mv = memory_view(x.device().is_cuda() ? x.to(Device::cpu()) : x);
  return {{mv.data, mv.dtype, mv.shape, mv.strides}, mv.owner};
}

std::size_t numel_of(const Shape& s) {
  std::size_t n = 1;
  for (int64_t d : s) n *= static_cast<std::size_t>(d);
  return n;
}

// A new row-major tensor of `shape` and dtype t on `device`: fill(T*) writes its elements into a
// host buffer of T, which the tensor then owns (no copy on the CPU; copied to another device). The
// buffer comes from the CPU backend's host pool, where a repeated transform finds its pages
// already faulted in, and is not zeroed first (fill writes every element).
template <class T, class Fill>
Tensor host_result(const Shape& shape, DType t, Device device, Fill fill) {
  const std::size_t n = numel_of(shape);
  if (n == 0) return zeros(shape, t, device);
  auto buf = std::make_shared<runtime::HostScratch<T>>(n);
  void* data = buf->data();
  fill(buf->data());
  Tensor r = from_blob(data, shape, core::contiguous_strides(shape), t, Device::cpu(),
                       [buf]() mutable { buf.reset(); });
  return device.is_cuda() ? r.to(device) : r;
}

// host_result for a c128 or c64 tensor (fill gets C* or std::complex<float>*)
template <class Fill>
Tensor complex_result(const Shape& shape, DType t, Device device, Fill fill) {
  return t == DType::c128 ? host_result<C>(shape, t, device, fill)
                          : host_result<std::complex<float>>(shape, DType::c64, device, fill);
}

// host_result for an f64 or f32 tensor
template <class Fill>
Tensor real_result(const Shape& shape, DType t, Device device, Fill fill) {
  return t == DType::f64 ? host_result<double>(shape, t, device, fill)
                         : host_result<float>(shape, DType::f32, device, fill);
}

// `scale` times the DFT of complex x over `axes` (normalized, distinct): sign -1 forward, +1
// inverse. Its backward is the opposite transform with the same factor (F^H = conj(F), F
// symmetric, the factor real).
Tensor transform(const Tensor& x, const std::vector<int64_t>& axes, bool inverse, double scale) {
  if (axes.empty()) return scale == 1 ? frontend::same_value(x, "fft") : x * scale;
  const CustomOp op(  // per call: the forward captures the axes, the direction and the factor
      inverse ? "fft.ifft" : "fft.fft",
      [axes, inverse, scale](CustomContext&, const std::vector<Tensor>& in) {
        const HostView v = host_view(in[0]);
        const Shape& shape = v.view.shape;
        auto fill = [&](auto* out) {
          using T = std::remove_pointer_t<decltype(out)>;
          if (axes.size() == 1) return host::c2c(v.view, axes[0], inverse, scale, out);
          // several axes: the first from the input, the others in place, in double precision;
          // the factor with the last
          std::vector<C> tmp(std::is_same_v<T, C> ? 0 : numel_of(shape));
          C* work = nullptr;
          if constexpr (std::is_same_v<T, C>)
            work = out;
          else
            work = tmp.data();
          host::c2c(v.view, axes[0], inverse, 1, work);
          for (std::size_t i = 1; i < axes.size(); ++i)
            host::c2c(work, shape, axes[i], inverse, i + 1 == axes.size() ? scale : 1);
          if constexpr (!std::is_same_v<T, C>)
            for (std::size_t k = 0; k < tmp.size(); ++k) out[k] = T(tmp[k]);
        };
        return std::vector<Tensor>{complex_result(shape, in[0].dtype(), in[0].device(), fill)};
      },
      [axes, inverse, scale](const CustomContext&, const std::vector<Tensor>& g) {
        return std::vector<Tensor>{transform(g[0], axes, !inverse, scale)};
      });
  return op(x);
}

// The weights of the c2r transform's gradient: 2 for the frequencies that stand for two (k and
// n - k), 1 for 0 and n / 2; shaped to broadcast along `axis` of an ndim-dim tensor.
Tensor pair_weights(int64_t n, int64_t axis, int64_t ndim, DType t, Device d) {
  std::vector<double> w(static_cast<std::size_t>(n / 2 + 1), 2.0);
  w[0] = 1;
  if (n % 2 == 0) w.back() = 1;
  Shape s(static_cast<std::size_t>(ndim), 1);
  s[static_cast<std::size_t>(axis)] = n / 2 + 1;
  return tensor(std::move(w), s, d).cast(t);
}

Tensor real_to_complex(const Tensor& x, int64_t axis, double scale);

// `scale` times the real signal of length n along `axis` whose first n / 2 + 1 frequencies
// (exactly that many) are x's. Its gradient is rfft's with the same factor, doubled where a
// frequency stands for two.
Tensor complex_to_real(const Tensor& x, int64_t axis, int64_t n, double scale) {
  const CustomOp op(
      "fft.irfft",
      [axis, n, scale](CustomContext&, const std::vector<Tensor>& in) {
        const HostView v = host_view(in[0]);
        Shape shape = v.view.shape;
        shape[static_cast<std::size_t>(axis)] = n;
        return std::vector<Tensor>{real_result(shape, real_dtype(in[0].dtype()), in[0].device(),
                                               [&](auto* out) { host::c2r(v.view, axis, n, scale, out); })};
      },
      [axis, n, scale](const CustomContext& c, const std::vector<Tensor>& g) {
        const Tensor& in = c.inputs[0];
        return std::vector<Tensor>{real_to_complex(g[0], axis, scale) *
                                   pair_weights(n, axis, in.ndim(), real_dtype(in.dtype()), in.device())};
      });
  return op(x);
}

// `scale` times the first n / 2 + 1 outputs of the forward DFT of real x (n long along `axis`).
// Its gradient: the real part of the inverse transform, with the same factor, of the gradient
// padded with zeros to n.
Tensor real_to_complex(const Tensor& x, int64_t axis, double scale) {
  const CustomOp op(
      "fft.rfft",
      [axis, scale](CustomContext&, const std::vector<Tensor>& in) {
        const HostView v = host_view(in[0]);
        Shape shape = v.view.shape;
        shape[static_cast<std::size_t>(axis)] = shape[static_cast<std::size_t>(axis)] / 2 + 1;
        return std::vector<Tensor>{complex_result(shape, complex_dtype(in[0].dtype()), in[0].device(),
                                                  [&](auto* out) { host::r2c(v.view, axis, scale, out); })};
      },
      [axis, scale](const CustomContext& c, const std::vector<Tensor>& g) {
        const int64_t n = c.inputs[0].shape()[static_cast<std::size_t>(axis)];
        return std::vector<Tensor>{real(transform(resize(g[0], axis, n), {axis}, true, scale))};
      });
  return op(x);
}

// x as f32 or f64 (the host reads those): f16 and bf16 widened
Tensor host_real(const Tensor& x) {
  return x.dtype() == DType::f64 || x.dtype() == DType::f32 ? x : x.cast(DType::f32);
}

// `scale` times the real signal of length n along `axis` whose first n / 2 + 1 frequencies are
// x's (complex; padded or cut to that many).
Tensor hermitian_inverse(const Tensor& x, int64_t axis, int64_t n, double scale) {
  return complex_to_real(resize(x, axis, n / 2 + 1), axis, n, scale);
}

// ---- one axis ----

Tensor c2c(const Tensor& x, std::optional<int64_t> n, int64_t axis, std::string_view norm, bool inverse,
           const char* fn) {
  const Norm nm = parse_norm(norm, fn);
  const Tensor xc = as_complex(x, fn);
  const int64_t a = core::normalize_axis(axis, xc.shape(), fn);
  const int64_t len = check_length(n.value_or(xc.shape()[static_cast<std::size_t>(a)]), fn);
  return transform(resize(xc, a, len), {a}, inverse, factor(nm, inverse, static_cast<double>(len)));
}

Tensor r2c(const Tensor& x, std::optional<int64_t> n, int64_t axis, Norm nm, const char* fn) {
  check_real(x, fn);
  const int64_t a = core::normalize_axis(axis, x.shape(), fn);
  const int64_t len = check_length(n.value_or(x.shape()[static_cast<std::size_t>(a)]), fn);
  return real_to_complex(resize(host_real(x), a, len), a, factor(nm, false, static_cast<double>(len)));
}

Tensor c2r(const Tensor& x, std::optional<int64_t> n, int64_t axis, Norm nm, const char* fn) {
  const int64_t a = core::normalize_axis(axis, x.shape(), fn);
  const int64_t len = check_length(n.value_or(2 * (x.shape()[static_cast<std::size_t>(a)] - 1)), fn);
  return hermitian_inverse(x, a, len, factor(nm, true, static_cast<double>(len)));
}

// ---- several axes ----

struct Axes {
  std::vector<int64_t> axes, lengths;
  double count = 1;  // the number of points transformed
};

// The axes (default: every one) and their lengths (default: x's).
Axes plan_axes(const Tensor& x, const Sizes& s, const Sizes& axes, const char* fn) {
  const int64_t nd = x.ndim();
  Axes r;
  if (axes) {
    for (int64_t a : *axes) {
      const int64_t na = core::normalize_axis(a, x.shape(), fn);
      for (int64_t b : r.axes)
        if (b == na) throw bad(fn, "axes " + core::vec_str(*axes) + " repeat an axis");
      r.axes.push_back(na);
    }
  } else {  // every axis; s then gives each one's length (NumPy 2 deprecates its old rule: the last s.size())
    if (s && static_cast<int64_t>(s->size()) != nd)
      throw bad(fn, "s " + core::vec_str(*s) + " without axes must give the length of each of the " +
                        std::to_string(nd) + " axes of x (pass axes to transform fewer)");
    for (int64_t a = 0; a < nd; ++a) r.axes.push_back(a);
  }
  if (s && s->size() != r.axes.size())
    throw bad(fn, "s " + core::vec_str(*s) + " and axes " + core::vec_str(r.axes) + " differ in length");
  for (std::size_t i = 0; i < r.axes.size(); ++i) {
    const int64_t len = s ? (*s)[i] : x.shape()[static_cast<std::size_t>(r.axes[i])];
    r.lengths.push_back(check_length(len, fn));
    r.count *= static_cast<double>(len);
  }
  return r;
}

Tensor resize_all(Tensor x, const Axes& p, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) x = resize(x, p.axes[i], p.lengths[i]);
  return x;
}

Tensor c2c_n(const Tensor& x, const Sizes& s, const Sizes& axes, std::string_view norm, bool inverse,
             const char* fn) {
  const Norm nm = parse_norm(norm, fn);
  const Tensor xc = as_complex(x, fn);
  const Axes p = plan_axes(xc, s, axes, fn);
  return transform(resize_all(xc, p, p.axes.size()), p.axes, inverse, factor(nm, inverse, p.count));
}

void check_some_axes(const Axes& p, const char* fn) {
  if (p.axes.empty()) throw bad(fn, "needs at least one axis");
}

}  // namespace

// ---- the API ----

Tensor fft(const Tensor& x, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return c2c(x, n, axis, norm, false, "fft");
}

Tensor ifft(const Tensor& x, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return c2c(x, n, axis, norm, true, "ifft");
}

Tensor fftn(const Tensor& x, const Sizes& s, const Sizes& axes, std::string_view norm) {
  return c2c_n(x, s, axes, norm, false, "fftn");
}

Tensor ifftn(const Tensor& x, const Sizes& s, const Sizes& axes, std::string_view norm) {
  return c2c_n(x, s, axes, norm, true, "ifftn");
}

Tensor rfft(const Tensor& x, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return r2c(x, n, axis, parse_norm(norm, "rfft"), "rfft");
}

Tensor irfft(const Tensor& x, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  const Norm nm = parse_norm(norm, "irfft");
  return c2r(as_complex(x, "irfft"), n, axis, nm, "irfft");
}

Tensor hfft(const Tensor& x, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  const Norm nm = parse_norm(norm, "hfft");
  return c2r(conj(as_complex(x, "hfft")), n, axis, swapped(nm), "hfft");
}

Tensor ihfft(const Tensor& x, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return conj(r2c(x, n, axis, swapped(parse_norm(norm, "ihfft")), "ihfft"));
}

Tensor rfftn(const Tensor& x, const Sizes& s, const Sizes& axes, std::string_view norm) {
  const Norm nm = parse_norm(norm, "rfftn");
  check_real(x, "rfftn");
  const Axes p = plan_axes(x, s, axes, "rfftn");
  check_some_axes(p, "rfftn");
  const std::vector<int64_t> others(p.axes.begin(), p.axes.end() - 1);
  const double f = factor(nm, false, p.count);  // with the last transform
  const Tensor x_n = resize_all(host_real(x), p, p.axes.size());
  if (others.empty()) return real_to_complex(x_n, p.axes.back(), f);
  return transform(real_to_complex(x_n, p.axes.back(), 1), others, false, f);
}

Tensor irfftn(const Tensor& x, const Sizes& s, const Sizes& axes, std::string_view norm) {
  const Norm nm = parse_norm(norm, "irfftn");
  const Tensor xc = as_complex(x, "irfftn");
  Axes p = plan_axes(xc, s, axes, "irfftn");
  check_some_axes(p, "irfftn");
  if (!s) {  // the last axis' default length is that of the signal whose half x is
    p.count /= static_cast<double>(p.lengths.back());
    p.lengths.back() = check_length(2 * (p.lengths.back() - 1), "irfftn");
    p.count *= static_cast<double>(p.lengths.back());
  }
  const std::vector<int64_t> others(p.axes.begin(), p.axes.end() - 1);
  const Tensor y = transform(resize_all(xc, p, others.size()), others, true, 1);
  return hermitian_inverse(y, p.axes.back(), p.lengths.back(), factor(nm, true, p.count));
}

Tensor fftfreq(int64_t n, double d, DType dtype, Device device) {
  if (n < 1) throw bad("fftfreq", "n must be at least 1, got " + std::to_string(n));
  check_real_dtype(dtype, "fftfreq");
  const Tensor i = arange(n, DType::f64, device);
  const Tensor k = where(i < static_cast<double>((n - 1) / 2 + 1), i, i - static_cast<double>(n));
  return (k * (1 / (d * static_cast<double>(n)))).cast(dtype);
}

Tensor rfftfreq(int64_t n, double d, DType dtype, Device device) {
  if (n < 1) throw bad("rfftfreq", "n must be at least 1, got " + std::to_string(n));
  check_real_dtype(dtype, "rfftfreq");
  return (arange(n / 2 + 1, DType::f64, device) * (1 / (d * static_cast<double>(n)))).cast(dtype);
}

namespace {

Tensor shift(const Tensor& x, const Sizes& axes, bool inverse, const char* fn) {
  check_defined(x, fn);
  std::vector<int64_t> ax;
  if (axes) {
    for (int64_t a : *axes) ax.push_back(core::normalize_axis(a, x.shape(), fn));
  } else {
    for (int64_t a = 0; a < x.ndim(); ++a) ax.push_back(a);
  }
  if (ax.empty()) return frontend::same_value(x, fn);
  std::vector<int64_t> shifts;
  for (int64_t a : ax) {
    const int64_t half = x.shape()[static_cast<std::size_t>(a)] / 2;
    shifts.push_back(inverse ? -half : half);
  }
  return roll(x, shifts, ax);
}

}  // namespace

Tensor fftshift(const Tensor& x, const Sizes& axes) { return shift(x, axes, false, "fftshift"); }

Tensor ifftshift(const Tensor& x, const Sizes& axes) { return shift(x, axes, true, "ifftshift"); }

}  // namespace cgrad::fft
