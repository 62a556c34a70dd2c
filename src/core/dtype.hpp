// DType rules shared by every layer: sizes, categories, PyTorch-style promotion, and a
// dispatcher that turns a run-time DType into a C++ type for templated code.
#pragma once

#include <cgrad/core.hpp>
#include <cgrad/tensor.hpp>

#include <cstdint>
#include <type_traits>

namespace cgrad::core {

/// 0 = bool, 1 = integer, 2 = floating.
int dtype_category(DType t);
/// The larger of two dtypes of the same category, or the one of the higher category.
DType promote(DType a, DType b);

/// Operand descriptions for promotion: dimensioned tensors outrank 0-d tensors, which outrank
/// C++ scalars, unless a lower-priority operand is of a higher category (then that operand's
/// dtype, or for a scalar the default dtype of its category, wins). See docs/semantics.md.
struct PromoOperand {
  enum class Tier { Dim, ZeroDim, Scalar } tier;
  DType dtype;  // for Scalar: f64 for floats, i64 for ints, b8 for bools
};
DType promote_all(const PromoOperand* ops, int n);
DType scalar_dtype(const Scalar& s);

template <class T> inline constexpr DType dtype_of_v = cgrad::dtype_of<T>::value;
template <class T> inline constexpr bool is_floating_v = std::is_floating_point_v<T>;

/// Calls f(T{}) with T the C++ type of `t` (float, double, int32_t, int64_t, bool).
template <class F> decltype(auto) dispatch(DType t, F&& f) {
  switch (t) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::i32: return f(int32_t{});
    case DType::i64: return f(int64_t{});
    case DType::b8: return f(bool{});
  }
  return f(float{});
}

}  // namespace cgrad::core
