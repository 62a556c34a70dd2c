// The derivative rules: one vector-Jacobian product per op-table row (declared in
// ir/derivatives.h, pointed at by the rows of ir/op_table.h), and the simplified rules of the
// composite ops. Each rule builds lazy tensors with the public ops, so gradients fuse like
// any other graph, and with grad mode on they are themselves differentiable.
//
// Conventions (docs/autograd.md): the gradient of an input has that input's shape and dtype;
// at a tie, max/min reductions split the gradient equally among the tied elements and
// maximum/minimum give half to each operand; abs and relu have derivative 0 at 0.
//
// Complex values (complex group, PyTorch's convention): the gradient of a complex z is
// dL/dRe(z) + i dL/dIm(z) for a real loss L, so g flows as conj(dL/dw) and a holomorphic f
// gives grad_in = g * conj(f'(z)). The rules of the holomorphic rows are written once, for real
// values: differentiate() hands them conj(inputs) and conj(output), and as every f here has real
// coefficients, f'(conj z) = conj(f'(z)) makes the same formula the complex one. Rows that are not
// holomorphic (abs, sign, real, imag, conj, complex, casts) and the linear ones with real
// coefficients (add, sum, movement, ...) are differentiated as they are; complex_grad() says which.
#include "autograd/autograd.h"

#include "ir/derivatives.h"

#include <cgrad/dist.hpp>

namespace cgrad::autograd {

namespace {
const Tensor& x0(VjpCall& c) { return c.in[0]; }
void set(VjpCall& c, std::size_t i, Tensor g) {
  if (c.needs[i]) c.gin[i] = std::move(g);
}
Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), t.dtype(), t.device()); }
// 1 / sqrt(t): rsqrt for real values, 1 / sqrt for complex ones (rsqrt takes no complex dtype).
Tensor inv_sqrt(const Tensor& t) { return is_complex(t.dtype()) ? 1.0 / cgrad::sqrt(t) : cgrad::rsqrt(t); }
// i * t for a real t, as a complex tensor of t's precision.
Tensor times_i(const Tensor& t) { return cgrad::complex(zeros_like(t), t); }
}  // namespace

