// The row kernel of sort and argsort (issue #15, group sort): each row along attrs.axis is read
// whole (any strides: a view of memory), its positions stable-sorted under core/order.hpp's
// order (NaNs last, -0 == +0, equal elements in their input order in both directions), and the
// sorted values (Sort) or their i64 positions (Argsort) written to a contiguous output. The CPU
// JIT backend and the CUDA backend's host path run this same routine (docs/semantics.md).
//
// How: each element gets an unsigned key whose integer order is that order (order_key), and the
// (key, position) pairs are sorted by key; Sort's long rows sort the keys alone and read the
// values back from them (sort_values). Long rows use a least-significant-digit radix sort
// (8-bit digits, a pass skipped when every key has the same digit): stable by construction and
// O(n) -- a comparison sort of positions reading the values indirectly ran 6x slower than NumPy's
// sort at 2^22 f32 (bench/python/breadth.py, B1). Where the CPU has AVX-512F, rows go through a
// vectorized quicksort instead (sort_keys.h; not the rows the network takes): Sort's keys alone
// (any length), or along the last axis the values themselves for 32/64-bit numbers
// (sort_numbers); Argsort's (key, position) words, for 32-bit keys, and for 64-bit keys words of
// 32 bits of their offsets, tied runs sorted again (argsort_wide_words). Words are distinct, so the unstable
// sort gives the stable order; sorted keys are the same array whichever sort made them. Rows of up to 32
// elements with 32-bit keys use a sorting network on (key, position) words, other short rows a merge sort of
// the pairs (insertion-sorted runs merged pairwise), complex rows a comparison sort under core::order_before.
// Rows are spread over the thread pool.
#include "backends/cpu/interpreter.h"

#include "backends/cpu/sort_keys.h"
#include "backends/cpu/sort_network.h"
#include "backends/cpu/thread_pool.h"

#include "core/order.hpp"
#include "ir/op_table.h"
#include "runtime/backend.h"
#include "runtime/host_scratch.h"

#include <cgrad/scalar.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>

namespace cgrad::backends::cpu {

using ir::View;

namespace {

// Rows shorter than this are sorted by comparisons (a radix pass costs a 256-entry histogram).
constexpr int64_t kRadixMin = 256;
// Comparison sorts insertion-sort runs of this many elements, then merge them pairwise.
constexpr std::size_t kRun = 16;
// Rows of at most this many elements with 32-bit keys are sorted by a sorting network
// (sort_network.inc has networks of up to 32).
constexpr int64_t kNetworkMax = 32;
// Where the CPU has AVX-512F, Sort's rows (keys alone) sort by the quicksort (sort_keys.h) at
// every length past the network's. One thread, quicksort / radix sort: on the Zen 5 VM, random
// 32-bit keys, ns per key, with networks of 16 registers and the loops of this file at SSE2
// width: 0.7 / 4.7 at 256, 1.7 / 3.0 at 4096, 2.7 / 2.9 at 65536, 3.8 / 3.2 at 2^20; 64-bit keys
// (f64's of normal values) 3.2 / 6.7 at 4096, 8.6 / 8.8 at 2^20, 11.1 / 17.7 at 2^22. On the
// Zen 4 VM, with networks of 32 registers and the loops at AVX-512 width, f32 in the engine,
// process CPU ms (the VM loaded, the two builds alternating): rows of 2^18 18-23 / 23-32, 2^20
// 21-24 / 25-30, one row of 2^22 25-26 / 29-34, of 2^24 110-127 / 192-203 (the radix sort's
// scatters leave the caches).
// Argsort's rows (64-bit words) up to this long, the positions' 32 bits (f32, one thread, in the
// engine: 16384 rows of 256 12.6 ms against the merge sort's 30; on the Zen 4, as above, against
// the radix sort: 4096 rows of 4096 103-110 / 123-127, 256 rows of 16384 29-33 / 31-34; 64 rows
// of 65536 35-36 / 32-33 and one row of 2^22 49-61 / 49-57, so rows past 16384 kept the radix
// sort until 2026-12-07. On the Emerald Rapids VM the quicksort is ahead there too, f32 / i32,
// process CPU ms, the CI running beside: 64 rows of 65536 53-81 -> 35-48, 256 of 65536 216-220 ->
// 137-149, 16 of 2^20 305-334 -> 165-167, one row of 2^22 157-190 -> 49-71.)
constexpr int64_t kQuickArgMax = int64_t{1} << 32;
// Sort's rows of 32-bit numbers shorter than this (one register) stay on the network of
// (key, position) words, eight rows at once, even where sort_numbers runs: one row alone, its
// partial register stored by scalar stores and read back whole, took 2-4x as long (rows of 4-12).
constexpr int64_t kNumbersMin = 16;
// Rows of 64-bit keys shorter than this keep the older paths: Argsort's the merge sort, Sort's the
// keys. The fixed costs per row of the wide words (the keys' range, the tie check) and of the values
// path (NaN and zero checks) made 2^22 f64 in rows of 2 / 3 1.5x / 1.2x slower to argsort (one
// thread, the Emerald Rapids VM: 60 -> 93 / 60 -> 74 ms) and rows of 3 1.2x slower to sort; rows of
// 5 are level, of 8 and more 1.2-7x faster.
constexpr int64_t kWideMin = 4;
// A task of the thread pool sorts whole rows, at least this many elements' worth.
constexpr int64_t kGrainElements = 1 << 14;

template <class T>
using Key = std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>;

// A (key, position) pair of the merge sort (std::pair is not trivially copyable).
template <class K, class P>
struct KeyPos {
  K first;
  P second;
};

// A row's scratch arrays (runtime::HostScratch: pooled, uninitialized). With std::vectors, a sort
// of 2^22 f32 faulted in 48 MiB of fresh pages per call: 39-42 -> 19-20 ms (argsort 80-93 -> 30,
// NumPy's 14 and 133).
template <class T>
using Scratch = runtime::HostScratch<T>;

// The key of `v`: a < b under core::order_before(a, b, descending) exactly when
// order_key(a) < order_key(b) (scalar::order_key, shared with the CUDA sort kernel).
template <class T>
Key<T> order_key(T v, bool descending) {
  return scalar::order_key(v, descending);
}

// The histograms of every 8-bit digit of key[0, n), in one pass over it.
template <class K>
std::array<std::array<std::size_t, 257>, sizeof(K)> digit_counts(const K* key, std::size_t n) {
  std::array<std::array<std::size_t, 257>, sizeof(K)> count{};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t d = 0; d < sizeof(K); ++d) ++count[d][((key[i] >> (8 * d)) & 0xFF) + 1];
  return count;
}

// Sorts key[0, n) with LSD radix passes (8-bit digits, a pass skipped when every key has the same
// digit) and pos[0, n) along with it when pos is not null (stable); tmp_key/tmp_pos are scratch of
// the same sizes. The result is in key/pos (copied back after an odd number of passes).
template <class K, class P>
void radix_sort(K* key, P* pos, K* tmp_key, P* tmp_pos, std::size_t n) {
  auto count = digit_counts(key, n);
  K* k = key;
  P* p = pos;
  for (std::size_t d = 0; d < sizeof(K); ++d) {
    auto& c = count[d];
    if (std::find(c.begin() + 1, c.end(), n) != c.end()) continue;  // one digit: no-op
    for (std::size_t b = 1; b < c.size(); ++b) c[b] += c[b - 1];
    const std::size_t shift = 8 * d;
    if (p) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t at = c[(k[i] >> shift) & 0xFF]++;
        tmp_key[at] = k[i];
        tmp_pos[at] = p[i];
      }
      std::swap(p, tmp_pos);
    } else {
      for (std::size_t i = 0; i < n; ++i) tmp_key[c[(k[i] >> shift) & 0xFF]++] = k[i];
    }
    std::swap(k, tmp_key);
  }
  if (k != key) {
    std::copy(k, k + n, key);
    if (p) std::copy(p, p + n, pos);
  }
}

