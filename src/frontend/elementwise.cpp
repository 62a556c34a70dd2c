// Element-wise operators and functions: each is one call to frontend::elementwise with its op.
#include "frontend/build.h"

namespace cgrad {

using frontend::elementwise;
using frontend::same_value;
using ir::Op;

#define CGRAD_BINARY_OPERATOR(sym, OP)                                                      \
  Tensor operator sym(const Tensor& a, const Tensor& b) { return elementwise(OP, {a, b}); } \
  Tensor operator sym(const Tensor& a, Scalar b) { return elementwise(OP, {a, b}); }
CGRAD_BINARY_OPERATOR(+, Op::Add)
CGRAD_BINARY_OPERATOR(-, Op::Sub)
CGRAD_BINARY_OPERATOR(*, Op::Mul)
CGRAD_BINARY_OPERATOR(/, Op::Div)
CGRAD_BINARY_OPERATOR(<, Op::Lt)
CGRAD_BINARY_OPERATOR(<=, Op::Le)
CGRAD_BINARY_OPERATOR(>, Op::Gt)
CGRAD_BINARY_OPERATOR(>=, Op::Ge)
CGRAD_BINARY_OPERATOR(==, Op::Eq)
CGRAD_BINARY_OPERATOR(!=, Op::Ne)
#undef CGRAD_BINARY_OPERATOR

Tensor operator+(Scalar a, const Tensor& b) { return elementwise(Op::Add, {a, b}); }
Tensor operator-(Scalar a, const Tensor& b) { return elementwise(Op::Sub, {a, b}); }
Tensor operator*(Scalar a, const Tensor& b) { return elementwise(Op::Mul, {a, b}); }
Tensor operator/(Scalar a, const Tensor& b) { return elementwise(Op::Div, {a, b}); }
Tensor operator-(const Tensor& a) { return elementwise(Op::Neg, {a}); }

Tensor exp(const Tensor& x) { return elementwise(Op::Exp, {x}); }
Tensor log(const Tensor& x) { return elementwise(Op::Log, {x}); }
Tensor sqrt(const Tensor& x) { return elementwise(Op::Sqrt, {x}); }
Tensor rsqrt(const Tensor& x) { return elementwise(Op::Rsqrt, {x}); }
Tensor abs(const Tensor& x) { return elementwise(Op::Abs, {x}); }
Tensor sin(const Tensor& x) { return elementwise(Op::Sin, {x}); }
Tensor cos(const Tensor& x) { return elementwise(Op::Cos, {x}); }
Tensor tanh(const Tensor& x) { return elementwise(Op::Tanh, {x}); }
Tensor sigmoid(const Tensor& x) { return elementwise(Op::Sigmoid, {x}); }
Tensor relu(const Tensor& x) { return elementwise(Op::Relu, {x}); }

Tensor pow(const Tensor& a, const Tensor& b) { return elementwise(Op::Pow, {a, b}); }
Tensor pow(const Tensor& a, Scalar b) { return elementwise(Op::Pow, {a, b}); }
Tensor pow(Scalar a, const Tensor& b) { return elementwise(Op::Pow, {a, b}); }
Tensor maximum(const Tensor& a, const Tensor& b) { return elementwise(Op::Maximum, {a, b}); }
Tensor maximum(const Tensor& a, Scalar b) { return elementwise(Op::Maximum, {a, b}); }
Tensor minimum(const Tensor& a, const Tensor& b) { return elementwise(Op::Minimum, {a, b}); }
Tensor minimum(const Tensor& a, Scalar b) { return elementwise(Op::Minimum, {a, b}); }

// The Array API standard's element-wise functions: one row each, or an exact composition.
Tensor floor(const Tensor& x) { return elementwise(Op::Floor, {x}); }
Tensor ceil(const Tensor& x) { return elementwise(Op::Ceil, {x}); }
Tensor trunc(const Tensor& x) { return elementwise(Op::Trunc, {x}); }
Tensor round(const Tensor& x) { return elementwise(Op::Round, {x}); }
Tensor sign(const Tensor& x) { return elementwise(Op::Sign, {x}); }
Tensor signbit(const Tensor& x) { return elementwise(Op::Signbit, {x}); }
Tensor isnan(const Tensor& x) { return elementwise(Op::Isnan, {x}); }
Tensor isinf(const Tensor& x) { return elementwise(Op::Isinf, {x}); }
Tensor isfinite(const Tensor& x) { return elementwise(Op::Isfinite, {x}); }
Tensor log1p(const Tensor& x) { return elementwise(Op::Log1p, {x}); }
Tensor expm1(const Tensor& x) { return elementwise(Op::Expm1, {x}); }
Tensor log2(const Tensor& x) { return elementwise(Op::Log2, {x}); }
Tensor log10(const Tensor& x) { return elementwise(Op::Log10, {x}); }
Tensor tan(const Tensor& x) { return elementwise(Op::Tan, {x}); }
Tensor asin(const Tensor& x) { return elementwise(Op::Asin, {x}); }
Tensor acos(const Tensor& x) { return elementwise(Op::Acos, {x}); }
Tensor atan(const Tensor& x) { return elementwise(Op::Atan, {x}); }
Tensor sinh(const Tensor& x) { return elementwise(Op::Sinh, {x}); }
Tensor cosh(const Tensor& x) { return elementwise(Op::Cosh, {x}); }
Tensor asinh(const Tensor& x) { return elementwise(Op::Asinh, {x}); }
Tensor acosh(const Tensor& x) { return elementwise(Op::Acosh, {x}); }
Tensor atanh(const Tensor& x) { return elementwise(Op::Atanh, {x}); }
Tensor erf(const Tensor& x) { return elementwise(Op::Erf, {x}); }
Tensor bitwise_invert(const Tensor& x) { return elementwise(Op::BitwiseInvert, {x}); }
Tensor logical_not(const Tensor& x) { return elementwise(Op::LogicalNot, {x}); }
Tensor atan2(const Tensor& a, const Tensor& b) { return elementwise(Op::Atan2, {a, b}); }
Tensor hypot(const Tensor& a, const Tensor& b) { return elementwise(Op::Hypot, {a, b}); }
Tensor copysign(const Tensor& a, const Tensor& b) { return elementwise(Op::Copysign, {a, b}); }
Tensor logaddexp(const Tensor& a, const Tensor& b) { return elementwise(Op::Logaddexp, {a, b}); }
Tensor nextafter(const Tensor& a, const Tensor& b) { return elementwise(Op::Nextafter, {a, b}); }
Tensor remainder(const Tensor& a, const Tensor& b) { return elementwise(Op::Remainder, {a, b}); }
Tensor floor_divide(const Tensor& a, const Tensor& b) { return elementwise(Op::FloorDivide, {a, b}); }
Tensor bitwise_and(const Tensor& a, const Tensor& b) { return elementwise(Op::BitwiseAnd, {a, b}); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return elementwise(Op::BitwiseOr, {a, b}); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return elementwise(Op::BitwiseXor, {a, b}); }
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) {
  return elementwise(Op::BitwiseLeftShift, {a, b});
}
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) {
  return elementwise(Op::BitwiseRightShift, {a, b});
}
Tensor logical_and(const Tensor& a, const Tensor& b) { return elementwise(Op::LogicalAnd, {a, b}); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return elementwise(Op::LogicalOr, {a, b}); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return elementwise(Op::LogicalXor, {a, b}); }
Tensor remainder(const Tensor& a, Scalar b) { return elementwise(Op::Remainder, {a, b}); }
Tensor floor_divide(const Tensor& a, Scalar b) { return elementwise(Op::FloorDivide, {a, b}); }
Tensor remainder(Scalar a, const Tensor& b) { return elementwise(Op::Remainder, {a, b}); }
Tensor floor_divide(Scalar a, const Tensor& b) { return elementwise(Op::FloorDivide, {a, b}); }