namespace vjp {

void none(VjpCall&) {}
void neg(VjpCall& c) { set(c, 0, -c.g); }
void exp(VjpCall& c) { set(c, 0, c.g * c.out); }
void log(VjpCall& c) { set(c, 0, c.g / x0(c)); }
void sqrt(VjpCall& c) { set(c, 0, c.g * 0.5 / c.out); }
void rsqrt(VjpCall& c) { set(c, 0, c.g * -0.5 * c.out * c.out * c.out); }
void abs(VjpCall& c) {
  const Tensor& x = x0(c);
  if (is_complex(x.dtype())) {  // d|z| = Re(conj(z) dz) / |z|: the gradient g z / |z|, 0 at 0
    const Tensor zero = c.out == 0;
    set(c, 0, (cgrad::where(zero, 0.0, c.g / cgrad::where(zero, 1.0, c.out)) * x).cast(x.dtype()));
    return;
  }
  // 0 at 0; x * 0 there keeps a NaN input's gradient NaN (it was 0 until 2026-12-07, hiding the
  // NaN; PyTorch gives 0 there, JAX -1)
  set(c, 0, cgrad::where(x > 0, c.g, cgrad::where(x < 0, -c.g, x * 0.0)));
}
void sin(VjpCall& c) { set(c, 0, c.g * cgrad::cos(x0(c))); }
void cos(VjpCall& c) { set(c, 0, -c.g * cgrad::sin(x0(c))); }
void tanh(VjpCall& c) { set(c, 0, c.g * (1.0 - c.out * c.out)); }
void sigmoid(VjpCall& c) { set(c, 0, c.g * c.out * (1.0 - c.out)); }
void relu(VjpCall& c) { set(c, 0, cgrad::where(x0(c) > 0, c.g, 0.0)); }
// A real -> complex cast takes the real part of the gradient back (the imaginary direction is not
// the input's); every other cast casts the gradient back.
void cast(VjpCall& c) {
  const DType t = x0(c).dtype();
  set(c, 0, (is_complex(c.g.dtype()) && !is_complex(t) ? cgrad::real(c.g) : c.g).cast(t));
}
// Piecewise-constant functions (floor, ceil, trunc, round, sign, floor_divide): zero almost
// everywhere, taken as zero at the jumps (as PyTorch does), for every input.
void zero(VjpCall& c) {
  for (std::size_t i = 0; i < c.in.size(); ++i) set(c, i, zeros_like(c.in[i]));
}
void log1p(VjpCall& c) { set(c, 0, c.g / (1.0 + x0(c))); }
void expm1(VjpCall& c) { set(c, 0, c.g * (c.out + 1.0)); }
void log2(VjpCall& c) { set(c, 0, c.g / (x0(c) * 0.69314718055994530942)); }
void log10(VjpCall& c) { set(c, 0, c.g / (x0(c) * 2.30258509299404568402)); }
void tan(VjpCall& c) { set(c, 0, c.g * (1.0 + c.out * c.out)); }
void asin(VjpCall& c) { set(c, 0, c.g * inv_sqrt(1.0 - x0(c) * x0(c))); }
void acos(VjpCall& c) { set(c, 0, -c.g * inv_sqrt(1.0 - x0(c) * x0(c))); }
void atan(VjpCall& c) { set(c, 0, c.g / (1.0 + x0(c) * x0(c))); }
void sinh(VjpCall& c) { set(c, 0, c.g * cgrad::cosh(x0(c))); }
void cosh(VjpCall& c) { set(c, 0, c.g * cgrad::sinh(x0(c))); }
void asinh(VjpCall& c) { set(c, 0, c.g * inv_sqrt(x0(c) * x0(c) + 1.0)); }
// For complex z, 1 / sqrt(z^2 - 1) has the wrong sign left of the imaginary axis: acosh's
// principal branch has the derivative 1 / (sqrt(z - 1) sqrt(z + 1)).
void acosh(VjpCall& c) {
  const Tensor& x = x0(c);
  set(c, 0,
      is_complex(x.dtype()) ? c.g / (cgrad::sqrt(x - 1.0) * cgrad::sqrt(x + 1.0))
                            : c.g * cgrad::rsqrt(x * x - 1.0));
}
void atanh(VjpCall& c) { set(c, 0, c.g / (1.0 - x0(c) * x0(c))); }
// d erf/dx = 2/sqrt(pi) exp(-x^2)
void erf(VjpCall& c) { set(c, 0, c.g * 1.12837916709551257390 * cgrad::exp(-(x0(c) * x0(c)))); }
// atan2(a, b): b / (a^2 + b^2) and -a / (a^2 + b^2), as (b / h) / h with h = hypot(a, b), whose
// square would underflow to 0 (1e-300 operands: inf or NaN for 5e299) or overflow to inf (1e200
// operands: 0 for 2.5e-201). NaN at the origin, where it has no derivative.
// At the origin, where it has none, 0 (PyTorch's; hypot's below): 0 / 0 gave NaN until 2026-12-07.
void atan2(VjpCall& c) {
  const Tensor &a = c.in[0], &b = c.in[1];
  Tensor h = cgrad::hypot(a, b);
  Tensor safe = cgrad::where(h == 0, 1.0, h);
  set(c, 0, c.g * (b / safe) / safe);
  set(c, 1, -c.g * (a / safe) / safe);
}
// hypot: a / hypot and b / hypot, taken as 0 at the origin (where it has no derivative).
void hypot(VjpCall& c) {
  Tensor safe = cgrad::where(c.out == 0, 1.0, c.out);
  set(c, 0, c.g * c.in[0] / safe);
  set(c, 1, c.g * c.in[1] / safe);
}
// copysign: +-g on the magnitude operand (the sign flips when the signs differ), 0 where it is
// +-0 (copysign(a, b) = |a| sign(b): abs's convention; +-g until 2026-12-07); the sign operand
// gets 0.
void copysign(VjpCall& c) {
  set(c, 0,
      cgrad::where(c.in[0] == 0, 0.0,
                   cgrad::where(cgrad::signbit(c.in[0]) == cgrad::signbit(c.in[1]), c.g, -c.g)));
  set(c, 1, zeros_like(c.in[1]));
}
// d/da log(e^a + e^b) = 1 / (1 + e^(b - a)): finite where a is infinite and b is not (PyTorch's
// form; exp(a - out) was exp(inf - inf) = NaN there until 2026-12-07)
void logaddexp(VjpCall& c) {
  set(c, 0, c.g / (1.0 + cgrad::exp(c.in[1] - c.in[0])));
  set(c, 1, c.g / (1.0 + cgrad::exp(c.in[0] - c.in[1])));
}
// nextafter(a, b) moves a by one ulp: the derivative of the identity in a, 0 in b.
void nextafter(VjpCall& c) {
  set(c, 0, c.g);
  set(c, 1, zeros_like(c.in[1]));
}
// remainder(a, b) = a - floor(a / b) b: d/da = 1, d/db = -floor_divide(a, b).
void remainder(VjpCall& c) {
  set(c, 0, c.g);
  set(c, 1, -c.g * cgrad::floor_divide(c.in[0], c.in[1]));
}

void add(VjpCall& c) {
  set(c, 0, c.g);
  set(c, 1, c.g);
}
void sub(VjpCall& c) {
  set(c, 0, c.g);
  set(c, 1, -c.g);
}
void mul(VjpCall& c) {
  set(c, 0, c.g * c.in[1]);
  set(c, 1, c.g * c.in[0]);
}
void div(VjpCall& c) {
  set(c, 0, c.g / c.in[1]);
  set(c, 1, -c.g * c.out / c.in[1]);
}
void pow(VjpCall& c) {
  const Tensor &a = c.in[0], &b = c.in[1];
  // d/da = b a^(b-1), taken as 0 where b == 0 (so 0^0 has derivative 0, not NaN);
  // d/db = a^b log a, taken as 0 where a == 0 and b >= 0 (the limit from the right; Re(b) >= 0
  // for a complex b, as PyTorch).
  if (c.needs[0]) set(c, 0, cgrad::where(b == 0, 0.0, c.g * b * cgrad::pow(a, b - 1.0)));
  if (c.needs[1]) {
    Tensor v = c.g * c.out * cgrad::log(a);
    set(c, 1, cgrad::where(a == 0, cgrad::where(cgrad::real(b) >= 0, 0.0, v), v));
  }
}
namespace {
// maximum/minimum: the gradient goes to the selected operand, half to each at a tie.
void select_binary(VjpCall& c, const Tensor& a_wins, const Tensor& b_wins) {
  const Tensor &a = c.in[0], &b = c.in[1];
  Tensor half = c.g * 0.5;
  if (c.needs[0]) set(c, 0, cgrad::where(a_wins, c.g, cgrad::where(a == b, half, 0.0)));
  if (c.needs[1]) set(c, 1, cgrad::where(b_wins, c.g, cgrad::where(a == b, half, 0.0)));
}
}  // namespace
void maximum(VjpCall& c) { select_binary(c, c.in[0] > c.in[1], c.in[1] > c.in[0]); }
void minimum(VjpCall& c) { select_binary(c, c.in[0] < c.in[1], c.in[1] < c.in[0]); }
void where(VjpCall& c) {
  set(c, 1, cgrad::where(c.in[0], c.g, 0.0));
  set(c, 2, cgrad::where(c.in[0], 0.0, c.g));
}

void sum(VjpCall& c) { set(c, 0, c.g.expand(x0(c).shape())); }
namespace {
// Max/min reductions: the gradient is split equally among the elements equal to the result.
void select_reduce(VjpCall& c) {
  const Tensor& x = x0(c);
  Tensor hit = x == c.out.expand(x.shape());
  Tensor count = cgrad::sum(hit.cast(x.dtype()), c.rec.attrs.axes, true);
  set(c, 0, cgrad::where(hit, (c.g / count).expand(x.shape()), 0.0));
}
}  // namespace
void max(VjpCall& c) { select_reduce(c); }
void min(VjpCall& c) { select_reduce(c); }
// prod: d/dx_i is the product of the other elements. Where the reduced run holds no zero that is
// out / x_i; with one zero, the zero's element gets the product of the rest and the others 0;
// with two or more, every element gets 0. (out / x alone would give NaN at zeros.)
void prod(VjpCall& c) {
  const Tensor& x = x0(c);
  const auto& axes = c.rec.attrs.axes;
  Tensor is0 = x == 0;
  Tensor zeros = cgrad::sum(is0, axes, true).expand(x.shape());
  Tensor rest = cgrad::prod(cgrad::where(is0, 1.0, x), axes, true).expand(x.shape());
  Tensor safe = cgrad::where(is0, 1.0, x);
  Tensor d = cgrad::where(zeros == 0, c.out.expand(x.shape()) / safe,
                          cgrad::where(cgrad::logical_and(is0, zeros == 1), rest, 0.0));
  set(c, 0, c.g.expand(x.shape()) * d);
}

// All-reduce (SPMD): the result is the same on every process and so is its gradient, which is
// each process's input's gradient for a sum; for max/min it goes to the elements equal to the
// result, split equally among the processes that tie (a second all-reduce counts them).
void allreduce(VjpCall& c) {
  if (static_cast<ir::Op>(c.rec.attrs.ivalue) == ir::Op::Sum) return set(c, 0, c.g);
  const Tensor& x = x0(c);
  Tensor hit = x == c.out;
  Tensor count = dist::all_reduce(hit.cast(x.dtype()), dist::ReduceOp::Sum);
  set(c, 0, cgrad::where(hit, c.g / count, 0.0));
}

// Scans (scan group). cumulative_sum: each input element reaches every output at or after it, so
// its gradient is the reversed running sum of g (flip, cumulative_sum, flip). cumulative_prod:
// d out_j / d x_k = prod_{i <= j, i != k} x_i for j >= k, computed without dividing by a zero (as
// PyTorch's cumprod_backward): before a row's first zero, x_k != 0 and the gradient is
// reversed_cumsum(g * out) / x_k; at the first zero z it is reversed_cumsum(g * out')_z, where out'
// is the running product with that one zero replaced by 1 (out'_j = prod_{i < z} x_i *
// prod_{z < i <= j} x_i for j >= z); after it every product holds that zero, so the gradient is 0.
// Exact with any number of zeros per row (docs/autograd.md); itself differentiable.
namespace {
Tensor reversed_cumsum(const Tensor& g, int64_t axis) {
  return cgrad::flip(cgrad::cumulative_sum(cgrad::flip(g, {axis}), axis), {axis});
}
}  // namespace
void cumulative_sum(VjpCall& c) { set(c, 0, reversed_cumsum(c.g, c.rec.attrs.axis)); }
void cumulative_prod(VjpCall& c) {
  const Tensor& x = x0(c);
  const int64_t axis = c.rec.attrs.axis;
  const Tensor is0 = x == 0;
  const Tensor zeros_so_far = cgrad::cumulative_sum(is0.cast(DType::i64), axis);  // inclusive count
  const Tensor first0 = cgrad::logical_and(is0, zeros_so_far == 1);
  const Tensor before = reversed_cumsum(c.g * c.out, axis) / cgrad::where(is0, 1.0, x);
  const Tensor at = reversed_cumsum(c.g * cgrad::cumulative_prod(cgrad::where(first0, 1.0, x), axis), axis);
  set(c, 0, cgrad::where(zeros_so_far == 0, before, cgrad::where(first0, at, 0.0)));
}

void reshape(VjpCall& c) { set(c, 0, c.g.reshape(x0(c).shape())); }
void permute(VjpCall& c) { set(c, 0, c.g.permute(core::inverse_permutation(c.rec.attrs.axes))); }
void expand(VjpCall& c) {
  const Shape& in = x0(c).shape();
  const Shape& out = c.out.shape();
  std::vector<int64_t> axes;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i] == 1 && out[i] != 1) axes.push_back(static_cast<int64_t>(i));
  set(c, 0, axes.empty() ? c.g.reshape(in) : cgrad::sum(c.g, axes, true));
}
void flip(VjpCall& c) { set(c, 0, cgrad::flip(c.g, c.rec.attrs.axes)); }
void slice(VjpCall& c) {
  // Scatter the gradient back: interleave step-1 zeros after each element, then pad with
  // zeros before `start` and after the last covered element.
  const Tensor& x = x0(c);
  const ir::Attrs& a = c.rec.attrs;
  const auto ax = static_cast<std::size_t>(a.axis);
  const int64_t d = x.shape()[ax], n = c.out.shape()[ax];
  if (n == 0) return set(c, 0, zeros_like(x));
  Tensor g = c.g;
  Shape s = g.shape();
  if (a.step > 1) {
    Shape s1 = s;
    s1.insert(s1.begin() + static_cast<std::ptrdiff_t>(ax) + 1, 1);
    Shape z = s1;
    z[ax + 1] = a.step - 1;
    Tensor spread = cgrad::cat({g.reshape(s1), zeros(z, g.dtype(), g.device())}, a.axis + 1);
    s[ax] = n * a.step;
    g = spread.reshape(s);
    const int64_t len = std::min(n * a.step, d - a.start);
    g = g.slice(a.axis, 0, len);
    s[ax] = len;
  }
  std::vector<Tensor> parts;
  Shape z = s;
  if (a.start > 0) {
    z[ax] = a.start;
    parts.push_back(zeros(z, g.dtype(), g.device()));
  }
  parts.push_back(g);
  const int64_t after = d - a.start - s[ax];
  if (after > 0) {
    z[ax] = after;
    parts.push_back(zeros(z, g.dtype(), g.device()));
  }
  set(c, 0, parts.size() == 1 ? g : cgrad::cat(parts, a.axis));
}
void cat(VjpCall& c) {
  int64_t off = 0;
  const int64_t axis = c.rec.attrs.axis;
  for (std::size_t i = 0; i < c.in.size(); ++i) {
    const int64_t len = c.in[i].shape()[static_cast<std::size_t>(axis)];
    set(c, i, c.g.slice(axis, off, off + len));
    off += len;
  }
}
void matmul(VjpCall& c) {
  // The IR's operands already have the broadcast batch dims: (..., m, k) x (..., k, n).
  set(c, 0, cgrad::matmul(c.g, c.in[1].T()));
  set(c, 1, cgrad::matmul(c.in[0].T(), c.g));
}