// The value whose order_key is `key`: order_key is one-to-one except that -0 and +0 share +0's
// key and every NaN has the same key (sort_values puts those back).
template <class T>
T value_of_key(Key<T> key, bool descending) {
  const Key<T> k = descending ? static_cast<Key<T>>(~key) : key;
  if constexpr (std::is_same_v<T, bool>) {
    return k != 0;
  } else if constexpr (core::is_floating_v<T>) {
    using F = std::conditional_t<sizeof(Key<T>) == 4, float, double>;
    using S = std::conditional_t<sizeof(Key<T>) == 4, int32_t, int64_t>;
    const Key<T> sign = Key<T>{1} << (8 * sizeof(Key<T>) - 1);
    const Key<T> bits = (k & sign) ? static_cast<Key<T>>(k & ~sign) : static_cast<Key<T>>(~k);
    return static_cast<T>(std::bit_cast<F>(static_cast<S>(bits)));
  } else if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(k) ^ (U{1} << (8 * sizeof(T) - 1))));
  } else {
    return static_cast<T>(k);
  }
}

// The loops over a row's elements around the sorts: its keys (and whether the row holds a
// negative zero, which sort_values needs), its values read back from sorted keys, Argsort's words and
// positions. Each is one body (a lambda) built twice: for the library's baseline instruction set (SSE2 on
// x86-64) and, where the CPU has AVX-512F (have_sort_keys()), in a function with that target,
// which vectorizes it 16 f32 (8 f64) lanes wide instead of 4 (2). A target attribute rather than
// a file built with -mavx512f: the inline functions the body calls (scalar::order_key) are
// inlined into the AVX-512 function, while the copies other objects may call stay baseline code.
// Sort, one thread, process CPU ms on the loaded VM, the two builds alternating: 65536 rows of
// 100 f32 14.2 -> 11.9, f64 34 -> 22; 16384 rows of 256 f32 8.2 -> 6.4; Argsort of 65536 rows of
// 100 f32 27.7 -> 21.1 (bench/RESULTS.md, "Sorts, second pass": the quiet VM).
// (Elsewhere have_sort_keys() is false, and the attribute is left out.)
#if defined(__x86_64__)
#define CGRAD_TARGET_AVX512 __attribute__((target("avx512f")))
#else
#define CGRAD_TARGET_AVX512
#endif

// body(args...) (a lambda without captures, marked always_inline: a loop's bounds and pointers
// must be its parameters, as a capture by reference could alias the keys it writes and keep the
// loop from vectorizing), in its AVX-512 build where the CPU has AVX-512F, else in the baseline
// build.
template <class Body, class... Args>
CGRAD_TARGET_AVX512 auto run_avx512(Body body, Args... args) {
  return body(args...);
}
template <class Body, class... Args>
auto run_baseline(Body body, Args... args) {
  return body(args...);
}
template <class Body, class... Args>
auto run_widest(Body body, Args... args) {
  if (have_sort_keys()) return run_avx512(body, args...);
  return run_baseline(body, args...);
}

// Zero in the order (f16/bf16 compare as float): -0 and +0 share a key.
template <class T>
bool is_zero_value(T v) {
  return static_cast<std::conditional_t<sizeof(T) == 2, float, T>>(v) == 0;
}

// Negative zero: the sign bit alone (an integer compare, which the keys' loop vectorizes).
template <class T>
bool is_negative_zero(T v) {
  using U =
      std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  return std::bit_cast<U>(v) == static_cast<U>(U{1} << (8 * sizeof(T) - 1));
}

