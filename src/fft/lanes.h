// The butterflies of fft/host.cpp on vectors of lines, one build per x86 instruction set: the
// baseline's two lines per SSE2 vector (host.cpp) and four per AVX2 vector (host_avx2.cpp), each
// including fft/butterflies.inc. Every lane computes exactly what the one-line code computes for
// its line (the same operations in the same order, no contraction), so the width never changes a
// bit. (Eight lines per AVX-512 vector ran slower from 256 points a line, its buffers past L1 and
// L2, and at most 5% faster below: bench/NOTES.md.)
#pragma once

#include <cstdint>

namespace cgrad::fft::host {

/// A plan's tables as the butterflies read them: plain pointers and (re, im) pairs of doubles,
/// so that the wider builds instantiate no library template the baseline build also does (the
/// linker keeps one copy of each, which could be the one built with AVX2).
struct PlanView {
  int64_t n = 0;
  const int64_t* stages = nullptr;  ///< (radix, length left) pairs, outermost first
  const double* const* twiddles =
      nullptr;                    ///< per stage, (re, im) pairs in the order its butterfly reads them
  const double* roots = nullptr;  ///< exp(-2 pi i k / n), k < n, as (re, im) pairs
  double sin3 = 0;                ///< Im exp(-2 pi i / 3)
  double root5[4] = {};           ///< exp(-2 pi i / 5), exp(-4 pi i / 5) as (re, im) pairs
};

#if defined(__x86_64__)
/// b := the forward transforms of the W = 4 lines interleaved in a: point i of line l at
/// a[2 W i + l] (real part) and a[2 W i + W + l] (imaginary); b the same. Both 64-byte aligned,
/// pl.n points each, pl a plan without Bluestein's convolution. With s > 0 the lines are
/// sub-transforms of stage s on (n / fs points each, fs the product of the radices before s),
/// as the recursion computes them inside one line. Call only where the CPU has AVX2.
void forward_lanes_avx2(const PlanView& pl, const double* a, double* b, int64_t fs = 1, int64_t s = 0);
#endif

}  // namespace cgrad::fft::host
