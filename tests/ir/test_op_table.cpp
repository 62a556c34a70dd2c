// Static properties of the op table (src/ir/op_table.h) checked against include/cgrad/ops.def:
// one row per op in order, the same name, kind and arity, and rules that fit each kind.
#include "core/dtype.hpp"
#include "ir/op_table.h"

#include <gtest/gtest.h>
#include <cgrad/scalar.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace {

using namespace cgrad;
using ir::Op;
using ir::OpKind;

struct DefRow {
  const char* enum_name;
  const char* name;
  OpKind kind;
  int arity;
};
const DefRow kDef[] = {
#define CGRAD_OP(E, name, Kind, arity) {#E, #name, OpKind::Kind, arity},
#include <cgrad/ops.def>
#undef CGRAD_OP
};

TEST(OpTable, RowsFollowOpsDef) {
  ASSERT_EQ(static_cast<int>(std::size(kDef)), ir::kNumOps);
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& row = ir::info(Op(i));
    SCOPED_TRACE(kDef[i].enum_name);
    EXPECT_EQ(static_cast<int>(row.op), i);
    EXPECT_STREQ(row.name, kDef[i].name);
    EXPECT_STREQ(ir::op_name(Op(i)), kDef[i].name);
    EXPECT_EQ(row.kind, kDef[i].kind);
    EXPECT_EQ(row.arity, kDef[i].arity);
    EXPECT_NE(row.shape_rule, nullptr);
    EXPECT_EQ(&ir::info(Op(i)), &ir::kTable[static_cast<std::size_t>(i)]);
  }
}

TEST(OpTable, NamesAreUniqueIdentifiers) {
  std::set<std::string> names;
  for (int i = 0; i < ir::kNumOps; ++i) {
    std::string n = ir::info(Op(i)).name;
    EXPECT_TRUE(names.insert(n).second) << "duplicate op name " << n;
    ASSERT_FALSE(n.empty());
    for (char c : n) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << n;
  }
}

TEST(OpTable, RulesFitKinds) {
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& row = ir::info(Op(i));
    SCOPED_TRACE(row.name);
    EXPECT_NE(row.inputs, 0) << "a row accepting no dtype";
    EXPECT_EQ(row.inputs & ~(ir::kAll | ir::kComplex), 0);  // (complex group: c64, c128)
    for (DType t : {f32, f64, i32, i64, b8}) EXPECT_EQ(ir::accepts(Op(i), t), (row.inputs & ir::bit(t)) != 0);
    switch (row.kind) {
      case OpKind::Source:
        EXPECT_EQ(row.arity, 0);
        EXPECT_EQ(row.dtype_rule, ir::DTypeRule::Given);
        EXPECT_EQ(row.shape_rule, &ir::rules::source_shape);
        break;
      case OpKind::Unary:
      case OpKind::Binary:
      case OpKind::Ternary:
        EXPECT_EQ(row.arity, row.kind == OpKind::Unary ? 1 : row.kind == OpKind::Binary ? 2 : 3);
        EXPECT_EQ(row.shape_rule, &ir::rules::elementwise_shape);
        EXPECT_TRUE(ir::is_elementwise(row.kind));
        break;
      case OpKind::Reduce:
        EXPECT_EQ(row.arity, 1);
        EXPECT_EQ(row.shape_rule, &ir::rules::reduce_shape);
        break;
      case OpKind::Scan:  // scan group: the input's shape, combined by a Binary row
        EXPECT_EQ(row.arity, 1);
        EXPECT_EQ(row.shape_rule, &ir::rules::elementwise_shape);
        EXPECT_EQ(ir::info(row.reduce.combine).kind, OpKind::Binary);
        break;
      case OpKind::Movement:
        EXPECT_EQ(row.arity, 1);
        EXPECT_EQ(row.dtype_rule, ir::DTypeRule::SameAsIn);
        EXPECT_EQ(row.inputs, ir::kAll | ir::kComplex) << "views work for every dtype";
        break;
      case OpKind::Concat:
        EXPECT_EQ(row.arity, -1);
        EXPECT_EQ(row.shape_rule, &ir::rules::cat_shape);
        break;
      case OpKind::Map:  // user element-wise functions: variadic, fused like the element-wise kinds
        EXPECT_EQ(row.arity, -1);
        EXPECT_EQ(row.shape_rule, &ir::rules::elementwise_shape);
        EXPECT_TRUE(ir::is_elementwise(row.kind));
        break;
      case OpKind::Sort:  // group sort: a row kernel, same shape as its input, every dtype
        EXPECT_EQ(row.arity, 1);
        EXPECT_EQ(row.shape_rule, &ir::rules::elementwise_shape);
        EXPECT_EQ(row.inputs, ir::kAll);
        EXPECT_FALSE(ir::is_elementwise(row.kind));
        break;
      case OpKind::Gemm:
        EXPECT_EQ(row.arity, 2);
        EXPECT_EQ(row.shape_rule, &ir::rules::matmul_shape);
        EXPECT_EQ(row.inputs & ir::bit(b8), 0) << "no boolean matmul";
        break;
      case OpKind::Collective:
        EXPECT_EQ(row.arity, 1);
        EXPECT_EQ(row.shape_rule, &ir::rules::elementwise_shape) << "a collective keeps its input's shape";
        EXPECT_EQ(row.dtype_rule, ir::DTypeRule::SameAsIn);
        break;
      case OpKind::Gather:  // index group: x, then i64 indices with the output's shape
        EXPECT_EQ(row.arity, 2);
        EXPECT_EQ(row.shape_rule, &ir::rules::take_shape);
        EXPECT_EQ(row.dtype_rule, ir::DTypeRule::SameAsIn);
        break;
      case OpKind::Scatter:  // scatter group: base, src, then i64 indices with src's shape
        EXPECT_EQ(row.arity, 3);
        EXPECT_EQ(row.shape_rule, &ir::rules::scatter_shape);
        EXPECT_EQ(row.dtype_rule, ir::DTypeRule::SameAsIn);
        EXPECT_EQ(row.inputs & ir::bit(b8), 0) << "no boolean sums";
        break;
    }
    if (!ir::is_elementwise(row.kind)) {
      EXPECT_FALSE(row.int_to_float);
    }
    // Ops that compute in floating point accept floats (and complex values: complex group) only;
    // the frontend casts ints first.
    if (row.int_to_float) {
      EXPECT_EQ(row.inputs & ~ir::kComplex, ir::kFloat);
    }
    if (row.dtype_rule == ir::DTypeRule::Bool) {  // comparisons, isnan, signbit, ...
      EXPECT_TRUE(row.kind == OpKind::Binary || row.kind == OpKind::Unary);
    }
    if (row.dtype_rule == ir::DTypeRule::SumAcc) {
      EXPECT_EQ(row.kind, OpKind::Reduce);
    }
    if (row.commutative) {
      EXPECT_EQ(row.kind, OpKind::Binary);
    }
  }
  EXPECT_EQ(ir::info(Op::Cast).dtype_rule, ir::DTypeRule::Given);
  EXPECT_EQ(ir::info(Op::Cast).inputs, ir::kAll | ir::kComplex);
  EXPECT_EQ(ir::info(Op::Where).inputs, ir::kAll | ir::kComplex);
}