// key[j] = order_key(row[j * stride]) for j < m, and whether the row holds a negative zero (its
// key is +0's, so refill_ties writes the zeros again). The other elements whose bits their keys
// do not keep, NaNs and zeros, are found in the sorted keys. Until 2026-12 this loop also counted
// zeros and NaNs, in 64-bit sums: 2-4 times the time of reading the values back. Without them,
// one thread of the Emerald Rapids VM: 65536 rows of 100 f32 14.0 -> 12.8-13.2 ms, 4096 x 4096
// f32 along axis 0 139-143 -> 122-126; long rows within noise (their loop waits on memory).
template <class T>
bool row_keys(const T* row, int64_t stride, bool desc, Key<T>* key, std::size_t m) {
  return run_widest(
      [](const T* r, int64_t st, bool d, Key<T>* k, std::size_t n) __attribute__((always_inline)) {
        Key<T> negative_zero = 0;  // (an OR of a bool does not vectorize: 1.35x the time)
        for (std::size_t j = 0; j < n; ++j) {
          const T v = r[static_cast<int64_t>(j) * st];
          k[j] = order_key(v, d);
          if constexpr (core::is_floating_v<T>) negative_zero |= static_cast<Key<T>>(is_negative_zero(v));
        }
        return negative_zero != 0;
      },
      row, stride, desc, key, m);
}

// out[j * out_stride] = the value of key[j], for j < m.
template <class T>
void values_of_keys(const Key<T>* key, bool desc, T* out, int64_t out_stride, std::size_t m) {
  run_widest(
      [](const Key<T>* k, bool d, T* o, int64_t st, std::size_t n) __attribute__((always_inline)) {
        for (std::size_t j = 0; j < n; ++j) o[static_cast<int64_t>(j) * st] = value_of_key<T>(k[j], d);
      },
      key, desc, out, out_stride, m);
}

// The elements the order ties but whose bits differ, -0 with +0 and NaNs with other NaNs, written
// in their input order: the runs of their keys in the sorted `key` (m keys of the row at `row`)
// refilled from a scan of the row, which is what the stable sort of positions gives. NaNs are the
// run of the largest key (all ones, which no number has) at the end; zeros are refilled only where
// some are negative (`negative_zeros`, from row_keys: the keys of +0 read back as +0). The scan tests
// kRefillChunk elements at a time and stops at the run's last element: a zero in a random row of 2^22 f32
// (ReLU outputs have many) cost a scan of it element by element, 8% of the sort (bench/RESULTS.md,
// 2026-12-06).
constexpr std::size_t kRefillChunk = 64;

// Writes out[from, from + count) (at out_stride) with the row's first `count` elements of a class
// (in_class), in input order.
template <class T, class InClass>
void refill_run(const T* row, int64_t stride, std::size_t m, T* out, int64_t out_stride, std::size_t from,
                std::size_t count, InClass in_class) {
  auto vals = [&](std::size_t j) { return row[static_cast<int64_t>(j) * stride]; };
  for (std::size_t j0 = 0, o = from; j0 < m && o < from + count; j0 += kRefillChunk) {
    const std::size_t j1 = std::min(m, j0 + kRefillChunk);
    bool any = false;
    for (std::size_t j = j0; j < j1; ++j) any |= in_class(vals(j));
    if (!any) continue;
    for (std::size_t j = j0; j < j1 && o < from + count; ++j)
      if (in_class(vals(j))) out[static_cast<int64_t>(o++) * out_stride] = vals(j);
  }
}

template <class T>
void refill_ties(const T* row, int64_t stride, bool desc, const Key<T>* key, bool negative_zeros, T* out,
                 int64_t out_stride, std::size_t m) {
  if constexpr (core::is_floating_v<T>) {
    constexpr Key<T> nan_key = ~Key<T>{0};
    if (m != 0 && key[m - 1] == nan_key) {  // NaNs go last
      const auto from = static_cast<std::size_t>(std::lower_bound(key, key + m, nan_key) - key);
      refill_run(row, stride, m, out, out_stride, from, m - from, [](T v) { return core::order_isnan(v); });
    }
    if (negative_zeros) {
      const auto [lo, hi] = std::equal_range(key, key + m, order_key(static_cast<T>(0.0f), desc));
      refill_run(row, stride, m, out, out_stride, static_cast<std::size_t>(lo - key),
                 static_cast<std::size_t>(hi - lo), [](T v) { return is_zero_value(v); });
    }
  }
}

// Sort (values only) of a long row: the keys alone are radix-sorted and each value is read
// back from its key, half the memory traffic of sorting (key, position) pairs (a row of 2^22 f32, one
// thread: 111 -> 42 ms; NumPy 14). The keys are made from the row in place, at its stride, with no
// copy of the row (medians 43-45 -> 39-42 ms; then 19-20 with pooled scratch, above). The elements the order
// ties but whose bits differ, -0 with +0 and NaNs with other NaNs, are then written in their input order
// (their runs refilled from a scan of the row), which is what the stable sort of positions gives.
template <class T>
void sort_values(const T* row, int64_t stride, bool desc, bool quick, Scratch<Key<T>>& key,
                 Scratch<Key<T>>& tmp, T* out, int64_t out_stride) {
  const std::size_t m = key.size();
  const bool negative_zeros = row_keys(row, stride, desc, key.data(), m);
  if (quick)
    sort_keys(key.data(), m);
  else
    radix_sort(key.data(), static_cast<uint32_t*>(nullptr), tmp.data(), static_cast<uint32_t*>(nullptr), m);
  values_of_keys(key.data(), desc, out, out_stride, m);
  refill_ties(row, stride, desc, key.data(), negative_zeros, out, out_stride, m);
}

