// A quicksort of 32-bit keys (16 per instruction) and of 64-bit ones (8) for AVX-512F, and the
// same code on signed integers and on floats without NaN (Sort's rows of those, interp_sort.cpp:
// signed or float compares, min and max on the same registers, Vec<int32_t> ... Vec<double>). Built with
// -mavx512f (src/CMakeLists.txt); nothing in it runs unless sort_keys.cpp found AVX-512F on the CPU.
//
// - Partition: in place, as x86-simd-sort's, a register at a time: a compare against the pivot
//   gives a mask, and the keys below it are compressed to the front (vpcompressd/q into a
//   register, then a masked store: Zen 4 runs the compress with a memory operand slowly), the
//   others to the back. Registers read first leave room at both ends (partition, below). Until
//   2026-12 the partition ran out of place, from the keys into a scratch buffer and back at the
//   next level; in place (8 registers per side choice), one thread on the Emerald Rapids VM: a
//   row of 2^22 random 32-bit keys 24.5-25.0 -> 21.3-21.8 ms, 64-bit 55.5-58.4 -> 47.2-47.8;
//   4096 rows of 4096, 32-bit 57.8-59.0 -> 55.3-56.2, 64-bit 123.6-124.7 -> 115.2-116.6. Then
//   one popcount per register (the other count is L minus it) and, where the front has a
//   register's room, its keys stored as a whole register: 2^22 keys, 32-bit 21.5-22.5 ->
//   19.7-19.9, 64-bit 49.3 -> 43.9-44.6; 1024 rows of 4096 1.05x faster (NumPy's x86-simd-sort:
//   20.0 ms for 2^22 uint32, 46.4 for uint64).
// - Bottom: a segment of up to 16 registers of keys (256 32-bit, 128 64-bit), or of 24 to 32
//   (up to 512 32-bit, 256 64-bit), is sorted in registers by bitonic networks and stored back in
//   place. With one register at the bottom, a row of 4096
//   random 32-bit keys spent most of its time on the partitions' branches: 5.7 ns per key
//   against the radix sort's 3.2; with 16, and every network's loops unrolled (an array of
//   registers indexed at run time lives in memory), 1.8. The 32-register networks (zmm0-31)
//   took random 64-bit rows of 256 keys from 3.6 to 2.4 ns per key, 32-bit rows of 512 from 2.2
//   to 1.6; segments of 17 to 24 registers' worth are partitioned once more instead (a network
//   pads its keys to a power of two of registers: 300 32-bit keys in 32 registers were slower
//   than two networks of about 150). From 16 registers of 32-bit keys (8 of 64-bit), each square
//   block of registers is sorted down its columns and transposed before the merges (sort_registers),
//   one thread on the Emerald Rapids VM, rows of random keys: 32-bit 256 keys 5.6-5.8 -> 4.9 ms per
//   16384 rows, 512 6.8-7.0 -> 5.9-6.0 per 8192; 64-bit 256 14.6-14.7 -> 13.1 per 16384, 512 24.8-24.9
//   -> 21.5-21.6 per 8192; 2^22 keys 21.5-26.3 -> 19.0-20.7 (32-bit), 48.3-48.6 -> 41.7-41.9 (64-bit).
// - Pivot: the median of three keys (of three medians of three from 512 keys up).
// - Equal keys: when no key is below the pivot, it is the least key; the keys equal to it are split
//   off by a second partition (less than or equal), and a segment of one key is done.
// - Depth: past 2 log2(n) + 8 levels (inputs that defeat the pivot), std::sort finishes the segment.
#include "backends/cpu/sort_keys.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <type_traits>

