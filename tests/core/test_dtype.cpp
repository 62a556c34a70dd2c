// core/dtype: names and sizes, the promotion lattice (bool < int < float, wider wins within a
// category) and the tiered promotion of mixed operands (dimensioned tensors, 0-d tensors, C++
// scalars), following PyTorch's result_type.
#include "core/dtype.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace cgrad;
using core::PromoOperand;
using Tier = PromoOperand::Tier;

constexpr DType kAll[] = {f32, f64, i32, i64, b8};

TEST(DType, NamesSizesCategories) {
  EXPECT_STREQ(dtype_name(f32), "f32");
  EXPECT_STREQ(dtype_name(f64), "f64");
  EXPECT_STREQ(dtype_name(i32), "i32");
  EXPECT_STREQ(dtype_name(i64), "i64");
  EXPECT_STREQ(dtype_name(b8), "b8");
  EXPECT_EQ(dtype_size(f32), 4u);
  EXPECT_EQ(dtype_size(f64), 8u);
  EXPECT_EQ(dtype_size(i32), 4u);
  EXPECT_EQ(dtype_size(i64), 8u);
  EXPECT_EQ(dtype_size(b8), 1u);
  EXPECT_TRUE(is_floating(f32));
  EXPECT_TRUE(is_floating(f64));
  EXPECT_FALSE(is_floating(i32));
  EXPECT_FALSE(is_floating(i64));
  EXPECT_FALSE(is_floating(b8));
  EXPECT_EQ(core::dtype_category(b8), 0);
  EXPECT_EQ(core::dtype_category(i32), 1);
  EXPECT_EQ(core::dtype_category(i64), 1);
  EXPECT_EQ(core::dtype_category(f32), 2);
  EXPECT_EQ(core::dtype_category(f64), 2);
}

TEST(DType, ErrorCodeNames) {
  EXPECT_STREQ(error_code_name(ErrorCode::ShapeMismatch), "ShapeMismatch");
  EXPECT_STREQ(error_code_name(ErrorCode::InvalidArgument), "InvalidArgument");
  EXPECT_STREQ(error_code_name(ErrorCode::InvalidOperation), "InvalidOperation");
  EXPECT_STREQ(error_code_name(ErrorCode::DTypeMismatch), "DTypeMismatch");
  EXPECT_STREQ(error_code_name(ErrorCode::DeviceError), "DeviceError");
  EXPECT_STREQ(error_code_name(ErrorCode::OutOfMemory), "OutOfMemory");
  EXPECT_STREQ(error_code_name(ErrorCode::CompileError), "CompileError");
  EXPECT_STREQ(error_code_name(ErrorCode::ExecutionFailed), "ExecutionFailed");
  EXPECT_STREQ(error_code_name(ErrorCode::Internal), "Internal");
  Error e(ErrorCode::DeviceError, "msg");
  EXPECT_EQ(e.code(), ErrorCode::DeviceError);
  EXPECT_STREQ(e.what(), "msg");
}

// The full table of promote(a, b), row a, column b, in the order f32 f64 i32 i64 b8.
TEST(DType, PromoteTable) {
  const DType want[5][5] = {
      /* f32 */ {f32, f64, f32, f32, f32},
      /* f64 */ {f64, f64, f64, f64, f64},
      /* i32 */ {f32, f64, i32, i64, i32},
      /* i64 */ {f32, f64, i64, i64, i64},
      /* b8  */ {f32, f64, i32, i64, b8},
  };
  for (int a = 0; a < 5; ++a)
    for (int b = 0; b < 5; ++b) {
      EXPECT_EQ(core::promote(kAll[a], kAll[b]), want[a][b]) << dtype_name(kAll[a]) << " with " << dtype_name(kAll[b]);
      EXPECT_EQ(core::promote(kAll[a], kAll[b]), core::promote(kAll[b], kAll[a])) << "promote is symmetric";
    }
}

TEST(DType, ScalarDtype) {
  EXPECT_EQ(core::scalar_dtype(Scalar(true)), b8);
  EXPECT_EQ(core::scalar_dtype(Scalar(3)), i64);
  EXPECT_EQ(core::scalar_dtype(Scalar(int64_t{1} << 40)), i64);
  EXPECT_EQ(core::scalar_dtype(Scalar(2.5)), f64);
  EXPECT_EQ(core::scalar_dtype(Scalar(2.5f)), f64);
}

