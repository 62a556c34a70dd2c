// The total order that sort, argsort and the unique_* functions use (issue #15, group sort):
// NaNs after every number in both directions (NumPy puts them last), -0 and +0 equal (a stable
// sort keeps their order), f16/bf16 compared as float, bool as false < true. One definition for
// the interpreter's row kernel and the frontend's set functions, so they never disagree.
#pragma once

#include "core/dtype.hpp"

#include <utility>

namespace cgrad::core {

template <class T>
inline bool order_isnan(T v) {
  if constexpr (is_floating_v<T> && sizeof(T) == 2) {
    const float f = static_cast<float>(v);  // f16/bf16: compared as float
    return f != f;
  } else if constexpr (is_floating_v<T> || is_complex_v<T>) {
    return v != v;  // complex: either part NaN
  } else {
    return false;
  }
}

/// True when `a` goes strictly before `b` (ascending, or descending with `descending`); NaNs
/// go last either way and compare equal among themselves (their order is kept).
template <class T>
inline bool order_before(T a, T b, bool descending) {
  const bool na = order_isnan(a), nb = order_isnan(b);
  if (na || nb) return !na && nb;
  if constexpr (is_floating_v<T> && sizeof(T) == 2) {
    const float fa = static_cast<float>(a), fb = static_cast<float>(b);
    return descending ? fb < fa : fa < fb;
  } else if constexpr (is_complex_v<T>) {
    // complex group: lexicographic on (re, im), as NumPy (the Array API standard leaves it open)
    if (descending) std::swap(a, b);
    return a.re < b.re || (a.re == b.re && a.im < b.im);
  } else {
    return descending ? b < a : a < b;
  }
}

/// Equal under the order: -0 == +0; NaN equals nothing (the Array API's unique_* count each
/// NaN as distinct).
template <class T>
inline bool order_equal(T a, T b) {
  if (order_isnan(a) || order_isnan(b)) return false;
  if constexpr (is_floating_v<T> && sizeof(T) == 2)
    return static_cast<float>(a) == static_cast<float>(b);
  else
    return a == b;
}

}  // namespace cgrad::core