// Sort's rows of 32- and 64-bit numbers (f32, f64, i32, i64, u32, u64) where the quicksort runs
// and the output row is contiguous: the values themselves are sorted, in the output, not their
// keys. The keys' conversions and their scratch go (one thread of the Emerald Rapids VM, random
// rows, f32 / f64: a row of 2^22 1.13x / 1.15x faster, 4096 x 4096 1.13x / 1.30x, 16384 x 256
// 1.15x / 1.53x, 65536 x 100 1.03x / 1.49x). Descending rows are reversed in the copy and back
// (floats negated, integers complemented: both reverse the order and are their own inverse).
// NaNs become +inf in the copy (the float quicksort takes none) and are written back over the last
// of the run of infinities that ends the row; zeros are written again in input order where the
// row holds a -0 (the quicksort's compares tie -0 with +0, and its min and max mix their signs:
// sort_keys.h).
template <class T>
constexpr bool kSortsNumbers =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>;

// x reversed in the order where desc (the copy's and the sorted row's map).
template <class T>
[[gnu::always_inline]] inline T reverse_order(T x, bool desc) {
  if constexpr (core::is_floating_v<T>)
    return desc ? -x : x;
  else
    return desc ? static_cast<T>(~x) : x;
}

// out[j] = row[j * stride] for j < m, reversed in the order where desc, NaNs made +inf; whether
// the row holds a negative zero.
template <class T>
bool copy_numbers(const T* row, int64_t stride, bool desc, T* out, std::size_t m) {
  return run_widest(
      [](const T* r, int64_t st, bool d, T* o, std::size_t n) __attribute__((always_inline)) {
        Key<T> negative_zero = 0;
        for (std::size_t j = 0; j < n; ++j) {
          const T v = r[static_cast<int64_t>(j) * st];
          if constexpr (core::is_floating_v<T>) {
            o[j] = std::isnan(v) ? std::numeric_limits<T>::infinity() : reverse_order(v, d);
            negative_zero |= static_cast<Key<T>>(is_negative_zero(v));
          } else {
            o[j] = reverse_order(v, d);
          }
        }
        return negative_zero != 0;
      },
      row, stride, desc, out, m);
}

template <class T>
void sort_numbers(const T* row, int64_t stride, bool desc, T* out, std::size_t m) {
  if (m == 0) return;
  const bool negative_zeros = copy_numbers(row, stride, desc, out, m);
  sort_keys(out, m);
  // floats: the zeros' run, found while the row ascends; whether it ends with an infinity or a NaN
  const auto [zeros, zeros_end] = negative_zeros ? std::equal_range(out, out + m, T{0}) : std::pair{out, out};
  bool infinite = false;
  if constexpr (core::is_floating_v<T>) infinite = out[m - 1] == std::numeric_limits<T>::infinity();
  if (desc)
    run_widest(
        [](T * o, std::size_t n) __attribute__((always_inline)) {
          for (std::size_t j = 0; j < n; ++j) o[j] = reverse_order(o[j], true);
        },
        out, m);
  if constexpr (core::is_floating_v<T>) {
    if (infinite) {
      std::size_t nans = 0;
      for (std::size_t j = 0; j < m; ++j) nans += std::isnan(row[static_cast<int64_t>(j) * stride]) ? 1 : 0;
      refill_run(row, stride, m, out, 1, m - nans, nans, [](T v) { return std::isnan(v); });
    }
    refill_run(row, stride, m, out, 1, static_cast<std::size_t>(zeros - out),
               static_cast<std::size_t>(zeros_end - zeros), [](T v) { return v == 0; });
  }
}

// The word of a 32-bit key and its position in the row (below 2^32): sorted words are sorted by
// key, ties by position, so any sort of them gives the stable order. The network and Argsort's
// quicksort both sort them.
inline uint64_t key_position_word(uint32_t key, std::size_t position) {
  return uint64_t{key} << 32 | position;
}
inline std::size_t position_of_word(uint64_t word) { return static_cast<std::size_t>(word & 0xFFFFFFFFu); }

// Argsort of a row of 32-bit keys by the quicksort: the words key << 32 | position are distinct,
// so their sorted order is the stable order (ties, -0 with +0 and NaNs, by position).
template <class T>
void argsort_words(const T* row, int64_t stride, bool desc, Scratch<uint64_t>& words, int64_t* out,
                   int64_t out_stride) {
  const std::size_t m = words.size();
  run_widest(
      [](const T* r, int64_t st, bool d, uint64_t* w, std::size_t n) __attribute__((always_inline)) {
        for (std::size_t j = 0; j < n; ++j)
          w[j] = key_position_word(order_key(r[static_cast<int64_t>(j) * st], d), j);
      },
      row, stride, desc, words.data(), m);
  sort_keys(words.data(), m);
  run_widest(
      [](const uint64_t* w, int64_t* o, int64_t st, std::size_t n) __attribute__((always_inline)) {
        for (std::size_t j = 0; j < n; ++j)
          o[static_cast<int64_t>(j) * st] = static_cast<int64_t>(position_of_word(w[j]));
      },
      words.data(), out, out_stride, m);
}

// Argsort of a row of 64-bit keys (f64, i64, u64) by the quicksort of words too: a key does not fit
// a word beside its position, so each word holds 32 bits of the key's offset from the row's least
// key (its top 32 bits where the offsets take more: `shift`), an order-keeping map. Words sorted,
// the runs whose 32 bits tie (keys within 2^shift of each other, rare in random rows) are sorted
// again by (key, position), which gives the stable order. One thread of the Emerald Rapids VM
// (the CI running beside: process CPU ms), f64 / i64, against the merge sort (rows under 256) and
// the radix sort: 65536 rows of 100 217-263 -> 40-60, 16384 rows of 256 86-98 -> 29-31, 4096 x
// 4096 410-583 -> 165-185, 64 rows of 65536 112-124 -> 44-51, one row of 2^22 385-426 -> 72-124.
// Then (quiet) the least and largest key in one vector loop, and the runs looked for only where a
// vector loop finds two neighbours tied: 65536 rows of 100 f64 48 -> 37-39, i64 41 -> 29-30,
// 4096 x 4096 f64 177-196 -> 164-166. Rows along axis 0 too (block_range, from the keys of its
// scratch rows: sort_wide_words), against the radix sort of positions, f64 / i64, the CI beside:
// 4096 x 4096 447-450 / 428-445 -> 221-227 / 197-202, 2^20 x 16 800-898 / 799-814 -> 351-381 /
// 277-293, 1024 x 65536 1476-1530 / 1321-1348 -> 738-769 / 710-725.

