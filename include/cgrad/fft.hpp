/// The discrete Fourier transform: the Array API fft extension's fft, ifft, fftn, ifftn, rfft,
/// irfft, rfftn, irfftn, hfft, ihfft, fftfreq, rfftfreq, fftshift and ifftshift, with NumPy's
/// semantics (docs/fft.md). `n` / `s` pad the input with zeros or cut it along the transformed
/// axes; `norm` is "backward" (no scaling forward, 1/n inverse), "ortho" (1/sqrt(n) both ways) or
/// "forward" (1/n forward, none inverse). fft and ifft take complex or real floating input
/// (complex output of the matching precision: f32 -> c64, f64 -> c128); rfft and ihfft real
/// floating input; irfft and hfft return the real dtype of their (complex) input.
///
/// The transforms themselves are not lazy: one complex-to-complex transform over the given axes
/// evaluates its input (a synchronisation point, as linalg's decompositions) and runs on the
/// host in complex<double> (mixed radix 2/3/4/5 and Bluestein's algorithm: O(n log n) for every
/// length). Everything around it (padding, cutting, conjugating, the Hermitian extension of
/// irfft, scaling, the shifts and frequencies) is lazy cgrad ops that fuse. Every function is
/// differentiable: the transform's backward is the opposite transform.
#pragma once

#include <cgrad/tensor.hpp>

#include <optional>
#include <string_view>
#include <vector>

namespace cgrad::fft {

using Sizes = std::optional<std::vector<int64_t>>;

/// Along one axis; n: the transform's length (default the axis' length).
Tensor fft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           std::string_view norm = "backward");
Tensor ifft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            std::string_view norm = "backward");
/// Over `axes` (default: every axis), s: the lengths along them (without axes: one per axis of x).
Tensor fftn(const Tensor& x, const Sizes& s = std::nullopt, const Sizes& axes = std::nullopt,
            std::string_view norm = "backward");
Tensor ifftn(const Tensor& x, const Sizes& s = std::nullopt, const Sizes& axes = std::nullopt,
             std::string_view norm = "backward");
/// Of real input: the n / 2 + 1 non-negative frequencies.
Tensor rfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            std::string_view norm = "backward");
/// rfft's inverse: a real signal of length n (default 2 (m - 1) for m input frequencies) from
/// its non-negative frequencies; the imaginary parts of the zero (and for even n the n / 2)
/// frequency are ignored.
Tensor irfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
             std::string_view norm = "backward");
/// rfft over the last of `axes`, then fft over the others; irfftn the inverse.
Tensor rfftn(const Tensor& x, const Sizes& s = std::nullopt, const Sizes& axes = std::nullopt,
             std::string_view norm = "backward");
Tensor irfftn(const Tensor& x, const Sizes& s = std::nullopt, const Sizes& axes = std::nullopt,
              std::string_view norm = "backward");
/// The real spectrum of a signal with Hermitian symmetry, given by its first half; ihfft the
/// inverse (irfft and rfft with the opposite norm, conjugated).
Tensor hfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            std::string_view norm = "backward");
Tensor ihfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
             std::string_view norm = "backward");

/// The sample frequencies of an n-point transform with sample spacing d: [0, 1, ..., (n - 1) / 2,
/// -(n / 2), ..., -1] / (d n); rfftfreq the first n / 2 + 1 of them (non-negative). dtype: a real
/// floating one.
Tensor fftfreq(int64_t n, double d = 1.0, DType dtype = DType::f32, Device device = Device::cpu());
Tensor rfftfreq(int64_t n, double d = 1.0, DType dtype = DType::f32, Device device = Device::cpu());
/// The zero frequency moved to the middle of `axes` (default: every axis); ifftshift undoes it.
Tensor fftshift(const Tensor& x, const Sizes& axes = std::nullopt);
Tensor ifftshift(const Tensor& x, const Sizes& axes = std::nullopt);

}  // namespace cgrad::fft