// The scalar forms of the other binary functions (a scalar on either side).
#define CGRAD_SCALAR_FORMS(fn, OP)                                             \
  Tensor fn(const Tensor& a, Scalar b) { return elementwise(Op::OP, {a, b}); } \
  Tensor fn(Scalar a, const Tensor& b) { return elementwise(Op::OP, {a, b}); }
CGRAD_SCALAR_FORMS(atan2, Atan2)
CGRAD_SCALAR_FORMS(hypot, Hypot)
CGRAD_SCALAR_FORMS(copysign, Copysign)
CGRAD_SCALAR_FORMS(logaddexp, Logaddexp)
CGRAD_SCALAR_FORMS(nextafter, Nextafter)
CGRAD_SCALAR_FORMS(bitwise_and, BitwiseAnd)
CGRAD_SCALAR_FORMS(bitwise_or, BitwiseOr)
CGRAD_SCALAR_FORMS(bitwise_xor, BitwiseXor)
CGRAD_SCALAR_FORMS(bitwise_left_shift, BitwiseLeftShift)
CGRAD_SCALAR_FORMS(bitwise_right_shift, BitwiseRightShift)
CGRAD_SCALAR_FORMS(logical_and, LogicalAnd)
CGRAD_SCALAR_FORMS(logical_or, LogicalOr)
CGRAD_SCALAR_FORMS(logical_xor, LogicalXor)
#undef CGRAD_SCALAR_FORMS
Tensor negative(const Tensor& x) { return -x; }
Tensor positive(const Tensor& x) {
  if (x.dtype() == DType::b8) throw Error(ErrorCode::DTypeMismatch, "positive: not supported for dtype b8");
  return same_value(x, "positive");
}
Tensor square(const Tensor& x) { return x * x; }
Tensor reciprocal(const Tensor& x) { return 1.0 / x; }
// complex group: one row each for a complex x; a real x is its own conjugate and real part, and
// its imaginary part is zeros of its dtype (no node).
Tensor conj(const Tensor& x) {
  return is_complex(x.dtype()) ? elementwise(Op::Conj, {x}) : same_value(x, "conj");
}
Tensor real(const Tensor& x) {
  return is_complex(x.dtype()) ? elementwise(Op::Real, {x}) : same_value(x, "real");
}
Tensor imag(const Tensor& x) {
  return is_complex(x.dtype()) ? elementwise(Op::Imag, {x}) : zeros(x.shape(), x.dtype(), x.device());
}

Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) { return elementwise(Op::Where, {c, a, b}); }
Tensor where(const Tensor& c, const Tensor& a, Scalar b) { return elementwise(Op::Where, {c, a, b}); }
Tensor where(const Tensor& c, Scalar a, const Tensor& b) { return elementwise(Op::Where, {c, a, b}); }
Tensor where(const Tensor& c, Scalar a, Scalar b) { return elementwise(Op::Where, {c, a, b}); }

Tensor clamp(const Tensor& x, Scalar lo, Scalar hi) { return minimum(maximum(x, lo), hi); }
Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi) { return minimum(maximum(x, lo), hi); }
Tensor clip(const Tensor& x, Scalar lo, Scalar hi) { return clamp(x, lo, hi); }
Tensor clip(const Tensor& x, const Tensor& lo, const Tensor& hi) { return clamp(x, lo, hi); }

}  // namespace cgrad