// Whether two neighbours of the sorted words w[0, m) tie in their 32 high bits (a vector loop).
inline bool any_neighbours_tie(const uint64_t* w, std::size_t m) {
  return run_widest(
      [](const uint64_t* wd, std::size_t n) __attribute__((always_inline)) {
        uint64_t tied = 0;
        for (std::size_t j = 1; j < n; ++j) tied |= static_cast<uint64_t>((wd[j] >> 32) == (wd[j - 1] >> 32));
        return tied != 0;
      },
      w, m);
}

// The words of keys key[0, m) (least and most: their extremes), sorted into w[0, m): the word of
// position j made, the quicksort, then the runs of tied words by (key, position) where some tie.
inline void sort_wide_words(const uint64_t* key, uint64_t least, uint64_t most, uint64_t* w, std::size_t m) {
  const int shift = std::max(0, static_cast<int>(std::bit_width(most - least)) - 32);
  run_widest(
      [](const uint64_t* k, uint64_t lo, int sh, uint64_t* wd, std::size_t n) __attribute__((always_inline)) {
        for (std::size_t j = 0; j < n; ++j) wd[j] = (k[j] - lo) >> sh << 32 | j;
      },
      key, least, shift, w, m);
  sort_keys(w, m);
  if (shift > 0 &&
      any_neighbours_tie(
          w, m)) {  // runs of tied words: by (key, position), distinct pairs, so any sort gives the order
    const auto before = [key](uint64_t a, uint64_t b) {
      const uint64_t ka = key[position_of_word(a)], kb = key[position_of_word(b)];
      return ka < kb || (ka == kb && position_of_word(a) < position_of_word(b));
    };
    for (std::size_t b = 0; b < m;) {
      std::size_t e = b + 1;
      while (e < m && (w[e] >> 32) == (w[b] >> 32)) ++e;
      if (e - b > 1) std::sort(w + b, w + e, before);
      b = e;
    }
  }
}

// The least and the largest of key[0, m) (m >= 1), in a vector loop.
inline std::pair<uint64_t, uint64_t> key_range(const uint64_t* key, std::size_t m) {
  return run_widest(
      [](const uint64_t* k, std::size_t n) __attribute__((always_inline)) {
        uint64_t lo = ~uint64_t{0}, hi = 0;
        for (std::size_t j = 0; j < n; ++j) {
          lo = std::min(lo, k[j]);
          hi = std::max(hi, k[j]);
        }
        return std::pair{lo, hi};
      },
      key, m);
}

template <class T>
void argsort_wide_words(const T* row, int64_t stride, bool desc, Scratch<uint64_t>& words,
                        Scratch<uint64_t>& keys, int64_t* out, int64_t out_stride) {
  const std::size_t m = words.size();
  uint64_t* key = keys.data();
  uint64_t* w = words.data();
  const auto [least, most] = run_widest(  // the keys and their extremes in one loop
      [](const T* r, int64_t st, bool d, uint64_t* k, std::size_t n) __attribute__((always_inline)) {
        uint64_t lo = ~uint64_t{0}, hi = 0;
        for (std::size_t j = 0; j < n; ++j) {
          k[j] = order_key(r[static_cast<int64_t>(j) * st], d);
          lo = std::min(lo, k[j]);
          hi = std::max(hi, k[j]);
        }
        return std::pair{lo, hi};
      },
      row, stride, desc, key, m);
  sort_wide_words(key, least, most, w, m);
  run_widest(
      [](const uint64_t* wd, int64_t* o, int64_t st, std::size_t n) __attribute__((always_inline)) {
        for (std::size_t j = 0; j < n; ++j)
          o[static_cast<int64_t>(j) * st] = static_cast<int64_t>(position_of_word(wd[j]));
      },
      w, out, out_stride, m);
}

