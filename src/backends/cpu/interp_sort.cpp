// The row kernel of sort and argsort (issue #15, group sort): each row along attrs.axis is read
// whole (any strides: a view of memory), its positions stable-sorted under core/order.hpp's
// order (NaNs last, -0 == +0, equal elements in their input order in both directions), and the
// sorted values (Sort) or their i64 positions (Argsort) written to a contiguous output. The CPU
// JIT backend and the CUDA backend's host path run this same routine (docs/semantics.md).
//
// How: each element gets an unsigned key whose integer order is that order (order_key), and the
// (key, position) pairs are sorted by key. Long rows use a least-significant-digit radix sort
// (8-bit digits, a pass skipped when every key has the same digit): stable by construction and
// O(n) -- a comparison sort of positions reading the values indirectly ran 6x slower than NumPy's
// sort at 2^22 f32 (bench/python/breadth.py, B1). Short rows use std::stable_sort on the pairs,
// complex rows a comparison sort under core::order_before.
#include "backends/cpu/interpreter.h"

#include "core/order.hpp"
#include "ir/op_table.h"

#include <cgrad/scalar.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>

namespace cgrad::backends::cpu {

using ir::View;

namespace {

// Rows shorter than this are sorted by comparisons (a radix pass costs a 256-entry histogram).
constexpr int64_t kRadixMin = 256;

template <class T>
using Key = std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>;

// The key of `v`: a < b under core::order_before(a, b, descending) exactly when
// order_key(a) < order_key(b) (scalar::order_key, shared with the CUDA sort kernel).
template <class T>
Key<T> order_key(T v, bool descending) {
  return scalar::order_key(v, descending);
}

// Sorts `pos` (positions 0..n-1) stably by `key` with LSD radix passes; `tmp_key`/`tmp_pos` are
// scratch of n elements. The result is in `key`/`pos`.
template <class K>
void radix_sort(std::vector<K>& key, std::vector<int64_t>& pos, std::vector<K>& tmp_key,
                std::vector<int64_t>& tmp_pos) {
  const std::size_t n = key.size();
  for (std::size_t shift = 0; shift < sizeof(K) * 8; shift += 8) {
    std::array<std::size_t, 257> count{};
    for (std::size_t i = 0; i < n; ++i) ++count[((key[i] >> shift) & 0xFF) + 1];
    if (std::find(count.begin() + 1, count.end(), n) != count.end()) continue;  // one digit: no-op
    for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = count[(key[i] >> shift) & 0xFF]++;
      tmp_key[at] = key[i];
      tmp_pos[at] = pos[i];
    }
    key.swap(tmp_key);
    pos.swap(tmp_pos);
  }
}

template <class T>
void sort_rows(const ir::Node& n, const View& in, View& out) {
  using K = Key<T>;
  const Shape& shape = n.shape;
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  const bool desc = n.attrs.ivalue != 0, arg = n.op == ir::Op::Argsort;
  const int64_t len = shape[ax], total = core::numel(shape);
  if (total == 0) return;
  const int64_t rows = total / len;
  const core::Strides ost = core::contiguous_strides(shape);
  const auto* src = static_cast<const T*>(in.storage->data);
  const auto m = static_cast<std::size_t>(len);
  std::vector<T> vals(m);
  // Scratch of the radix path (rows of kRadixMin or more) or of the comparison path (shorter).
  const std::size_t radix = len >= kRadixMin ? m : 0;
  std::vector<K> key(radix), tmp_key(radix);
  std::vector<int64_t> pos(m), tmp_pos(radix);
  std::vector<std::pair<K, int64_t>> pairs(m - radix);
  std::vector<int64_t> at(shape.size(), 0);  // the row's index; at[ax] stays 0
  for (int64_t r = 0; r < rows; ++r) {
    int64_t ioff = in.offset, ooff = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) ioff += at[d] * in.strides[d], ooff += at[d] * ost[d];
    for (std::size_t j = 0; j < m; ++j) {
      vals[j] = src[ioff + static_cast<int64_t>(j) * in.strides[ax]];
      pos[j] = static_cast<int64_t>(j);
    }
    if constexpr (core::is_complex_v<T>) {
      // complex group: core::order_before's lexicographic (re, im) order has no integer key
      std::stable_sort(pos.begin(), pos.end(), [&](int64_t a, int64_t b) {
        return core::order_before(vals[static_cast<std::size_t>(a)], vals[static_cast<std::size_t>(b)], desc);
      });
    } else if (len >= kRadixMin) {
      for (std::size_t j = 0; j < m; ++j) key[j] = order_key(vals[j], desc);
      radix_sort(key, pos, tmp_key, tmp_pos);
    } else {
      for (std::size_t j = 0; j < m; ++j) pairs[j] = {order_key(vals[j], desc), pos[j]};
      std::stable_sort(pairs.begin(), pairs.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (std::size_t j = 0; j < m; ++j) pos[j] = pairs[j].second;
    }
    for (int64_t j = 0; j < len; ++j) {
      const int64_t k = pos[static_cast<std::size_t>(j)];
      if (arg)
        static_cast<int64_t*>(out.storage->data)[ooff + j * ost[ax]] = k;
      else
        static_cast<T*>(out.storage->data)[ooff + j * ost[ax]] = vals[static_cast<std::size_t>(k)];
    }
    for (std::size_t d = shape.size(); d-- > 0;) {  // next row: odometer over the dims but ax
      if (d == ax) continue;
      if (++at[d] < shape[d]) break;
      at[d] = 0;
    }
  }
}

}  // namespace

View interp_sort(const ir::Node& n, const View& in) {
  View out = alloc_contiguous(n.shape, n.dtype);
  core::dispatch(n.inputs[0]->dtype, [&](auto zero) { sort_rows<decltype(zero)>(n, in, out); });
  return out;
}

}  // namespace cgrad::backends::cpu
