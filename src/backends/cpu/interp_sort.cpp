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
// sort at 2^22 f32 (bench/python/breadth.py, B1). Rows of up to 32 elements with 32-bit keys use a
// sorting network on (key, position) words, other short rows a merge sort of the pairs
// (insertion-sorted runs merged pairwise), complex rows a comparison sort under
// core::order_before. Rows are spread over the thread pool.
#include "backends/cpu/interpreter.h"

#include "backends/cpu/thread_pool.h"

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
// Comparison sorts insertion-sort runs of this many elements, then merge them pairwise.
constexpr std::size_t kRun = 16;
// Rows of at most this many elements with 32-bit keys are sorted by a sorting network
// (bitonic_sort has networks of up to 32).
constexpr int64_t kNetworkMax = 32;
// A task of the thread pool sorts whole rows, at least this many elements' worth.
constexpr int64_t kGrainElements = 1 << 14;

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

// Sorts the (key, position) pairs stably by key: insertion sort of runs of kRun, then bottom-up
// merges through `tmp` (of the same size). std::stable_sort allocated its buffer on every row:
// 1M rows of 16 f32 took 246 ms against NumPy's 38 (one thread).
template <class P>
void merge_sort(std::vector<P>& a, std::vector<P>& tmp) {
  const std::size_t n = a.size();
  for (std::size_t b = 0; b < n; b += kRun) {
    const std::size_t e = std::min(n, b + kRun);
    for (std::size_t i = b + 1; i < e; ++i) {
      const P x = a[i];
      std::size_t j = i;
      for (; j > b && x.first < a[j - 1].first; --j) a[j] = a[j - 1];
      a[j] = x;
    }
  }
  for (std::size_t w = kRun; w < n; w *= 2) {
    for (std::size_t b = 0; b < n; b += 2 * w) {
      const std::size_t mid = std::min(n, b + w), e = std::min(n, b + 2 * w);
      std::size_t i = b, j = mid, o = b;
      while (i < mid && j < e) tmp[o++] = a[j].first < a[i].first ? a[j++] : a[i++];  // ties: left first
      while (i < mid) tmp[o++] = a[i++];
      while (j < e) tmp[o++] = a[j++];
    }
    a.swap(tmp);
  }
}

// Sorts c[0, P) ascending with a bitonic network of branch-free compare-exchanges, its loops of
// constant length (unrolled): a short row's comparisons are as unpredictable as its data, and an
// insertion sort of 16 random keys spent most of its time on mispredicted branches. The network
// is not stable, so the caller makes every value distinct (the key, then the position, in one
// word).
template <std::size_t P>
void bitonic_sort(uint64_t* c) {
  for (std::size_t k = 2; k <= P; k <<= 1)
    for (std::size_t j = k >> 1; j > 0; j >>= 1)
      for (std::size_t b = 0; b < P; b += 2 * j)
        for (std::size_t i = b; i < b + j; ++i) {
          const uint64_t x = c[i], y = c[i + j];
          const uint64_t lo = x < y ? x : y, hi = x < y ? y : x;
          const bool up = (i & k) == 0;
          c[i] = up ? lo : hi;
          c[i + j] = up ? hi : lo;
        }
}

void bitonic_sort(uint64_t* c, std::size_t p) {
  switch (p) {
    case 1: return;
    case 2: return bitonic_sort<2>(c);
    case 4: return bitonic_sort<4>(c);
    case 8: return bitonic_sort<8>(c);
    case 16: return bitonic_sort<16>(c);
    default: return bitonic_sort<32>(c);  // p == kNetworkMax
  }
}

// Sorts rows [r0, r1) of the row-major order over the dims other than `ax`.
template <class T>
void sort_range(const ir::Node& n, const View& in, View& out, int64_t r0, int64_t r1) {
  using K = Key<T>;
  const Shape& shape = n.shape;
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  const bool desc = n.attrs.ivalue != 0, arg = n.op == ir::Op::Argsort;
  const int64_t len = shape[ax];
  const core::Strides ost = core::contiguous_strides(shape);
  const auto* src = static_cast<const T*>(in.storage->data);
  const auto m = static_cast<std::size_t>(len);
  std::vector<T> vals(m);
  // Scratch of the radix path (rows of kRadixMin or more) or of the comparison path (shorter).
  const std::size_t radix = len >= kRadixMin ? m : 0;
  std::vector<K> key(radix), tmp_key(radix);
  std::vector<int64_t> pos(m), tmp_pos(radix);
  // the network's words: key << 32 | position, padded to a power of two with the largest word
  const bool network = sizeof(K) == 4 && len <= kNetworkMax;
  std::vector<uint64_t> words(network ? std::bit_ceil(m) : 0);
  const std::size_t merged = radix || network ? 0 : m;  // the merge sort's pairs
  std::vector<std::pair<K, int64_t>> pairs(merged), tmp_pairs(merged);
  std::vector<int64_t> at(shape.size(), 0);  // the row's index; at[ax] stays 0
  for (int64_t rest = r0, d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (static_cast<std::size_t>(d) == ax) continue;
    at[static_cast<std::size_t>(d)] = rest % shape[static_cast<std::size_t>(d)];
    rest /= shape[static_cast<std::size_t>(d)];
  }
  for (int64_t r = r0; r < r1; ++r) {
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
    } else if (network) {
      for (std::size_t j = 0; j < m; ++j) words[j] = uint64_t{order_key(vals[j], desc)} << 32 | j;
      std::fill(words.begin() + static_cast<std::ptrdiff_t>(m), words.end(), ~uint64_t{0});
      bitonic_sort(words.data(), words.size());
      for (std::size_t j = 0; j < m; ++j) pos[j] = static_cast<int64_t>(words[j] & 0xFFFFFFFFu);
    } else if (len >= kRadixMin) {
      for (std::size_t j = 0; j < m; ++j) key[j] = order_key(vals[j], desc);
      radix_sort(key, pos, tmp_key, tmp_pos);
    } else {
      for (std::size_t j = 0; j < m; ++j) pairs[j] = {order_key(vals[j], desc), pos[j]};
      merge_sort(pairs, tmp_pairs);
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

// Rows are independent: the pool sorts them in static chunks, each with its own scratch, so the
// result does not depend on the thread count.
template <class T>
void sort_rows(const ir::Node& n, const View& in, View& out) {
  const int64_t len = n.shape[static_cast<std::size_t>(n.attrs.axis)], total = core::numel(n.shape);
  if (total == 0) return;
  const int64_t rows = total / len;
  parallel_for(rows, std::max<int64_t>(1, kGrainElements / len),
               [&](int64_t r0, int64_t r1) { sort_range<T>(n, in, out, r0, r1); });
}

}  // namespace

View interp_sort(const ir::Node& n, const View& in) {
  View out = alloc_contiguous(n.shape, n.dtype);
  core::dispatch(n.inputs[0]->dtype, [&](auto zero) { sort_rows<decltype(zero)>(n, in, out); });
  return out;
}

}  // namespace cgrad::backends::cpu
