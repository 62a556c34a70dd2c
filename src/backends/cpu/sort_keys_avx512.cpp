// A quicksort of 32-bit keys for AVX-512F, 16 keys per instruction. Built with -mavx512f
// (src/CMakeLists.txt); nothing in it runs unless sort_keys.cpp found AVX-512F on the CPU.
//
// - Partition: out of place, from one buffer (the keys or the scratch) into the other, 16 keys at a
//   time: a compare against the pivot gives a mask, and the keys below it are compressed to the
//   front (vpcompressd into a register, then a masked store: Zen 4 runs vpcompressd with a memory
//   operand slowly), the others to the back. Each level of the recursion reads one buffer and
//   writes the other; a segment of at most 256 keys is sorted in up to 16 registers by bitonic
//   networks and stored where the sorted keys belong (the keys' buffer). With 16 keys at the
//   bottom instead, a row of 4096 random keys spent most of its time on the partitions'
//   branches: 5.7 ns per key against the radix sort's 3.2; with 256, and every network's loops
//   unrolled (an array of registers indexed at run time lives in memory), 1.8.
// - Pivot: the median of three keys (of three medians of three from 512 keys up).
// - Equal keys: when no key is below the pivot, it is the least key; the keys equal to it are split
//   off by a second partition (less than or equal), and a segment of one key is done.
// - Depth: past 2 log2(n) + 8 levels (inputs that defeat the pivot), std::sort finishes the segment.
#include "backends/cpu/sort_keys.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace cgrad::backends::cpu {

namespace {

// The bitonic network over the 16 lanes of a register: 10 steps, each a permutation (every lane
// with its partner) and the lanes that keep the larger key of their pair.
constexpr int kSteps = 10;
struct Network {
  alignas(64) uint32_t partner[kSteps][16];
  uint16_t keeps_max[kSteps];
};
constexpr Network make_network() {
  Network net{};
  int s = 0;
  for (int k = 2; k <= 16; k *= 2)
    for (int j = k / 2; j >= 1; j /= 2, ++s) {
      uint16_t mask = 0;
      for (int i = 0; i < 16; ++i) {
        const int p = i ^ j;
        net.partner[s][i] = static_cast<uint32_t>(p);
        const bool ascending = (i & k) == 0, lower = i < p;
        if (lower != ascending) mask = static_cast<uint16_t>(mask | (1u << i));
      }
      net.keeps_max[s] = mask;
    }
  return net;
}
constexpr Network kNetwork = make_network();

// Network steps [from, to) on one register: all of them sort it; the last four (partners 8, 4,
// 2, 1 lanes away, every lane ascending) sort a bitonic one.
template <int From, int To>
inline __m512i network(__m512i v) {
#pragma GCC unroll 16
  for (int s = From; s < To; ++s) {
    const __m512i w = _mm512_maskz_permutexvar_epi32(0xFFFF, _mm512_load_si512(kNetwork.partner[s]), v);
    v = _mm512_mask_max_epu32(_mm512_maskz_min_epu32(0xFFFF, v, w), kNetwork.keeps_max[s], v, w);
  }
  return v;
}

inline void compare_exchange(__m512i& lo, __m512i& hi) {
  const __m512i mn = _mm512_maskz_min_epu32(0xFFFF, lo, hi);
  hi = _mm512_maskz_max_epu32(0xFFFF, lo, hi);
  lo = mn;
}

// The register steps of a bitonic merge of v[g, g + 2 H): compare-exchanges H registers apart,
// then H / 2 within each half, down to neighbours.
template <int R, int H>
__attribute__((always_inline)) inline void compare_exchange_at(__m512i (&v)[R], int g) {
  if constexpr (H >= 1) {
#pragma GCC unroll 16
    for (int i = g; i < g + H; ++i) compare_exchange(v[i], v[i + H]);
    compare_exchange_at<R, H / 2>(v, g);
    compare_exchange_at<R, H / 2>(v, g + H);
  }
}

// Merges the sorted runs of W registers of v[0, R) pairwise, then those of 2 W, up to one run:
// the second run of a pair reversed, the two are a bitonic sequence, which compare-exchanges at
// halving distances (registers, then lanes) sort. Every loop has constant bounds and is unrolled:
// the registers must not become an array in memory.
template <int R, int W>
__attribute__((always_inline)) inline void merge_runs(__m512i (&v)[R]) {
  if constexpr (W < R) {
    const __m512i reverse = _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#pragma GCC unroll 16
    for (int g = 0; g < R; g += 2 * W) {
#pragma GCC unroll 16
      for (int i = 0; i < W / 2; ++i) std::swap(v[g + W + i], v[g + 2 * W - 1 - i]);
#pragma GCC unroll 16
      for (int i = 0; i < W; ++i)
        v[g + W + i] = _mm512_maskz_permutexvar_epi32(0xFFFF, reverse, v[g + W + i]);
      compare_exchange_at<R, W>(v, g);
#pragma GCC unroll 16
      for (int i = g; i < g + 2 * W; ++i) v[i] = network<kSteps - 4, kSteps>(v[i]);
    }
    merge_runs<R, 2 * W>(v);
  }
}

// Sorts the 16 R keys of v[0, R) (R a power of two): each register by the network, then the
// runs merged.
template <int R>
inline void sort_registers(__m512i (&v)[R]) {
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) v[i] = network<0, kSteps>(v[i]);
  merge_runs<R, 1>(v);
}

