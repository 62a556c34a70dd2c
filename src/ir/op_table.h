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
void cat_shape(const Node& n, Shape& out);
void matmul_shape(const Node& n, Shape& out);
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

#define ROW(E, kind, arity, mask, rule, shape, i2f, comm, d, ...)                                              \
  OpInfo {                                                                                                     \
    Op::E, kNames[static_cast<int>(Op::E)], OpKind::kind, arity, mask, DTypeRule::rule, shape, i2f, comm, &d, \
        row_cost(__VA_ARGS__)                                                                                  \
  }

inline constexpr DTypeMask kNoBool = kNumeric;

inline constexpr std::array<OpInfo, kNumOps> kTable = {{
    // sources
    ROW(Buffer, Source, 0, kAll, Given, source_shape, false, false, vjp::none),
    ROW(Full, Source, 0, kAll, Given, source_shape, false, false, vjp::none),
    ROW(Arange, Source, 0, kAll, Given, source_shape, false, false, vjp::none),
    ROW(Rand, Source, 0, kAll, Given, source_shape, false, false, vjp::none, 4),
    ROW(Randn, Source, 0, kAll, Given, source_shape, false, false, vjp::none, 4),
    // unary
    ROW(Neg, Unary, 1, kNoBool, SameAsIn, elementwise_shape, false, false, vjp::neg),
    ROW(Exp, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::exp, 4),
    ROW(Log, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::log, 4),
    ROW(Sqrt, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::sqrt),
    ROW(Rsqrt, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::rsqrt),
    ROW(Abs, Unary, 1, kNoBool, SameAsIn, elementwise_shape, false, false, vjp::abs),
    ROW(Sin, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::sin, 4),
    ROW(Cos, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::cos, 4),
    ROW(Tanh, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::tanh, 4),
    ROW(Sigmoid, Unary, 1, kFloat, SameAsIn, elementwise_shape, true, false, vjp::sigmoid, 4),
    ROW(Relu, Unary, 1, kNoBool, SameAsIn, elementwise_shape, false, false, vjp::relu),
    ROW(Cast, Unary, 1, kAll, Given, elementwise_shape, false, false, vjp::cast),
    // binary
    ROW(Add, Binary, 2, kNoBool, SameAsIn, elementwise_shape, false, true, vjp::add),
    ROW(Sub, Binary, 2, kNoBool, SameAsIn, elementwise_shape, false, false, vjp::sub),
    ROW(Mul, Binary, 2, kNoBool, SameAsIn, elementwise_shape, false, true, vjp::mul),
    ROW(Div, Binary, 2, kFloat, SameAsIn, elementwise_shape, true, false, vjp::div),
    ROW(Pow, Binary, 2, kNoBool, SameAsIn, elementwise_shape, false, false, vjp::pow, 4),
    ROW(Maximum, Binary, 2, kAll, SameAsIn, elementwise_shape, false, true, vjp::maximum),
    ROW(Minimum, Binary, 2, kAll, SameAsIn, elementwise_shape, false, true, vjp::minimum),
    ROW(Lt, Binary, 2, kAll, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Le, Binary, 2, kAll, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Gt, Binary, 2, kAll, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Ge, Binary, 2, kAll, Bool, elementwise_shape, false, false, vjp::none),
    ROW(Eq, Binary, 2, kAll, Bool, elementwise_shape, false, true, vjp::none),
    ROW(Ne, Binary, 2, kAll, Bool, elementwise_shape, false, true, vjp::none),
    // ternary
    ROW(Where, Ternary, 3, kAll, SameAsIn, elementwise_shape, false, false, vjp::where),
    // reductions
    ROW(Sum, Reduce, 1, kAll, SumAcc, reduce_shape, false, false, vjp::sum),
    ROW(Max, Reduce, 1, kAll, SameAsIn, reduce_shape, false, false, vjp::max),
    ROW(Min, Reduce, 1, kAll, SameAsIn, reduce_shape, false, false, vjp::min),
    // movement
    ROW(Reshape, Movement, 1, kAll, SameAsIn, reshape_shape, false, false, vjp::reshape),
    ROW(Permute, Movement, 1, kAll, SameAsIn, permute_shape, false, false, vjp::permute),
    ROW(Expand, Movement, 1, kAll, SameAsIn, expand_shape, false, false, vjp::expand),
    ROW(Slice, Movement, 1, kAll, SameAsIn, slice_shape, false, false, vjp::slice),
    // concat, gemm
    ROW(Cat, Concat, -1, kAll, SameAsIn, cat_shape, false, false, vjp::cat),
    ROW(Matmul, Gemm, 2, kNumeric, SameAsIn, matmul_shape, false, false, vjp::matmul),
    // collectives
    ROW(AllReduce, Collective, 1, kNumeric, SameAsIn, elementwise_shape, false, false, vjp::allreduce),
    // user element-wise functions (issue #23; the body decides int-to-float, ir/user_fn.h); a node
    // costs what its body calls (ir::user_fn_cost), at least this row's cost
    ROW(User, Map, -1, kNumeric, SameAsIn, elementwise_shape, false, false, vjp::user, 1),
}};
#undef ROW

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


}  // namespace table_detail

/// The table, indexed by Op.
using table_detail::kTable;

/// True when `op` accepts value inputs of dtype `t` (usable in if constexpr).
constexpr bool accepts(Op op, DType t) { return (kTable[static_cast<std::size_t>(op)].inputs & bit(t)) != 0; }

}  // namespace cgrad::ir