// group sort. sort: output element j of a row is input element idx[j] (idx the stable argsort,
// the permutation the forward used), so the input's gradient is the output's scattered to idx:
// one scatter_add, O(n) per row (it is differentiable: its own gradient is a take of g).
void sort(VjpCall& c) {
  const Tensor& x = x0(c);
  const int64_t ax = c.rec.attrs.axis;
  const Tensor idx = cgrad::argsort(x, ax, c.rec.attrs.ivalue != 0);
  set(c, 0, cgrad::scatter_add_along_axis(zeros_like(x), ax, idx, c.g));
}

// index group (issue #15). take's gradient scatters g back: dx[.., k, ..] = sum over j of g[.., j, ..]
// where the (wrapped) index idx[.., j, ..] == k, one scatter_add: O(n + m) for n = x.shape[axis],
// m = idx.shape[axis]. Out-of-range indices add nothing (take read 0 there). The IR's idx already
// has g's shape (take's frontend broadcasts it), so the along-axis layout fits.
void take(VjpCall& c) {
  const Tensor& x = x0(c);
  auto scatter = [&](const Tensor& g) {
    return cgrad::scatter_add_along_axis(zeros(x.shape(), g.dtype(), x.device()), c.rec.attrs.axis, c.in[1],
                                         g);
  };
  // scatter_add takes no complex dtype: a complex gradient scatters its parts.
  if (is_complex(x.dtype()))
    set(c, 0, cgrad::complex(scatter(cgrad::real(c.g)), scatter(cgrad::imag(c.g))).cast(x.dtype()));
  else
    set(c, 0, scatter(c.g));
}

