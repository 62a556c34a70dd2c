// Strided iteration shared by the interpreter's kernels: visits every index of a shape in
// row-major order and hands the callback one element offset per operand view.
#pragma once

#include "core/shape.hpp"

#include <array>
#include <cstdint>
#include <tuple>
#include <vector>

namespace cgrad::core {

/// f(o0, o1, ...) for every multi-index i of `shape`, with ok = base[k] + sum_d i_d * strides[k][d].
template <std::size_t N, class F>
void for_each_strided(const Shape& shape, const std::array<const int64_t*, N>& strides,
                      const std::array<int64_t, N>& base, F&& f) {
  const std::size_t r = shape.size();
  for (int64_t d : shape)
    if (d == 0) return;
  if (r == 0) {
    std::apply(f, base);
    return;
  }
  std::vector<int64_t> idx(r, 0);
  std::array<int64_t, N> off = base;
  const int64_t inner = shape[r - 1];
  std::array<int64_t, N> inner_stride;
  for (std::size_t k = 0; k < N; ++k) inner_stride[k] = strides[k][r - 1];
  while (true) {
    std::array<int64_t, N> o = off;
    for (int64_t i = 0; i < inner; ++i) {
      std::apply(f, o);
      for (std::size_t k = 0; k < N; ++k) o[k] += inner_stride[k];
    }
    // advance the outer dims like an odometer
    std::size_t d = r - 1;
    while (true) {
      if (d == 0) return;
      --d;
      ++idx[d];
      for (std::size_t k = 0; k < N; ++k) off[k] += strides[k][d];
      if (idx[d] < shape[d]) break;
      for (std::size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * shape[d];
      idx[d] = 0;
    }
  }
}

}  // namespace cgrad::core
