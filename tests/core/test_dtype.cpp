// core/dtype: names and sizes, the promotion lattice (bool < int < float, the Array API table
// within a category) and the tiered promotion of mixed operands (dimensioned tensors, 0-d
// tensors, C++ scalars), following PyTorch's result_type; iinfo/finfo.
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
      EXPECT_EQ(core::promote(kAll[a], kAll[b]), want[a][b])
          << dtype_name(kAll[a]) << " with " << dtype_name(kAll[b]);
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
      EXPECT_EQ(promo({{Tier::Scalar, scal[s]}, {Tier::Dim, kAll[a]}}), with_scalar[a][s])
          << "order does not matter";
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
  // Every dtype of cgrad/dtypes.def dispatches to a host type of its size.
  for (int d = 0; d < kNumDTypes; ++d)
    core::dispatch(static_cast<DType>(d), [&](auto v) {
      EXPECT_EQ(core::dtype_of_v<decltype(v)>, static_cast<DType>(d));
      EXPECT_EQ(sizeof(v), dtype_size(static_cast<DType>(d)));
    });
}

constexpr DType kInts[] = {i8, i16, i32, i64, u8, u16, u32, u64};

TEST(DType, IntegerNamesKindsAndLimits) {
  const char* names[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};
  const std::size_t sizes[] = {1, 2, 4, 8, 1, 2, 4, 8};
  for (int k = 0; k < 8; ++k) {
    const DType t = kInts[k];
    EXPECT_STREQ(dtype_name(t), names[k]);
    EXPECT_EQ(dtype_size(t), sizes[k]);
    EXPECT_TRUE(is_integer(t));
    EXPECT_FALSE(is_floating(t));
    EXPECT_EQ(is_unsigned(t), k >= 4);
    EXPECT_EQ(dtype_kind(t), k >= 4 ? DTypeKind::Unsigned : DTypeKind::Signed);
    EXPECT_EQ(core::dtype_category(t), 1);
  }
  EXPECT_FALSE(is_integer(b8));
  auto expect = [](DType t, int bits, int64_t lo, uint64_t hi) {
    const IInfo i = iinfo(t);
    EXPECT_EQ(i.bits, bits) << dtype_name(t);
    EXPECT_EQ(i.min, lo) << dtype_name(t);
    EXPECT_EQ(i.max, hi) << dtype_name(t);
  };
  expect(i8, 8, -128, 127);
  expect(i16, 16, -32768, 32767);
  expect(i32, 32, INT32_MIN, INT32_MAX);
  expect(i64, 64, INT64_MIN, INT64_MAX);
  expect(u8, 8, 0, 255);
  expect(u16, 16, 0, 65535);
  expect(u32, 32, 0, UINT32_MAX);
  expect(u64, 64, 0, UINT64_MAX);
  expect(b8, 8, 0, 1);
  EXPECT_THROW(iinfo(f32), Error);
  EXPECT_EQ(finfo(f32).eps, 0x1p-23);
  EXPECT_EQ(finfo(f64).eps, 0x1p-52);
  EXPECT_EQ(finfo(f32).smallest_normal, 0x1p-126);
  EXPECT_EQ(finfo(f64).smallest_subnormal, 0x1p-1074);
  EXPECT_EQ(finfo(f32).mantissa_bits, 24);
  EXPECT_EQ(finfo(f64).min, -finfo(f64).max);
  try {
    finfo(i32);
    ADD_FAILURE() << "finfo(i32) did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::DTypeMismatch);
  }
}

// The Array API standard's integer promotion table (2024.12, "Mixed unsigned and signed integer
// type promotion"), row a, column b; u64 with a signed dtype is not in the standard: f64, as NumPy.
TEST(DType, IntegerPromoteTable) {
  const DType want[8][8] = {
      //          i8   i16  i32  i64  u8   u16  u32  u64
      /* i8  */ {i8, i16, i32, i64, i16, i32, i64, f64},
      /* i16 */ {i16, i16, i32, i64, i16, i32, i64, f64},
      /* i32 */ {i32, i32, i32, i64, i32, i32, i64, f64},
      /* i64 */ {i64, i64, i64, i64, i64, i64, i64, f64},
      /* u8  */ {i16, i16, i32, i64, u8, u16, u32, u64},
      /* u16 */ {i32, i32, i32, i64, u16, u16, u32, u64},
      /* u32 */ {i64, i64, i64, i64, u32, u32, u32, u64},
      /* u64 */ {f64, f64, f64, f64, u64, u64, u64, u64},
  };
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      EXPECT_EQ(core::promote(kInts[a], kInts[b]), want[a][b])
          << dtype_name(kInts[a]) << " with " << dtype_name(kInts[b]);
  // Across categories (PyTorch): bool < any integer < any float.
  for (DType t : kInts) {
    EXPECT_EQ(core::promote(t, b8), t);
    EXPECT_EQ(core::promote(b8, t), t);
    EXPECT_EQ(core::promote(t, f32), f32);
    EXPECT_EQ(core::promote(f64, t), f64);
    // A C++ int scalar keeps the tensor's integer dtype; a float scalar gives f32.
    EXPECT_EQ(promo({{Tier::Dim, t}, {Tier::Scalar, i64}}), t);
    EXPECT_EQ(promo({{Tier::Dim, t}, {Tier::Scalar, f64}}), f32);
    // A 0-d integer tensor does not widen a dimensioned one.
    EXPECT_EQ(promo({{Tier::Dim, t}, {Tier::ZeroDim, i64}}), t);
  }
  // Sums: signed and bool -> i64, unsigned -> u64.
  EXPECT_EQ(core::sum_dtype(i8), i64);
  EXPECT_EQ(core::sum_dtype(b8), i64);
  EXPECT_EQ(core::sum_dtype(u8), u64);
  EXPECT_EQ(core::sum_dtype(u64), u64);
  EXPECT_EQ(core::sum_dtype(f32), f32);
  // Integer constants wrap like integer arithmetic.
  EXPECT_EQ(core::wrap_to(-1, u8), 255);
  EXPECT_EQ(core::wrap_to(300, i8), 44);
  EXPECT_EQ(core::wrap_to(-1, u64), -1);  // all ones, held as int64
  EXPECT_EQ(core::wrap_to(5, b8), 1);
}

}  // namespace