namespace cgrad::backends::cpu {

namespace {

// The unsigned integer as wide as K.
template <class K>
using Bits = std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>;

// The instructions for keys of type K: a register of kLanes keys, masks of kLanes bits. Only the
// zero-masking forms of min, max and permute: the plain ones trip GCC 12's -Wmaybe-uninitialized
// in its header. Registers are __m512i for every K: float keys are cast for their compares.
template <class K>
struct Vec;
template <>
struct Vec<uint32_t> {
  static constexpr int kLanes = 16;
  using Mask = __mmask16;
  static constexpr Mask kAll = 0xFFFF;
  static __m512i permute(__m512i idx, __m512i v) { return _mm512_maskz_permutexvar_epi32(kAll, idx, v); }
  static __m512i permute2(__m512i a, __m512i idx, __m512i b) { return _mm512_permutex2var_epi32(a, idx, b); }
  static __m512i min(__m512i a, __m512i b) { return _mm512_maskz_min_epu32(kAll, a, b); }
  static __m512i max(__m512i a, __m512i b) { return _mm512_maskz_max_epu32(kAll, a, b); }
  static __m512i max_into(__m512i src, Mask m, __m512i a, __m512i b) {
    return _mm512_mask_max_epu32(src, m, a, b);
  }
  static __m512i set1(uint32_t k) { return _mm512_set1_epi32(static_cast<int>(k)); }
  static __m512i largest() { return _mm512_set1_epi32(-1); }
  static __m512i reverse() { return _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
  static Mask below(__m512i v, __m512i p, bool inclusive) {
    return inclusive ? _mm512_cmple_epu32_mask(v, p) : _mm512_cmplt_epu32_mask(v, p);
  }
  static __m512i compress(Mask m, __m512i v) { return _mm512_maskz_compress_epi32(m, v); }
  static __m512i load(Mask m, __m512i fill, const void* a) { return _mm512_mask_loadu_epi32(fill, m, a); }
  static void store(void* a, Mask m, __m512i v) { _mm512_mask_storeu_epi32(a, m, v); }
};
template <>
struct Vec<uint64_t> {
  static constexpr int kLanes = 8;
  using Mask = __mmask8;
  static constexpr Mask kAll = 0xFF;
  static __m512i permute(__m512i idx, __m512i v) { return _mm512_maskz_permutexvar_epi64(kAll, idx, v); }
  static __m512i permute2(__m512i a, __m512i idx, __m512i b) { return _mm512_permutex2var_epi64(a, idx, b); }
  static __m512i min(__m512i a, __m512i b) { return _mm512_maskz_min_epu64(kAll, a, b); }
  static __m512i max(__m512i a, __m512i b) { return _mm512_maskz_max_epu64(kAll, a, b); }
  static __m512i max_into(__m512i src, Mask m, __m512i a, __m512i b) {
    return _mm512_mask_max_epu64(src, m, a, b);
  }
  static __m512i set1(uint64_t k) { return _mm512_set1_epi64(static_cast<long long>(k)); }
  static __m512i largest() { return _mm512_set1_epi32(-1); }
  static __m512i reverse() { return _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7); }
  static Mask below(__m512i v, __m512i p, bool inclusive) {
    return inclusive ? _mm512_cmple_epu64_mask(v, p) : _mm512_cmplt_epu64_mask(v, p);
  }
  static __m512i compress(Mask m, __m512i v) { return _mm512_maskz_compress_epi64(m, v); }
  static __m512i load(Mask m, __m512i fill, const void* a) { return _mm512_mask_loadu_epi64(fill, m, a); }
  static void store(void* a, Mask m, __m512i v) { _mm512_mask_storeu_epi64(a, m, v); }
};
// Signed integers as keys (Sort's i32 and i64 rows): the signed compares, min and max.
#define CGRAD_SIGNED_VEC(T, Base, sfx)                                                      \
  template <>                                                                               \
  struct Vec<T> : Vec<Base> {                                                               \
    static __m512i min(__m512i a, __m512i b) { return _mm512_maskz_min_##sfx(kAll, a, b); } \
    static __m512i max(__m512i a, __m512i b) { return _mm512_maskz_max_##sfx(kAll, a, b); } \
    static __m512i max_into(__m512i src, Mask m, __m512i a, __m512i b) {                    \
      return _mm512_mask_max_##sfx(src, m, a, b);                                           \
    }                                                                                       \
    static __m512i set1(T k) { return _mm512_set1_##sfx(k); }                               \
    static __m512i largest() { return set1(std::numeric_limits<T>::max()); }                \
    static Mask below(__m512i v, __m512i p, bool inclusive) {                               \
      return inclusive ? _mm512_cmple_##sfx##_mask(v, p) : _mm512_cmplt_##sfx##_mask(v, p); \
    }                                                                                       \
  }
CGRAD_SIGNED_VEC(int32_t, uint32_t, epi32);
CGRAD_SIGNED_VEC(int64_t, uint64_t, epi64);
#undef CGRAD_SIGNED_VEC

// Floats (no NaN) as keys, their order that of their values: the shuffles, loads and stores of
// the integers as wide, the compares, min and max of floats (R: their register type). -0 == +0,
// and min and max of a -0 and a +0 both give the second operand: a row holding both comes out
// with its zeros' signs in any order, and even changed (sort_keys.h).
#define CGRAD_FLOAT_VEC(T, Base, R, sfx)                                                             \
  template <>                                                                                        \
  struct Vec<T> : Vec<Base> {                                                                        \
    static R f(__m512i v) { return _mm512_castsi512_##sfx(v); }                                      \
    static __m512i i(R v) { return _mm512_cast##sfx##_si512(v); }                                    \
    static __m512i min(__m512i a, __m512i b) { return i(_mm512_maskz_min_##sfx(kAll, f(a), f(b))); } \
    static __m512i max(__m512i a, __m512i b) { return i(_mm512_maskz_max_##sfx(kAll, f(a), f(b))); } \
    static __m512i max_into(__m512i src, Mask m, __m512i a, __m512i b) {                             \
      return i(_mm512_mask_max_##sfx(f(src), m, f(a), f(b)));                                        \
    }                                                                                                \
    static __m512i set1(T k) { return i(_mm512_set1_##sfx(k)); }                                     \
    static __m512i largest() { return set1(std::numeric_limits<T>::infinity()); }                    \
    static Mask below(__m512i v, __m512i p, bool inclusive) {                                        \
      return inclusive ? _mm512_cmp_##sfx##_mask(f(v), f(p), _CMP_LE_OQ)                             \
                       : _mm512_cmp_##sfx##_mask(f(v), f(p), _CMP_LT_OQ);                            \
    }                                                                                                \
  }
CGRAD_FLOAT_VEC(float, uint32_t, __m512, ps);
CGRAD_FLOAT_VEC(double, uint64_t, __m512d, pd);
#undef CGRAD_FLOAT_VEC

// The first n of L lanes, n <= L (no branch: 1 << L still fits the unsigned).
template <class K>
typename Vec<K>::Mask first_lanes(std::size_t n) {
  return static_cast<typename Vec<K>::Mask>((1u << n) - 1);
}

// The bitonic network over the L lanes of a register: log2(L) (log2(L) + 1) / 2 steps, each
// pairing every lane with the lane j away (a shuffle: partners, below) and keeping the larger key
// of the pair in the lanes keeps_max marks; the last log2(L) steps (j = L/2, ..., 1, every lane
// ascending) sort a bitonic register.
template <class K>
struct Network {
  static constexpr int L = Vec<K>::kLanes, kSteps = L == 16 ? 10 : 6, kMerge = L == 16 ? 4 : 3;
  int distance[kSteps];
  uint16_t keeps_max[kSteps];
};
template <class K>
constexpr Network<K> make_network() {
  constexpr int L = Network<K>::L;
  Network<K> net{};
  int s = 0;
  for (int k = 2; k <= L; k *= 2)
    for (int j = k / 2; j >= 1; j /= 2, ++s) {
      uint16_t mask = 0;
      for (int i = 0; i < L; ++i) {
        const int p = i ^ j;
        const bool ascending = (i & k) == 0, lower = i < p;
        if (lower != ascending) mask = static_cast<uint16_t>(mask | (1u << i));
      }
      net.distance[s] = j;
      net.keeps_max[s] = mask;
    }
  return net;
}
constexpr Network<uint32_t> kNetwork32 = make_network<uint32_t>();
constexpr Network<uint64_t> kNetwork64 = make_network<uint64_t>();
template <class K>
constexpr const Network<Bits<K>>& network_of() {
  if constexpr (sizeof(K) == 4)
    return kNetwork32;
  else
    return kNetwork64;
}

// Each lane's partner J lanes away (J a power of two, within the register): an in-lane shuffle
// with an immediate, which a permute with an index register (the general form) costs more than:
// rows of 100 random keys, one thread, 32-bit 154 -> 142 ns per row, 64-bit 300 -> 255.
template <class K, int J>
inline __m512i partners(__m512i v) {
  constexpr int bytes = J * static_cast<int>(sizeof(K));
  static_assert(bytes == 4 || bytes == 8 || bytes == 16 || bytes == 32);
  if constexpr (bytes == 4)  // the 32-bit words of each 64 bits swapped
    return _mm512_maskz_shuffle_epi32(0xFFFF, v, _MM_PERM_CDAB);
  else if constexpr (bytes == 8)  // the 64-bit halves of each 128 bits
    return _mm512_maskz_shuffle_epi32(0xFFFF, v, _MM_PERM_BADC);
  else if constexpr (bytes == 16)  // the 128-bit halves of each 256 bits
    return _mm512_maskz_permutex_epi64(0xFF, v, 0x4E);
  else  // the 256-bit halves
    return _mm512_maskz_shuffle_i64x2(0xFF, v, v, 0x4E);
}

// Network steps [From, To) on one register.
template <class K, int From, int To>
inline __m512i network(__m512i v) {
  using V = Vec<K>;
  if constexpr (From < To) {
    const __m512i w = partners<K, network_of<K>().distance[From]>(v);
    v = V::max_into(V::min(v, w), static_cast<typename V::Mask>(network_of<K>().keeps_max[From]), v, w);
    return network<K, From + 1, To>(v);
  } else {
    return v;
  }
}

template <class K>
inline void compare_exchange(__m512i& lo, __m512i& hi) {
  const __m512i mn = Vec<K>::min(lo, hi);
  hi = Vec<K>::max(lo, hi);
  lo = mn;
}

// The register steps of a bitonic merge of v[g, g + 2 H): compare-exchanges H registers apart,
// then H / 2 within each half, down to neighbours.
template <class K, int R, int H>
__attribute__((always_inline)) inline void compare_exchange_at(__m512i (&v)[R], int g) {
  if constexpr (H >= 1) {
#pragma GCC unroll 32
    for (int i = g; i < g + H; ++i) compare_exchange<K>(v[i], v[i + H]);
    compare_exchange_at<K, R, H / 2>(v, g);
    compare_exchange_at<K, R, H / 2>(v, g + H);
  }
}

// Merges the sorted runs of W registers of v[0, R) pairwise, then those of 2 W, up to one run:
// the second run of a pair reversed, the two are a bitonic sequence, which compare-exchanges at
// halving distances (registers, then lanes) sort. Every loop has constant bounds and is unrolled:
// the registers must not become an array in memory.
template <class K, int R, int W>
__attribute__((always_inline)) inline void merge_runs(__m512i (&v)[R]) {
  if constexpr (W < R) {
    constexpr int S = Network<K>::kSteps;
#pragma GCC unroll 32
    for (int g = 0; g < R; g += 2 * W) {
#pragma GCC unroll 32
      for (int i = 0; i < W / 2; ++i) std::swap(v[g + W + i], v[g + 2 * W - 1 - i]);
#pragma GCC unroll 32
      for (int i = 0; i < W; ++i) v[g + W + i] = Vec<K>::permute(Vec<K>::reverse(), v[g + W + i]);
      compare_exchange_at<K, R, W>(v, g);
#pragma GCC unroll 32
      for (int i = g; i < g + 2 * W; ++i) v[i] = network<K, S - Network<K>::kMerge, S>(v[i]);
    }
    merge_runs<K, R, 2 * W>(v);
  }
}

// Batcher's odd-even merge sort of N inputs (N a power of two): its compare-exchanges, in order
// (19 for 8 inputs, 63 for 16).
template <int N>
struct OddEvenNetwork {
  int count = 0;
  int lo[N * N] = {}, hi[N * N] = {};
};
template <int N>
constexpr OddEvenNetwork<N> make_odd_even() {
  OddEvenNetwork<N> net;
  for (int p = 1; p < N; p *= 2)
    for (int k = p; k >= 1; k /= 2)
      for (int j = k % p; j + k < N; j += 2 * k)
        for (int i = 0; i < k && i + j + k < N; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) {
            net.lo[net.count] = i + j;
            net.hi[net.count] = i + j + k;
            ++net.count;
          }
  return net;
}
template <int N>
constexpr OddEvenNetwork<N> kOddEven = make_odd_even<N>();

// The lanes of one step of a transpose of L registers, D lanes apart: of the registers a and b,
// for each 2 D lanes, the first D lanes of a then those of b (`high`: the second D lanes of each).
template <class K, int D, bool High>
struct TransposeLanes {
  alignas(64) Bits<K> lane[Vec<K>::kLanes];
  constexpr TransposeLanes() : lane() {
    constexpr int L = Vec<K>::kLanes;
    for (int q = 0; q < L; ++q) {
      const int chunk = q / (2 * D), w = q % (2 * D), from_b = w >= D ? L : 0;
      lane[q] = static_cast<Bits<K>>(from_b + chunk * 2 * D + w % D + (High ? D : 0));
    }
  }
};
template <class K, int D, bool High>
constexpr TransposeLanes<K, D, High> kTransposeLanes{};

// Transposes the L x L block of keys in v[b, b + L): log2(L) steps of 2-register shuffles.
template <class K, int R, int D>
__attribute__((always_inline)) inline void transpose(__m512i (&v)[R], int b) {
  constexpr int L = Vec<K>::kLanes;
  if constexpr (D < L) {
    const __m512i lo = _mm512_load_si512(kTransposeLanes<K, D, false>.lane);
    const __m512i hi = _mm512_load_si512(kTransposeLanes<K, D, true>.lane);
#pragma GCC unroll 32
    for (int i = 0; i < L; ++i)
      if ((i & D) == 0) {
        const __m512i x = v[b + i], y = v[b + i + D];
        v[b + i] = Vec<K>::permute2(x, lo, y);
        v[b + i + D] = Vec<K>::permute2(x, hi, y);
      }
    transpose<K, R, 2 * D>(v, b);
  }
}

// The key type a network of R registers of K compares as: f32 in at most 4 registers as the
// signed integers of ordered_bits. Those networks wait on chains of dependent steps, and a float
// min or max takes 4 cycles where an integer one takes 1: rows of 33-80 f32 as floats took
// 1.05-1.4x the time of their keys. Larger networks keep float compares (they are bound by
// throughput, where the conversions cost: 256 keys 1.17x slower), and f64 does too (64-bit integer
// min and max run on one port: f64 rows of 64-4096 1.1-1.4x slower).
template <class K, int R>
using NetKey = std::conditional_t<std::is_same_v<K, float> && R <= 4, int32_t, K>;

// Bits whose order as signed integers is the float's order (a negative float's bits but the sign
// complemented), their own inverse, where N is int32_t for a float K; else v itself.
template <class K, class N>
inline __m512i ordered_bits(__m512i v) {
  if constexpr (std::is_same_v<K, float> && std::is_same_v<N, int32_t>)
    return _mm512_xor_si512(
        v, _mm512_and_si512(_mm512_maskz_srai_epi32(0xFFFF, v, 31), _mm512_set1_epi32(0x7FFFFFFF)));
  else
    return v;
}

// Sorts a[0, n), n <= L R, in place: each register sorted, then the runs merged (lanes past n
// hold the largest key, which sorts last, +inf for floats). Where R >= L, each L x L block of keys is sorted
// down its columns (compare-exchanges of whole registers, Batcher's network) and transposed, which sorts its
// registers in fewer instructions than each register's own network (63 compare-exchanges of registers and 64
// shuffles for 16 registers of 32-bit keys, against 16 x 10 network steps).
template <class K, int R>
inline void sort_registers(K* a, std::size_t n) {
  using N = NetKey<K, R>;
  constexpr std::size_t L = Vec<K>::kLanes;
  __m512i v[R];
  const __m512i largest = Vec<K>::largest();
#pragma GCC unroll 32
  for (int i = 0; i < R; ++i) {
    const std::size_t at = L * static_cast<std::size_t>(i);
    v[i] =
        ordered_bits<K, N>(Vec<K>::load(first_lanes<K>(n > at ? std::min(n - at, L) : 0), largest, a + at));
  }
  if constexpr (R >= static_cast<int>(L)) {
    constexpr auto& net = kOddEven<static_cast<int>(L)>;
#pragma GCC unroll 4
    for (int b = 0; b < R; b += static_cast<int>(L)) {
#pragma GCC unroll 64
      for (int c = 0; c < net.count; ++c) compare_exchange<N>(v[b + net.lo[c]], v[b + net.hi[c]]);
      transpose<N, R, 1>(v, b);
    }
  } else {
#pragma GCC unroll 32
    for (int i = 0; i < R; ++i) v[i] = network<N, 0, Network<N>::kSteps>(v[i]);
  }
  merge_runs<N, R, 1>(v);
#pragma GCC unroll 32
  for (int i = 0; i < R; ++i) {
    const std::size_t at = L * static_cast<std::size_t>(i);
    Vec<K>::store(a + at, first_lanes<K>(n > at ? std::min(n - at, L) : 0), ordered_bits<K, N>(v[i]));
  }
}

// Registers the partition reads per choice of side: 2, 4 and 8 took a row of 2^22 random 32-bit
// keys 25.0-25.7 / 22.6-23.0 / 21.3-21.8 ms (one thread, Emerald Rapids VM). The partition needs
// at least 2 kUnroll registers of keys, fewer than a partitioned segment holds (in_registers).
constexpr std::size_t kUnroll = 8;

// Whether a segment of n keys is sorted in registers (by sort_small) rather than partitioned.
template <class K>
constexpr bool in_registers(std::size_t n) {
  constexpr std::size_t L = Vec<K>::kLanes;
  return n <= 16 * L || (n > 24 * L && n <= 32 * L);
}
static_assert(2 * kUnroll <= 16, "a partitioned segment holds more than 16 registers of keys");

template <class K>
inline void sort_small(K* a, std::size_t n) {
  constexpr std::size_t L = Vec<K>::kLanes;
  if (n <= L)
    sort_registers<K, 1>(a, n);
  else if (n <= 2 * L)
    sort_registers<K, 2>(a, n);
  else if (n <= 4 * L)
    sort_registers<K, 4>(a, n);
  else if (n <= 8 * L)
    sort_registers<K, 8>(a, n);
  else if (n <= 16 * L)
    sort_registers<K, 16>(a, n);
  else
    sort_registers<K, 32>(a, n);
}

// Partitions a[0, n), n >= 2 U L, in place: the keys below the pivot (at most the pivot, when
// Inclusive) to a[0, l), the others to a[l, n). Returns l. The n mod L keys at the front, the next
// U registers and the last U are read first: the keys read and not yet stored (2 U L + n mod L)
// are the free slots at the two ends of the unread keys. Then U registers at a time are read from
// the end with fewer free slots, so each end has at least U L free when they are stored (the
// other end had at least half), and each register's compressed parts go to the two ends. The
// registers read first are stored last, into the gap that is then exactly their size.
// (The side is chosen once per U registers: chosen per register, the choice waits on the last
// register's counts, and rows of 4096 32-bit keys took 1.2x as long as the partition out of place.)
template <class K, bool Inclusive, std::size_t U>
std::size_t partition(K* a, std::size_t n, K pivot) {
  using V = Vec<K>;
  using Mask = typename V::Mask;
  constexpr std::size_t L = V::kLanes;
  const __m512i p = V::set1(pivot);
  std::size_t l = 0, r = n;  // stored: a[0, l) below, a[r, n) the others
  // One register's keys, of which `count` (the first, or all L) are valid. Where the left end has
  // a register's room (Room), the below keys are stored as a whole register, the lanes past them
  // into free slots.
  auto step = [&]<bool Room>(__m512i v, std::size_t count) {
    const auto below = static_cast<Mask>(V::below(v, p, Inclusive) & first_lanes<K>(count));
    const auto nl = static_cast<std::size_t>(std::popcount(static_cast<unsigned>(below)));
    const std::size_t nr = count - nl;
    if constexpr (Room)
      _mm512_storeu_si512(a + l, V::compress(below, v));
    else
      V::store(a + l, first_lanes<K>(nl), V::compress(below, v));
    r -= nr;
    V::store(a + r, first_lanes<K>(nr), V::compress(static_cast<Mask>(~below), v));
    l += nl;
  };
  const std::size_t rem = n % L;
  const Mask rem_lanes = first_lanes<K>(rem);
  const __m512i head = V::load(rem_lanes, _mm512_setzero_si512(), a);
  __m512i saved[2 * U];
#pragma GCC unroll 16
  for (std::size_t i = 0; i < U; ++i) {
    saved[i] = _mm512_loadu_si512(a + rem + i * L);
    saved[U + i] = _mm512_loadu_si512(a + n - (U - i) * L);
  }
  std::size_t read_l = rem + U * L, read_r = n - U * L;  // unread: a[read_l, read_r)
  // The next `count` registers from the end with fewer free slots.
  auto next = [&](std::size_t count) {
    const bool from_left = read_l - l <= r - read_r;
    const std::size_t at = from_left ? read_l : read_r - count * L;
    read_l += from_left ? count * L : 0;
    read_r -= from_left ? 0 : count * L;
    return a + at;
  };
  while (read_r - read_l >= U * L) {
    const K* at = next(U);
    __m512i v[U];
#pragma GCC unroll 16
    for (std::size_t i = 0; i < U; ++i) v[i] = _mm512_loadu_si512(at + i * L);
#pragma GCC unroll 16
    for (std::size_t i = 0; i < U; ++i) step.template operator()<true>(v[i], L);
  }
  while (read_l < read_r) step.template operator()<true>(_mm512_loadu_si512(next(1)), L);
  step.template operator()<false>(head, rem);
#pragma GCC unroll 16
  for (std::size_t i = 0; i < 2 * U; ++i) step.template operator()<false>(saved[i], L);
  return l;
}

template <class K>
inline K median3(K a, K b, K c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

template <class K>
K choose_pivot(const K* a, std::size_t n) {
  if (n < 512) return median3(a[0], a[n / 2], a[n - 1]);
  const std::size_t e = n / 8;
  return median3(median3(a[0], a[e], a[2 * e]), median3(a[3 * e], a[4 * e], a[5 * e]),
                 median3(a[6 * e], a[7 * e], a[n - 1]));
}

// Sorts k[0, n) in place. Recurses on the shorter part and loops on the longer one (the stack
// stays within log2(n) frames).
template <class K>
void sort_segment(K* k, std::size_t n, int depth) {
  while (!in_registers<K>(n)) {
    if (depth-- == 0) {
      std::sort(k, k + n);
      return;
    }
    const K pivot = choose_pivot(k, n);
    std::size_t l = partition<K, false, kUnroll>(k, n, pivot);
    if (l == 0) {  // the pivot is the least key: split off the keys equal to it, which are done
      l = partition<K, true, kUnroll>(k, n, pivot);
      k += l, n -= l;
      continue;
    }
    if (l <= n - l) {
      sort_segment(k, l, depth);
      k += l, n -= l;
    } else {
      sort_segment(k + l, n - l, depth);
      n = l;
    }
  }
  sort_small(k, n);
}

template <class K>
void quicksort(K* key, std::size_t n) {
  if (n < 2) return;
  sort_segment(key, n, 2 * static_cast<int>(std::bit_width(n)) + 8);
}

}  // namespace

void sort_keys32_avx512(uint32_t* key, std::size_t n) { quicksort(key, n); }
void sort_keys64_avx512(uint64_t* key, std::size_t n) { quicksort(key, n); }
void sort_ints32_avx512(int32_t* key, std::size_t n) { quicksort(key, n); }
void sort_ints64_avx512(int64_t* key, std::size_t n) { quicksort(key, n); }
void sort_floats32_avx512(float* key, std::size_t n) { quicksort(key, n); }
void sort_floats64_avx512(double* key, std::size_t n) { quicksort(key, n); }

}  // namespace cgrad::backends::cpu
