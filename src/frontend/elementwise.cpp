// Element-wise operators and functions: each is one call to frontend::elementwise with its op.
#include "frontend/build.h"

namespace cgrad {

using frontend::elementwise;
using ir::Op;

#define CGRAD_BINARY_OPERATOR(sym, OP)                                                        \
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

Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) { return elementwise(Op::Where, {c, a, b}); }
Tensor where(const Tensor& c, const Tensor& a, Scalar b) { return elementwise(Op::Where, {c, a, b}); }
Tensor where(const Tensor& c, Scalar a, const Tensor& b) { return elementwise(Op::Where, {c, a, b}); }
Tensor where(const Tensor& c, Scalar a, Scalar b) { return elementwise(Op::Where, {c, a, b}); }

Tensor clamp(const Tensor& x, Scalar lo, Scalar hi) { return minimum(maximum(x, lo), hi); }
Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi) { return minimum(maximum(x, lo), hi); }

}  // namespace cgrad