// Sorts the (key, position) pairs stably by key: insertion sort of runs of kRun, then bottom-up
// merges through `tmp` (of the same size). std::stable_sort allocated its buffer on every row:
// 1M rows of 16 f32 took 246 ms against NumPy's 38 (one thread).
template <class P>
void merge_sort(Scratch<P>& a, Scratch<P>& tmp) {
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

// A row's scratch, sized for the path its length and op take: none where Sort's numbers are sorted
// as values (`numbers`: sort_numbers, at every length where the caller found it can run); the
// network's words (rows of up to kNetworkMax 32-bit keys); where the quicksort runs (`quick`:
// Sort's rows past the network's, Argsort's of 32-bit keys up to kQuickArgMax and of 64-bit keys
// where the caller found argsort_wide_words can run, `wide`), Sort's keys or Argsort's words
// (and the wide words' keys); the radix sort's keys (rows of kRadixMin or more), the merge
// sort's pairs (other short rows); positions where neither Sort's keys alone nor words (which
// carry them) are sorted.
template <class T, class P>
struct RowScratch {
  using K = Key<T>;
  RowScratch(std::size_t m, bool arg, bool numbers_alone, bool wide_words)
      : numbers(numbers_alone && (sizeof(K) == 4 || m >= static_cast<std::size_t>(kWideMin))),
        wide(wide_words && m >= static_cast<std::size_t>(kWideMin)),
        radix(m >= static_cast<std::size_t>(kRadixMin)),
        network(sizeof(K) == 4 && m <= static_cast<std::size_t>(kNetworkMax) &&
                !(numbers && m >= static_cast<std::size_t>(kNumbersMin))),
        quick(!core::is_complex_v<T> && !network &&
              (!arg || wide || (sizeof(K) == 4 && m <= static_cast<std::size_t>(kQuickArgMax))) &&
              have_sort_keys()),
        keys_only((radix || quick) && !arg && !core::is_complex_v<T>),
        vals(keys_only || (quick && arg) ? 0
             : network                   ? m * kNetworkLanes
                                         : m),  // Sort's long rows read the input itself
        key((keys_only && !numbers) || (radix && !quick) || wide ? m : 0),
        tmp_key(quick ? 0 : key.size()),  // the radix sort's (the quicksort's is in place)
        pos(keys_only || network || quick ? 0 : m),
        tmp_pos(radix && !keys_only && !quick ? m : 0),
        words(network        ? std::bit_ceil(m) * kNetworkLanes  // key << 32 | position, element-major
              : quick && arg ? m
                             : 0),
        pairs(radix || network || quick ? 0 : m),
        tmp_pairs(pairs.size()) {}
  const bool numbers, wide, radix, network, quick, keys_only;
  Scratch<T> vals;
  Scratch<K> key, tmp_key;
  Scratch<P> pos, tmp_pos;
  Scratch<uint64_t> words;
  Scratch<KeyPos<K, P>> pairs, tmp_pairs;
};

// Sets pos[0, m) to the positions of vals[0, m) in stable sorted order (m: the row's length,
// s's size; s's other arrays are the sorts' scratch).
template <class T, class P>
void sort_positions(RowScratch<T, P>& s, const T* vals, P* pos, std::size_t m, bool desc) {
  std::iota(pos, pos + m, P{0});
  if constexpr (core::is_complex_v<T>) {
    // complex group: core::order_before's lexicographic (re, im) order has no integer key
    std::stable_sort(pos, pos + m, [&](P a, P b) {
      return core::order_before(vals[static_cast<std::size_t>(a)], vals[static_cast<std::size_t>(b)], desc);
    });
  } else if (s.radix) {
    for (std::size_t j = 0; j < m; ++j) s.key[j] = order_key(vals[j], desc);
    radix_sort(s.key.data(), pos, s.tmp_key.data(), s.tmp_pos.data(), m);
  } else {
    for (std::size_t j = 0; j < m; ++j) s.pairs[j] = {order_key(vals[j], desc), pos[j]};
    merge_sort(s.pairs, s.tmp_pairs);
    for (std::size_t j = 0; j < m; ++j) pos[j] = s.pairs[j].second;
  }
}

// The offsets of consecutive rows, in the row-major order over the dims other than `ax`: in the
// input at its strides, and in the contiguous output.
class RowCursor {
 public:
  RowCursor(const Shape& shape, std::size_t ax, const View& in, const core::Strides& ost, int64_t r0)
      : shape_(shape), ax_(ax), in_(in), ost_(ost), at_(shape.size(), 0) {
    for (int64_t rest = r0, d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (static_cast<std::size_t>(d) == ax) continue;
      at_[static_cast<std::size_t>(d)] = rest % shape[static_cast<std::size_t>(d)];
      rest /= shape[static_cast<std::size_t>(d)];
    }
  }
  int64_t in_offset() const {
    int64_t off = in_.offset;
    for (std::size_t d = 0; d < shape_.size(); ++d) off += at_[d] * in_.strides[d];
    return off;
  }
  int64_t out_offset() const {
    int64_t off = 0;
    for (std::size_t d = 0; d < shape_.size(); ++d) off += at_[d] * ost_[d];
    return off;
  }
  // Rows left in this run along the last dim (the rows from here to its end follow one another
  // at the last dim's strides). Only where ax is not the last dim.
  int64_t run_left() const { return shape_.back() - at_.back(); }
  void next() {  // odometer over the dims but ax (at_[ax] stays 0)
    for (std::size_t d = shape_.size(); d-- > 0;) {
      if (d == ax_) continue;
      if (++at_[d] < shape_[d]) break;
      at_[d] = 0;
    }
  }

 private:
  const Shape& shape_;
  std::size_t ax_;
  const View& in_;
  const core::Strides& ost_;
  std::vector<int64_t> at_;
};

// Rows [r0, r1) of up to kNetworkMax elements with 32-bit keys, by a bitonic network of
// branch-free compare-exchanges: a short row's comparisons are as unpredictable as its data, and
// an insertion sort of 16 random keys spent most of its time on mispredicted branches. The
// network is not stable, so every word is made distinct: the key, then the position. It sorts
// kNetworkLanes rows at once (sort_network.h), with AVX-512 where the CPU has it: each row's
// words in its lane of s.words (the lanes past the last row and the words past a row's end are
// the largest word, which sorts last), its values in its block of s.vals. 2^20 rows of 16 f32,
// one thread: 107 -> 40 ms (one row at a time, scalar; NumPy 41).
template <class T, class P>
void network_range(RowScratch<T, P>& s, RowCursor& rows, const T* src, int64_t istride, int64_t ostride,
                   bool desc, bool arg, void* out, int64_t r0, int64_t r1) {
  const std::size_t m = s.vals.size() / kNetworkLanes, p = s.words.size() / kNetworkLanes;
  auto* vout = static_cast<T*>(out);
  auto* iout = static_cast<int64_t*>(out);
  int64_t ooff[kNetworkLanes];
  for (int64_t r = r0; r < r1; r += static_cast<int64_t>(kNetworkLanes)) {
    const auto lanes =
        static_cast<std::size_t>(std::min<int64_t>(static_cast<int64_t>(kNetworkLanes), r1 - r));
    if (lanes < kNetworkLanes || p > m) std::fill(s.words.begin(), s.words.end(), ~uint64_t{0});  // padding
    for (std::size_t l = 0; l < lanes; ++l, rows.next()) {
      const int64_t ioff = rows.in_offset();
      ooff[l] = rows.out_offset();
      T* vals = &s.vals[l * m];
      for (std::size_t e = 0; e < m; ++e) {
        vals[e] = src[ioff + static_cast<int64_t>(e) * istride];
        s.words[e * kNetworkLanes + l] = key_position_word(order_key(vals[e], desc), e);
      }
    }
    bitonic_lanes(s.words.data(), p);
    for (std::size_t l = 0; l < lanes; ++l)
      for (std::size_t e = 0; e < m; ++e) {
        const std::size_t k = position_of_word(s.words[e * kNetworkLanes + l]);
        const int64_t o = ooff[l] + static_cast<int64_t>(e) * ostride;
        if (arg)
          iout[o] = static_cast<int64_t>(k);
        else
          vout[o] = s.vals[l * m + k];
      }
  }
}

// Rows along an axis that is not the last: up to kBlockRows neighbours along the last dim at once.
// Row by row, each element read (and written) was a cache line of its own, the row's neighbours'
// elements read again with the next row: 2^20 x 16 f32 along axis 0, one thread of the Rocket Lake
// VM, 302 ms, 61% of it in those two loops (NumPy 162). A block reads and writes the G elements of
// one position along the axis together, one line for 16 f32 (at a unit stride along the last dim),
// into a scratch row for each row, which is then sorted as a row alone: the same result. Sort, one
// thread, f32, ms: 2^20 x 16 along axis 0 297-309 -> 139-149 (NumPy 151), 4096 x 4096 351-390 ->
// 105-119 (NumPy 270; along axis 1 51-58), 1024 x 65536 1157-1195 -> 419-464 (NumPy 1110); Argsort
// of 4096 x 4096 along axis 0 401-424 -> 161-171 (bench/RESULTS.md, 2026-12-06).
constexpr int64_t kBlockRows = 16;
// A block's scratch rows hold at most this many elements together (64 MiB of 32-bit keys): fewer
// rows to a block for longer rows.
constexpr int64_t kBlockElements = int64_t{1} << 24;

// Positions fetched ahead of the one read or written: each is a line of its own (a page apart
// for 4096 x 4096 f32), which the hardware's prefetchers do not foresee.
constexpr int64_t kAhead = 8;

// How many rows the blocks of rows of `len` take: 1 (row by row) where the sort axis is the last.
int64_t block_rows(std::size_t ax, const Shape& shape, int64_t len) {
  if (ax + 1 == shape.size()) return 1;
  return std::clamp<int64_t>(kBlockElements / std::max<int64_t>(len, 1), 1, kBlockRows);
}

// The elements from one scratch row of m elements of E to the next: whole pages and a cache line,
// as rows a power of two apart put the G streams of a position in one L1 set (rows m apart: 4096 x
// 4096 f32 along axis 0 141-152 ms, 2^20 x 16 174-188, against 103-111 and 138-146).
template <class E>
std::size_t padded_row(std::size_t m) {
  return ((m * sizeof(E) + 4095) / 4096 * 4096 + 64) / sizeof(E);
}

// Rows [r0, r1) in blocks of up to G rows (block_rows) that are neighbours along the last dim.
// Position by position, each row's element goes to its scratch row: Sort's keys (where s sorts
// keys alone), Argsort's (key, position) words (where the quicksort sorts them), else the values,
// whose positions sort_positions sorts. Then each row is sorted, and its values or positions are
// written back position by position.
template <class T, class P>
void block_range(RowScratch<T, P>& s, RowCursor& rows, std::size_t m, int64_t G, const T* src,
                 int64_t istride, int64_t istep, int64_t ostride, bool desc, bool arg, void* out, int64_t r0,
                 int64_t r1) {
  using K = Key<T>;
  const auto rows_n = static_cast<std::size_t>(G);
  // (RowScratch's keys_only and quick are false for complex rows)
  const bool keys_only = s.keys_only, words_of = arg && s.quick, values = !keys_only && !words_of;
  auto* vout = static_cast<T*>(out);
  auto* iout = static_cast<int64_t*>(out);
  const std::size_t ak = padded_row<K>(m), aw = padded_row<uint64_t>(m), av = padded_row<T>(m),
                    ap = padded_row<P>(m);
  // (Argsort's wide words are made from the row's keys: argsort_wide_words)
  constexpr bool kWide = sizeof(K) == 8 && !core::is_complex_v<T>;
  Scratch<K> keys(keys_only || (kWide && words_of) ? ak * rows_n : 0);
  Scratch<uint64_t> words(words_of ? aw * rows_n : 0);
  Scratch<T> vals(values ? av * rows_n : 0);
  Scratch<P> pos(values ? ap * rows_n : 0);
  bool negative_zeros[kBlockRows] = {};
  for (int64_t r = r0; r < r1;) {
    const int64_t g_n = std::min({G, r1 - r, rows.run_left()});
    const int64_t ioff = rows.in_offset(), ooff = rows.out_offset();
    for (std::size_t j = 0; j < m; ++j) {
      const T* x = src + ioff + static_cast<int64_t>(j) * istride;
      __builtin_prefetch(x + kAhead * istride);
      for (int64_t g = 0; g < g_n; ++g) {
        const T v = x[g * istep];
        const auto gi = static_cast<std::size_t>(g);
        if (values) {
          vals[gi * av + j] = v;
        } else if constexpr (!core::is_complex_v<T>) {
          if (words_of && !kWide) {
            words[gi * aw + j] = key_position_word(order_key(v, desc), j);
          } else {  // (the flag matters only where keys_only)
            keys[gi * ak + j] = order_key(v, desc);
            if constexpr (core::is_floating_v<T>) negative_zeros[g] |= is_negative_zero(v);
          }
        }
      }
    }
    for (std::size_t g = 0; g < static_cast<std::size_t>(g_n); ++g) {
      if (values) {
        sort_positions(s, &vals[g * av], &pos[g * ap], m, desc);
      } else if (words_of) {
        if constexpr (kWide) {
          const auto [least, most] = key_range(&keys[g * ak], m);
          sort_wide_words(&keys[g * ak], least, most, &words[g * aw], m);
        } else {
          sort_keys(&words[g * aw], m);
        }
      } else if (s.quick) {
        sort_keys(&keys[g * ak], m);
      } else {
        radix_sort(&keys[g * ak], static_cast<uint32_t*>(nullptr), s.tmp_key.data(),
                   static_cast<uint32_t*>(nullptr), m);
      }
    }
    for (std::size_t j = 0; j < m; ++j) {
      const int64_t o = ooff + static_cast<int64_t>(j) * ostride;
      if (arg)
        __builtin_prefetch(iout + o + kAhead * ostride, 1);
      else
        __builtin_prefetch(vout + o + kAhead * ostride, 1);
      for (int64_t g = 0; g < g_n; ++g) {
        const auto gi = static_cast<std::size_t>(g);
        if (values) {
          const auto k = static_cast<std::size_t>(pos[gi * ap + j]);
          if (arg)
            iout[o + g] = static_cast<int64_t>(k);
          else
            vout[o + g] = vals[gi * av + k];
        } else if (words_of) {
          iout[o + g] = static_cast<int64_t>(position_of_word(words[gi * aw + j]));
        } else {
          vout[o + g] = value_of_key<T>(keys[gi * ak + j], desc);
        }
      }
    }
    for (int64_t g = 0; g < g_n; ++g, ++r, rows.next()) {
      if (keys_only)
        refill_ties(src + ioff + g * istep, istride, desc, &keys[static_cast<std::size_t>(g) * ak],
                    negative_zeros[g], vout + ooff + g, ostride, m);
      negative_zeros[g] = false;
    }
  }
}

// Sorts rows [r0, r1) of the row-major order over the dims other than `ax`; positions within a
// row are of type P (32 bits below 2^32 elements: less memory traffic in the radix passes).
template <class T, class P>
void sort_range(const ir::Node& n, const View& in, View& out, int64_t r0, int64_t r1) {
  const Shape& shape = n.shape;
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  const bool desc = n.attrs.ivalue != 0, arg = n.op == ir::Op::Argsort;
  const int64_t len = shape[ax];
  const core::Strides ost = core::contiguous_strides(shape);
  const auto* src = static_cast<const T*>(in.storage->data);
  auto* vout = static_cast<T*>(out.storage->data);
  auto* iout = static_cast<int64_t*>(out.storage->data);
  // Sort's 32/64-bit numbers along the last axis sort as values, from kNumbersMin elements where
  // the word network would take them: one thread of the Emerald Rapids VM, 2^24 f32 in rows of
  // 16 / 24 / 32, 60 / 92 / 80 -> 23 / 36 / 20 ms; i32 of 16 / 32 37 / 57 -> 19 / 18.
  const bool numbers = kSortsNumbers<T> && !arg && ax + 1 == shape.size() && have_sort_keys();
  // Argsort's 64-bit keys: the quicksort of words too (argsort_wide_words), where a position fits a
  // word's 32 low bits
  const bool wide =
      !core::is_complex_v<T> && sizeof(Key<T>) == 8 && arg && len <= kQuickArgMax && have_sort_keys();
  RowScratch<T, P> s(static_cast<std::size_t>(len), arg, numbers, wide);
  RowCursor rows(shape, ax, in, ost, r0);
  if constexpr (!core::is_complex_v<T>)
    if (s.network)
      return network_range(s, rows, src, in.strides[ax], ost[ax], desc, arg, out.storage->data, r0, r1);
  if (const int64_t G = block_rows(ax, shape, len); G > 1)
    return block_range(s, rows, static_cast<std::size_t>(len), G, src, in.strides[ax], in.strides.back(),
                       ost[ax], desc, arg, out.storage->data, r0, r1);
  for (int64_t r = r0; r < r1; ++r, rows.next()) {
    const int64_t ioff = rows.in_offset(), ooff = rows.out_offset();
    if constexpr (!core::is_complex_v<T>) {
      if constexpr (kSortsNumbers<T>)
        if (s.numbers) {
          sort_numbers(src + ioff, in.strides[ax], desc, vout + ooff, static_cast<std::size_t>(len));
          continue;
        }
      if (s.keys_only) {
        sort_values(src + ioff, in.strides[ax], desc, s.quick, s.key, s.tmp_key, vout + ooff, ost[ax]);
        continue;
      }
      if constexpr (sizeof(Key<T>) == 8)
        if (s.wide) {  // Argsort of 64-bit keys
          argsort_wide_words(src + ioff, in.strides[ax], desc, s.words, s.key, iout + ooff, ost[ax]);
          continue;
        }
      if (s.quick) {  // Argsort
        argsort_words(src + ioff, in.strides[ax], desc, s.words, iout + ooff, ost[ax]);
        continue;
      }
    }
    {
      for (int64_t j = 0; j < len; ++j) s.vals[static_cast<std::size_t>(j)] = src[ioff + j * in.strides[ax]];
      sort_positions(s, s.vals.data(), s.pos.data(), s.vals.size(), desc);
      for (int64_t j = 0; j < len; ++j) {
        const auto k = static_cast<int64_t>(s.pos[static_cast<std::size_t>(j)]);
        if (arg)
          iout[ooff + j * ost[ax]] = k;
        else
          vout[ooff + j * ost[ax]] = s.vals[static_cast<std::size_t>(k)];
      }
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
  parallel_for(rows, std::max<int64_t>(1, kGrainElements / len), [&](int64_t r0, int64_t r1) {
    if (len <= int64_t{UINT32_MAX})
      sort_range<T, uint32_t>(n, in, out, r0, r1);
    else
      sort_range<T, int64_t>(n, in, out, r0, r1);
  });
}

}  // namespace

View interp_sort(const ir::Node& n, const View& in) {
  View out = alloc_contiguous(n.shape, n.dtype);
  core::dispatch(n.inputs[0]->dtype, [&](auto zero) { sort_rows<decltype(zero)>(n, in, out); });
  return out;
}

}  // namespace cgrad::backends::cpu
