// DType names, sizes and the PyTorch-style promotion lattice (bool < int < float).
#include "core/dtype.hpp"

#include <algorithm>

namespace cgrad {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::b8: return "b8";
  }
  return "?";
}

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::b8: return 1;
  }
  return 0;
}

bool is_floating(DType t) { return t == DType::f32 || t == DType::f64; }

namespace core {

int dtype_category(DType t) {
  if (t == DType::b8) return 0;
  return is_floating(t) ? 2 : 1;
}

DType promote(DType a, DType b) {
  int ca = dtype_category(a), cb = dtype_category(b);
  if (ca != cb) return ca > cb ? a : b;
  return dtype_size(a) >= dtype_size(b) ? a : b;
}

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
  bool has[3] = {false, false, false};
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
      // A scalar of a higher category gives that category's default dtype.
      if (t == static_cast<int>(PromoOperand::Tier::Scalar))
        d = dtype_category(d) == 2 ? DType::f32 : DType::i64;
      else if (t == static_cast<int>(PromoOperand::Tier::ZeroDim))
        d = dtype_category(d) == 2 ? (d == DType::f64 ? DType::f64 : DType::f32) : d;
      result = d;
    }
  }
  return result;
}

}  // namespace core
}  // namespace cgrad
