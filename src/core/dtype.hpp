// DType rules shared by every layer: sizes, categories, PyTorch-style promotion, and a
// dispatcher that turns a run-time DType into a C++ type for templated code.
#pragma once

#include <cgrad/core.hpp>
#include <cgrad/scalar.hpp>
#include <cgrad/tensor.hpp>

#include <cstdint>
#include <type_traits>

namespace cgrad::core {

/// 0 = bool, 1 = integer (signed or unsigned), 2 = floating, 3 = complex.
int dtype_category(DType t);
/// The promoted dtype of two operands (docs/semantics.md: the one of the higher category; within
/// a category the Array API standard's table; u64 with a signed integer gives f64, as NumPy).
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
/// The dtype of a sum of `t` (the Array API standard's default): floats keep theirs, signed
/// integers and bools give i64, unsigned integers u64.
DType sum_dtype(DType t);
/// An integer value converted to integer or bool dtype `t` as integer arithmetic does (wrapped
/// modulo 2^bits; != 0 for b8), held in int64 (u64 values above INT64_MAX as their bits).
int64_t wrap_to(int64_t v, DType t);
/// Whether integer dtype `t` holds the value `v` (for u64: v >= 0).
bool holds(DType t, int64_t v);

template <class T>
inline constexpr DType dtype_of_v = cgrad::dtype_of<T>::value;
template <class T>
inline constexpr bool is_floating_v = scalar::is_float<T>::value;  // f16, bf16 too
template <class T>
inline constexpr bool is_complex_v = scalar::is_complex<T>::value;  // complex group

/// Calls f(T{}) with T the host C++ type of `t` (cgrad/dtypes.def: float, int8_t, bool, ...).
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
  switch (t) {
#define CGRAD_DTYPE(E, Kind, bytes, Host, ctype, Compute) \
  case DType::E:                                          \
    return f(Host{});
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE
  }
  return f(float{});
}

}  // namespace cgrad::core