// complex group (issue #15): the rows that are not holomorphic, with PyTorch's convention
// (g = dL/dRe(w) + i dL/dIm(w) for the output w). conj: dL/dRe(z) = Re(g), dL/dIm(z) = -Im(g).
void conj(VjpCall& c) { set(c, 0, cgrad::conj(c.g)); }
// real(z): only Re(z) moves the output; imag(z): only Im(z), so the gradient is i g.
void real(VjpCall& c) { set(c, 0, c.g.cast(x0(c).dtype())); }
void imag(VjpCall& c) { set(c, 0, times_i(c.g).cast(x0(c).dtype())); }
// complex(re, im): the real and imaginary parts of the gradient.
void complex(VjpCall& c) {
  set(c, 0, cgrad::real(c.g).cast(c.in[0].dtype()));
  set(c, 1, cgrad::imag(c.g).cast(c.in[1].dtype()));
}
// sign: piecewise constant for real values (0, as zero()); for complex z, w = z / |z| moves only
// with arg z, so the gradient is g's component along i w, divided by |z|: i Im(g conj(w)) w / |z|
// (PyTorch's sgn_backward), 0 at z = 0.
void sign(VjpCall& c) {
  const Tensor& x = x0(c);
  if (!is_complex(x.dtype())) return zero(c);
  const Tensor r = cgrad::abs(x), zero = r == 0;
  const Tensor t = times_i(cgrad::imag(c.g * cgrad::conj(c.out))) * c.out / cgrad::where(zero, 1.0, r);
  set(c, 0, cgrad::where(zero, 0.0, t).cast(x.dtype()));
}

