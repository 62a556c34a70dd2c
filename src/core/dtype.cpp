// DType facts read from cgrad/dtypes.def (names, sizes, kinds, limits) and the promotion
// lattice: bool < integers < floats by category (PyTorch), the Array API standard's table
// inside each category, NumPy's answer where the standard is silent (docs/semantics.md).
#include "core/dtype.hpp"

#include <algorithm>
#include <cfloat>
#include <iterator>
#include <string>

namespace cgrad {

namespace {

struct Row {
  const char* name;
  DTypeKind kind;
  std::size_t size;
};

constexpr Row kRows[] = {
#define CGRAD_DTYPE(E, Kind, bytes, Host, ctype, Compute) {#E, DTypeKind::Kind, bytes},
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE
};
static_assert(std::size(kRows) == static_cast<std::size_t>(kNumDTypes));

const Row& row(DType t) {
  const auto i = static_cast<std::size_t>(t);
  if (i >= std::size(kRows)) throw Error(ErrorCode::InvalidArgument, "bad dtype value " + std::to_string(i));
  return kRows[i];
}

}  // namespace

const char* dtype_name(DType t) { return row(t).name; }
std::size_t dtype_size(DType t) { return row(t).size; }
DTypeKind dtype_kind(DType t) { return row(t).kind; }
bool is_floating(DType t) { return dtype_kind(t) == DTypeKind::Float; }
bool is_integer(DType t) {
  return dtype_kind(t) == DTypeKind::Signed || dtype_kind(t) == DTypeKind::Unsigned;
}
bool is_unsigned(DType t) { return dtype_kind(t) == DTypeKind::Unsigned; }
// complex group
bool is_complex(DType t) { return dtype_kind(t) == DTypeKind::Complex; }
DType real_dtype(DType t) {
  if (t == DType::c64) return DType::f32;
  return t == DType::c128 ? DType::f64 : t;
}
DType complex_dtype(DType t) {
  if (is_complex(t)) return t;
  return t == DType::f64 ? DType::c128 : DType::c64;
}

IInfo iinfo(DType t) {
  const int bits = static_cast<int>(8 * dtype_size(t));
  switch (dtype_kind(t)) {
    case DTypeKind::Bool: return {8, 0, 1};
    case DTypeKind::Signed: {
      const uint64_t max = (uint64_t{1} << (bits - 1)) - 1;
      return {bits, -static_cast<int64_t>(max) - 1, max};
    }
    case DTypeKind::Unsigned: return {bits, 0, bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1};
    case DTypeKind::Float:
    case DTypeKind::Complex: break;
  }
  throw Error(ErrorCode::DTypeMismatch,
              std::string("iinfo: ") + dtype_name(t) + " is not an integer dtype (use finfo)");
}

FInfo finfo(DType t) {
  switch (real_dtype(t)) {
    case DType::f32: return {32, FLT_EPSILON, FLT_MAX, -FLT_MAX, FLT_MIN, FLT_TRUE_MIN, FLT_MANT_DIG};
    case DType::f64: return {64, DBL_EPSILON, DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN, DBL_MANT_DIG};
    case DType::f16: return {16, 0x1p-10, 65504.0, -65504.0, 0x1p-14, 0x1p-24, 11};
    case DType::bf16: return {16, 0x1p-7, 0x1.fep127, -0x1.fep127, 0x1p-126, 0x1p-133, 8};
    default: break;
  }
  throw Error(ErrorCode::DTypeMismatch,
              std::string("finfo: ") + dtype_name(t) + " is not a floating dtype (use iinfo)");
}

namespace core {

int dtype_category(DType t) {
  switch (dtype_kind(t)) {
    case DTypeKind::Bool: return 0;
    case DTypeKind::Signed:
    case DTypeKind::Unsigned: return 1;
    case DTypeKind::Float: return 2;
    case DTypeKind::Complex: return 3;
  }
  return 0;
}

namespace {

// The signed integer dtype of `bytes` bytes.
DType signed_of(std::size_t bytes) {
  switch (bytes) {
    case 1: return DType::i8;
    case 2: return DType::i16;
    case 4: return DType::i32;
    default: return DType::i64;
  }
}

// Two integer dtypes: the Array API standard's table. Same signedness: the wider. Signed with
// unsigned: the smallest signed type holding both ranges (i8 + u8 -> i16, i32 + u32 -> i64);
// u64 with a signed type has none: the standard leaves it undefined, NumPy gives f64, and so
// does cgrad.
DType promote_ints(DType a, DType b) {
  const bool ua = is_unsigned(a), ub = is_unsigned(b);
  if (ua == ub) return dtype_size(a) >= dtype_size(b) ? a : b;
  const DType u = ua ? a : b, s = ua ? b : a;
  if (u == DType::u64) return DType::f64;
  return signed_of(std::max(dtype_size(s), 2 * dtype_size(u)));
}

}  // namespace

DType promote(DType a, DType b) {
  if (a == b) return a;
  const int ca = dtype_category(a), cb = dtype_category(b);
  // Complex with anything: the complex dtype whose parts hold both (c64 + f64 -> c128, the
  // Array API standard's table; integers and bools give the complex operand's dtype).
  if (ca == 3 || cb == 3) {
    const DType ra = real_dtype(a), rb = real_dtype(b);
    const DType r = ca == 3 && cb == 3 ? promote(ra, rb)
                    : ca == 3          ? (cb == 2 ? promote(ra, b) : ra)
                                       : (ca == 2 ? promote(a, rb) : rb);
    return complex_dtype(r);
  }
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1) return promote_ints(a, b);
  if (ca == 2 && dtype_size(a) == dtype_size(b)) return DType::f32;  // f16 with bf16, as PyTorch
  return dtype_size(a) >= dtype_size(b) ? a : b;                     // float with float
}

DType sum_dtype(DType t) {
  if (is_floating(t) || is_complex(t)) return t;
  return is_unsigned(t) ? DType::u64 : DType::i64;
}

int64_t wrap_to(int64_t v, DType t) {
  return dispatch(t, [&](auto tag) -> int64_t {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>)
      return v != 0;
    else
      return static_cast<int64_t>(static_cast<T>(v));
  });
}

