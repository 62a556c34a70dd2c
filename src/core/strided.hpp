// Strided iteration shared by the interpreter's kernels: visits every index of a shape in
// row-major order and hands the callback one element offset per operand view.
#pragma once

#include "core/shape.hpp"

#include <array>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace cgrad::core {

namespace detail {

// CGRAD_CLONES: the function is compiled three times, for x86-64 (SSE2), x86-64-v3 (AVX2, FMA)
// and x86-64-v4 (AVX-512), and the loader picks the widest the CPU runs (GCC's target_clones,
// an ifunc). The library itself is built for plain x86-64, where `fma` is a call into libm and
// loops run four floats wide; only code inlined into a clone is compiled for its target, so no
// function the rest of the library shares is ever built for a CPU it may not run on. Results
// are the same bits in every clone (the library never contracts multiply-adds, and `fma` is
// exact wherever it runs). Not under clang (its target_clones differs), the sanitizers
// (ifunc resolvers run before their runtimes start), or other architectures.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define CGRAD_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define CGRAD_CLONES
#endif

// One row of `n` elements where every operand's stride is 1: the offsets are the row's start
// plus the loop counter, so the compiler sees unit-stride accesses and can vectorize the callback.
// (The callback is copied: see cloned_unit_row.)
template <std::size_t N, class F, std::size_t... K>
void unit_row(const F& f, const std::array<int64_t, N>& o, int64_t n, std::index_sequence<K...>) {
  F g = f;
  for (int64_t i = 0; i < n; ++i) g((o[K] + i)...);
}
// The callback is copied into the row: when it holds its pointers by value, they are then in a
// local nothing else can reach, so a store of bytes (a bool, a u8) cannot change them and the
// loop vectorizes (2^22 `u8 + u8`: 3.0 -> 0.13 ms).
template <std::size_t N, class F, std::size_t... K>
CGRAD_CLONES void cloned_unit_row(const F& f, const std::array<int64_t, N>& o, int64_t n,
                                  std::index_sequence<K...>) {
  F g = f;
  for (int64_t i = 0; i < n; ++i) g((o[K] + i)...);  // (unit_row's loop: inlined into each clone)
}

template <bool Clones, std::size_t N, class F>
void walk(const Shape& shape, const std::array<const int64_t*, N>& strides,
          const std::array<int64_t, N>& base, F& f) {
  std::vector<int64_t> ext;                // merged extents, outermost first
  std::vector<std::array<int64_t, N>> st;  // their strides, per operand
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return;
    if (shape[d] == 1) continue;
    std::array<int64_t, N> s;
    for (std::size_t k = 0; k < N; ++k) s[k] = strides[k][d];
    bool merge = !ext.empty();
    for (std::size_t k = 0; k < N && merge; ++k) merge = st.back()[k] == s[k] * shape[d];
    if (merge) {
      ext.back() *= shape[d];
      st.back() = s;
    } else {
      ext.push_back(shape[d]);
      st.push_back(s);
    }
  }
  if (ext.empty()) {
    std::apply(f, base);
    return;
  }
  const std::size_t r = ext.size();
  const int64_t inner = ext[r - 1];
  const std::array<int64_t, N> inner_stride = st[r - 1];
  bool unit = true;
  for (std::size_t k = 0; k < N; ++k) unit = unit && inner_stride[k] == 1;
  std::vector<int64_t> idx(r, 0);
  std::array<int64_t, N> off = base;
  while (true) {
    if (unit) {
      if constexpr (Clones)
        cloned_unit_row(f, off, inner, std::make_index_sequence<N>{});
      else
        unit_row(f, off, inner, std::make_index_sequence<N>{});
    } else {
      std::array<int64_t, N> o = off;
      for (int64_t i = 0; i < inner; ++i) {
        std::apply(f, o);
        for (std::size_t k = 0; k < N; ++k) o[k] += inner_stride[k];
      }
    }
    // advance the outer dims like an odometer
    std::size_t d = r - 1;
    while (true) {
      if (d == 0) return;
      --d;
      ++idx[d];
      for (std::size_t k = 0; k < N; ++k) off[k] += st[d][k];
      if (idx[d] < ext[d]) break;
      for (std::size_t k = 0; k < N; ++k) off[k] -= st[d][k] * ext[d];
      idx[d] = 0;
    }
  }
}

}  // namespace detail

/// f(o0, o1, ...) for every multi-index i of `shape`, with ok = base[k] + sum_d i_d * strides[k][d],
/// in row-major order. Dims of extent 1 are skipped and adjacent dims that every operand walks
/// as one (stride of the outer = stride of the inner times its extent) are merged first: the
/// order of the calls is unchanged, the rows are longer. `f` is copied for each row of unit
/// stride, so it keeps no state of its own: what it writes, it reaches through a pointer or a
/// reference it captured.
template <std::size_t N, class F>
void for_each_strided(const Shape& shape, const std::array<const int64_t*, N>& strides,
                      const std::array<int64_t, N>& base, F&& f) {
  detail::walk<false>(shape, strides, base, f);
}

/// for_each_strided for the interpreter's element-wise ops: its rows of unit stride run in
/// CGRAD_CLONES code, vectorized for the CPU at hand (one thread: `exp` of 2^22 f32 66 -> 1.0
/// ms, sigmoid's five ops on 2^24 206 -> 19 ms). The clones triple the code of each instantiation, so the
/// reductions, scans and copies, whose rows gain nothing from them, take for_each_strided.
template <std::size_t N, class F>
void for_each_elementwise(const Shape& shape, const std::array<const int64_t*, N>& strides,
                          const std::array<int64_t, N>& base, F&& f) {
  detail::walk<true>(shape, strides, base, f);
}

}  // namespace cgrad::core