DType promo(std::initializer_list<PromoOperand> ops) {
  std::vector<PromoOperand> v(ops);
  return core::promote_all(v.data(), static_cast<int>(v.size()));
}

TEST(DType, PromoteAllTiers) {
  // Only dimensioned tensors: plain promotion.
  for (DType a : kAll)
    for (DType b : kAll) EXPECT_EQ(promo({{Tier::Dim, a}, {Tier::Dim, b}}), core::promote(a, b));
  // Only 0-d tensors: plain promotion as well.
  for (DType a : kAll)
    for (DType b : kAll) EXPECT_EQ(promo({{Tier::ZeroDim, a}, {Tier::ZeroDim, b}}), core::promote(a, b));

  // A C++ scalar never widens within the tensor's category; a higher category gives that
  // category's default dtype (f32 for floats, i64 for ints).
  const DType scal[3] = {b8, i64, f64};  // bool, int, float scalars
  const DType with_scalar[5][3] = {
      /* f32 */ {f32, f32, f32},
      /* f64 */ {f64, f64, f64},
      /* i32 */ {i32, i32, f32},
      /* i64 */ {i64, i64, f32},
      /* b8  */ {b8, i64, f32},
  };
  for (int a = 0; a < 5; ++a)
    for (int s = 0; s < 3; ++s) {
      EXPECT_EQ(promo({{Tier::Dim, kAll[a]}, {Tier::Scalar, scal[s]}}), with_scalar[a][s])
          << dtype_name(kAll[a]) << " tensor with scalar of " << dtype_name(scal[s]);
      EXPECT_EQ(promo({{Tier::Scalar, scal[s]}, {Tier::Dim, kAll[a]}}), with_scalar[a][s]) << "order does not matter";
      // A 0-d tensor behaves like a dimensioned one with respect to scalars.
      EXPECT_EQ(promo({{Tier::ZeroDim, kAll[a]}, {Tier::Scalar, scal[s]}}), with_scalar[a][s]);
    }

  // A 0-d tensor only counts when it is of a higher category, and then keeps its own dtype.
  const DType dim_zero[5][5] = {
      // zero-dim:  f32  f64  i32  i64  b8
      /* f32 */ {f32, f32, f32, f32, f32},
      /* f64 */ {f64, f64, f64, f64, f64},
      /* i32 */ {f32, f64, i32, i32, i32},
      /* i64 */ {f32, f64, i64, i64, i64},
      /* b8  */ {f32, f64, i32, i64, b8},
  };
  for (int a = 0; a < 5; ++a)
    for (int z = 0; z < 5; ++z)
      EXPECT_EQ(promo({{Tier::Dim, kAll[a]}, {Tier::ZeroDim, kAll[z]}}), dim_zero[a][z])
          << dtype_name(kAll[a]) << " tensor with 0-d " << dtype_name(kAll[z]);

  // Three tiers at once.
  EXPECT_EQ(promo({{Tier::Dim, b8}, {Tier::ZeroDim, i32}, {Tier::Scalar, f64}}), f32);
  EXPECT_EQ(promo({{Tier::Dim, i32}, {Tier::ZeroDim, f64}, {Tier::Scalar, f64}}), f64);
  EXPECT_EQ(promo({{Tier::Dim, i32}, {Tier::ZeroDim, i64}, {Tier::Scalar, i64}}), i32);
  EXPECT_EQ(promo({{Tier::Dim, f32}, {Tier::Dim, i64}, {Tier::ZeroDim, f64}}), f32);
  // Scalars alone (where(cond, 1, 2.5)) give their category's default dtype, as in PyTorch.
  EXPECT_EQ(promo({{Tier::Scalar, i64}, {Tier::Scalar, f64}}), f32);
  EXPECT_EQ(promo({{Tier::Scalar, f64}}), f32);
  EXPECT_EQ(promo({{Tier::Scalar, i64}, {Tier::Scalar, b8}}), i64);
  EXPECT_EQ(promo({{Tier::Scalar, b8}}), b8);
}

TEST(DType, Dispatch) {
  std::string seen;
  for (DType t : kAll)
    core::dispatch(t, [&](auto v) {
      using T = decltype(v);
      EXPECT_EQ(core::dtype_of_v<T>, t);
      EXPECT_EQ(sizeof(T), dtype_size(t));
      seen += dtype_name(t);
    });
  EXPECT_EQ(seen, "f32f64i32i64b8");
}

}  // namespace