// scatter group (issue #15). scatter_add(base, src, idx) is linear: base's gradient is g, src's is g
// read back at the same positions (a take along the axis; an out-of-range index gives 0, as it
// added nothing). The index input has no gradient.
void scatter_add(VjpCall& c) {
  set(c, 0, c.g);
  set(c, 1, cgrad::take_along_axis(c.g, c.in[2], c.rec.attrs.axis));
}

}  // namespace vjp

ComplexGrad complex_grad(ir::Op op) {
  using ir::Op;
  switch (op) {
    // Holomorphic (f with real coefficients, in each input): the real rule at the conjugates.
    case Op::Exp:
    case Op::Log:
    case Op::Sqrt:
    case Op::Sin:
    case Op::Cos:
    case Op::Tanh:
    case Op::Log1p:
    case Op::Expm1:
    case Op::Tan:
    case Op::Sinh:
    case Op::Cosh:
    case Op::Mul:
    case Op::Div:
    case Op::Pow:
    case Op::Prod:
    case Op::Matmul:
    case Op::CumProd:
    // (complex inverse functions and log2/log10: holomorphic too, for when their rows take complex)
    case Op::Log2:
    case Op::Log10:
    case Op::Asin:
    case Op::Acos:
    case Op::Atan:
    case Op::Asinh:
    case Op::Acosh:
    case Op::Atanh: return ComplexGrad::Holomorphic;
    // Linear with real coefficients (the rule never reads a value), or a rule written for complex.
    case Op::Neg:
    case Op::Add:
    case Op::Sub:
    case Op::Where:
    case Op::Sum:
    case Op::CumSum:
    case Op::Reshape:
    case Op::Permute:
    case Op::Expand:
    case Op::Slice:
    case Op::Flip:
    case Op::Cat:
    case Op::Take:
    case Op::Cast:
    case Op::Abs:
    case Op::Sign:
    case Op::Round:  // piecewise constant in each part: zero() (once its row takes complex)
    case Op::Conj:
    case Op::Real:
    case Op::Imag:
    case Op::Complex: return ComplexGrad::AsIs;
    default: return ComplexGrad::None;
  }
}

