// The op-table sweep: every op of include/cgrad/ops.def, for every dtype, through the public
// API against reference loops. kCoverage says how each op is exercised; an op added to
// ops.def without an entry here (or, for element-wise ops, without a reference in
// sweep_elementwise.cpp) fails OpCoverage.EveryOpIsCovered and its own OpSweep case.
#include "ir/op_table.h"
#include "util.h"

namespace opt {
namespace {

using ir::Op;
using ir::OpKind;

struct Coverage {
  Op op;
  const char* how;
  SweepFn fn;
};

const Coverage kCoverage[] = {
    {Op::Buffer, "tensor(data, shape) for every dtype, read back; 0-d, empty", sweep_source},
    {Op::Full, "full/zeros/ones; float values converted like casts for int dtypes", sweep_source},
    {Op::Arange, "arange(n, dtype); b8 rejected", sweep_source},
    {Op::Rand, "rand: range, determinism after manual_seed (moments in test_random)", sweep_source},
    {Op::Randn, "randn: determinism after manual_seed (moments in test_random)", sweep_source},
    {Op::Neg, "unary operator-", sweep_unary},
    {Op::Exp, "exp", sweep_unary},
    {Op::Log, "log", sweep_unary},
    {Op::Sqrt, "sqrt", sweep_unary},
    {Op::Rsqrt, "rsqrt", sweep_unary},
    {Op::Abs, "abs", sweep_unary},
    {Op::Sin, "sin", sweep_unary},
    {Op::Cos, "cos", sweep_unary},
    {Op::Tanh, "tanh", sweep_unary},
    {Op::Sigmoid, "sigmoid", sweep_unary},
    {Op::Relu, "relu", sweep_unary},
    {Op::Cast, "x.cast(to) for every (from, to) pair", sweep_cast},
    {Op::Floor, "floor", sweep_unary},
    {Op::Ceil, "ceil", sweep_unary},
    {Op::Trunc, "trunc", sweep_unary},
    {Op::Round, "round", sweep_unary},
    {Op::Sign, "sign", sweep_unary},
    {Op::Signbit, "signbit", sweep_unary},
    {Op::Isnan, "isnan", sweep_unary},
    {Op::Isinf, "isinf", sweep_unary},
    {Op::Isfinite, "isfinite", sweep_unary},
    {Op::Log1p, "log1p", sweep_unary},
    {Op::Expm1, "expm1", sweep_unary},
    {Op::Log2, "log2", sweep_unary},
    {Op::Log10, "log10", sweep_unary},
    {Op::Tan, "tan", sweep_unary},
    {Op::Asin, "asin", sweep_unary},
    {Op::Acos, "acos", sweep_unary},
    {Op::Atan, "atan", sweep_unary},
    {Op::Sinh, "sinh", sweep_unary},
    {Op::Cosh, "cosh", sweep_unary},
    {Op::Asinh, "asinh", sweep_unary},
    {Op::Acosh, "acosh", sweep_unary},
    {Op::Atanh, "atanh", sweep_unary},
    {Op::Erf, "erf", sweep_unary},
    {Op::BitwiseInvert, "bitwise_invert", sweep_unary},
    {Op::LogicalNot, "logical_not", sweep_unary},
    {Op::Add, "operator+", sweep_binary},
    {Op::Sub, "operator-", sweep_binary},
    {Op::Mul, "operator*", sweep_binary},
    {Op::Div, "operator/ (true division)", sweep_binary},
    {Op::Pow, "pow", sweep_binary},
    {Op::Maximum, "maximum", sweep_binary},
    {Op::Minimum, "minimum", sweep_binary},
    {Op::Lt, "operator<", sweep_binary},
    {Op::Le, "operator<=", sweep_binary},
    {Op::Gt, "operator>", sweep_binary},
    {Op::Ge, "operator>=", sweep_binary},
    {Op::Eq, "operator==", sweep_binary},
    {Op::Ne, "operator!=", sweep_binary},
    {Op::Atan2, "atan2", sweep_binary},
    {Op::Hypot, "hypot", sweep_binary},
    {Op::Copysign, "copysign", sweep_binary},
    {Op::Logaddexp, "logaddexp", sweep_binary},
    {Op::Nextafter, "nextafter", sweep_binary},
    {Op::Remainder, "remainder", sweep_binary},
    {Op::FloorDivide, "floor_divide", sweep_binary},
    {Op::BitwiseAnd, "bitwise_and", sweep_binary},
    {Op::BitwiseOr, "bitwise_or", sweep_binary},
    {Op::BitwiseXor, "bitwise_xor", sweep_binary},
    {Op::BitwiseLeftShift, "bitwise_left_shift", sweep_binary},
    {Op::BitwiseRightShift, "bitwise_right_shift", sweep_binary},
    {Op::LogicalAnd, "logical_and", sweep_binary},
    {Op::LogicalOr, "logical_or", sweep_binary},
    {Op::LogicalXor, "logical_xor", sweep_binary},
    {Op::Where, "where(cond, a, b), broadcasting", sweep_where},
    {Op::Sum, "sum over axes, keepdim, layouts, empty", sweep_reduce},
    {Op::Max, "max over axes, keepdim, layouts, empty rejected", sweep_reduce},
    {Op::Min, "min over axes, keepdim, layouts, empty rejected", sweep_reduce},
    {Op::Prod, "prod over axes, keepdim, layouts, empty gives 1", sweep_reduce},
    {Op::Any, "any over axes (of every dtype: x != 0), keepdim, layouts, empty gives false", sweep_reduce},
    {Op::All, "all over axes (of every dtype: x != 0), keepdim, layouts, empty gives true", sweep_reduce},
    {Op::Reshape, "reshape incl. -1, of views (copy and view paths)", sweep_movement},
    {Op::Permute, "permute, transpose, T", sweep_movement},
    {Op::Expand, "expand incl. new dims and -1", sweep_movement},
    {Op::Slice, "slice with steps and negative bounds", sweep_movement},
    {Op::Flip, "flip over axes, of views, consumed element-wise", sweep_movement},
    {Op::Cat, "cat along any dim, mixed dtypes", sweep_cat},
    {Op::Matmul, "matmul: 2-D, batched, broadcast batch, 1-D operands", sweep_matmul},
    {Op::AllReduce, "dist::all_reduce in one process (identity), sum/max/min, views; b8 rejected",
     sweep_collective},
    {Op::User, "user element-wise functions: a dtype-keeping and a float body, layouts, broadcasting",
     sweep_user},
    // group sort
    {Op::Sort, "sort along every axis, both directions, layouts, empty and length-1 rows", sweep_sort},
    {Op::Argsort, "argsort along every axis, both directions, layouts, empty and length-1 rows", sweep_sort},
    // scans (scan group)
    {Op::CumSum, "cumulative_sum along every axis (negative too), include_initial, dtype, layouts, 3-D",
     sweep_scan},
    {Op::CumProd, "cumulative_prod along every axis (negative too), include_initial, dtype, layouts, 3-D",
     sweep_scan},
    // index group (issue #15)
    {Op::Take,
     "take / take_along_axis: every axis, negative and out-of-range indices, index dtypes, strided x, "
     "broadcasting, empty arrays, errors",
     sweep_take},
    // scatter group
    {Op::ScatterAdd,
     "scatter_add / scatter_add_along_axis: every axis, repeated, negative and out-of-range indices, index "
     "dtypes, strided base and src, broadcasting, empty arrays, errors",
     sweep_scatter},
    // complex group (issue #15): real inputs here; complex inputs in test_complex.cpp
    {Op::Conj, "conj of a real dtype is x; of c64/c128 against std::conj (test_complex)", sweep_complex},
    {Op::Real, "real of a real dtype is x; of c64/c128 its real part (test_complex)", sweep_complex},
    {Op::Imag, "imag of a real dtype is zeros; of c64/c128 its imaginary part (test_complex)", sweep_complex},
    {Op::Complex, "complex(x, -x) for every real dtype, layouts; complex parts rejected (test_complex)",
     sweep_complex},
    // argmax group (issue #15): one-pass reductions with a (value, index) accumulator
    {Op::Argmax, "argmax over an axis or all axes, keepdim, layouts, ties, NaN, edges (test_argminmax)",
     sweep_reduce},
    {Op::Argmin, "argmin over an axis or all axes, keepdim, layouts, ties, NaN, edges (test_argminmax)",
     sweep_reduce},
};

const Coverage* coverage_of(int op) {
  const Coverage* found = nullptr;
  for (const Coverage& c : kCoverage)
    if (static_cast<int>(c.op) == op) found = &c;
  return found;
}

// The sweeps that can exercise an op of each kind.
bool fits_kind(const Coverage& c, OpKind k) {
  switch (k) {
    case OpKind::Source: return c.fn == sweep_source;
    case OpKind::Unary: return c.fn == sweep_unary || c.fn == sweep_cast || c.fn == sweep_complex;
    case OpKind::Binary: return c.fn == sweep_binary || c.fn == sweep_complex;
    case OpKind::Ternary: return c.fn == sweep_where;
    case OpKind::Reduce: return c.fn == sweep_reduce;
    case OpKind::Movement: return c.fn == sweep_movement;
    case OpKind::Concat: return c.fn == sweep_cat;
    case OpKind::Gemm: return c.fn == sweep_matmul;
    case OpKind::Collective: return c.fn == sweep_collective;
    case OpKind::Map: return c.fn == sweep_user;
    case OpKind::Sort: return c.fn == sweep_sort;  // group sort
    case OpKind::Scan: return c.fn == sweep_scan;
    case OpKind::Gather: return c.fn == sweep_take;
    case OpKind::Scatter: return c.fn == sweep_scatter;  // scatter group
  }
  return false;
}

TEST(OpCoverage, EveryOpIsCovered) {
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& row = ir::info(Op(i));
    int entries = 0;
    for (const Coverage& c : kCoverage) entries += static_cast<int>(c.op) == i;
    EXPECT_EQ(entries, 1) << "op '" << row.name
                          << "' needs exactly one kCoverage entry in tests/ops/test_sweep.cpp";
    const Coverage* c = coverage_of(i);
    if (!c) continue;
    EXPECT_TRUE(fits_kind(*c, row.kind)) << row.name << ": sweep does not match its kind";
    if (c->fn == sweep_unary) {
      EXPECT_TRUE(unary_known(i)) << row.name << ": add a reference to kUnary in sweep_elementwise.cpp";
    }
    if (c->fn == sweep_binary) {
      EXPECT_TRUE(binary_known(i)) << row.name << ": add a reference to kBinary in sweep_elementwise.cpp";
    }
  }
  EXPECT_EQ(static_cast<int>(std::size(kCoverage)), ir::kNumOps);
}

class OpSweep : public ::testing::TestWithParam<int> {};

TEST_P(OpSweep, EveryDType) {
  const int op = GetParam();
  const Coverage* c = coverage_of(op);
  ASSERT_NE(c, nullptr) << "op '" << ir::op_name(Op(op)) << "' is not covered by the sweep";
  for (DType t : kDTypes) {
    SCOPED_TRACE(std::string(ir::op_name(Op(op))) + " with " + dtype_name(t));
    c->fn(op, t);
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpSweep, ::testing::Range(0, ir::kNumOps),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return std::string(ir::op_name(Op(p.param)));
                         });

}  // namespace
}  // namespace opt
