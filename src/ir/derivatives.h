// The derivative column of the op table: one vector-Jacobian product per op, named after the
// op (`none` where no gradient flows: sources, comparisons). The rows of op_table.h point at
// these; they are defined in src/autograd/derivatives.cpp, which builds the backward graph
// with the same lazy ops as the forward one. A row without a derivative does not compile,
// a declared rule without a definition does not link.
#pragma once

#include "ir/op.h"

namespace cgrad::autograd::vjp {
void none(VjpCall&);
void neg(VjpCall&);
void exp(VjpCall&);
void log(VjpCall&);
void sqrt(VjpCall&);
void rsqrt(VjpCall&);
void abs(VjpCall&);
void sin(VjpCall&);
void cos(VjpCall&);
void tanh(VjpCall&);
void sigmoid(VjpCall&);
void relu(VjpCall&);
void cast(VjpCall&);
void zero(VjpCall&);
void log1p(VjpCall&);
void expm1(VjpCall&);
void log2(VjpCall&);
void log10(VjpCall&);
void tan(VjpCall&);
void asin(VjpCall&);
void acos(VjpCall&);
void atan(VjpCall&);
void sinh(VjpCall&);
void cosh(VjpCall&);
void asinh(VjpCall&);
void acosh(VjpCall&);
void atanh(VjpCall&);
void erf(VjpCall&);
void atan2(VjpCall&);
void hypot(VjpCall&);
void copysign(VjpCall&);
void logaddexp(VjpCall&);
void remainder(VjpCall&);
void nextafter(VjpCall&);
void add(VjpCall&);
void sub(VjpCall&);
void mul(VjpCall&);
void div(VjpCall&);
void pow(VjpCall&);
void maximum(VjpCall&);
void minimum(VjpCall&);
void where(VjpCall&);
void sum(VjpCall&);
void max(VjpCall&);
void min(VjpCall&);
void prod(VjpCall&);
void reshape(VjpCall&);
void permute(VjpCall&);
void expand(VjpCall&);
void slice(VjpCall&);
void flip(VjpCall&);
void cat(VjpCall&);
void matmul(VjpCall&);
void allreduce(VjpCall&);
void user(VjpCall&);
void sort(VjpCall&);  // group sort
// scans (scan group)
void cumulative_sum(VjpCall&);
void cumulative_prod(VjpCall&);
// index group (issue #15)
void take(VjpCall&);
// scatter group (issue #15)
void scatter_add(VjpCall&);
// complex group (issue #15)
void conj(VjpCall&);
void real(VjpCall&);
void imag(VjpCall&);
void complex(VjpCall&);
void sign(VjpCall&);
}  // namespace cgrad::autograd::vjp

namespace cgrad::autograd {
/// How a row's derivative rule applies to complex values (complex group, docs/autograd.md):
/// Holomorphic: the real rule, evaluated at the conjugates of the inputs and the output;
/// AsIs: the rule handles complex values itself (or never reads one); None: no complex rule, so
/// building a complex node of the row from a tensor that requires a gradient raises.
enum class ComplexGrad { Holomorphic, AsIs, None };
ComplexGrad complex_grad(ir::Op op);
}  // namespace cgrad::autograd