void differentiate(VjpCall& c) {
  const ir::VjpFn rule = ir::info(c.rec.op).vjp;
  bool cplx = is_complex(c.out.dtype());
  for (const Tensor& t : c.in) cplx = cplx || (t.defined() && is_complex(t.dtype()));
  if (!cplx || complex_grad(c.rec.op) != ComplexGrad::Holomorphic) return rule(c);
  VjpCall at_conj{c.rec, cgrad::conj(c.out), c.g, {}, c.needs, std::vector<Tensor>(c.gin.size()), {}};
  for (const Tensor& t : c.in) at_conj.in.push_back(t.defined() ? cgrad::conj(t) : t);
  rule(at_conj);
  c.gin = std::move(at_conj.gin);
}

void composite_vjp(VjpCall& c) {
  const ir::GradRecord& r = c.rec;
  switch (r.composite) {
    case ir::Composite::Softmax: {  // dx = y * (g - sum(g * y))
      const int64_t axis = r.attrs.axis;
      set(c, 0, c.out * (c.g - cgrad::sum(c.g * c.out, {axis}, true)));
      return;
    }
    case ir::Composite::LogSoftmax: {  // dx = g - exp(y) * sum(g)
      const int64_t axis = r.attrs.axis;
      set(c, 0, c.g - cgrad::exp(c.out) * cgrad::sum(c.g, {axis}, true));
      return;
    }
    case ir::Composite::CrossEntropy: {
      // inputs: logits (N, C), their log_softmax, targets as probabilities (N, C); mean over N.
      // d/dlogits = (p * sum(y) - y) / N with p = exp(log_softmax): `p - y` for class indices.
      const Tensor &lsm = c.in[1], &y = c.in[2];
      const double n = static_cast<double>(lsm.shape()[0]);
      Tensor scale = c.g / n;
      if (c.needs[0]) {
        // The forward's log_softmax carries no history; when this gradient must itself be
        // differentiable (grad mode on: create_graph), p comes from the logits instead.
        Tensor p = is_grad_enabled() ? cgrad::softmax(c.in[0], 1) : cgrad::exp(lsm);
        Tensor d = (r.attrs.ivalue == 1 ? p - y : p * cgrad::sum(y, {1}, true) - y) * scale;
        set(c, 0, d.cast(c.in[0].dtype()));
      }
      if (c.needs[2])
        set(c, 2, (-(is_grad_enabled() ? cgrad::log_softmax(c.in[0], 1) : lsm) * scale).cast(y.dtype()));
      return;
    }
    case ir::Composite::ToDevice:  // a copy to another device: the gradient goes back
      set(c, 0, c.g.to(c.in[0].device()));
      return;
    case ir::Composite::Custom: custom_vjp(c); return;
    case ir::Composite::None: break;
  }
  throw Error(ErrorCode::Internal, "autograd: record without a composite rule");
}

}  // namespace cgrad::autograd