bool holds(DType t, int64_t v) { return t == DType::u64 ? v >= 0 : wrap_to(v, t) == v; }

DType scalar_dtype(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Bool: return DType::b8;
    case Scalar::Kind::Int: return DType::i64;
    case Scalar::Kind::Float: return DType::f64;
  }
  return DType::f64;
}

DType promote_all(const PromoOperand* ops, int n) {
  // Highest dtype within each tier; then walk tiers from high to low priority and let a lower
  // tier win only by category.
  bool has[3] = {false, false, false};  // (no scalar is complex: Scalar holds real values)
  DType best[3] = {DType::b8, DType::b8, DType::b8};
  for (int i = 0; i < n; ++i) {
    int t = static_cast<int>(ops[i].tier);
    best[t] = has[t] ? promote(best[t], ops[i].dtype) : ops[i].dtype;
    has[t] = true;
  }
  bool any = false;
  DType result = DType::b8;
  for (int t = 0; t < 3; ++t) {
    if (!has[t]) continue;
    DType d = best[t];
    if (!any) {
      // Only C++ scalars (where(cond, 1.5, 2.5)): the default dtype of their category.
      if (t == static_cast<int>(PromoOperand::Tier::Scalar) && dtype_category(d) == 2) d = DType::f32;
      result = d;
      any = true;
    } else if (dtype_category(d) > dtype_category(result)) {
      // A scalar of a higher category gives that category's default dtype; a 0-d tensor its own.
      if (t == static_cast<int>(PromoOperand::Tier::Scalar))
        d = dtype_category(d) == 2 ? DType::f32 : DType::i64;
      result = d;
    }
  }
  return result;
}

}  // namespace core
}  // namespace cgrad