// The commutative flag (used by CSE) must agree with what the op's scalar helper computes.
using BinaryFn = bool (*)(double, double, int64_t, int64_t);
struct BinaryRow {
  Op op;
  BinaryFn same_both_ways;
};
template <class T>
bool same_bits(T x, T y) {
  if constexpr (std::is_floating_point_v<T>)
    return (std::isnan(x) && std::isnan(y)) || x == y;
  else
    return x == y;
}
// Symmetry on the dtypes the row accepts (double, int64 and bool operands; a row's helper is
// only instantiated for those).
template <Op OP, class T, class F>
bool symmetric_on(F f, T x, T y) {
  if constexpr (ir::accepts(OP, core::dtype_of_v<T>))
    return same_bits(f(x, y), f(y, x));
  else
    return true;
}
const BinaryRow kBinary[] = {
#define CGRAD_ROW_Binary(E, name)                                           \
  {Op::E, [](double x, double y, int64_t i, int64_t j) {                    \
     auto f = [](auto a, auto b) { return scalar::name(a, b); };            \
     return symmetric_on<Op::E>(f, x, y) && symmetric_on<Op::E>(f, i, j) && \
            symmetric_on<Op::E>(f, i > 0, j > 0);                           \
   }},
#define CGRAD_ROW_Source(E, name)
#define CGRAD_ROW_Unary(E, name)
#define CGRAD_ROW_Ternary(E, name)
#define CGRAD_ROW_Reduce(E, name)
#define CGRAD_ROW_Movement(E, name)
#define CGRAD_ROW_Concat(E, name)
#define CGRAD_ROW_Gemm(E, name)
#define CGRAD_ROW_Collective(E, name)
#define CGRAD_ROW_Sort(E, name)  // group sort
#define CGRAD_ROW_Map(E, name)
#define CGRAD_ROW_Scan(E, name)
#define CGRAD_ROW_Gather(E, name)
#define CGRAD_ROW_Scatter(E, name)  // scatter group
#define CGRAD_OP(E, name, Kind, arity) CGRAD_ROW_##Kind(E, name)
#include <cgrad/ops.def>
#undef CGRAD_OP
};

TEST(OpTable, CommutativeFlagMatchesArithmetic) {
  const double xs[] = {-3.5, -1, 0, 0.5, 2, 7, std::numeric_limits<double>::infinity()};
  const int64_t is[] = {-7, -1, 0, 1, 2, 3, 1000};
  for (const BinaryRow& r : kBinary) {
    bool symmetric = true;
    for (double x : xs)
      for (double y : xs)
        for (std::size_t k = 0; k < std::size(is); ++k)
          symmetric = symmetric && r.same_both_ways(x, y, is[k], is[(k + 3) % std::size(is)]);
    EXPECT_EQ(ir::info(r.op).commutative, symmetric) << ir::op_name(r.op);
  }
}

}  // namespace
