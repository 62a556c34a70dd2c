// The op table: one row per op of include/cgrad/ops.def, in the same order (checked at
// compile time). A row holds the op's name, kind, arity, accepted dtypes, dtype rule, shape
// rule, flags, derivative and (optionally, default 1) the scheduler's cost. It is constexpr so
// that backends can instantiate templated code only for the dtypes a row accepts. Adding an op
// means one line in ops.def and one row here.
#pragma once

#include "ir/derivatives.h"
#include "ir/op.h"

#include <array>

namespace cgrad::ir {

namespace rules {
void source_shape(const Node& n, Shape& out);
void elementwise_shape(const Node& n, Shape& out);
void reduce_shape(const Node& n, Shape& out);
void reshape_shape(const Node& n, Shape& out);
void permute_shape(const Node& n, Shape& out);
void expand_shape(const Node& n, Shape& out);
void slice_shape(const Node& n, Shape& out);
void flip_shape(const Node& n, Shape& out);
void cat_shape(const Node& n, Shape& out);
void matmul_shape(const Node& n, Shape& out);
void take_shape(const Node& n, Shape& out);     // index group
void scatter_shape(const Node& n, Shape& out);  // scatter group
}  // namespace rules

namespace table_detail {
using namespace rules;
namespace vjp = autograd::vjp;
inline constexpr const char* kNames[] = {
#define CGRAD_OP(E, name, Kind, arity) #name,
#include <cgrad/ops.def>
#undef CGRAD_OP
};

// The cost column is optional: a row ends with `, 4` to override the default of 1 (row_cost()),
// so rows added later need not name it.
constexpr int row_cost(int cost = 1) { return cost; }

#define ROW(E, kind, arity, mask, rule, shape, i2f, comm, d, ...)                                         \
  OpInfo {                                                                                                \
    Op::E, kNames[static_cast<int>(Op::E)], OpKind::kind, arity, mask, DTypeRule::rule, shape, i2f, comm, \
        &d, kNoReduce, row_cost(__VA_ARGS__)                                                              \
  }
// A reduction row: accepted dtypes, dtype rule, derivative, then its ReduceRule (the element-wise
// Binary row that combines, the identity, the accumulator, whether an empty reduction is allowed).
// Its cost is the default 1: a shared value that contains a reduction is always Mat (rule 8).
#define RED(E, mask, rule, d, combine, identity, acc, empty_ok)                                            \
  OpInfo {                                                                                                 \
    Op::E, kNames[static_cast<int>(Op::E)], OpKind::Reduce, 1, mask, DTypeRule::rule, reduce_shape, false, \
        false, &d, ReduceRule{Op::combine, RedIdentity::identity, RedAcc::acc, empty_ok}, row_cost()       \
  }

// A scan row (scan group): like RED, the output has the input's shape and attrs.axis is the scan
// axis; the frontend casts the input to the output dtype first, so the rule is SameAsIn.
#define SCAN(E, mask, d, combine, identity, acc)                                                           \
  OpInfo {                                                                                                 \
    Op::E, kNames[static_cast<int>(Op::E)], OpKind::Scan, 1, mask, DTypeRule::SameAsIn, elementwise_shape, \
        false, false, &d, ReduceRule{Op::combine, RedIdentity::identity, RedAcc::acc, true}, row_cost()    \
  }

inline constexpr ReduceRule kNoReduce{Op::Buffer, RedIdentity::Zero, RedAcc::Input, false};

inline constexpr DTypeMask kNoBool = kNumeric;
inline constexpr DTypeMask kBool = bit(DType::b8);
inline constexpr DTypeMask kIntBool = kInt | kBool;

inline constexpr std::array<OpInfo, kNumOps> kTable = {{
    // sources
    ROW(Buffer, Source, 0, kAll | kComplex, Given, source_shape, false, false, vjp::none),
    ROW(Full, Source, 0, kAll | kComplex, Given, source_shape, false, false, vjp::none),
    ROW(Arange, Source, 0, kAll, Given, source_shape, false, false, vjp::none),
    ROW(Rand, Source, 0, kAll, Given, source_shape, false, false, vjp::none, 4),
    ROW(Randn, Source, 0, kAll, Given, source_shape, false, false, vjp::none, 4),
    // unary
    ROW(Neg, Unary, 1, kNoBool | kComplex, SameAsIn, elementwise_shape, false, false, vjp::neg),
    ROW(Exp, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::exp, 4),
    ROW(Log, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::log, 4),
    ROW(Sqrt, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::sqrt),
    ROW(Rsqrt, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::rsqrt),
    ROW(Abs, Unary, 1, kNoBool | kComplex, Real, elementwise_shape, false, false, vjp::abs),
    ROW(Sin, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::sin, 4),
    ROW(Cos, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::cos, 4),
    ROW(Tanh, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::tanh, 4),
    ROW(Sigmoid, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::sigmoid, 4),
    ROW(Relu, Unary, 1, kNoBool, SameAsIn, elementwise_shape, false, false, vjp::relu),
    ROW(Cast, Unary, 1, kAll | kComplex, Given, elementwise_shape, false, false, vjp::cast),
    ROW(Floor, Unary, 1, kNumeric, SameAsIn, elementwise_shape, false, false, vjp::zero),
    ROW(Ceil, Unary, 1, kNumeric, SameAsIn, elementwise_shape, false, false, vjp::zero),
    ROW(Trunc, Unary, 1, kNumeric, SameAsIn, elementwise_shape, false, false, vjp::zero),
    ROW(Round, Unary, 1, kNumeric | kComplex, SameAsIn, elementwise_shape, false, false, vjp::zero),
    ROW(Sign, Unary, 1, kNumeric | kComplex, SameAsIn, elementwise_shape, false, false, vjp::sign),
    ROW(Signbit, Unary, 1, kNumeric, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Isnan, Unary, 1, kAll | kComplex, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Isinf, Unary, 1, kAll | kComplex, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Isfinite, Unary, 1, kAll | kComplex, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Log1p, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::log1p, 4),
    ROW(Expm1, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::expm1, 4),
    ROW(Log2, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::log2, 4),
    ROW(Log10, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::log10, 4),
    ROW(Tan, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::tan, 4),
    ROW(Asin, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::asin, 4),
    ROW(Acos, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::acos, 4),
    ROW(Atan, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::atan, 4),
    ROW(Sinh, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::sinh, 4),
    ROW(Cosh, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::cosh, 4),
    ROW(Asinh, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::asinh, 4),
    ROW(Acosh, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::acosh, 4),
    ROW(Atanh, Unary, 1, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::atanh, 4),
    ROW(Erf, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::erf, 4),
    ROW(BitwiseInvert, Unary, 1, kIntBool, SameAsIn, elementwise_shape, false, false, vjp::none),
    ROW(LogicalNot, Unary, 1, kBool, SameAsIn, elementwise_shape, false, false, vjp::none),
    // binary
    ROW(Add, Binary, 2, kNoBool | kComplex, SameAsIn, elementwise_shape, false, true, vjp::add),
    ROW(Sub, Binary, 2, kNoBool | kComplex, SameAsIn, elementwise_shape, false, false, vjp::sub),
    ROW(Mul, Binary, 2, kNoBool | kComplex, SameAsIn, elementwise_shape, false, true, vjp::mul),
    ROW(Div, Binary, 2, kFloat | kComplex, SameAsIn, elementwise_shape, true, false, vjp::div),
    ROW(Pow, Binary, 2, kNoBool | kComplex, SameAsIn, elementwise_shape, false, false, vjp::pow, 4),
    ROW(Maximum, Binary, 2, kAll, SameAsIn, elementwise_shape, false, true, vjp::maximum),
    ROW(Minimum, Binary, 2, kAll, SameAsIn, elementwise_shape, false, true, vjp::minimum),
    ROW(Lt, Binary, 2, kAll, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Le, Binary, 2, kAll, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Gt, Binary, 2, kAll, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Ge, Binary, 2, kAll, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Eq, Binary, 2, kAll | kComplex, Bool, elementwise_shape, false, true, vjp::none),
    ROW(Ne, Binary, 2, kAll | kComplex, Bool, elementwise_shape, false, true, vjp::none),
    ROW(Atan2, Binary, 2, kFloat, SameAsIn, elementwise_shape, true, false, vjp::atan2, 4),
    ROW(Hypot, Binary, 2, kFloat, SameAsIn, elementwise_shape, true, true, vjp::hypot, 4),
    ROW(Copysign, Binary, 2, kFloat, SameAsIn, elementwise_shape, true, false, vjp::copysign),
    ROW(Logaddexp, Binary, 2, kFloat, SameAsIn, elementwise_shape, true, true, vjp::logaddexp, 4),
    ROW(Nextafter, Binary, 2, kFloat, SameAsIn, elementwise_shape, true, false, vjp::nextafter),
    ROW(Remainder, Binary, 2, kNumeric, SameAsIn, elementwise_shape, false, false, vjp::remainder),
    ROW(FloorDivide, Binary, 2, kNumeric, SameAsIn, elementwise_shape, false, false, vjp::zero),
    ROW(BitwiseAnd, Binary, 2, kIntBool, SameAsIn, elementwise_shape, false, true, vjp::none),
    ROW(BitwiseOr, Binary, 2, kIntBool, SameAsIn, elementwise_shape, false, true, vjp::none),
    ROW(BitwiseXor, Binary, 2, kIntBool, SameAsIn, elementwise_shape, false, true, vjp::none),
    ROW(BitwiseLeftShift, Binary, 2, kInt, SameAsIn, elementwise_shape, false, false, vjp::none),
    ROW(BitwiseRightShift, Binary, 2, kInt, SameAsIn, elementwise_shape, false, false, vjp::none),
    ROW(LogicalAnd, Binary, 2, kBool, SameAsIn, elementwise_shape, false, true, vjp::none),
    ROW(LogicalOr, Binary, 2, kBool, SameAsIn, elementwise_shape, false, true, vjp::none),
    ROW(LogicalXor, Binary, 2, kBool, SameAsIn, elementwise_shape, false, true, vjp::none),
    // ternary
    ROW(Where, Ternary, 3, kAll | kComplex, SameAsIn, elementwise_shape, false, false, vjp::where),
    // reductions
    RED(Sum, kAll | kComplex, SumAcc, vjp::sum, Add, Zero, Wide, true),
    RED(Max, kAll, SameAsIn, vjp::max, Maximum, Lowest, Input, false),
    RED(Min, kAll, SameAsIn, vjp::min, Minimum, Highest, Input, false),
    RED(Prod, kAll | kComplex, SumAcc, vjp::prod, Mul, One, Wide, true),
    RED(Any, kBool, SameAsIn, vjp::none, LogicalOr, Zero, Input, true),
    RED(All, kBool, SameAsIn, vjp::none, LogicalAnd, One, Input, true),
    // movement
    ROW(Reshape, Movement, 1, kAll | kComplex, SameAsIn, reshape_shape, false, false, vjp::reshape),
    ROW(Permute, Movement, 1, kAll | kComplex, SameAsIn, permute_shape, false, false, vjp::permute),
    ROW(Expand, Movement, 1, kAll | kComplex, SameAsIn, expand_shape, false, false, vjp::expand),
    ROW(Slice, Movement, 1, kAll | kComplex, SameAsIn, slice_shape, false, false, vjp::slice),
    ROW(Flip, Movement, 1, kAll | kComplex, SameAsIn, flip_shape, false, false, vjp::flip),
    // concat, gemm
    ROW(Cat, Concat, -1, kAll | kComplex, SameAsIn, cat_shape, false, false, vjp::cat),
    ROW(Matmul, Gemm, 2, kNumeric | kComplex, SameAsIn, matmul_shape, false, false, vjp::matmul),
    // collectives
    ROW(AllReduce, Collective, 1, kNumeric, SameAsIn, elementwise_shape, false, false, vjp::allreduce),
    // user element-wise functions (issue #23; the body decides int-to-float, ir/user_fn.h); a node
    // costs what its body calls (ir::user_fn_cost), at least this row's cost
    ROW(User, Map, -1, kNumeric, SameAsIn, elementwise_shape, false, false, vjp::user, 1),
    // group sort: row kernels along attrs.axis (same shape as the input); argsort's dtype is Given (i64)
    ROW(Sort, Sort, 1, kAll, SameAsIn, elementwise_shape, false, false, vjp::sort),
    ROW(Argsort, Sort, 1, kAll, Given, elementwise_shape, false, false, vjp::none),
    // scans (scan group, issue #15)
    SCAN(CumSum, kNumeric | kComplex, vjp::cumulative_sum, Add, Zero, Wide),
    SCAN(CumProd, kNumeric | kComplex, vjp::cumulative_prod, Mul, One, Wide),
    // index group (issue #15): a gather; its index input (i64) is not a value input
    ROW(Take, Gather, 2, kAll | kComplex, SameAsIn, take_shape, false, false, vjp::take),
    // scatter group (issue #15): an indirect accumulation; its index input (i64, the last) is not a
    // value input
    ROW(ScatterAdd, Scatter, 3, kNumeric, SameAsIn, scatter_shape, false, false, vjp::scatter_add),
    // complex group (issue #15): conj keeps the dtype, real and imag give the real dtype (the
    // frontend returns a real input itself, or zeros, without a node)
    ROW(Conj, Unary, 1, kComplex, SameAsIn, elementwise_shape, false, false, vjp::conj),
    ROW(Real, Unary, 1, kComplex, Real, elementwise_shape, false, false, vjp::real),
    ROW(Imag, Unary, 1, kComplex, Real, elementwise_shape, false, false, vjp::imag),
    ROW(Complex, Binary, 2, kFloat, Complex, elementwise_shape, true, false, vjp::complex),
    // argmax group (issue #15): one-pass reductions to an i64 position (dtype Given: the frontend's
    // i64); the accumulator pairs the extreme with its index
    RED(Argmax, kAll, Given, vjp::none, Maximum, Lowest, Indexed, false),
    RED(Argmin, kAll, Given, vjp::none, Minimum, Highest, Indexed, false),
}};
#undef ROW
#undef RED
#undef SCAN

constexpr bool rows_in_order() {
  for (int i = 0; i < kNumOps; ++i)
    if (static_cast<int>(kTable[static_cast<std::size_t>(i)].op) != i) return false;
  return true;
}
static_assert(rows_in_order(), "op_table.h rows must follow the order of cgrad/ops.def");

constexpr bool kinds_and_arities_match() {
  constexpr OpKind kinds[] = {
#define CGRAD_OP(E, name, Kind, arity) OpKind::Kind,
#include <cgrad/ops.def>
#undef CGRAD_OP
  };
  constexpr int arities[] = {
#define CGRAD_OP(E, name, Kind, arity) arity,
#include <cgrad/ops.def>
#undef CGRAD_OP
  };
  for (int i = 0; i < kNumOps; ++i) {
    const auto& r = kTable[static_cast<std::size_t>(i)];
    // (No `shape_rule == nullptr` test here: GCC's -fsanitize=undefined makes comparing the address
    // of a declared function with null non-constant. tests/ir checks that every row has a rule.)
    if (r.kind != kinds[i] || r.arity != arities[i]) return false;
  }
  return true;
}
static_assert(kinds_and_arities_match(), "op_table.h row disagrees with cgrad/ops.def (kind or arity)");

// A reduction combines with an element-wise Binary row that keeps its operands' dtype and accepts
// the accumulator's dtype (Wide accumulates floats in f64 and integers and bools in i64).
constexpr bool reductions_combine_with_binary_rows() {
  for (const OpInfo& r : kTable) {
    if (r.kind != OpKind::Reduce && r.kind != OpKind::Scan) continue;
    const OpInfo& c = kTable[static_cast<std::size_t>(r.reduce.combine)];
    if (c.kind != OpKind::Binary || c.dtype_rule != DTypeRule::SameAsIn) return false;
    for (int d = 0; d < kNumDTypes; ++d) {
      const auto t = static_cast<DType>(d);
      if (!(r.inputs & bit(t))) continue;
      const bool flt = (kFloat & bit(t)) != 0, cplx = (kComplex & bit(t)) != 0;
      const DType acc = r.reduce.acc != RedAcc::Wide ? t : cplx ? DType::c128 : flt ? DType::f64 : DType::i64;
      if (!(c.inputs & bit(acc))) return false;
    }
  }
  return true;
}
static_assert(reductions_combine_with_binary_rows(),
              "op_table.h: a Reduce row's combine must be a Binary row "
              "accepting its accumulator dtype");

}  // namespace table_detail

/// The table, indexed by Op.
using table_detail::kTable;

/// True when `op` accepts value inputs of dtype `t` (usable in if constexpr).
constexpr bool accepts(Op op, DType t) { return (kTable[static_cast<std::size_t>(op)].inputs & bit(t)) != 0; }

}  // namespace cgrad::ir