// Sorts src[0, n), n <= 16 R, into out (lanes past n hold the largest key, which sorts last).
template <int R>
inline void sort_registers(const uint32_t* src, uint32_t* out, std::size_t n) {
  __m512i v[R];
  const __m512i ones = _mm512_set1_epi32(-1);
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) {
    const std::size_t at = 16 * static_cast<std::size_t>(i), left = n > at ? n - at : 0;
    const auto m = static_cast<__mmask16>(left >= 16 ? 0xFFFFu : (1u << left) - 1);
    v[i] = _mm512_mask_loadu_epi32(ones, m, src + at);
  }
  sort_registers<R>(v);
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) {
    const std::size_t at = 16 * static_cast<std::size_t>(i), left = n > at ? n - at : 0;
    const auto m = static_cast<__mmask16>(left >= 16 ? 0xFFFFu : (1u << left) - 1);
    _mm512_mask_storeu_epi32(out + at, m, v[i]);
  }
}

// Segments of at most this many keys are sorted in registers.
constexpr std::size_t kSmall = 16 * 16;

inline void sort_small(const uint32_t* src, uint32_t* out, std::size_t n) {
  if (n <= 16)
    sort_registers<1>(src, out, n);
  else if (n <= 32)
    sort_registers<2>(src, out, n);
  else if (n <= 64)
    sort_registers<4>(src, out, n);
  else if (n <= 128)
    sort_registers<8>(src, out, n);
  else
    sort_registers<16>(src, out, n);
}

// Partitions src[0, n) into dst: the keys below the pivot (at most the pivot, when Inclusive)
// from dst[0] up, the others from dst[n] down. Returns how many keys went first.
template <bool Inclusive>
std::size_t partition(const uint32_t* src, uint32_t* dst, std::size_t n, uint32_t pivot) {
  const __m512i p = _mm512_set1_epi32(static_cast<int>(pivot));
  std::size_t l = 0, r = n, i = 0;
  auto step = [&](__m512i v, __mmask16 valid) {
    const __mmask16 below = static_cast<__mmask16>(
        (Inclusive ? _mm512_cmple_epu32_mask(v, p) : _mm512_cmplt_epu32_mask(v, p)) & valid);
    const __mmask16 above = static_cast<__mmask16>(~below & valid);
    const auto nl = static_cast<unsigned>(std::popcount(static_cast<unsigned>(below)));
    const auto nr = static_cast<unsigned>(std::popcount(static_cast<unsigned>(above)));
    _mm512_mask_storeu_epi32(dst + l, static_cast<__mmask16>((1u << nl) - 1),
                             _mm512_maskz_compress_epi32(below, v));
    r -= nr;
    _mm512_mask_storeu_epi32(dst + r, static_cast<__mmask16>((1u << nr) - 1),
                             _mm512_maskz_compress_epi32(above, v));
    l += nl;
  };
  for (; i + 16 <= n; i += 16) step(_mm512_loadu_si512(src + i), 0xFFFF);
  if (i < n) {
    const auto valid = static_cast<__mmask16>((1u << (n - i)) - 1);
    step(_mm512_maskz_loadu_epi32(valid, src + i), valid);
  }
  return l;
}

inline uint32_t median3(uint32_t a, uint32_t b, uint32_t c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

uint32_t choose_pivot(const uint32_t* a, std::size_t n) {
  if (n < 512) return median3(a[0], a[n / 2], a[n - 1]);
  const std::size_t e = n / 8;
  return median3(median3(a[0], a[e], a[2 * e]), median3(a[3 * e], a[4 * e], a[5 * e]),
                 median3(a[6 * e], a[7 * e], a[n - 1]));
}

// Sorts a segment of n keys into k[0, n): they lie in k[0, n) (in_key) or in t[0, n), the same
// segment of the scratch, and each partition moves them to the other buffer. Recurses on the
// shorter part and loops on the longer one (the stack stays within log2(n) frames).
void sort_segment(uint32_t* k, uint32_t* t, std::size_t n, bool in_key, int depth) {
  while (n > kSmall) {
    uint32_t* src = in_key ? k : t;
    uint32_t* dst = in_key ? t : k;
    if (depth-- == 0) {
      std::sort(src, src + n);
      if (!in_key) std::memcpy(k, src, n * sizeof(uint32_t));
      return;
    }
    const uint32_t pivot = choose_pivot(src, n);
    std::size_t l = partition<false>(src, dst, n, pivot);
    in_key = !in_key;  // both parts lie in dst now
    if (l == 0) {      // the pivot is the least key: split off the keys equal to it, which are done
      l = partition<true>(src, dst, n, pivot);
      std::fill(k, k + l, pivot);
      k += l, t += l, n -= l;
      continue;
    }
    if (l <= n - l) {
      sort_segment(k, t, l, in_key, depth);
      k += l, t += l, n -= l;
    } else {
      sort_segment(k + l, t + l, n - l, in_key, depth);
      n = l;
    }
  }
  sort_small(in_key ? k : t, k, n);
}

}  // namespace

void sort_keys32_avx512(uint32_t* key, uint32_t* tmp, std::size_t n) {
  if (n < 2) return;
  sort_segment(key, tmp, n, true, 2 * static_cast<int>(std::bit_width(n)) + 8);
}

}  // namespace cgrad::backends::cpu
