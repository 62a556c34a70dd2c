// The host discrete Fourier transforms behind cgrad::fft (include/cgrad/fft.hpp): computed in
// std::complex<double> whatever the tensor's dtype, and scaled by the caller's factor (a norm's)
// only as each output is written. Mixed radix (Cooley-Tukey, decimation in time, radices 4, 2,
// 3, 5 and any other prime up to kLargestRadix through a generic butterfly); a length with a
// larger prime factor goes through Bluestein's chirp-z algorithm on a power-of-two length, so
// every length costs O(n log n). Real input and real output of even length take a complex
// transform of half the length. Plans (the factorization and roots of unity of one length) are
// cached per process and shared by threads.
#pragma once

#include <cgrad/core.hpp>

#include <complex>
#include <cstdint>
#include <vector>

namespace cgrad::fft::host {

using C = std::complex<double>;

/// The largest prime factor handled by a butterfly of its own (O(p) per element); lengths with a
/// larger one use Bluestein's algorithm.
inline constexpr int64_t kLargestRadix = 31;

/// A read-only strided array in host memory of f32, f64, c64 or c128 elements: element (i0, i1,
/// ...) at data + sum(i_k strides[k]) elements.
struct Strided {
  const void* data = nullptr;
  DType dtype = DType::c128;
  Shape shape;
  std::vector<int64_t> strides;
};

/// Tests: the butterflies run at most `lanes` lines at once (2 or 4; fft/lanes.h), 0 the widest
/// build the CPU runs (the default). The results are the same bits either way.
void set_max_lanes(int lanes);

/// The functions that write `out` take C or std::complex<float> (double or float for c2r): the
/// result times `scale` (a norm's factor, 1 for none: then exactly the unscaled transform),
/// multiplied in double as each output is written and rounded once to the output's precision.
///
/// out (row-major, in.shape) := scale times the DFT of `in` along `axis`: X_k = sum_j x_j
/// exp(-+2 pi i j k / n), the sign + where `inverse`.
template <class Out>
void c2c(const Strided& in, int64_t axis, bool inverse, double scale, Out* out);
/// The same in place on a row-major array of `shape`.
void c2c(C* data, const Shape& shape, int64_t axis, bool inverse, double scale);
/// out (row-major, in.shape with `axis` n / 2 + 1 long) := scale times the first n / 2 + 1
/// outputs of the forward DFT of the real `in` (n long along `axis`).
template <class Out>
void r2c(const Strided& in, int64_t axis, double scale, Out* out);
/// out (row-major real, in.shape with `axis` n long) := scale times the inverse DFT of the
/// Hermitian spectrum whose first n / 2 + 1 values `in` holds along `axis` (the imaginary parts
/// of the zero and, for even n, the n / 2 frequency are ignored).
template <class Out>
void c2r(const Strided& in, int64_t axis, int64_t n, double scale, Out* out);

}  // namespace cgrad::fft::host
