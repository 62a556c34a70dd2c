// Scalar helpers: the one definition of what every element-wise op computes on one element.
//
// The reference interpreter, the generated CPU/CUDA kernels and the compile-time expression
// templates (cgrad::et) all call these functions, so an op's arithmetic is written exactly once.
// Each helper is named after its row in cgrad/ops.def. The header compiles as host C++20, under
// nvcc (functions become __host__ __device__) and under NVRTC (no standard headers there).
//
// Semantics that differ from naive C++ and are documented in docs/semantics.md:
//  - integer + - * and negation wrap modulo 2^bits (two's complement), never undefined
//    behaviour; 8- and 16-bit values compute in 32-bit unsigned arithmetic, so no operand is
//    promoted to `int` and overflows there;
//  - integer division by zero gives 0, INT_MIN / -1 gives INT_MIN (the frontend's `/` is true
//    division and never emits an integer division);
//  - integer pow with a negative exponent gives 1/base^e truncated toward zero (0 unless |base| == 1);
//  - maximum/minimum propagate NaN like NumPy and PyTorch;
//  - float -> integer casts saturate to the target's range and map NaN to 0 (C++ leaves both
//    undefined); integer -> narrower integer casts wrap modulo 2^bits (as C++20 defines).
#pragma once

#if defined(__CUDACC_RTC__)
#define CGRAD_HD __host__ __device__
#define CGRAD_SCALAR_NO_STD 1
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#elif defined(CGRAD_SCALAR_FREESTANDING)
// Generated CPU kernels: no standard headers (parsing <cmath> costs more than compiling the
// kernel); the compiler's builtins give the same libm functions.
#define CGRAD_HD
#define CGRAD_SCALAR_NO_STD 1
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
#else
#include <cmath>
#include <cstdint>
#if defined(__CUDACC__)
#define CGRAD_HD __host__ __device__
#else
#define CGRAD_HD
#endif
#endif

// In generated CPU kernels (freestanding units), every function is inlined: kernels are compiled
// below -O3 (GCC: -O1 and some -O2 passes; first calls), whose inliners leave longer functions
// (sin, tanh, pow) as calls, and a loop vectorizes only over functions inlined into it.
#if defined(CGRAD_SCALAR_FREESTANDING) && defined(__GNUC__) && defined(__OPTIMIZE__)
#define CGRAD_SCALAR_INLINE CGRAD_HD inline __attribute__((always_inline))
#else
#define CGRAD_SCALAR_INLINE CGRAD_HD inline
#endif
// The longest functions (f64 erf and pow, and the entry points that call them), inlined wherever
// an optimizing GCC or Clang compiles them: a loop vectorizes only over functions inlined into it,
// and GCC 12's inliner left erf as a call where a loop called it twice (erf(x / sqrt 2) + erf(3x)
// of 2^22 f64: 143 ms, one call 14), pow where a unit had four calls. NVRTC's code calls
// libdevice's functions instead.
#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(__CUDACC__)
#define CGRAD_SCALAR_INLINE_ALWAYS CGRAD_SCALAR_INLINE __attribute__((always_inline))
#else
#define CGRAD_SCALAR_INLINE_ALWAYS CGRAD_SCALAR_INLINE
#endif
#if defined(CGRAD_SCALAR_FREESTANDING)
#define CGRAD_LIBM(f) __builtin_##f
#else
#define CGRAD_LIBM(f) ::f
#endif
// The lean part. Parsing this whole header is about 20 ms of a generated CPU unit's cold compile
// (a one-loop kernel: 47 ms against 26 without it; docs/jit.md). A unit defines CGRAD_SCALAR_LEAN
// before including it when every helper it calls is named in CGRAD_SCALAR_LEAN_NAMES and it holds
// no complex value (src/codegen/render_cpu.cpp decides, reading this list): the header then skips
// the f32 and f64 trigonometric and inverse functions, erf, pow and the complex group's helpers.
// Their entry points stay declared, so overloads resolve as in the whole header, and a call of
// one from a lean unit is a compile error rather than a call of another overload.
#define CGRAD_SCALAR_LEAN_NAMES                                                                  \
  " neg exp log sqrt rsqrt abs tanh sigmoid relu cast floor ceil trunc round sign signbit isnan" \
  " isinf isfinite log1p expm1 log2 log10 sinh cosh bitwise_invert logical_not add sub mul div"  \
  " maximum minimum lt le gt ge eq ne hypot copysign nextafter logaddexp remainder floor_divide" \
  " bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift logical_and"       \
  " logical_or logical_xor where beats_maximum beats_minimum ties arg_maximum arg_minimum"       \
  " arg_lanes"                                                                                   \
  " rand_uniform rand_normal take order_key inf quiet_nan f16_block_load f16_block_store "

namespace cgrad::scalar {

template <class T>
struct is_float {
  static constexpr bool value = false;
};
template <>
struct is_float<float> {
  static constexpr bool value = true;
};
template <>
struct is_float<double> {
  static constexpr bool value = true;
};
template <class T>
struct is_bool {
  static constexpr bool value = false;
};
template <>
struct is_bool<bool> {
  static constexpr bool value = true;
};
// Integers: the unsigned type their wrapping arithmetic is done in (32 bits at least, so that
// 8- and 16-bit operands are not promoted to int) and their range. No <limits> under NVRTC.
template <class T>
struct int_info;
#define CGRAD_INT_INFO(T, U, LO, HI)              \
  template <>                                     \
  struct int_info<T> {                            \
    using wide_unsigned = U;                      \
    static constexpr T lowest = LO, highest = HI; \
  };
CGRAD_INT_INFO(int8_t, uint32_t, -128, 127)
CGRAD_INT_INFO(int16_t, uint32_t, -32768, 32767)
CGRAD_INT_INFO(int32_t, uint32_t, -2147483647 - 1, 2147483647)
CGRAD_INT_INFO(int64_t, uint64_t, -9223372036854775807LL - 1, 9223372036854775807LL)
CGRAD_INT_INFO(uint8_t, uint32_t, 0, 255)
CGRAD_INT_INFO(uint16_t, uint32_t, 0, 65535)
CGRAD_INT_INFO(uint32_t, uint32_t, 0, 4294967295U)
CGRAD_INT_INFO(uint64_t, uint64_t, 0, 18446744073709551615ULL)
#undef CGRAD_INT_INFO
template <class T>
struct unsigned_of {
  using type = typename int_info<T>::wide_unsigned;
};
template <class T>
struct is_signed_int {
  static constexpr bool value = false;
};
template <>
struct is_signed_int<int8_t> {
  static constexpr bool value = true;
};
template <>
struct is_signed_int<int16_t> {
  static constexpr bool value = true;
};
template <>
struct is_signed_int<int32_t> {
  static constexpr bool value = true;
};
template <>
struct is_signed_int<int64_t> {
  static constexpr bool value = true;
};

// ---- the helpers' names: one set per kind of build ----
// Every function of this header sits in an inline namespace named after how the including code
// evaluates a * b + c: `exact` in the library (CMake defines CGRAD_SCALAR_EXACT_FMA there and
// compiles with -ffp-contract=off), `fused` or `unfused` in other code, after the fma_ it gets. Inline
// functions have one symbol per name, and where a build does not inline them (Debug) the linker keeps one
// copy for the whole program: with a single name, a user's copy of fma_ built without FMA instructions (a * b
// + c, two roundings) could become the interpreter's. Found by the dev build of the tests, 2026-11-29: `f64`
// `expm1` 1.21 ulp off; tests/ops/test_scalar_names.cpp checks that each kind keeps its own copy. Callers
// never name the inline namespace: `cgrad::scalar::exp_` finds it in either. All the functions
// are in it, none outside: an unqualified call inside it would not see an overload outside it
// (m_fmod(double, double) outside was hidden by m_fmod(float, float) inside, and remainder of
// f64 computed in float). The types (float16_t, complex_t, the traits) are the same in every
// build and keep one name, so that they can appear in the library's interface.
#if defined(CGRAD_SCALAR_FREESTANDING) || defined(CGRAD_SCALAR_EXACT_FMA) || defined(__CUDACC_RTC__) || \
    defined(__CUDA_ARCH__) || defined(__FMA__) || defined(__aarch64__)
#define CGRAD_SCALAR_FMA_FUSED 1  // fma_ (below) rounds once
#else
#define CGRAD_SCALAR_FMA_FUSED 0
#endif
#if defined(CGRAD_SCALAR_EXACT_FMA)
#define CGRAD_SCALAR_NAMES exact
#elif CGRAD_SCALAR_FMA_FUSED
#define CGRAD_SCALAR_NAMES fused
#else
#define CGRAD_SCALAR_NAMES unfused
#endif
inline namespace CGRAD_SCALAR_NAMES {

// ---- math primitives, overloaded for float and double so `float` stays single precision ----
CGRAD_SCALAR_INLINE float m_exp(float x) { return CGRAD_LIBM(expf)(x); }
CGRAD_SCALAR_INLINE double m_exp(double x) { return CGRAD_LIBM(exp)(x); }
CGRAD_SCALAR_INLINE float m_log(float x) { return CGRAD_LIBM(logf)(x); }
CGRAD_SCALAR_INLINE double m_log(double x) { return CGRAD_LIBM(log)(x); }
CGRAD_SCALAR_INLINE float m_sqrt(float x) { return CGRAD_LIBM(sqrtf)(x); }
CGRAD_SCALAR_INLINE double m_sqrt(double x) { return CGRAD_LIBM(sqrt)(x); }
CGRAD_SCALAR_INLINE float m_sin(float x) { return CGRAD_LIBM(sinf)(x); }
CGRAD_SCALAR_INLINE double m_sin(double x) { return CGRAD_LIBM(sin)(x); }
CGRAD_SCALAR_INLINE float m_cos(float x) { return CGRAD_LIBM(cosf)(x); }
CGRAD_SCALAR_INLINE double m_cos(double x) { return CGRAD_LIBM(cos)(x); }
CGRAD_SCALAR_INLINE float m_tanh(float x) { return CGRAD_LIBM(tanhf)(x); }
CGRAD_SCALAR_INLINE double m_tanh(double x) { return CGRAD_LIBM(tanh)(x); }
CGRAD_SCALAR_INLINE float m_pow(float x, float y) { return CGRAD_LIBM(powf)(x, y); }
CGRAD_SCALAR_INLINE double m_pow(double x, double y) { return CGRAD_LIBM(pow)(x, y); }
CGRAD_SCALAR_INLINE float m_fabs(float x) { return CGRAD_LIBM(fabsf)(x); }
CGRAD_SCALAR_INLINE double m_fabs(double x) { return CGRAD_LIBM(fabs)(x); }
CGRAD_SCALAR_INLINE float m_floor(float x) { return CGRAD_LIBM(floorf)(x); }
CGRAD_SCALAR_INLINE double m_floor(double x) { return CGRAD_LIBM(floor)(x); }
CGRAD_SCALAR_INLINE float m_ceil(float x) { return CGRAD_LIBM(ceilf)(x); }
CGRAD_SCALAR_INLINE double m_ceil(double x) { return CGRAD_LIBM(ceil)(x); }
CGRAD_SCALAR_INLINE float m_trunc(float x) { return CGRAD_LIBM(truncf)(x); }
CGRAD_SCALAR_INLINE double m_trunc(double x) { return CGRAD_LIBM(trunc)(x); }
CGRAD_SCALAR_INLINE float m_rint(float x) { return CGRAD_LIBM(rintf)(x); }
CGRAD_SCALAR_INLINE double m_rint(double x) { return CGRAD_LIBM(rint)(x); }
CGRAD_SCALAR_INLINE float m_log1p(float x) { return CGRAD_LIBM(log1pf)(x); }
CGRAD_SCALAR_INLINE double m_log1p(double x) { return CGRAD_LIBM(log1p)(x); }
CGRAD_SCALAR_INLINE float m_expm1(float x) { return CGRAD_LIBM(expm1f)(x); }
CGRAD_SCALAR_INLINE double m_expm1(double x) { return CGRAD_LIBM(expm1)(x); }
CGRAD_SCALAR_INLINE float m_log2(float x) { return CGRAD_LIBM(log2f)(x); }
CGRAD_SCALAR_INLINE double m_log2(double x) { return CGRAD_LIBM(log2)(x); }
CGRAD_SCALAR_INLINE float m_log10(float x) { return CGRAD_LIBM(log10f)(x); }
CGRAD_SCALAR_INLINE double m_log10(double x) { return CGRAD_LIBM(log10)(x); }
CGRAD_SCALAR_INLINE float m_tan(float x) { return CGRAD_LIBM(tanf)(x); }
CGRAD_SCALAR_INLINE double m_tan(double x) { return CGRAD_LIBM(tan)(x); }
CGRAD_SCALAR_INLINE float m_asin(float x) { return CGRAD_LIBM(asinf)(x); }
CGRAD_SCALAR_INLINE double m_asin(double x) { return CGRAD_LIBM(asin)(x); }
CGRAD_SCALAR_INLINE float m_acos(float x) { return CGRAD_LIBM(acosf)(x); }
CGRAD_SCALAR_INLINE double m_acos(double x) { return CGRAD_LIBM(acos)(x); }
CGRAD_SCALAR_INLINE float m_atan(float x) { return CGRAD_LIBM(atanf)(x); }
CGRAD_SCALAR_INLINE double m_atan(double x) { return CGRAD_LIBM(atan)(x); }
CGRAD_SCALAR_INLINE float m_sinh(float x) { return CGRAD_LIBM(sinhf)(x); }
CGRAD_SCALAR_INLINE double m_sinh(double x) { return CGRAD_LIBM(sinh)(x); }
CGRAD_SCALAR_INLINE float m_cosh(float x) { return CGRAD_LIBM(coshf)(x); }
CGRAD_SCALAR_INLINE double m_cosh(double x) { return CGRAD_LIBM(cosh)(x); }
CGRAD_SCALAR_INLINE float m_asinh(float x) { return CGRAD_LIBM(asinhf)(x); }
CGRAD_SCALAR_INLINE double m_asinh(double x) { return CGRAD_LIBM(asinh)(x); }
CGRAD_SCALAR_INLINE float m_acosh(float x) { return CGRAD_LIBM(acoshf)(x); }
CGRAD_SCALAR_INLINE double m_acosh(double x) { return CGRAD_LIBM(acosh)(x); }
CGRAD_SCALAR_INLINE float m_atanh(float x) { return CGRAD_LIBM(atanhf)(x); }
CGRAD_SCALAR_INLINE double m_atanh(double x) { return CGRAD_LIBM(atanh)(x); }
CGRAD_SCALAR_INLINE float m_erf(float x) { return CGRAD_LIBM(erff)(x); }
CGRAD_SCALAR_INLINE double m_erf(double x) { return CGRAD_LIBM(erf)(x); }
CGRAD_SCALAR_INLINE float m_atan2(float x, float y) { return CGRAD_LIBM(atan2f)(x, y); }
CGRAD_SCALAR_INLINE double m_atan2(double x, double y) { return CGRAD_LIBM(atan2)(x, y); }
// (f32 hypot: after the bit helpers below)
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
// Device f64 hypot: sqrt(m * m + n * n) with m = max(|x|, |y|), n = min, both scaled by 2^-600
// or 2^600 when m is far from 1, so the squares neither overflow nor lose bits to underflow.
// Each step is one IEEE-rounded multiply, FMA or sqrt and the scalings are exact, so the result
// is within 1 ulp (libdevice's hypot: 2) and the same on a GPU and on the emulated device
// (docs/cuda.md). There, libdevice's hypot gave hypot(-0, 1) = -inf (the emulator computes
// abs.f64(-0) as -0, which libdevice's bitwise max/min then takes for the larger operand) and
// hypot(DBL_MAX, 1) = inf (its rsqrt.approx refinement rounds up to the overflow, from a value
// the emulator computes exactly and a GPU approximately). Measured on the emulator against
// glibc: 1 ulp at most on 60000 random f64 bit patterns and 30000 pairs in (-100, 100) (libdevice
// 2 ulp). hypot(+-inf, NaN) = +inf as C99 Annex F says; the f32 hypotf is not affected.
CGRAD_SCALAR_INLINE double m_hypot(double x, double y) {
  const double ax = CGRAD_LIBM(fabs)(x), ay = CGRAD_LIBM(fabs)(y);
  if (ax > 0x1.fffffffffffffp1023) return ax;  // +inf
  if (ay > 0x1.fffffffffffffp1023) return ay;
  if (ax != ax || ay != ay) return ax + ay;  // NaN
  double m = ax < ay ? ay : ax, n = ax < ay ? ax : ay, unscale = 1.0;
  if (m > 0x1p500) {
    m *= 0x1p-600, n *= 0x1p-600, unscale = 0x1p600;
  } else if (m < 0x1p-500) {
    m *= 0x1p600, n *= 0x1p600, unscale = 0x1p-600;
  }
  return CGRAD_LIBM(sqrt)(CGRAD_LIBM(fma)(m, m, n * n)) * unscale;
}
#endif  // (the CPU's f64 hypot: after fma_ below)
CGRAD_SCALAR_INLINE float m_copysign(float x, float y) { return CGRAD_LIBM(copysignf)(x, y); }
CGRAD_SCALAR_INLINE double m_copysign(double x, double y) { return CGRAD_LIBM(copysign)(x, y); }
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
// Device f32 fmod computed in double: fmod is exact (the remainder of two floats is a float), in
// double as in float, so the one rounding back gives fmodf's value bit for bit, special cases
// included (NaN for x = inf or y = 0, x for y = inf, the sign of x on zeros). libdevice's fmodf
// reduces quotients of 2^24 and more with an fma.rz, which the emulated device (docs/cuda.md)
// rounds to nearest: fmodf(FLT_MAX, 88.7f) came back 75.4 for 13.3. libdevice's f64 fmod has no
// directed rounding. Measured on the emulator: equal to glibc's fmodf on 80000 random pairs of
// f32 bit patterns (libdevice's fmodf: 3596 of 20000 differ).
CGRAD_SCALAR_INLINE float m_fmod(float x, float y) {
  return static_cast<float>(CGRAD_LIBM(fmod)(static_cast<double>(x), static_cast<double>(y)));
}
CGRAD_SCALAR_INLINE double m_fmod(double x, double y) { return CGRAD_LIBM(fmod)(x, y); }
#endif  // (the host's f32 fmod is cgrad's own, fmod_f32, and so is the kernels' f64 one: below)

template <class T>
CGRAD_SCALAR_INLINE bool isnan_(T x) {
  return x != x;
}

// ---- unary ----
template <class T>
CGRAD_SCALAR_INLINE T neg(T x) {
  if constexpr (is_float<T>::value)
    return -x;
  else
    return static_cast<T>(typename unsigned_of<T>::type(0) - static_cast<typename unsigned_of<T>::type>(x));
}
// exp written with arithmetic and bit operations only, so loops that call it vectorize (libm's
// expf/exp are opaque calls). Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, a polynomial
// for e^r (a Chebyshev fit for f64), then scaling by 2^n in two steps so gradual underflow and
// overflow round once. Max error against the correctly rounded result, measured over dense
// sweeps (every 7th f32 bit pattern in (-110, 90), vectorized: 3.2e8 points; 2e7 f64 points,
// half in (-745, 710) and half in (-2, 2)): 1 ulp for f32, 1 ulp for f64 (1.06 ulp from the
// exact value for normal results, so never 2 from the rounded one; the Taylor polynomial used
// before gave 0.99 and cost 2 more FMAs, 9% of exp's time; the Pade form before that reached
// 1.7, 2 ulp from the rounded result) (docs/semantics.md). n is rounded by adding
// 1.5 * 2^mantissa-bits and read from the sum's bits (no round and convert instructions):
// 8-10% faster than rint + cast, same accuracy.
// exp(NaN) = NaN, exp(+inf) = +inf, exp(-inf) = 0.
#if defined(__CUDACC_RTC__) || defined(__CUDA_ARCH__)
CGRAD_SCALAR_INLINE float bits_to_f32(int32_t i) { return __int_as_float(i); }
CGRAD_SCALAR_INLINE double bits_to_f64(int64_t i) { return __longlong_as_double(i); }
CGRAD_SCALAR_INLINE int32_t f32_to_bits(float x) { return __float_as_int(x); }
CGRAD_SCALAR_INLINE int64_t f64_to_bits(double x) { return __double_as_longlong(x); }
#else
CGRAD_SCALAR_INLINE float bits_to_f32(int32_t i) { return __builtin_bit_cast(float, i); }
CGRAD_SCALAR_INLINE double bits_to_f64(int64_t i) { return __builtin_bit_cast(double, i); }
CGRAD_SCALAR_INLINE int32_t f32_to_bits(float x) { return __builtin_bit_cast(int32_t, x); }
CGRAD_SCALAR_INLINE int64_t f64_to_bits(double x) { return __builtin_bit_cast(int64_t, x); }
#endif

// f32 hypot: in double, where the squares are exact and cannot overflow, rounded once to float
// (0.50 ulp over 20 million random pairs of bit patterns, against long double): loops over it
// vectorize, where glibc's hypotf is a call (|z| of 2^22 c64: 9.1 -> 1.3 ms). C99 Annex F: +inf
// when either is infinite, even with a NaN. On a GPU, libdevice's hypotf.
#if defined(__CUDA_ARCH__)
CGRAD_SCALAR_INLINE float m_hypot(float x, float y) { return CGRAD_LIBM(hypotf)(x, y); }
#else
CGRAD_SCALAR_INLINE float m_hypot(float x, float y) {
  const double a = x, b = y;
  const float r = static_cast<float>(m_sqrt(a * a + b * b));
  const unsigned inf_x = (static_cast<uint32_t>(f32_to_bits(x)) & 0x7fffffffu) == 0x7f800000u,
                 inf_y = (static_cast<uint32_t>(f32_to_bits(y)) & 0x7fffffffu) == 0x7f800000u;
  const bool inf = (inf_x | inf_y) != 0;  // (one select: GCC 12 vectorizes it)
  return inf ? bits_to_f32(0x7f800000) : r;
}
#endif

// ---- 16-bit floats: storage types, computed in f32 ----
// float16 (IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits) and bfloat16 (the top half of
// an f32: 8 exponent, 7 mantissa bits) are stored as their bits and converted to float when
// loaded; a store rounds to nearest, ties to even, overflow to infinity, NaN stays NaN (quiet).
// Written with integer and float operations only, so loops over them vectorize and the same
// code runs on the host, in the freestanding CPU kernels and under NVRTC; on a GPU float16 uses
// the hardware conversion instructions, unless CGRAD_CUDA_EMULATOR is defined (NVRTC option set
// by the env knob of that name: the emulated device has no f16 `cvt`).

// float16 bits -> float (exact). Exponent and mantissa are shifted into the float's fields and
// rescaled by 2^112 (the difference of the exponent biases, 127 - 15): one multiply turns normal
// and subnormal halves alike into the exact float; exponent 31 (inf, NaN) becomes 255.
CGRAD_SCALAR_INLINE float f16_bits_to_f32(uint16_t h) {
#if defined(__CUDA_ARCH__) && !defined(CGRAD_CUDA_EMULATOR)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  // The hardware gives every NaN the canonical (positive) NaN: keep the sign and payload, as
  // the integer path below does (copysign(x, -nan) and signbit read that sign; seen on an H200).
  if ((h & 0x7fffu) > 0x7c00u)
    f = bits_to_f32(static_cast<int32_t>(((static_cast<uint32_t>(h) & 0x8000u) << 16) | 0x7f800000u |
                                         ((static_cast<uint32_t>(h) & 0x3ffu) << 13)));
  return f;
#else
  const uint32_t em = static_cast<uint32_t>(h) & 0x7fffu;
  uint32_t mag = static_cast<uint32_t>(f32_to_bits(bits_to_f32(static_cast<int32_t>(em << 13)) * 0x1p112f));
  mag |= em >= 0x7c00u ? 0x7f800000u : 0u;
  return bits_to_f32(static_cast<int32_t>(mag | ((static_cast<uint32_t>(h) & 0x8000u) << 16)));
#endif
}

// float -> float16 bits, rounded to nearest even.
CGRAD_SCALAR_INLINE uint16_t f32_to_f16_bits(float x) {
#if defined(__CUDA_ARCH__) && !defined(CGRAD_CUDA_EMULATOR)
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
  // NaN: the sign kept and the quiet NaN of the integer path below (the hardware's is canonical).
  if (x != x)
    h = static_cast<unsigned short>(0x7e00u | ((static_cast<uint32_t>(f32_to_bits(x)) >> 16) & 0x8000u));
  return h;
#else
  const uint32_t b = static_cast<uint32_t>(f32_to_bits(x));
  const uint32_t a = b & 0x7fffffffu;  // |x|
  // Normal halves (|x| >= 2^-14): rebias the exponent (127 -> 15), then round the mantissa from
  // 23 to 10 bits: add just under half a unit, plus one when the kept part is odd (a carry
  // runs into the exponent, up to infinity, as it should).
  // From 65520 up (infinity included) this reaches 0x7c00, infinity: the min caps it there.
  uint32_t normal = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
  normal = normal < 0x7c00u ? normal : 0x7c00u;
  // Subnormal halves: |x| + 0.5 has a unit in the last place of 2^-24, the half's quantum, so
  // the float addition rounds to nearest even for us; its low bits are the half's bits.
  const uint32_t sub =
      static_cast<uint32_t>(f32_to_bits(bits_to_f32(static_cast<int32_t>(a)) + 0.5f)) - 0x3f000000u;
  uint32_t h = a < 0x38800000u ? sub : normal;
  h |= a > 0x7f800000u ? 0x200u : 0u;  // NaN: infinity's bits and the quiet bit
  return static_cast<uint16_t>(h | ((b >> 16) & 0x8000u));
#endif
}

CGRAD_SCALAR_INLINE float bf16_bits_to_f32(uint16_t h) {
  return bits_to_f32(static_cast<int32_t>(static_cast<uint32_t>(h) << 16));
}

// float -> bfloat16 bits, rounded to nearest even (NaN stays a quiet NaN).
CGRAD_SCALAR_INLINE uint16_t f32_to_bf16_bits(float x) {
  const uint32_t b = static_cast<uint32_t>(f32_to_bits(x));
  const uint32_t r = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>((b & 0x7fffffffu) > 0x7f800000u ? ((b >> 16) | 0x40u) : r);
}

// double -> float rounded to odd (toward zero, then the last bit set when inexact): rounding
// that float to a 16-bit float gives the correctly rounded result of the double (a float has
// more than twice their precision plus two bits), where rounding to nearest twice could not.
CGRAD_SCALAR_INLINE float f64_to_f32_odd(double d) {
  const float f = static_cast<float>(d);
  if (d != d || static_cast<double>(f) == d) return f;
  int32_t bits = f32_to_bits(f);
  const double fa = f < 0 ? -static_cast<double>(f) : static_cast<double>(f), da = d < 0 ? -d : d;
  if (fa > da) bits -= 1;  // rounded away from zero (or to infinity): one step back
  return bits_to_f32(bits | 1);
}

}  // namespace CGRAD_SCALAR_NAMES
}  // namespace cgrad::scalar

namespace cgrad {

namespace scalar {
template <bool B>
struct enable_if_ {};
template <>
struct enable_if_<true> {
  using type = int;
};
template <class T>
struct is_arith {
  static constexpr bool value = false;
};
// clang-format off
#define CGRAD_ARITH(T) template <> struct is_arith<T> { static constexpr bool value = true; };
CGRAD_ARITH(bool) CGRAD_ARITH(float) CGRAD_ARITH(double)
CGRAD_ARITH(int8_t) CGRAD_ARITH(int16_t) CGRAD_ARITH(int32_t) CGRAD_ARITH(int64_t)
CGRAD_ARITH(uint8_t) CGRAD_ARITH(uint16_t) CGRAD_ARITH(uint32_t) CGRAD_ARITH(uint64_t)
// clang-format on
#undef CGRAD_ARITH
}  // namespace scalar

/// An IEEE float16 (binary16) element: its bits. Converts implicitly to float (exactly) and from
/// float (rounding to nearest even); from double and integers explicitly, rounded once.
struct float16_t {
  uint16_t bits;
  static constexpr int kMantissaBits = 11;  // with the implicit bit
  float16_t() = default;
  CGRAD_HD float16_t(float x) : bits(scalar::f32_to_f16_bits(x)) {}
  template <class U, typename scalar::enable_if_<scalar::is_arith<U>::value>::type = 0>
  CGRAD_HD explicit float16_t(U x)
      : bits(scalar::f32_to_f16_bits(scalar::f64_to_f32_odd(static_cast<double>(x)))) {}
  // (A kernel's store `p[i] = v` writes the bits directly: through a temporary float16_t, GCC 12
  // sees an aggregate copy and does not vectorize the loop.)
  CGRAD_HD float16_t& operator=(float x) {
    bits = scalar::f32_to_f16_bits(x);
    return *this;
  }
  CGRAD_HD operator float() const { return scalar::f16_bits_to_f32(bits); }
  static CGRAD_HD float16_t from_bits(uint16_t b) {
    float16_t h;
    h.bits = b;
    return h;
  }
};

/// A bfloat16 element (the top 16 bits of an f32): its bits, with float16_t's conversions.
struct bfloat16_t {
  uint16_t bits;
  static constexpr int kMantissaBits = 8;
  bfloat16_t() = default;
  CGRAD_HD bfloat16_t(float x) : bits(scalar::f32_to_bf16_bits(x)) {}
  template <class U, typename scalar::enable_if_<scalar::is_arith<U>::value>::type = 0>
  CGRAD_HD explicit bfloat16_t(U x)
      : bits(scalar::f32_to_bf16_bits(scalar::f64_to_f32_odd(static_cast<double>(x)))) {}
  CGRAD_HD bfloat16_t& operator=(float x) {
    bits = scalar::f32_to_bf16_bits(x);
    return *this;
  }
  CGRAD_HD operator float() const { return scalar::bf16_bits_to_f32(bits); }
  static CGRAD_HD bfloat16_t from_bits(uint16_t b) {
    bfloat16_t h;
    h.bits = b;
    return h;
  }
};

// ---- f16 blocks: the CPU kernels' conversions of contiguous f16 elements ----
// The element-wise CPU kernels convert each block of contiguous f16 elements a loop reads to a
// float array before the loop, and each block it writes from one after it
// (codegen/render_cpu_elementwise.cpp), with the CPU's conversion instructions where it has them
// (F16C: 16 lanes a vcvtph2ps or vcvtps2ph with AVX-512, 8 with AVX2; GCC 12 vectorizes no f16
// conversion of a loop without AVX512-FP16). Same bits as float16_t's conversions above: the
// hardware quiets a signalling NaN that the integer path passes on as it is, and keeps a NaN's
// top payload bits where the integer path stores the quiet NaN, so both are set as the integer
// path sets them. 2^22 f16, one thread of the Zen 4 VM (the kernels alone): exp 4.8 -> 3.3 ms,
// x + x 1.96 -> 0.93.
#if !defined(__CUDACC__)  // (CPU kernels only)
namespace scalar {
inline namespace CGRAD_SCALAR_NAMES {
#if defined(__AVX512F__)
#define CGRAD_F16_BLOCK_LANES 16
#else
#define CGRAD_F16_BLOCK_LANES 8
#endif
typedef float f16_block_f32 __attribute__((vector_size(4 * CGRAD_F16_BLOCK_LANES)));
typedef int32_t f16_block_i32 __attribute__((vector_size(4 * CGRAD_F16_BLOCK_LANES)));
typedef short f16_block_i16 __attribute__((vector_size(2 * CGRAD_F16_BLOCK_LANES)));
#if defined(__F16C__) && (defined(__AVX512F__) || defined(__AVX__))
#define CGRAD_F16_BLOCK_F16C 1
// Whether a vector of floats holds a NaN: the NaN fix-ups below run only then. They ran on every
// vector, 38% of an f16 `exp` kernel's samples on the Rocket Lake VM; 2^22 f16, one thread, from
// Python: exp 2.20 -> 1.62-1.77 ms (f32 1.62-1.65), x + x 0.95-1.01 -> 0.63, tanh 2.78 -> 2.20-2.32;
// with a NaN every 1000 elements, exp 1.73-1.77.
inline bool f16_block_any_nan(f16_block_f32 f) {
#if CGRAD_F16_BLOCK_LANES == 16
  return __builtin_ia32_cmpps512_mask(f, f, 3, static_cast<unsigned short>(-1), 4) != 0;  // unordered
#else
  return __builtin_ia32_movmskps256(__builtin_ia32_cmpps256(f, f, 3)) != 0;
#endif
}
// A vector of f16 bits -> floats.
inline f16_block_f32 f16_lanes(f16_block_i16 h) {
#if CGRAD_F16_BLOCK_LANES == 16
  const f16_block_f32 f =
      __builtin_ia32_vcvtph2ps512_mask(h, f16_block_f32{}, static_cast<unsigned short>(-1), 4);
#else
  const f16_block_f32 f = __builtin_ia32_vcvtph2ps256(h);
#endif
  if (__builtin_expect(!f16_block_any_nan(f), 1)) return f;
  const f16_block_i32 m = __builtin_convertvector(h, f16_block_i32) & 0x7fff;  // |h|'s bits
  const f16_block_i32 snan = (m > 0x7c00) & (m < 0x7e00);                      // -1 where signalling
  return reinterpret_cast<f16_block_f32>(reinterpret_cast<f16_block_i32>(f) ^ (snan & 0x400000));
}
// A vector of floats -> f16 bits (8: round to nearest even, exceptions suppressed, whatever
// MXCSR says).
inline f16_block_i16 f16_lanes(f16_block_f32 x) {
#if CGRAD_F16_BLOCK_LANES == 16
  const f16_block_i16 h =
      __builtin_ia32_vcvtps2ph512_mask(x, 8, f16_block_i16{}, static_cast<unsigned short>(-1));
#else
  const f16_block_i16 h = __builtin_ia32_vcvtps2ph256(x, 8);
#endif
  if (__builtin_expect(!f16_block_any_nan(x), 1)) return h;
  const f16_block_i16 nan = __builtin_convertvector(x != x, f16_block_i16);
  return (h & ~nan) | (((h & static_cast<short>(0x8000)) | static_cast<short>(0x7e00)) & nan);
}
#endif
// dst[i] = src[i] (f16 to float or back) for i < n: a vector V of src's elements at a time
// through f16_lanes where the CPU has F16C, element by element the rest.
template <class V, class From, class To>
inline void f16_block_convert(const From* __restrict src, To* __restrict dst, int64_t n) {
  int64_t i = 0;
#if defined(CGRAD_F16_BLOCK_F16C)
  for (; i + CGRAD_F16_BLOCK_LANES <= n; i += CGRAD_F16_BLOCK_LANES) {
    V v;
    __builtin_memcpy(&v, src + i, sizeof v);
    const auto r = f16_lanes(v);
    __builtin_memcpy(dst + i, &r, sizeof r);
  }
#endif
  for (; i < n; ++i) dst[i] = src[i];
}
inline void f16_block_load(const float16_t* __restrict src, float* __restrict dst, int64_t n) {
  f16_block_convert<f16_block_i16>(src, dst, n);
}
inline void f16_block_store(const float* __restrict src, float16_t* __restrict dst, int64_t n) {
  f16_block_convert<f16_block_f32>(src, dst, n);
}
#undef CGRAD_F16_BLOCK_LANES
#undef CGRAD_F16_BLOCK_F16C
}  // namespace CGRAD_SCALAR_NAMES
}  // namespace scalar
#endif

// ---- complex group: complex64 and complex128 (issue #15) ----
/// A complex element: real and imaginary parts, laid out as std::complex<R> and C99's
/// `R _Complex` (re first), so host buffers, NumPy and DLPack exchange it as is. A plain struct
/// rather than std::complex: the same type is used by the interpreter, the freestanding CPU
/// kernels and NVRTC, where <complex> is not available. Built from a real value (imaginary part
/// 0) or from another complex explicitly; converts explicitly to a real type (its real part) and
/// to bool (either part nonzero). Arithmetic: scalar::add, mul, ... (complex helpers below).
template <class R>
struct complex_t {
  R re, im;
  complex_t() = default;
  CGRAD_HD constexpr complex_t(R r, R i) : re(r), im(i) {}
  template <class U, typename scalar::enable_if_<scalar::is_arith<U>::value>::type = 0>
  CGRAD_HD explicit constexpr complex_t(U x) : re(static_cast<R>(x)), im(R(0)) {}
  template <class U>
  CGRAD_HD explicit constexpr complex_t(complex_t<U> z)
      : re(static_cast<R>(z.re)), im(static_cast<R>(z.im)) {}
  template <class U, typename scalar::enable_if_<scalar::is_arith<U>::value>::type = 0>
  CGRAD_HD explicit operator U() const {
    if constexpr (scalar::is_bool<U>::value)
      return re != R(0) || im != R(0);
    else
      return static_cast<U>(re);
  }
  CGRAD_HD friend bool operator==(complex_t a, complex_t b) { return a.re == b.re && a.im == b.im; }
  CGRAD_HD friend bool operator!=(complex_t a, complex_t b) { return !(a == b); }
};
using complex64_t = complex_t<float>;
using complex128_t = complex_t<double>;

}  // namespace cgrad

namespace cgrad::scalar {

template <class T>
struct is_complex {
  static constexpr bool value = false;
};
template <class R>
struct is_complex<complex_t<R>> {
  static constexpr bool value = true;
};

// The 16-bit floats compute through float: helpers instantiated for them (the interpreter)
// convert on every operation, so each result is rounded once, as a stored value is.
template <>
struct is_float<float16_t> {
  static constexpr bool value = true;
};
template <>
struct is_float<bfloat16_t> {
  static constexpr bool value = true;
};
template <>
struct is_arith<float16_t> {
  static constexpr bool value = true;
};
template <>
struct is_arith<bfloat16_t> {
  static constexpr bool value = true;
};

inline namespace CGRAD_SCALAR_NAMES {  // (the helpers' names: above)

// Infinity and a quiet NaN of T from their bits: literals that generated code can use on every
// compiler (NVRTC has no __builtin_inf).
template <class T>
CGRAD_SCALAR_INLINE T inf() {
  if constexpr (sizeof(T) == 4)
    return bits_to_f32(0x7f800000);
  else
    return bits_to_f64(0x7ff0000000000000LL);
}
template <class T>
CGRAD_SCALAR_INLINE T quiet_nan() {
  if constexpr (sizeof(T) == 4)
    return bits_to_f32(0x7fc00000);
  else
    return bits_to_f64(0x7ff8000000000000LL);
}

// Fused multiply-add, written out: the library is compiled with -ffp-contract=off (a * b + c
// rounds the product, as the interpreter's op-by-op evaluation does), and so are the kernels
// with CGRAD_FP_CONTRACT=0, so the FMAs exp's polynomial is built on are explicit. One rounding wherever the
// engine evaluates it: an instruction in generated kernels (-march=native) and on GPUs, the C
// library's exact fma() in the interpreter and constant folding (the library is built for any
// x86-64 and defines CGRAD_SCALAR_EXACT_FMA), so all agree bit for bit. Other code including
// this header (et/) fuses only where the target has FMA: a call per operation would stop its
// loops from vectorizing.
#if CGRAD_SCALAR_FMA_FUSED
CGRAD_SCALAR_INLINE float fma_(float a, float b, float c) { return CGRAD_LIBM(fmaf)(a, b, c); }
CGRAD_SCALAR_INLINE double fma_(double a, double b, double c) { return CGRAD_LIBM(fma)(a, b, c); }
#else
CGRAD_SCALAR_INLINE float fma_(float a, float b, float c) { return a * b + c; }
CGRAD_SCALAR_INLINE double fma_(double a, double b, double c) { return a * b + c; }
#endif
// a b - p for p = a b rounded, exactly (barring overflow): an FMA where fma_ is one, else Dekker's
// product of halves (code built without FMA, where fma_ rounds twice: et/ in a user's build).
CGRAD_SCALAR_INLINE double two_prod_err(double a, double b, double p) {
#if CGRAD_SCALAR_FMA_FUSED
  return fma_(a, b, -p);
#else
  const double ta = 134217729.0 * a, ah = ta - (ta - a), al = a - ah;  // 2^27 + 1: halves of 26 bits
  const double tb = 134217729.0 * b, bh = tb - (tb - b), bl = b - bh;
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
}
// c - a b where that is a double (a quotient's remainder, a root's residual), exactly.
CGRAD_SCALAR_INLINE double exact_fms(double a, double b, double c) {
#if CGRAD_SCALAR_FMA_FUSED
  return fma_(-a, b, c);
#else
  const double p = a * b;
  return (c - p) - two_prod_err(a, b, p);
#endif
}

// CPU f64 hypot (until 2026-12-03 glibc's, a call, which kept loops over it from vectorizing: 2^22
// pairs, one thread, the kernel loop alone 57-69 ms, now 4-7). m = max(|x|, |y|), n = min (on the
// bits), both scaled by 2^-600 above 2^400 or 2^900 below 2^-400 (exact), so that the squares and
// their rounding errors are normal; h = sqrt(s), s = m^2 + n^2 rounded, then corrected by the
// residual m^2 + n^2 - h^2, from the squares' exact rounding errors (FMAs) and the exact
// difference of m^2 and h^2 (Sterbenz: h^2 / 2 <= m^2 <= h^2): h + r / 2h, one rounding, then the
// scaling undone. Every product that feeds a sum has other uses, so -ffp-contract cannot fuse it.
// Within 0.5 ulp plus a hair of the long double hypot on 1.3x10^7 random pairs (any bits, [-100,
// 100)^2, and exponents within 2^32 of each other); a subnormal result, from two subnormal-sized
// operands, rounds twice (scaled, then unscaled): up to 0.73 ulp there. C99: +inf when either is
// infinite (even with a NaN), NaN for a NaN otherwise. Without hardware FMA (fma_ then rounds twice:
// et/ built for such a target) the correction is lost and the error about 1 ulp.
CGRAD_SCALAR_INLINE double hypot_f64(double x, double y) {
  const int64_t bx = f64_to_bits(x) & 0x7fffffffffffffffLL, by = f64_to_bits(y) & 0x7fffffffffffffffLL;
  const double m = bits_to_f64(bx < by ? by : bx), n = bits_to_f64(bx < by ? bx : by);
  const double k = (m > 0x1p400 ? 0x1p-600 : 1.0) * (m < 0x1p-400 ? 0x1p900 : 1.0);
  const double mm = m * k, nn = n * k;
  const double a2 = mm * mm, a2e = fma_(mm, mm, -a2), b2 = nn * nn, b2e = fma_(nn, nn, -b2);
  const double h = m_sqrt(a2 + b2), hh = h * h, hhe = fma_(h, h, -hh);
  const double r = ((a2 - hh) + b2) + ((a2e + b2e) - hhe);
  const double res = fma_(r, 0.5 / (h + 0x1p-1000), h) / k;  // (h = 0 for two zeros: r = 0 then)
  const bool inf_any = (bx == 0x7ff0000000000000LL) | (by == 0x7ff0000000000000LL);
  const bool nan_any = (bx > 0x7ff0000000000000LL) | (by > 0x7ff0000000000000LL);
  return inf_any ? inf<double>() : nan_any ? x + y : res;
}
#if !defined(__CUDACC_RTC__) && !defined(__CUDA_ARCH__)
CGRAD_SCALAR_INLINE double m_hypot(double x, double y) { return hypot_f64(x, y); }
#endif

// e^r - 1 for |r| <= ln2/2 (a little beyond too, as erf_f32 reduces): r + r^2 p(r), p of degree 5
// (half_exp_pm_f32 adds r^2 p(r) to other terms before its rounding).
CGRAD_SCALAR_INLINE float expm1_poly_f32(float r) {
  float p = 1.9875691500e-4f;
  p = fma_(p, r, 1.3981999507e-3f);
  p = fma_(p, r, 8.3334519073e-3f);
  p = fma_(p, r, 4.1665795894e-2f);
  p = fma_(p, r, 1.6666665459e-1f);
  return fma_(p, r, 5.0000001201e-1f);
}
CGRAD_SCALAR_INLINE float expm1_reduced_f32(float r) { return fma_(expm1_poly_f32(r), r * r, r); }

// e^x for x in [-104, 89] (exp_f32 below clamps to that range and passes NaN through; callers
// that know their argument is in range, tanh, skip those selects: tanh went from 1.8 to 1.1 ms on
// 2^22 f32, one thread).
CGRAD_SCALAR_INLINE float exp_f32_in_range(float xc) {
  // n = round(xc / ln2) by adding 1.5 * 2^23 (the sum's last bit is the integer, rounded to
  // nearest even); its bits give n as an integer without a conversion.
  const float t = fma_(xc, 1.44269504088896341f, 12582912.0f);
  const float n = t - 12582912.0f;
  float r = fma_(-n, 0.693359375f, xc);
  r = fma_(-n, -2.12194440e-4f, r);
  const float p = expm1_reduced_f32(r) + 1.0f;
  const int32_t ni = f32_to_bits(t) - 0x4B400000;
  const int32_t n1 = ni >> 1, n2 = ni - n1;  // floor(n/2): one shift; both halves stay normal
  return p * bits_to_f32((n1 + 127) << 23) * bits_to_f32((n2 + 127) << 23);
}

CGRAD_SCALAR_INLINE float exp_f32(float x) {
  float xc = x < -104.0f ? -104.0f : x;
  xc = xc > 89.0f ? 89.0f : xc;
  const float res = exp_f32_in_range(xc);
  return x != x ? x : res;
}

// e^r - 1 for |r| <= ln2/2: r + r^2 p(r), p of degree 9 fitted to (e^r - 1 - r) / r^2 (a
// Chebyshev fit, near minimax: 1.6e-17 relative to e^r, 0.14 ulp of exp_f64, with these double
// coefficients; the Taylor polynomial needs degree 11 for p); the last addition rounds once.
CGRAD_SCALAR_INLINE double expm1_reduced_f64(double r) {
  double p = 2.510038549551032e-08;
  p = fma_(p, r, 2.7620088445409746e-07);
  p = fma_(p, r, 2.7557268459997064e-06);
  p = fma_(p, r, 2.4801521295954376e-05);
  p = fma_(p, r, 1.9841269863053618e-04);
  p = fma_(p, r, 1.3888888917213717e-03);
  p = fma_(p, r, 8.333333333330062e-03);
  p = fma_(p, r, 4.166666666662413e-02);
  p = fma_(p, r, 1.6666666666666669e-01);
  p = fma_(p, r, 5.000000000000001e-01);
  return fma_(r * r, p, r);
}
// x = n ln2 + r for x in [-746, 711] (callers clamp): n = round(x / ln2), |r| <= ln2/2, ln2 in two
// parts (n times the first is exact; the second rounds once, relative to r).
struct exp_split_f64 {
  int64_t n;
  double r;
};
CGRAD_SCALAR_INLINE exp_split_f64 exp_reduce(double xc) {
  const double t = fma_(xc, 1.4426950408889634073599, 6755399441055744.0);  // + 1.5 * 2^52, as for f32
  const double n = t - 6755399441055744.0;
  const double r = fma_(-n, 6.93145751953125e-1, xc);
  return {f64_to_bits(t) - 0x4338000000000000LL, fma_(-n, 1.42860682030941723212e-6, r)};
}
// 2^n for n in [-1022, 1023], from its bits.
CGRAD_SCALAR_INLINE double pow2_f64(int64_t n) { return bits_to_f64((n + 1023) << 52); }
// n as a double for |n| <= 2^51, from the bits of 1.5 * 2^52 + n: AVX2 has no vector conversion
// from 64-bit integers, and with one (static_cast) no loop over log vectorized there.
CGRAD_SCALAR_INLINE double small_i64_to_f64(int64_t n) {
  return bits_to_f64(n + 0x4338000000000000LL) - 6755399441055744.0;
}
// v 2^n, the power in two factors, each normal for |n| up to 2044 (exp_f64's n reaches -1076).
CGRAD_SCALAR_INLINE double scale_f64(double v, int64_t n) {
  const int64_t n1 = n >> 1, n2 = n - n1;  // floor(n/2): one shift
  return v * pow2_f64(n1) * pow2_f64(n2);
}

CGRAD_SCALAR_INLINE double exp_f64(double x) {
  double xc = x < -746.0 ? -746.0 : x;
  xc = xc > 710.0 ? 710.0 : xc;
  const exp_split_f64 s = exp_reduce(xc);
  const double res = scale_f64(1.0 + expm1_reduced_f64(s.r), s.n);
  return x != x ? x : res;
}

CGRAD_SCALAR_INLINE float exp_(float x) { return exp_f32(x); }
CGRAD_SCALAR_INLINE double exp_(double x) { return exp_f64(x); }

// ---- f64 expm1, tanh, sinh, cosh: exp_reduce and polynomials, straight-line code ----
// glibc's scalar calls kept loops over them from vectorizing (2^22 f64, one thread: tanh 68 ms
// against NumPy's 11, sinh 72 against 10). Near zero each has a polynomial of its own (fitted by
// tools/fit_poly.py), where the formulas through e^x would cancel; worst errors (tools/ulp_sweep.cpp,
// random doubles against the long double functions) are in docs/semantics.md.
// The sign of x put on y (as the f32 one: y's sign flipped where x is negative; x's sign where
// y >= 0, as for most callers; sin and tan, odd, flip their result computed on |x|).
CGRAD_SCALAR_INLINE double with_sign_of(double y, double x) {
  return bits_to_f64(f64_to_bits(y) ^ (f64_to_bits(x) & static_cast<int64_t>(0x8000000000000000ULL)));
}
CGRAD_SCALAR_INLINE float with_sign_of(float y, float x) {
  return bits_to_f32(f32_to_bits(y) ^ (f32_to_bits(x) & static_cast<int32_t>(0x80000000u)));
}
CGRAD_SCALAR_INLINE bool finite_f32(float x) {
  return (static_cast<uint32_t>(f32_to_bits(x)) & 0x7fffffffu) < 0x7f800000u;
}
// e^x - 1 for |x| <= 0.7: x + x^2 P(x), P of degree 12 (tools/fit_poly.py expm1 12: 2^-57.8 relative).
CGRAD_SCALAR_INLINE double expm1_wide_f64(double x) {
  double p = 1.1547103037097898e-11;
  p = fma_(p, x, 1.6181264692868738e-10);
  p = fma_(p, x, 2.0876288811832291e-09);
  p = fma_(p, x, 2.5051358906305959e-08);
  p = fma_(p, x, 2.7557320601102605e-07);
  p = fma_(p, x, 2.7557321428677544e-06);
  p = fma_(p, x, 2.4801587299618648e-05);
  p = fma_(p, x, 0.00019841269838118025);
  p = fma_(p, x, 0.0013888888888890095);
  p = fma_(p, x, 0.008333333333335264);
  p = fma_(p, x, 0.041666666666666664);
  p = fma_(p, x, 0.16666666666666663);
  p = fma_(p, x, 0.5);
  return fma_(x * x, p, x);
}
// e^x - 1: the polynomial of x itself below 0.7, else 2^n m + (2^n - 1), m = e^r - 1 by the same
// polynomial (the operand selected first: one evaluation), one rounding. From |x| = 0.7 on, a
// negative m comes with n <= -1 or n >= 2, where the sum cancels little. -1 from x = -40 on (e^-40 < 2^-57);
// inf past 709.79. n reaches 1024 at 710: then 2^(n-1) (m + 1 - 2^-(n-1)) times 2 (2^(n-1) - 1/2 rounds to
// 2^(n-1)).
CGRAD_SCALAR_INLINE double expm1_f64(double x) {
  double xc = x < -40.0 ? -40.0 : x;
  xc = xc > 710.0 ? 710.0 : xc;
  const exp_split_f64 s = exp_reduce(xc);
  const bool near0 = m_fabs(x) < 0.7;
  const int64_t n = near0 ? 0 : s.n;
  const double m = expm1_wide_f64(near0 ? x : s.r);
  const bool top = n > 1000;
  const double p = pow2_f64(top ? n - 1 : n);
  const double r = fma_(p, m, p - (top ? 0.5 : 1.0)) * (top ? 2.0 : 1.0);
  return x == 0.0 || x != x ? x : r;  // (-0 stays -0)
}
// tanh |x|: |x| + |x| z P(z), z = x^2, below 0.55 (P of degree 10: tools/fit_poly.py tanh 10,
// 2^-57.4 relative); e / (e + 2) above, e = e^2|x| - 1 (n >= 2 there; |x| clamped at 20: tanh rounds
// to 1 from 19.06). With the sign of x.
CGRAD_SCALAR_INLINE double tanh_f64(double x) {
  const double a = m_fabs(x), z = a * a;
  double p = -2.060276537636634e-05;
  p = fma_(p, z, 8.5113136855776721e-05);
  p = fma_(p, z, -0.0002346347410887237);
  p = fma_(p, z, 0.00058893605200740573);
  p = fma_(p, z, -0.0014556618301007161);
  p = fma_(p, z, 0.0035921103786890241);
  p = fma_(p, z, -0.0088632343978143555);
  p = fma_(p, z, 0.021869488493666944);
  p = fma_(p, z, -0.053968253967434016);
  p = fma_(p, z, 0.13333333333332714);
  p = fma_(p, z, -0.33333333333333331);
  const double small = fma_(a * z, p, a);
  const exp_split_f64 s = exp_reduce(2.0 * (a < 20.0 ? a : 20.0));
  const double q = pow2_f64(s.n);
  const double e = fma_(q, expm1_reduced_f64(s.r), q - 1.0);
  const double r = a < 0.55 ? small : e / (e + 2.0);
  return x != x ? x : with_sign_of(r, x);
}
// e^a / 2 for a >= 0 (clamped at 711: inf past 710.47), the power of two in two factors.
CGRAD_SCALAR_INLINE double half_exp_f64(double a) {
  const exp_split_f64 s = exp_reduce(a < 711.0 ? a : 711.0);
  return scale_f64(1.0 + expm1_reduced_f64(s.r), s.n - 1);
}
// sinh |x|: |x| + |x| z P(z) below 1 (P of degree 6: tools/fit_poly.py sinh 6, 2^-56.6 relative);
// h - 1 / (4h) from 1 on, h = e^|x| / 2 (scaled in two factors: finite up to 710.47). With the sign
// of x.
CGRAD_SCALAR_INLINE double sinh_f64(double x) {
  const double a = m_fabs(x), z = a * a;
  double p = 7.7461785930188273e-13;
  p = fma_(p, z, 1.6057679623801638e-10);
  p = fma_(p, z, 2.5052117695907823e-08);
  p = fma_(p, z, 2.7557319191381816e-06);
  p = fma_(p, z, 0.00019841269841324198);
  p = fma_(p, z, 0.0083333333333332985);
  p = fma_(p, z, 0.16666666666666666);
  const double small = fma_(a * z, p, a);
  const double h = half_exp_f64(a);
  const double r = a < 1.0 ? small : h - 0.25 / h;
  return x != x ? x : with_sign_of(r, x);
}
// cosh x = h + 1 / (4h), h = e^|x| / 2.
CGRAD_SCALAR_INLINE double cosh_f64(double x) {
  const double h = half_exp_f64(m_fabs(x));
  return x != x ? x : h + 0.25 / h;
}

// ---- f64 log, log1p, log2, log10: straight-line code ----
// glibc's scalar calls kept loops over log1p and log10 from vectorizing (2^22 f64, one thread:
// log1p 44 ms against NumPy's 8). Worst errors in docs/semantics.md (tools/ulp_sweep.cpp).
// x = 2^e m for a positive normal x: m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), e as a double.
struct log_split_f64 {
  double e;
  double f;
};
CGRAD_SCALAR_INLINE log_split_f64 log_split(double x) {
  // the bits' distance from sqrt(1/2)'s, unsigned: those of a negative x (a NaN result, selected
  // away by the callers) would overflow a signed difference
  const uint64_t k = static_cast<uint64_t>(f64_to_bits(x)) - 0x3fe6a09e667f3bcdULL;
  return {small_i64_to_f64(static_cast<int64_t>(k) >> 52),
          bits_to_f64(static_cast<int64_t>((k & 0x000fffffffffffffULL) + 0x3fe6a09e667f3bcdULL)) - 1.0};
}
// log(1 + f) - f for f in [sqrt(1/2) - 1, sqrt(2) - 1]: with s = f / (2 + f), 2s = f - s f, so
// log(1 + f) = 2 atanh(s) = 2s + s R = f - (h - s (h + R)), h = f^2 / 2, R = 2z Q(z), z = s^2 (Q of
// degree 6: tools/fit_poly.py log64 6, 2^-57.6 relative). f is exact and this part is below f^2 / 2,
// so its roundings cost a fraction of an ulp of the sum.
CGRAD_SCALAR_INLINE double log_tail_f64(double f) {
  const double s = f / (2.0 + f), z = s * s, h = 0.5 * f * f;
  double q = 0.073082248425217031;
  q = fma_(q, z, 0.07665860800278021);
  q = fma_(q, z, 0.090914445626308613);
  q = fma_(q, z, 0.1111110556739754);
  q = fma_(q, z, 0.14285714312987743);
  q = fma_(q, z, 0.19999999999949752);
  q = fma_(q, z, 0.33333333333333348);
  return fma_(s, fma_(2.0 * z, q, h), -h);
}
// C99's special values of the logarithms (-inf at 0, NaN below, inf at inf, NaN itself) or r.
CGRAD_SCALAR_INLINE double log_special_f64(double x, double r) {
  const double special = x == 0.0 ? -inf<double>() : x == inf<double>() ? x : quiet_nan<double>();
  return x != x ? x : x > 0.0 && x < inf<double>() ? r : special;
}
// log_split of any positive finite x: subnormals are scaled by 2^54 first.
CGRAD_SCALAR_INLINE log_split_f64 log_split_any(double x) {
  const bool sub = x < 2.2250738585072014e-308;
  log_split_f64 s = log_split(sub ? x * 18014398509481984.0 : x);
  s.e = sub ? s.e - 54.0 : s.e;
  return s;
}
// log x = e ln2 + f + tail (ln2 in two parts: e times the first is exact).
CGRAD_SCALAR_INLINE double log_f64(double x) {
  const log_split_f64 s = log_split_any(x);
  const double r =
      fma_(s.e, 6.93147180369123816490e-01, s.f + fma_(s.e, 1.9082149292705877e-10, log_tail_f64(s.f)));
  return log_special_f64(x, r);
}
// log(1 + x + x_lo) + k ln2 for x > -1 finite, |x_lo| below an ulp of x, k an integer: log u + c / u,
// u = 1 + x rounded and c its rounding error (TwoSum's, exact) plus x_lo; k is added to u's exponent
// (so k = 1 gives log(2 (1 + x))). (c was Fast2Sum's on a select of the larger operand, x > 1: with
// atanh's selects around it GCC 12 threaded jumps into masked copies of c / u and spilled masks; 2^15
// f64, one thread, the kernel loop alone, atanh 0.22-0.23 -> 0.15-0.16 s for 4000 passes, the same
// bits for atanh and log1p on 2x10^7 random doubles.)
CGRAD_SCALAR_INLINE double log1p_sum_f64(double x, double x_lo, double k) {
  const double u = 1.0 + x, b = u - 1.0;
  const double c = ((1.0 - (u - b)) + (x - b)) + x_lo;
  const log_split_f64 s = log_split(u > 0.0 ? u : 1.0);
  const double e = s.e + k;
  return fma_(e, 6.93147180369123816490e-01,
              s.f + fma_(e, 1.9082149292705877e-10, log_tail_f64(s.f) + c / u));
}
// log1p x: x itself when 1 + x rounds to 1.
CGRAD_SCALAR_INLINE double log1p_f64(double x) {
  const double u = 1.0 + x;
  const double r = log1p_sum_f64(x, 0.0, 0.0);
  const double special = x == -1.0 ? -inf<double>() : x == inf<double>() ? x : quiet_nan<double>();
  return x != x || u == 1.0 ? x : x > -1.0 && x < inf<double>() ? r : special;
}
// log2 x = e + (f + tail) / ln2 and log10 x = e log10(2) + (f + tail) / ln10: f times the reciprocal
// inside an FMA, whose error is added as the product of f and the reciprocal's rounding error;
// log10(2) in two parts (e times the first is exact).
// log(1 + f) c for c = c_hi + c_lo (c_hi the double nearest).
CGRAD_SCALAR_INLINE double log1p_times_f64(double f, double c_hi, double c_lo) {
  return fma_(f, c_hi, fma_(log_tail_f64(f), c_hi, f * c_lo));
}
CGRAD_SCALAR_INLINE double log2_f64(double x) {
  const log_split_f64 s = log_split_any(x);
  return log_special_f64(x, s.e + log1p_times_f64(s.f, 1.4426950408889634, 2.0355273740931033e-17));
}
CGRAD_SCALAR_INLINE double log10_f64(double x) {
  const log_split_f64 s = log_split_any(x);
  const double l = log1p_times_f64(s.f, 0.4342944819032518, 1.098319650216765e-17);
  return log_special_f64(x, fma_(s.e, 0.3010299955494702, fma_(s.e, 1.1451100898021838e-10, l)));
}

// float log, log1p, expm1, tanh and erf of cgrad's own, written as exp_f32 is: straight-line code with
// explicit FMAs, so that loops over them vectorize (glibc's scalar calls made `tanh` of f32 80x
// slower than NumPy's) and every backend gives the same bits. Polynomials are Chebyshev fits
// (near minimax) made for cgrad; the worst errors over every float (measured exhaustively
// against glibc's double functions) are in docs/semantics.md. double keeps the C library's. Each
// Horner chain is written out: a helper looping over a coefficient array was not unrolled before
// GCC 12's vectorizer ran ("control flow in loop"), and no loop over these functions vectorized.

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: f - f^2/2 + f^3 P(f), P of degree 8 (relative
// fit error 2.9e-8 of P, 6e-9 of the result).
CGRAD_SCALAR_INLINE float log1p_poly_f32(float f) {
  float p = 6.9716114714e-2f;
  p = fma_(p, f, -1.1479733847e-1f);
  p = fma_(p, f, 1.1685419923e-1f);
  p = fma_(p, f, -1.2425687331e-1f);
  p = fma_(p, f, 1.4249057646e-1f);
  p = fma_(p, f, -1.6667802320e-1f);
  p = fma_(p, f, 2.0000715749e-1f);
  p = fma_(p, f, -2.4999996958e-1f);
  return fma_(p, f, 3.3333331180e-1f);
}
CGRAD_SCALAR_INLINE float log1p_reduced_f32(float f) {
  const float z = f * f;
  return f + fma_(f * z, log1p_poly_f32(f), -0.5f * z);
}

// x = 2^e m with m in [sqrt(1/2), sqrt(2)) for a positive, normal, finite x: e - e_adj and f = m - 1
// (exact), as floats. The bits' distance from sqrt(1/2)'s, split at the exponent field (unsigned:
// the bits of a negative x, whose result is NaN, would overflow a signed difference).
struct LogSplitF32 {
  float e, f;
};
CGRAD_SCALAR_INLINE LogSplitF32 log_split_f32(float x, int32_t e_adj) {
  const uint32_t k = static_cast<uint32_t>(f32_to_bits(x)) - 0x3f3504f3u;
  return {static_cast<float>((static_cast<int32_t>(k) >> 23) - e_adj),
          bits_to_f32(static_cast<int32_t>((k & 0x007fffffu) + 0x3f3504f3u)) - 1.0f};
}
// log_split_f32 of any positive finite x: subnormals are scaled by 2^24 first.
CGRAD_SCALAR_INLINE LogSplitF32 log_split_any_f32(float x) {
  const bool sub = x < 1.17549435e-38f;
  return log_split_f32(sub ? x * 16777216.0f : x, sub ? 24 : 0);
}
// C99's special values of the logarithms (-inf at 0, NaN below, inf at inf, NaN itself) or r.
CGRAD_SCALAR_INLINE float log_special_f32(float x, float r) {
  const float special = x == 0.0f ? -inf<float>() : x == inf<float>() ? x : quiet_nan<float>();
  return x != x ? x : x > 0.0f && x < inf<float>() ? r : special;
}
// e ln2 + log(1 + f), ln2 as 0.693359375 (9 bits: e times it is exact) + -2.12194440e-4. log1p's
// argument 1 + x is always normal, so it skips log_f32's subnormal and special-value selects (log1p
// went from 2.8 to 1.6 ms on 2^22 f32, one thread).
CGRAD_SCALAR_INLINE float log_of_split_f32(LogSplitF32 s) {
  return fma_(s.e, 0.693359375f, fma_(s.e, -2.12194440e-4f, log1p_reduced_f32(s.f)));
}

CGRAD_SCALAR_INLINE float log_f32(float x) {
  return log_special_f32(x, log_of_split_f32(log_split_any_f32(x)));
}

// log2 and log10 of f32 in float arithmetic (until 2026-12-03 the f64 functions rounded once: 0.50
// ulp, and 2.2x NumPy's time, whose functions are SVML's). x = 2^e m as in log_f32 (subnormals
// scaled by 2^24), f = m - 1, and log_b x = e K + log(1 + f) C, C = 1 / ln b and K = log_b 2 each
// in two floats, K_hi short enough that e K_hi is exact (K = 1 for log2). The terms, largest first:
// e K_hi + f C_hi, summed with its rounding error kept (f C_hi's exact error by an FMA, then
// Fast2Sum: |e K_hi| >= |f C_hi| wherever e is not 0); -f^2/2 C_hi (f^2 rounded, its error kept);
// f^3 P(f) C_hi; then the small ones (f C_lo, e K_lo, the two rounding errors). The small ones and
// f^3 P(f) C_hi are summed first, -f^2/2 C_hi added in one FMA, the sum's error last: the result
// rounds once more than the correctly rounded one, and every other rounding is below a fifth of
// its ulp. Powers of two (f = 0) give e K_hi + e K_lo: log2 is exact there. Worst error over every
// float in docs/semantics.md (tools/ulp_sweep.cpp log2, log10).
CGRAD_SCALAR_INLINE float log_base_f32(float x, float c_hi, float c_lo, float k_hi, float k_lo) {
  const LogSplitF32 split = log_split_any_f32(x);
  const float fe = split.e, f = split.f;
  const float a = fe * k_hi, p = f * c_hi, p_err = fma_(f, c_hi, -p);  // a exact
  const float s = a + p, s_err = (a - s) + p;
  const float z = f * f, z_err = fma_(f, f, -z);
  float lo = fma_(z_err, -0.5f * c_hi, fma_(f, c_lo, fma_(fe, k_lo, p_err)));
  lo = fma_(-0.5f * z, c_hi, fma_(f * z, log1p_poly_f32(f) * c_hi, lo));
  return log_special_f32(x, s + (s_err + lo));
}
CGRAD_SCALAR_INLINE float log2_f32(float x) {
  return log_base_f32(x, 1.4426950216e+00f, 1.9259630335e-08f, 1.0f, 0.0f);
}
// K_hi = log10(2) to 16 bits (|e| <= 150 takes 8)
CGRAD_SCALAR_INLINE float log10_f32(float x) {
  return log_base_f32(x, 4.3429449201e-01f, -1.0103049952e-08f, 0.30103302001953125f, -3.0243554647e-06f);
}

// log1p(x) = log(u) + c / u, u = 1 + x rounded and c its rounding error (exact: Sterbenz below 1,
// u - x exact above).
CGRAD_SCALAR_INLINE float log1p_f32(float x) {
  const float u = 1.0f + x;
  const float c = x > 1.0f ? 1.0f - (u - x) : x - (u - 1.0f);
  const float r = u == 1.0f ? x : log_of_split_f32(log_split_f32(u, 0)) + c / u;  // (x tiny, or -0: x itself)
  const float special = x == -1.0f ? -inf<float>() : x == inf<float>() ? x : quiet_nan<float>();
  return x != x ? x : x > -1.0f && x < inf<float>() ? r : special;
}

// expm1(x): x + x^2/2 + x^3 P(x) on [-1/2, 1/2] (P of degree 5), exp(x) - 1 outside.
CGRAD_SCALAR_INLINE float expm1_f32(float x) {
  const float z = x * x;
  float p = 2.4905147742e-5f;
  p = fma_(p, x, 1.9944874442e-4f);
  p = fma_(p, x, 1.3888791742e-3f);
  p = fma_(p, x, 8.3332361335e-3f);
  p = fma_(p, x, 4.1666666802e-2f);
  p = fma_(p, x, 1.6666666802e-1f);
  const float small = x + fma_(z * x, p, 0.5f * z);
  const float big = exp_f32(x) - 1.0f;
  return x == 0.0f || x != x ? x : m_fabs(x) <= 0.5f ? small : big;
}

// tanh(x): |x| + |x|^3 P(x^2) below 0.625 (P of degree 5), 1 - 2 / (e^2|x| + 1) above (|x| clamped
// at 9.1, where it is 1 in float), with the sign of x (-0 stays -0).
CGRAD_SCALAR_INLINE float tanh_f32(float x) {
  const float a = m_fabs(x), s = a * a;
  float p = 2.2927448162e-3f;
  p = fma_(p, s, -8.3439455158e-3f);
  p = fma_(p, s, 2.1768918651e-2f);
  p = fma_(p, s, -5.3959259577e-2f);
  p = fma_(p, s, 1.3333303557e-1f);
  p = fma_(p, s, -3.3333333172e-1f);
  const float small = fma_(a * s, p, a);
  const float big = 1.0f - 2.0f / (exp_f32_in_range(2.0f * (a < 9.1f ? a : 9.1f)) + 1.0f);
  const float r = a < 0.625f ? small : big;
  return x != x ? x : bits_to_f32(f32_to_bits(r) | (f32_to_bits(x) & static_cast<int32_t>(0x80000000u)));
}

// erf(x) in float arithmetic (until 2026-12-03 in double, rounded once: 0.52 ulp, 2^22 f32 kernel
// loop 3.4-3.6 ms; now 0.85 ulp, 1.9-2.0 ms, tools/fit_poly.py's erf32 fits). Below 0.8125,
// |x| + |x| (E + z P(z)), z = x^2, E = 2/sqrt(pi) - 1, P of degree 5 (erf32s 5: 2^-31.5 relative);
// the term |x| is exact, so only the correction rounds. From 0.8125, 1 - erfc(b), b = |x| clamped
// at 3.92 (erf rounds to 1 from there), erfc(b) = e^(R(s) - b^2) with s = b - 1 (exact for every
// such float) and R(s) = log erfc(1 + s) + (1 + s)^2 of degree 8 (erf32b 8: 2^-24.6 relative to
// erfc, near its largest where s reaches 2.9 and erfc is 2^-26 of erf; near s = 0, where erf's
// error is made, Horner's roundings are at their smallest). The exponential: n = round((R - b^2)
// / ln2), r = (-b^2 - n C1 + c0) + (R - c0) - n C2 - (b^2's rounding error) with the first three
// terms summed exactly (C1 = ln2's 9 leading bits, c0 = R(0) rounded to float), e^r - 1 as
// exp_f32_in_range's polynomial, and 1 - 2^n (1 + (e^r - 1)) in one FMA. The sign of x. Worst error
// over every float 0.848 ulp (tools/ulp_sweep.cpp erf); every product feeding an addition is an
// explicit FMA, so -ffp-contract=fast and off give the same bits.
CGRAD_SCALAR_INLINE float erf_f32(float x) {
  const float a = m_fabs(x), z = a * a;
  float p = 9.4658760645e-05f;
  p = fma_(p, z, -8.3644100232e-04f);
  p = fma_(p, z, 5.2178129554e-03f);
  p = fma_(p, z, -2.6865227148e-02f);
  p = fma_(p, z, 1.1283786595e-01f);
  p = fma_(p, z, -3.7612637877e-01f);
  p = fma_(p, z, 1.2837916613e-01f);
  const float small = fma_(a, p, a);
  const float b = a < 3.92f ? a : 3.92f, s = b - 1.0f;
  float q = 1.6439099682e-06f;
  q = fma_(q, s, -3.2971245673e-05f);
  q = fma_(q, s, 3.1990651041e-04f);
  q = fma_(q, s, -2.0523369312e-03f);
  q = fma_(q, s, 1.0073170997e-02f);
  q = fma_(q, s, -4.1570417583e-02f);
  q = fma_(q, s, 1.5689238906e-01f);
  q = fma_(q, s, -6.3896715641e-01f);
  constexpr float c0 = -8.4960550070e-01f, c0_lo = -1.6930172819e-08f;  // R(s) = c0 + c0_lo + s q
  const float h = b * b;
  const float t = fma_(fma_(q, s, c0) - h, 1.44269504088896341f, 12582912.0f);
  const float n = t - 12582912.0f;
  float r = fma_(-n, 0.693359375f, -h) + c0;  // both sums exact
  r = fma_(q, s, r);
  r = fma_(-n, -2.12194440e-4f, r) + (c0_lo - fma_(b, b, -h));
  const float e = expm1_reduced_f32(r);
  const float p2n = bits_to_f32((f32_to_bits(t) - 0x4B400000 + 127) << 23);  // 2^n, n in [-25, -1]
  const float big = fma_(-p2n, e, 1.0f - p2n);
  const float res = a < 0.8125f ? small : big;
  return x != x ? x : bits_to_f32(f32_to_bits(res) | (f32_to_bits(x) & static_cast<int32_t>(0x80000000u)));
}

// CGRAD_HOST_OWN(own, libm): cgrad's own function on CPUs, the library's on a GPU, where
// libdevice's functions have their own reductions and vectorization is no concern.
#if defined(__CUDA_ARCH__)
#define CGRAD_HOST_OWN(own, libm) libm
#else
#define CGRAD_HOST_OWN(own, libm) own
#endif
CGRAD_SCALAR_INLINE float log_(float x) { return log_f32(x); }
CGRAD_SCALAR_INLINE double log_(double x) { return CGRAD_HOST_OWN(log_f64, m_log)(x); }
CGRAD_SCALAR_INLINE float log1p_(float x) { return log1p_f32(x); }
CGRAD_SCALAR_INLINE double log1p_(double x) { return CGRAD_HOST_OWN(log1p_f64, m_log1p)(x); }
CGRAD_SCALAR_INLINE float expm1_(float x) { return expm1_f32(x); }
CGRAD_SCALAR_INLINE double expm1_(double x) { return CGRAD_HOST_OWN(expm1_f64, m_expm1)(x); }
CGRAD_SCALAR_INLINE float tanh_(float x) { return tanh_f32(x); }
CGRAD_SCALAR_INLINE double tanh_(double x) { return CGRAD_HOST_OWN(tanh_f64, m_tanh)(x); }
// f32 sinh and cosh in float arithmetic (until 2026-12-03 the f64 functions rounded once: 0.50 ulp;
// glibc's scalar calls before that made them 9-48x slower than NumPy). With h = e^a / 2, a = |x|
// clamped at 90 (both are inf from 89.42): cosh = h + 1 / 4h and, from a = 1, sinh = h - 1 / 4h, as
// 2^(n-1) (1 + r + (r^2 P(r) + r_lo e^r ± 2^-2n e^-r)) with a = n ln2 + r + r_lo (r_lo: the
// reduction's rounding error), P exp_f32_in_range's polynomial, 1 + r in two parts (the smaller
// joins the tail) and e^-r = 1 / e^r corrected for e^r's rounding: only the tail and the sum round;
// the power in two factors (n reaches 130). Below 1, sinh a = a + a z P(z), z = a^2, P of degree 3
// (tools/fit_poly.py sinh 3: 2^-32.5 relative; a is exact, only the correction rounds); below 0.34,
// cosh a = 1 + (z/2 + z^2 P(z)), P the Taylor polynomial to z^4 / 8! (the next term is below 2^-35
// there), where 2^-1 (e^r + e^-r) rounded e^-r and the tail a little too much (0.87 ulp near 0).
// sign: +1 for cosh, -1 for sinh.
CGRAD_SCALAR_INLINE float half_exp_pm_f32(float a, float sign) {
  const float ac = a < 90.0f ? a : 90.0f;
  const float t = fma_(ac, 1.44269504088896341f, 12582912.0f), n = t - 12582912.0f;
  const float r1 = fma_(-n, 0.693359375f, ac);  // exact
  const float r = fma_(-n, -2.12194440e-4f, r1), r_lo = fma_(-n, -2.12194440e-4f, r1 - r);
  const float p = expm1_poly_f32(r);
  const float u = 1.0f + r, u_lo = (1.0f - u) + r;                       // |r| < 1: exact
  const float lo = fma_(r * r, p, u_lo), v = u + lo, dv = (u - v) + lo;  // e^r = v + dv
  const int32_t ni = f32_to_bits(t) - 0x4B400000;                        // n in [0, 130]
  const float p2 = bits_to_f32((127 - (ni < 40 ? ni : 40)) << 23);    // 2^-n (2^-2n is below 2^-80 past 40)
  const float w0 = 1.0f / v, w = fma_(-w0 * dv, w0, w0) * (p2 * p2);  // 2^-2n e^-r
  const float sum = u + fma_(sign, w, fma_(r_lo, v, lo));
  const int32_t n1 = (ni - 1) >> 1, n2 = (ni - 1) - n1;
  return sum * bits_to_f32((n1 + 127) << 23) * bits_to_f32((n2 + 127) << 23);
}
CGRAD_SCALAR_INLINE float sinh_f32(float x) {
  const float a = m_fabs(x), z = a * a;
  float p = 2.8062802583e-06f;
  p = fma_(p, z, 1.9838101969e-04f);
  p = fma_(p, z, 8.3333396759e-03f);
  p = fma_(p, z, 1.6666666647e-01f);
  const float small = fma_(a * z, p, a);
  const float big = half_exp_pm_f32(a, -1.0f);
  const float r = a < 1.0f ? small : big;
  return x != x ? x : with_sign_of(r, x);
}
CGRAD_SCALAR_INLINE float cosh_f32(float x) {
  const float a = m_fabs(x), z = a * a;
  const float p = fma_(fma_(2.4801587642e-05f, z, 1.3888889225e-03f), z, 4.1666667908e-02f);
  const float small = 1.0f + fma_(z * z, p, 0.5f * z);
  const float r = a < 0.34f ? small : half_exp_pm_f32(a, 1.0f);
  return x != x ? x : r;
}
CGRAD_SCALAR_INLINE float sinh_(float x) { return CGRAD_HOST_OWN(sinh_f32, m_sinh)(x); }
CGRAD_SCALAR_INLINE double sinh_(double x) { return CGRAD_HOST_OWN(sinh_f64, m_sinh)(x); }
CGRAD_SCALAR_INLINE float cosh_(float x) { return CGRAD_HOST_OWN(cosh_f32, m_cosh)(x); }
CGRAD_SCALAR_INLINE double cosh_(double x) { return CGRAD_HOST_OWN(cosh_f64, m_cosh)(x); }
CGRAD_SCALAR_INLINE float log2_(float x) { return CGRAD_HOST_OWN(log2_f32, m_log2)(x); }
CGRAD_SCALAR_INLINE double log2_(double x) { return CGRAD_HOST_OWN(log2_f64, m_log2)(x); }
CGRAD_SCALAR_INLINE float log10_(float x) { return CGRAD_HOST_OWN(log10_f32, m_log10)(x); }
CGRAD_SCALAR_INLINE double log10_(double x) { return CGRAD_HOST_OWN(log10_f64, m_log10)(x); }

#if defined(CGRAD_SCALAR_LEAN)
// (the lean part: the entry points of the functions below, declared so that overloads resolve as
// in the whole header, and an error wherever a lean unit still calls one)
#define CGRAD_SCALAR_NOT_LEAN(f) \
  __attribute__((error("cgrad: " #f " is outside scalar.hpp's lean part (CGRAD_SCALAR_LEAN_NAMES)")))
#define CGRAD_SCALAR_NOT_LEAN_1(f)         \
  float f(float) CGRAD_SCALAR_NOT_LEAN(f); \
  double f(double) CGRAD_SCALAR_NOT_LEAN(f);
CGRAD_SCALAR_NOT_LEAN_1(sin_)
CGRAD_SCALAR_NOT_LEAN_1(cos_)
CGRAD_SCALAR_NOT_LEAN_1(tan_)
CGRAD_SCALAR_NOT_LEAN_1(erf_)
CGRAD_SCALAR_NOT_LEAN_1(atan_)
CGRAD_SCALAR_NOT_LEAN_1(asin_)
CGRAD_SCALAR_NOT_LEAN_1(acos_)
CGRAD_SCALAR_NOT_LEAN_1(asinh_)
CGRAD_SCALAR_NOT_LEAN_1(acosh_)
CGRAD_SCALAR_NOT_LEAN_1(atanh_)
float atan2_(float, float) CGRAD_SCALAR_NOT_LEAN(atan2_);
double atan2_(double, double) CGRAD_SCALAR_NOT_LEAN(atan2_);
float pow_(float, float) CGRAD_SCALAR_NOT_LEAN(pow_);
double pow_(double, double) CGRAD_SCALAR_NOT_LEAN(pow_);
#undef CGRAD_SCALAR_NOT_LEAN_1
#undef CGRAD_SCALAR_NOT_LEAN
#else  // (from here to the #endif after acos_: the functions outside the lean part)
// ---- f32 sin, cos, tan: in float below |x| = 2^20, an exact reduction and double polynomials above ----
// Below |x| = 2^20 (small_for_pio2), everything is in float arithmetic (reduce_pio2_small_f32 and
// sin_small_f32 below; until 2026-12-03 Cody and Waite's reduction and the polynomials in double,
// rounded once: 0.50 ulp, 2.2x NumPy's time for tan). From 2^20 on:
// |x| = m 2^e (m a 24-bit integer) times 2/pi, modulo 4, is taken in 64-bit integers from a
// 96-bit window of the bits of 2/pi that starts where they stop mattering (bits whose product
// with m 2^e is a multiple of 4 are skipped; the window's truncation moves the result by less
// than 2^-70): the quadrant and 62 bits of fraction, for every finite float, with no branch or
// table lookup (the window's words are picked by masks: loops over it vectorize). The fraction
// times pi/2 is r in [-pi/4, pi/4] in double, and sin r, cos r are Taylor polynomials in double
// (truncation under 1e-11 relative), rounded once (0.50 ulp). Worst errors over every float in
// docs/semantics.md. In the generated kernels a vector of lanes below 2^20 takes the float path
// alone, and only a vector with a large lane both (the vector variants below).
struct ReducedPio2 {
  double r;
  uint32_t q;  // quadrant of |x|: k mod 4 in |x| = k pi/2 + r
};
CGRAD_SCALAR_INLINE ReducedPio2 reduce_pio2_f32(float x) {
  const uint32_t a = static_cast<uint32_t>(f32_to_bits(x)) & 0x7fffffffu;
  uint32_t be = a >> 23;       // biased exponent: |x| = m 2^(be - 150)
  be = be < 126u ? 126u : be;  // below pi/4 (r = x): any window in the table
  be = be > 254u ? 254u : be;  // infinity, NaN: likewise (the result is NaN)
  const uint64_t m = (a & 0x7fffffu) | 0x800000u;
  // Bit i of 2/pi (weight 2^-i) is bit i + 31 of W0..W4 (32 zero bits first); the window starts
  // at bit e - 1, position be - 120 in 6..134: in words q, q + 1, q + 2 (q = position / 64).
  const uint64_t p = be - 120u, q = p >> 6, sh = p & 63u;
  const uint64_t is0 = 0 - static_cast<uint64_t>(q == 0), is1 = 0 - static_cast<uint64_t>(q == 1),
                 is2 = 0 - static_cast<uint64_t>(q == 2);
  const uint64_t W0 = 0x00000000a2f9836eull, W1 = 0x4e441529fc2757d1ull, W2 = 0xf534ddc0db629599ull,
                 W3 = 0x3c439041fe5163abull, W4 = 0xdebbc561b7246e3aull;
  const uint64_t u0 = (W0 & is0) | (W1 & is1) | (W2 & is2);
  const uint64_t u1 = (W1 & is0) | (W2 & is1) | (W3 & is2);
  const uint64_t u2 = (W2 & is0) | (W3 & is1) | (W4 & is2);
  const uint64_t hi = (u0 << sh) | ((u1 >> 1) >> (63u - sh));  // window bits 0..63
  const uint64_t lo = (u1 << sh) | ((u2 >> 1) >> (63u - sh));  // window bits 64..127
  const uint64_t w2 = hi >> 32, w1 = hi & 0xffffffffull, w0 = lo >> 32;
  // |x| 2/pi mod 4 in units of 2^-62: the product m (w2 w1 w0), shifted right 32, low 64 bits.
  const uint64_t t = ((m * w2) << 32) + m * w1 + ((m * w0) >> 32);
  const uint64_t f = t & 0x3fffffffffffffffull, up = f >> 61;  // fraction >= 1/2: next quadrant
  const int64_t sf = static_cast<int64_t>(f) - static_cast<int64_t>(up << 62);
  const double r = static_cast<double>(sf) * 3.4061215800865545e-19;  // (pi/2) 2^-62
  const bool small = a < 0x3f490fdbu;                                 // |x| < pi/4
  return {small ? static_cast<double>(bits_to_f32(static_cast<int32_t>(a))) : r,
          small ? 0u : static_cast<uint32_t>((t >> 62) + up) & 3u};
}
// sin r and cos r for |r| <= pi/4 (r2 = r * r): Taylor to r^11 and r^12.
CGRAD_SCALAR_INLINE double sin_reduced(double r, double r2) {
  double p = -2.5052108385441720e-08;
  p = fma_(p, r2, 2.7557319223985893e-06);
  p = fma_(p, r2, -1.9841269841269841e-04);
  p = fma_(p, r2, 8.3333333333333333e-03);
  p = fma_(p, r2, -1.6666666666666667e-01);
  return fma_(r * r2, p, r);
}
CGRAD_SCALAR_INLINE double cos_reduced(double r2) {
  double p = 2.0876756987868099e-09;
  p = fma_(p, r2, -2.7557319223985888e-07);
  p = fma_(p, r2, 2.4801587301587302e-05);
  p = fma_(p, r2, -1.3888888888888889e-03);
  p = fma_(p, r2, 4.1666666666666667e-02);
  p = fma_(p, r2, -0.5);
  return fma_(p, r2, 1.0);
}
// The paths' boundary: |x| below it takes the float path (inf and NaN do not).
CGRAD_SCALAR_INLINE bool small_for_pio2(float x) {
  return (static_cast<uint32_t>(f32_to_bits(x)) & 0x7fffffffu) < 0x49800000u;  // 2^20
}
CGRAD_SCALAR_INLINE float sin_of_reduced(ReducedPio2 k, float x) {
  const double r2 = k.r * k.r, s = sin_reduced(k.r, r2), c = cos_reduced(r2);
  double v = (k.q & 1u) ? c : s;
  v = (k.q & 2u) ? -v : v;
  return finite_f32(x) ? with_sign_of(static_cast<float>(v), x) : x - x;
}
CGRAD_SCALAR_INLINE float cos_of_reduced(ReducedPio2 k, float x) {
  const double r2 = k.r * k.r, s = sin_reduced(k.r, r2), c = cos_reduced(r2);
  double v = (k.q & 1u) ? s : c;
  v = ((k.q + 1u) & 2u) ? -v : v;
  return finite_f32(x) ? static_cast<float>(v) : x - x;
}
CGRAD_SCALAR_INLINE float tan_of_reduced(ReducedPio2 k, float x) {
  const double r2 = k.r * k.r, s = sin_reduced(k.r, r2), c = cos_reduced(r2);
  const double v = (k.q & 1u) ? -c / s : s / c;
  return finite_f32(x) ? with_sign_of(static_cast<float>(v), x) : x - x;
}
// Below |x| = 2^20, in float arithmetic: r = |x| - k pi/2 as hi + lo in two floats (k the integer
// nearest |x| times 2/pi rounded to float, below 2^20: |r| <= pi/4 + 0.04; |x| - k C1 exact by an
// FMA, C1 = pi/2 rounded to float; k C2 split into its rounded value and its exact error; their
// difference by TwoSum, either may be the larger; k C3; pi/2 - C1 - C2 - C3 is 1e-23, times k
// below 2^-57), then Taylor polynomials of hi
// in float with lo's first-order terms: sin r = hi + (hi z S(z) + lo (1 - z/2)) and cos r = w +
// (z^2 C(z) - z_err/2 - hi lo + w_err), z = hi^2 (z_err its rounding error), w = 1 - z/2 (w_err
// its, Fast2Sum). Each result rounds once more than the correctly rounded one; tan divides two
// such sums, each in two floats, with the quotient's remainder (an FMA) corrected for. Over every
// float (tools/ulp_sweep.cpp): sin 0.79, cos 0.80, tan 0.92 ulp. No double and no 64-bit integer:
// sixteen lanes to a zmm register.
struct ReducedPio2F32 {
  float hi, lo;
  uint32_t q;  // quadrant of |x|
};
CGRAD_SCALAR_INLINE ReducedPio2F32 reduce_pio2_small_f32(float x) {
  const float a = m_fabs(x);
  const float t = fma_(a, 6.3661974669e-01f, 12582912.0f), k = t - 12582912.0f;
  const float r1 = fma_(-k, 1.5707963705e+00f, a);  // exact
  const float p = k * 4.3711388287e-08f, p_err = fma_(k, 4.3711388287e-08f, -p);
  const float h = r1 + p, b = h - r1;  // r1 - k C2 (C2 < 0): TwoSum, either may be the larger
  const float e = (r1 - (h - b)) + (p - b);
  return {h, fma_(k, 1.7151245100e-15f, e + p_err), static_cast<uint32_t>(f32_to_bits(t)) & 3u};
}
// sin r and cos r of r = hi + lo, each as a leading part and a correction (their sum rounds once).
struct SinCosF32 {
  float s, s_corr, c, c_corr;
};
CGRAD_SCALAR_INLINE SinCosF32 sin_cos_small_f32(ReducedPio2F32 k) {
  const float z = k.hi * k.hi, z_err = fma_(k.hi, k.hi, -z);
  float ps = -2.5052108385e-08f;  // S and C: Taylor, to r^11 and r^12
  ps = fma_(ps, z, 2.7557319224e-06f);
  ps = fma_(ps, z, -1.9841269841e-04f);
  ps = fma_(ps, z, 8.3333333333e-03f);
  ps = fma_(ps, z, -1.6666666667e-01f);
  float pc = 2.0876756988e-09f;
  pc = fma_(pc, z, -2.7557319224e-07f);
  pc = fma_(pc, z, 2.4801587302e-05f);
  pc = fma_(pc, z, -1.3888888889e-03f);
  pc = fma_(pc, z, 4.1666666667e-02f);
  const float hz = 0.5f * z, w = 1.0f - hz, w_err = (1.0f - w) - hz;  // Fast2Sum
  // sin: hi + (hi z S(z) + lo (1 - z/2)); cos: w + (z^2 C(z) - z_err/2 - hi lo + w_err)
  return {k.hi, fma_(k.hi * z, ps, fma_(-hz, k.lo, k.lo)), w,
          fma_(z * z, pc, fma_(-k.hi, k.lo, fma_(-0.5f, z_err, w_err)))};
}
CGRAD_SCALAR_INLINE float sin_small_f32(float x) {
  const ReducedPio2F32 k = reduce_pio2_small_f32(x);
  const SinCosF32 v = sin_cos_small_f32(k);
  float r = (k.q & 1u) ? v.c + v.c_corr : v.s + v.s_corr;
  r = (k.q & 2u) ? -r : r;
  return with_sign_of(r, x);
}
CGRAD_SCALAR_INLINE float cos_small_f32(float x) {
  const ReducedPio2F32 k = reduce_pio2_small_f32(x);
  const SinCosF32 v = sin_cos_small_f32(k);
  const float r = (k.q & 1u) ? v.s + v.s_corr : v.c + v.c_corr;
  return ((k.q + 1u) & 2u) ? -r : r;
}
// tan r = sin r / cos r (or -cos r / sin r): each in two floats, the quotient rounded, then corrected
// by its remainder (exact by an FMA) over the divisor.
CGRAD_SCALAR_INLINE float tan_small_f32(float x) {
  const ReducedPio2F32 k = reduce_pio2_small_f32(x);
  const SinCosF32 v = sin_cos_small_f32(k);
  const float s = v.s + v.s_corr, s_lo = (v.s - s) + v.s_corr;
  const float c = v.c + v.c_corr, c_lo = (v.c - c) + v.c_corr;
  const bool odd = k.q & 1u;
  const float n = odd ? -c : s, n_lo = odd ? -c_lo : s_lo, d = odd ? s : c, d_lo = odd ? s_lo : c_lo;
  const float inv = 1.0f / d, q = n * inv;
  const float rem = fma_(-q, d_lo, fma_(-q, d, n) + n_lo);
  return with_sign_of(fma_(rem, inv, q), x);
}
// One reduction or another (a branch where the code stays scalar: the library, whose exact
// fma() calls keep its loops over these scalar; several, selected, where a loop vectorizes).
#define CGRAD_TRIG_F32(name)                           \
  CGRAD_SCALAR_INLINE float name##_f32(float x) {      \
    if (small_for_pio2(x)) return name##_small_f32(x); \
    return name##_of_reduced(reduce_pio2_f32(x), x);   \
  }
CGRAD_TRIG_F32(sin)
CGRAD_TRIG_F32(cos)
CGRAD_TRIG_F32(tan)
#undef CGRAD_TRIG_F32

// ---- f64 sin, cos, tan below |x| = 2^20: Cody and Waite in two doubles ----
// |x| = k pi/2 + r with k = round(|x| 2/pi) < 2^20 and pi/2 = P1 + P2 + P3 + P4 (P1, P2, P3 of 33
// bits, so k P1, k P2 and k P3 are exact; P4 leaves out 7e-49): x - k P1 is exact (Sterbenz),
// the two subtractions that follow keep their rounding errors (two_sum), and r = hi + lo to
// about 2^-105 |r| + 2^-130, where no double below 2^20 comes closer to a multiple of pi/2 than
// about 2^-60. sin and cos of hi + lo are Taylor polynomials (to r^17 and r^16; truncation below
// 0.02 ulp at pi/4) whose leading terms are added last, with lo's first-order terms; tan is their
// quotient, corrected once by its residual. From 2^20 on, and for inf and NaN, the C library's
// functions (sin_f64 and so on below; the vector variants further down). Errors and speed in
// docs/semantics.md.
// Written once for T = double and for the kernels' vectors of doubles (the vector variants
// below): the same operations in the same order, so every lane gets the scalar bits. Bits<T> is
// the integer type of T's bits, fma_ and the bit casts are overloaded for both, and a select
// `m ? a : b` takes a bool or a vector mask.
template <class T>
struct Bits {
  using type = int64_t;
};
CGRAD_SCALAR_INLINE int64_t bits_of(double x) { return f64_to_bits(x); }
CGRAD_SCALAR_INLINE double from_bits(int64_t b, double) { return bits_to_f64(b); }
#if defined(CGRAD_SCALAR_FREESTANDING) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    defined(__FMA__) && (defined(__AVX512F__) || defined(__AVX2__))
#define CGRAD_TRIG_F64_LANES 1
// A vector of n doubles (V, its bits I): Bits, fma_ (the FMA builtin `fma`) and the bit casts.
#define CGRAD_F64_VECTOR(V, I, n, fma)                     \
  typedef double V __attribute__((vector_size(8 * n)));    \
  typedef int64_t I __attribute__((vector_size(8 * n)));   \
  template <>                                              \
  struct Bits<V> {                                         \
    using type = I;                                        \
  };                                                       \
  inline V fma_(V a, V b, V c) { return fma; }             \
  inline I bits_of(V x) { return reinterpret_cast<I>(x); } \
  inline V from_bits(I b, V) { return reinterpret_cast<V>(b); }
CGRAD_F64_VECTOR(lanes4_f64, lanes4_i64, 4, __builtin_ia32_vfmaddpd256(a, b, c))
#if defined(__AVX512F__)
CGRAD_F64_VECTOR(lanes8_f64, lanes8_i64, 8,
                 __builtin_ia32_vfmaddpd512_mask(a, b, c, static_cast<unsigned char>(-1), 4))
#endif
#undef CGRAD_F64_VECTOR
#endif
template <class T>
struct ReducedPio2F64 {
  T hi, lo;                  // r = hi + lo, |hi| <= pi/4 (a little more), |lo| <= ulp(hi) / 2
  typename Bits<T>::type q;  // quadrant of |x|: k mod 4
};
// s + e = a + b exactly (Knuth's two-sum: no order of magnitudes assumed).
template <class T>
CGRAD_SCALAR_INLINE T two_sum(T a, T b, T& e) {
  const T s = a + b, bb = s - a;
  e = (a - (s - bb)) + (b - bb);
  return s;
}
CGRAD_SCALAR_INLINE bool small_for_pio2_f64(double x) {
  return (static_cast<uint64_t>(f64_to_bits(x)) & 0x7fffffffffffffffull) < 0x4130000000000000ull;  // 2^20
}
// (k and its bits from the sum that rounds |x| 2/pi to an integer, as exp's n)
template <class T>
CGRAD_SCALAR_INLINE ReducedPio2F64<T> reduce_pio2_small_f64(T x) {
  const T a = from_bits(bits_of(x) & 0x7fffffffffffffffLL, x);
  const T t = fma_(a, T{} + 0.63661977236758134, T{} + 6755399441055744.0), k = t - 6755399441055744.0;
  const T r1 = fma_(-k, T{} + 0x1.921fb544p+0, a);  // exact
  T e2, e3;
  const T r2 = two_sum(r1, -k * 0x1.0b4611a6p-34, e2);
  const T r3 = two_sum(r2, -k * 0x1.3198a2ep-69, e3);
  const T lo = fma_(-k, T{} + 0x1.b839a252049c1p-104, e2 + e3);
  const T hi = r3 + lo;
  return {hi, lo - (hi - r3), bits_of(t) & 3};
}
// sin(hi + lo) - hi and cos(hi + lo) - 1, each the part to add to its leading term last.
template <class T>
CGRAD_SCALAR_INLINE T sin_tail_f64(T hi, T lo, T z) {
  T p = T{} + 2.8114572543455206e-15;  // 1/17! (then 1/15!, ...)
  p = fma_(p, z, T{} - 7.647163731819816e-13);
  p = fma_(p, z, T{} + 1.6059043836821613e-10);
  p = fma_(p, z, T{} - 2.5052108385441720e-08);
  p = fma_(p, z, T{} + 2.7557319223985893e-06);
  p = fma_(p, z, T{} - 1.9841269841269841e-04);
  p = fma_(p, z, T{} + 8.3333333333333333e-03);
  p = fma_(p, z, T{} - 1.6666666666666667e-01);
  return fma_(hi * z, p, fma_(-0.5 * z, lo, lo));  // hi^3 p + lo (1 - z/2)
}
// cos(hi + lo) = w + tail with w = 1 - z/2 rounded: the tail holds w's rounding error, the
// rounding error of z = hi^2 (zl), the polynomial from r^4 on and -hi lo.
template <class T>
CGRAD_SCALAR_INLINE T cos_tail_f64(T hi, T lo, T z, T w) {
  const T zl = fma_(hi, hi, -z);
  T p = T{} + 4.779477332387385e-14;  // 1/16! (then 1/14!, ...)
  p = fma_(p, z, T{} - 1.1470745597729725e-11);
  p = fma_(p, z, T{} + 2.0876756987868099e-09);
  p = fma_(p, z, T{} - 2.7557319223985888e-07);
  p = fma_(p, z, T{} + 2.4801587301587302e-05);
  p = fma_(p, z, T{} - 1.3888888888888889e-03);
  p = fma_(p, z, T{} + 4.1666666666666667e-02);
  return ((1.0 - w) - 0.5 * z) + fma_(z * z, p, fma_(-hi, lo, -0.5 * zl));
}
// The sign of x flipped into y (sin and tan are odd: computed on |x|).
template <class T>
CGRAD_SCALAR_INLINE T odd_f64(T y, T x) {
  return from_bits(bits_of(y) ^ (bits_of(x) & static_cast<int64_t>(0x8000000000000000ULL)), x);
}
// sin r and cos r, each of them rounded once.
template <class T>
CGRAD_SCALAR_INLINE void sin_cos_of_reduced_f64(ReducedPio2F64<T> k, T& s, T& c) {
  const T z = k.hi * k.hi, w = 1.0 - 0.5 * z;
  s = k.hi + sin_tail_f64(k.hi, k.lo, z), c = w + cos_tail_f64(k.hi, k.lo, z, w);
}
template <class T>
CGRAD_SCALAR_INLINE T sin_of_reduced_f64(ReducedPio2F64<T> k, T x) {
  T s, c;
  sin_cos_of_reduced_f64(k, s, c);
  T v = (k.q & 1) != 0 ? c : s;
  v = (k.q & 2) != 0 ? -v : v;
  return odd_f64(v, x);
}
template <class T>
CGRAD_SCALAR_INLINE T cos_of_reduced_f64(ReducedPio2F64<T> k, T) {
  T s, c;
  sin_cos_of_reduced_f64(k, s, c);
  const T v = (k.q & 1) != 0 ? s : c;
  return ((k.q + 1) & 2) != 0 ? -v : v;
}
// tan = n / d with n + nt and d + dt the sine and cosine (cosine and minus sine in odd
// quadrants) in two parts: q = n / d, then q + (n + nt - q (d + dt)) / d.
template <class T>
CGRAD_SCALAR_INLINE T tan_of_reduced_f64(ReducedPio2F64<T> k, T x) {
  const T z = k.hi * k.hi, w = 1.0 - 0.5 * z;
  const T st = sin_tail_f64(k.hi, k.lo, z), ct = cos_tail_f64(k.hi, k.lo, z, w);
  const auto odd = (k.q & 1) != 0;
  const T n = odd ? w : k.hi, nt = odd ? ct : st;
  const T d = odd ? -k.hi : w, dt = odd ? -st : ct;
  const T q = (n + nt) / (d + dt);
  const T v = q + (fma_(-q, d, n) + fma_(-q, dt, nt)) / (d + dt);
  return odd_f64(v, x);
}
// A branch (the library and scalar code); the kernels' loops call the vector variants below.
#define CGRAD_TRIG_F64(name)                                                              \
  CGRAD_SCALAR_INLINE double name##_f64(double x) {                                       \
    if (small_for_pio2_f64(x)) return name##_of_reduced_f64(reduce_pio2_small_f64(x), x); \
    return m_##name(x);                                                                   \
  }
CGRAD_TRIG_F64(sin)
CGRAD_TRIG_F64(cos)
CGRAD_TRIG_F64(tan)
#undef CGRAD_TRIG_F64

// In the CPU kernels GCC compiles for x86-64 with AVX2 or AVX-512, a loop over sin, cos or tan
// of f32 or f64 calls a function of a vector of lanes (its OpenMP `declare simd` variant, by the
// x86-64 vector function ABI's name), defined here. A block of lanes takes the short reduction
// for every lane when no lane is at or above 2^20. When one is: f32 computes both reductions for
// every lane, vectorized, selected per lane as the scalar function selects, and the polynomials
// once; f64 calls sin_f64 and so on lane by lane (the C library's functions from 2^20 on). Every
// lane thus gets the scalar function's bits, as the interpreter does. 2^22 f32, one thread of
// the Zen 4 VM: sin 10.0 -> 5.3 ms (inline, a branch-free loop computes the exact reduction for
// every lane); past 2^20, 10.0 -> 11.6 (16.1 when such a vector computed the polynomials twice).
// The block is a ymm register's lanes (8 floats, 4 doubles). With AVX-512 a loop calls the
// variant of a ymm's lanes or of a zmm's (two blocks), after its vector width: 512 bits in kernels,
// which prefer it (backends/cpu/jit/compiler.cpp), 256 in code built without that preference for
// Intel's AVX-512 cores (Rocket Lake), whose loops declared only the zmm variant and so did not
// vectorize (2026-12-01); GCC may also vectorize a loop's remainder at 256 bits.
// Compiled only into kernel units that call the function (the renderer defines
// CGRAD_KERNEL_USES_<NAME> for f32 and CGRAD_KERNEL_USES_<NAME>_F64, codegen/render_cpu.cpp):
// each adds about 23 ms to a cold compile.
#if defined(CGRAD_SCALAR_FREESTANDING) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    (defined(__AVX512F__) || defined(__AVX2__))
#define CGRAD_TRIG_LANES 1
#define CGRAD_PRAGMA(x) _Pragma(#x)
#if defined(__AVX512F__)
#define CGRAD_TRIG_LANES_ABI(n, name) "_ZGVeN" #n "v_" #name  // AVX-512 (either width)
#define CGRAD_TRIG_LANES_SIMD(n, n2)                    \
  CGRAD_PRAGMA(omp declare simd simdlen(n) notinbranch) \
  CGRAD_PRAGMA(omp declare simd simdlen(n2) notinbranch)
#else
#define CGRAD_TRIG_LANES_ABI(n, name) "_ZGVdN" #n "v_" #name  // AVX2: a ymm register
#define CGRAD_TRIG_LANES_SIMD(n, n2) CGRAD_PRAGMA(omp declare simd simdlen(n) notinbranch)
#endif
typedef float lanes_f32 __attribute__((vector_size(32)));
// f32's widest vector: CGRAD_TRIG_LANES_W lanes, a zmm register's with AVX-512, else a ymm's
#if defined(__AVX512F__)
#define CGRAD_TRIG_LANES_W 16
#define CGRAD_TRIG_LANES_ABI_W(name) CGRAD_TRIG_LANES_ABI(16, name)
#else
#define CGRAD_TRIG_LANES_W 8
#define CGRAD_TRIG_LANES_ABI_W(name) CGRAD_TRIG_LANES_ABI(8, name)
#endif
typedef float lanesw_f32 __attribute__((vector_size(4 * CGRAD_TRIG_LANES_W)));
typedef int32_t lanesw_i32 __attribute__((vector_size(4 * CGRAD_TRIG_LANES_W)));
// The function's declaration (the variants' interface, not its definition: a definition would
// make GCC derive its own variants) and its scalar entry under that name: T the element, t its
// suffix, n the lanes of a ymm register, n2 of a zmm.
#define CGRAD_TRIG_LANES_ENTRY(name, T, t, n, n2)                                                         \
  CGRAD_TRIG_LANES_SIMD(n, n2)                                                                            \
  extern "C" T cgrad_##name##_##t##_lanes(T) __attribute__((const, nothrow));                             \
  extern "C" __attribute__((noinline)) T name##_##t##_entry(T x) __asm__("cgrad_" #name "_" #t "_lanes"); \
  extern "C" __attribute__((noinline)) T name##_##t##_entry(T x) { return name##_##t(x); }
// f32: the vector variants. The one of a zmm register's lanes (a ymm's without AVX-512) computes
// lanes all below 2^20 (the common case) by the float path in line; otherwise every lane takes the
// exact reduction (a function of its own), and where some lane is below 2^20 the float path too,
// by the variant called again on the vector with the large lanes zeroed, selected per lane. The ymm
// variant with AVX-512 pads to a zmm's lanes. So each path is compiled once per function: the cold
// compile of a unit calling sin stays as it was (2026-12-03). 2^22 f32, one thread of the Zen 5 VM:
// 1.8 ms below 2^20 (5.2 when the path below 2^20 was in double); past 2^20 13 -> 8.7-9.0 ms (10.4-10.8
// where some lanes are below; the exact reduction at a zmm's lanes, where it took a ymm's).
#define CGRAD_TRIG_LANES_DEFINE(name)                                                                        \
  extern "C" lanesw_f32 name##_f32_vectorw(lanesw_f32 x) __asm__(                                            \
      CGRAD_TRIG_LANES_ABI_W(cgrad_##name##_f32_lanes));                                                     \
  __attribute__((noinline)) static lanesw_f32 name##_f32_large(lanesw_f32 x, lanesw_i32 large, bool mixed) { \
    const lanesw_f32 s =                                                                                     \
        mixed ? name##_f32_vectorw(reinterpret_cast<lanesw_f32>(reinterpret_cast<lanesw_i32>(x) & ~large))   \
              : x;                                                                                           \
    float in[CGRAD_TRIG_LANES_W], sm[CGRAD_TRIG_LANES_W], out[CGRAD_TRIG_LANES_W];                           \
    __builtin_memcpy(in, &x, sizeof in);                                                                     \
    __builtin_memcpy(sm, &s, sizeof sm);                                                                     \
    for (int i = 0; i < CGRAD_TRIG_LANES_W; ++i) {                                                           \
      const float b = name##_of_reduced(reduce_pio2_f32(in[i]), in[i]);                                      \
      out[i] = small_for_pio2(in[i]) ? sm[i] : b;                                                            \
    }                                                                                                        \
    __builtin_memcpy(&x, out, sizeof out);                                                                   \
    return x;                                                                                                \
  }                                                                                                          \
  extern "C" lanesw_f32 name##_f32_vectorw(lanesw_f32 x) {                                                   \
    const lanesw_i32 large = (reinterpret_cast<lanesw_i32>(x) & 0x7fffffff) >= 0x49800000;                   \
    uint64_t words[CGRAD_TRIG_LANES_W / 2], any = 0, all = ~uint64_t{0};                                     \
    __builtin_memcpy(words, &large, sizeof words);                                                           \
    for (int i = 0; i < CGRAD_TRIG_LANES_W / 2; ++i) any |= words[i], all &= words[i];                       \
    if (__builtin_expect(any != 0, 0)) return name##_f32_large(x, large, ~all != 0);                         \
    float in[CGRAD_TRIG_LANES_W], out[CGRAD_TRIG_LANES_W];                                                   \
    __builtin_memcpy(in, &x, sizeof in);                                                                     \
    for (int i = 0; i < CGRAD_TRIG_LANES_W; ++i) out[i] = name##_small_f32(in[i]);                           \
    __builtin_memcpy(&x, out, sizeof out);                                                                   \
    return x;                                                                                                \
  }                                                                                                          \
  CGRAD_TRIG_LANES_ENTRY(name, float, f32, 8, 16)                                                            \
  CGRAD_TRIG_LANES_NARROW_F32(name)
#if defined(__AVX512F__)
#define CGRAD_TRIG_LANES_NARROW_F32(name)                       \
  extern "C" lanes_f32 name##_f32_vector8(lanes_f32 x) __asm__( \
      CGRAD_TRIG_LANES_ABI(8, cgrad_##name##_f32_lanes));       \
  extern "C" lanes_f32 name##_f32_vector8(lanes_f32 x) {        \
    float lanes[16] = {};                                       \
    __builtin_memcpy(lanes, &x, sizeof x);                      \
    lanesw_f32 w;                                               \
    __builtin_memcpy(&w, lanes, sizeof w);                      \
    w = name##_f32_vectorw(w);                                  \
    __builtin_memcpy(&x, &w, sizeof x);                         \
    return x;                                                   \
  }
#else
#define CGRAD_TRIG_LANES_NARROW_F32(name)
#endif
#if defined(CGRAD_KERNEL_USES_SIN)
CGRAD_TRIG_LANES_DEFINE(sin)
#endif
#if defined(CGRAD_KERNEL_USES_COS)
CGRAD_TRIG_LANES_DEFINE(cos)
#endif
#if defined(CGRAD_KERNEL_USES_TAN)
CGRAD_TRIG_LANES_DEFINE(tan)
#endif
// f64 (with FMA: CGRAD_TRIG_F64_LANES): a variant computes on its vector itself, through the
// functions above written for vectors too, and calls the C library's function for each lane at
// or above 2^20 (or inf, NaN) if there is one. (Through a block of lanes as for f32, GCC 12
// vectorized the block's loop at 128 bits: 2^22 doubles, 24 ms against 11 inline.)
#if defined(CGRAD_TRIG_F64_LANES)
#define CGRAD_TRIG_LANES_VARIANT_F64(name, V, I, n)                                                  \
  extern "C" V name##_f64_vector##n(V x) __asm__(CGRAD_TRIG_LANES_ABI(n, cgrad_##name##_f64_lanes)); \
  extern "C" V name##_f64_vector##n(V x) {                                                           \
    const I large = (reinterpret_cast<I>(x) & 0x7fffffffffffffffLL) >= 0x4130000000000000LL;         \
    int64_t any = 0;                                                                                 \
    for (int i = 0; i < n; ++i) any |= large[i];                                                     \
    V y = name##_of_reduced_f64(reduce_pio2_small_f64(x), x);                                        \
    if (__builtin_expect(any != 0, 0))                                                               \
      for (int i = 0; i < n; ++i)                                                                    \
        if (large[i]) y[i] = m_##name(x[i]);                                                         \
    return y;                                                                                        \
  }
#if defined(__AVX512F__)
#define CGRAD_TRIG_LANES_WIDE_F64(name) CGRAD_TRIG_LANES_VARIANT_F64(name, lanes8_f64, lanes8_i64, 8)
#else
#define CGRAD_TRIG_LANES_WIDE_F64(name)
#endif
#define CGRAD_TRIG_LANES_DEFINE_F64(name)                       \
  CGRAD_TRIG_LANES_ENTRY(name, double, f64, 4, 8)               \
  CGRAD_TRIG_LANES_VARIANT_F64(name, lanes4_f64, lanes4_i64, 4) \
  CGRAD_TRIG_LANES_WIDE_F64(name)
#if defined(CGRAD_KERNEL_USES_SIN_F64)
CGRAD_TRIG_LANES_DEFINE_F64(sin)
#endif
#if defined(CGRAD_KERNEL_USES_COS_F64)
CGRAD_TRIG_LANES_DEFINE_F64(cos)
#endif
#if defined(CGRAD_KERNEL_USES_TAN_F64)
CGRAD_TRIG_LANES_DEFINE_F64(tan)
#endif
#undef CGRAD_TRIG_LANES_DEFINE_F64
#undef CGRAD_TRIG_LANES_WIDE_F64
#undef CGRAD_TRIG_LANES_VARIANT_F64
#endif
#undef CGRAD_TRIG_LANES_DEFINE
#undef CGRAD_TRIG_LANES_NARROW_F32
#undef CGRAD_TRIG_LANES_W
#undef CGRAD_TRIG_LANES_ABI_W
#undef CGRAD_TRIG_LANES_ENTRY
#endif
CGRAD_SCALAR_INLINE float sin_(float x) { return CGRAD_HOST_OWN(sin_f32, m_sin)(x); }
CGRAD_SCALAR_INLINE float cos_(float x) { return CGRAD_HOST_OWN(cos_f32, m_cos)(x); }
CGRAD_SCALAR_INLINE float tan_(float x) { return CGRAD_HOST_OWN(tan_f32, m_tan)(x); }
// The generated kernels' sin, cos and tan of values computed in f32 (f16 and bf16 too) are
// called by these names (codegen/render_scalar.cpp), which tell the renderer to have the unit
// compile the vector variants above (codegen/render_cpu.cpp); elsewhere they are sin_ and so on.
#define CGRAD_TRIG_LANES_CALL(name, NAME) \
  CGRAD_SCALAR_INLINE float name##_lanes(float x) { return CGRAD_TRIG_LANES_##NAME(x); }
#if defined(CGRAD_TRIG_LANES) && defined(CGRAD_KERNEL_USES_SIN)
#define CGRAD_TRIG_LANES_SIN cgrad_sin_f32_lanes
#else
#define CGRAD_TRIG_LANES_SIN sin_
#endif
#if defined(CGRAD_TRIG_LANES) && defined(CGRAD_KERNEL_USES_COS)
#define CGRAD_TRIG_LANES_COS cgrad_cos_f32_lanes
#else
#define CGRAD_TRIG_LANES_COS cos_
#endif
#if defined(CGRAD_TRIG_LANES) && defined(CGRAD_KERNEL_USES_TAN)
#define CGRAD_TRIG_LANES_TAN cgrad_tan_f32_lanes
#else
#define CGRAD_TRIG_LANES_TAN tan_
#endif
CGRAD_TRIG_LANES_CALL(sin, SIN)
CGRAD_TRIG_LANES_CALL(cos, COS)
CGRAD_TRIG_LANES_CALL(tan, TAN)
#undef CGRAD_TRIG_LANES_CALL
CGRAD_SCALAR_INLINE double sin_(double x) { return CGRAD_HOST_OWN(sin_f64, m_sin)(x); }
CGRAD_SCALAR_INLINE double cos_(double x) { return CGRAD_HOST_OWN(cos_f64, m_cos)(x); }
CGRAD_SCALAR_INLINE double tan_(double x) { return CGRAD_HOST_OWN(tan_f64, m_tan)(x); }
// f64 by the names sin_lanes_f64 and so on (CGRAD_KERNEL_USES_SIN_F64 ...).
#define CGRAD_TRIG_LANES_CALL_F64(name, NAME) \
  CGRAD_SCALAR_INLINE double name##_lanes_f64(double x) { return CGRAD_TRIG_LANES_##NAME##_F64(x); }
#if defined(CGRAD_TRIG_F64_LANES) && defined(CGRAD_KERNEL_USES_SIN_F64)
#define CGRAD_TRIG_LANES_SIN_F64 cgrad_sin_f64_lanes
#else
#define CGRAD_TRIG_LANES_SIN_F64 sin_
#endif
#if defined(CGRAD_TRIG_F64_LANES) && defined(CGRAD_KERNEL_USES_COS_F64)
#define CGRAD_TRIG_LANES_COS_F64 cgrad_cos_f64_lanes
#else
#define CGRAD_TRIG_LANES_COS_F64 cos_
#endif
#if defined(CGRAD_TRIG_F64_LANES) && defined(CGRAD_KERNEL_USES_TAN_F64)
#define CGRAD_TRIG_LANES_TAN_F64 cgrad_tan_f64_lanes
#else
#define CGRAD_TRIG_LANES_TAN_F64 tan_
#endif
CGRAD_TRIG_LANES_CALL_F64(sin, SIN)
CGRAD_TRIG_LANES_CALL_F64(cos, COS)
CGRAD_TRIG_LANES_CALL_F64(tan, TAN)
#undef CGRAD_TRIG_LANES_CALL_F64

// ---- f64 erf: straight-line code ----
// glibc's scalar erf kept loops over it from vectorizing (2^22 f64 through the engine, one thread
// of the Zen 4 VM: 48-51 ms; now 13-14). Worst error 0.79 ulp (glibc's 1.20; docs/semantics.md).
// erfc(a) e^(a^2) for a in [0.84375, 6]: one polynomial whose variable and coefficients are selected
// per lane before it (in a vector loop GCC's jump threading still evaluates it once with each set of
// constants: 64 vector FMAs for erf_f64's 48, faster than selecting by bit masks, which kept one
// evaluation: bench/NOTES.md), P(a - 1.421875) below 2 (degree 18:
// tools/fit_poly.py erfcn 18, 2^-55.5 relative) and Q(1/a - 1/3) / a from 2 (degree 16: erfcf 16,
// 2^-53.0 relative, where erfc <= 0.0047: 2^-60.7 of erf). In 1/a the far piece's coefficients stay
// small; fitted in a itself, rounded to double, they lost 20 bits.
CGRAD_SCALAR_INLINE double erfc_scaled_f64(double a) {
  const bool near = a < 2.0;
  const double r = 1.0 / a;
  const double t = near ? a - 1.421875 : r - 0.33333333333333331;
  const double f = near ? 1.0 : r;
  double p = near ? 1.3392188916359348e-09 : 0.0;
  p = fma_(p, t, near ? -5.1689109491378317e-09 : 0.0);
  p = fma_(p, t, near ? 1.7412962897342267e-08 : -3.5742179745031324);
  p = fma_(p, t, near ? -6.4060178337626264e-08 : -3.7737377632016886);
  p = fma_(p, t, near ? 2.3162796353273305e-07 : 5.2836048706419705);
  p = fma_(p, t, near ? -8.1252905814326451e-07 : -2.5363263314900855);
  p = fma_(p, t, near ? 2.7762910068468468e-06 : 0.15450996662654273);
  p = fma_(p, t, near ? -9.2281128579767316e-06 : 0.92249794415831332);
  p = fma_(p, t, near ? 2.9779052911275486e-05 : -0.95774912559477798);
  p = fma_(p, t, near ? -9.3096870408630145e-05 : 0.4830832761246841);
  p = fma_(p, t, near ? 0.00028126736710098446 : 0.018878689608398152);
  p = fma_(p, t, near ? -0.00081886293738952598 : -0.28477039627404049);
  p = fma_(p, t, near ? 0.002289390208208108 : 0.2759999813207441);
  p = fma_(p, t, near ? -0.0061212469841806184 : -0.096657675177417496);
  p = fma_(p, t, near ? 0.015571818680229799 : -0.10262206224969915);
  p = fma_(p, t, near ? -0.037444297146372853 : 0.19568021008161385);
  p = fma_(p, t, near ? 0.084384747365458937 : -0.11537284741573842);
  p = fma_(p, t, near ? -0.17615100837982156 : -0.14295934043884373);
  p = fma_(p, t, near ? 0.33484946240551772 : 0.5370034535441699);
  return p * f;
}
// erf x: below 0.84375, |x| + |x| (E + z P(z)), z = x^2, E = 2/sqrt(pi) - 1 (P of degree 10:
// tools/fit_poly.py erf64 10, 2^-56.4 relative; z's rounding error added to its argument); from there
// 1 - e^-(h + l) R, h + l = x^2 exactly (two_prod_err), e^-(h + l) = 2^n (1 + ml), ml = m - l (1 + m),
// e^-h = 2^n (1 + m) (exp_reduce), R = erfc_scaled_f64: 1 - w - w ml, w = 2^n R exact, with 1 - w in
// two parts (Fast2Sum), so that only the small terms round: erfc's relative error counts at most
// erfc / erf = 0.3 of itself. |x| clamped at 6 (erf rounds to 1 from 5.92; inf gives no NaN). With
// the sign of x.
CGRAD_SCALAR_INLINE_ALWAYS double erf_f64(double x) {
  const double a = m_fabs(x), z = a * a;
  double p = -9.1261399602283036e-10;
  p = fma_(p, z, 1.4299936487892695e-08);
  p = fma_(p, z, -1.6318643770584951e-07);
  p = fma_(p, z, 1.6459357175748881e-06);
  p = fma_(p, z, -1.4925546325816506e-05);
  p = fma_(p, z, 0.0001205533045291504);
  p = fma_(p, z, -0.00085483269850498284);
  p = fma_(p, z, 0.0052239776251015333);
  p = fma_(p, z, -0.026866170645115737);
  p = fma_(p, z, 0.11283791670955098);
  p = fma_(p, z, -0.37612638903183754);
  const double z_lo = two_prod_err(a, a, z);
  const double small = fma_(a, fma_(z_lo, p, fma_(z, p, 0.1283791670955126)), a);
  const double ac = a < 6.0 ? a : 6.0;
  const double h = ac * ac, l = two_prod_err(ac, ac, h);
  const exp_split_f64 s = exp_reduce(-h);
  const double m = expm1_reduced_f64(s.r);
  const double ml = fma_(-l, 1.0 + m, m);                // e^-(h + l) = 2^n (1 + ml)
  const double w = pow2_f64(s.n) * erfc_scaled_f64(ac);  // exact: a power of two times a normal double
  const double one_minus_w = 1.0 - w;
  const double big = one_minus_w + fma_(-w, ml, (1.0 - one_minus_w) - w);
  const double r = a < 0.84375 ? small : big;
  return x != x ? x : with_sign_of(r, x);
}

CGRAD_SCALAR_INLINE float erf_(float x) { return erf_f32(x); }
CGRAD_SCALAR_INLINE_ALWAYS double erf_(double x) { return CGRAD_HOST_OWN(erf_f64, m_erf)(x); }

// ---- f32 atan2, atan, asin, acos, asinh, acosh, atanh and pow: in double, rounded once ----
// glibc's scalar calls kept every loop over them from vectorizing (atan2 of 2^22 f32: 92 ms
// against NumPy's 2.2). Each is computed in double from exact or once-rounded double
// operands, with a double logarithm and arctangent of cgrad's own (straight-line code, explicit
// FMAs, one division each), and rounded once to float: within 0.50 ulp over every float, pow
// within 0.5001 on random pairs (docs/semantics.md). On a GPU, libdevice's functions.

// log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: 2 atanh(s) = 2s + 2s s^2 Q(s^2), s = f / (2 + f),
// |s| <= 0.1716; Q of degree 5, near minimax (tools/fit_poly.py log1p 5: 2^-52.1 relative). The
// Taylor series needed degree 8 for 3e-17. The fit gives asinh, acosh and atanh the same bits for
// every float, and pow for 1.2x10^8 random pairs (tools/ulp_sweep.cpp); 2^22 f32, one thread:
// asinh 4.5 -> 3.9 ms, atanh 3.3 -> 2.8.
CGRAD_SCALAR_INLINE double log1p_reduced_f64(double f) {
  const double s = f / (2.0 + f), z = s * s;
  double p = 0.084094959806044964;
  p = fma_(p, z, 0.09061856814126);
  p = fma_(p, z, 0.11111684713699753);
  p = fma_(p, z, 0.14285708581119791);
  p = fma_(p, z, 0.20000000026035542);
  p = fma_(p, z, 0.33333333333293835);
  return fma_(2.0 * s * z, p, 2.0 * s);
}
// log(x) for a positive, finite, normal double (callers select their special values):
// x = 2^e m, m in [sqrt(1/2), sqrt(2)), as log_f32 does; e ln2 in two parts (e times the first
// is exact).
CGRAD_SCALAR_INLINE double log_pos_f64(double x) {
  const log_split_f64 s = log_split(x);  // f exact
  return fma_(s.e, 6.93147180369123816490e-01, fma_(s.e, 1.90821492927058770002e-10, log1p_reduced_f64(s.f)));
}
// log(1 + w) for w >= 0: the reduced series of w itself below sqrt(2) - 1 (no rounding of 1 + w),
// else log_pos_f64(1 + w). One series and one division serve both cases (the operands are
// selected first, the exponent 0 below, which adds exact zeros): asinh, acosh and atanh computed
// both and selected afterwards (2^22 f32, one thread: asinh 5.3 -> 4.2 ms, acosh 4.5 -> 3.4, atanh
// 4.0 -> 3.1; the same bits for every float).
CGRAD_SCALAR_INLINE double log1p_pos_f64(double w) {
  // (the callers compute every lane and select afterwards: 1 + w may be negative or NaN here,
  // which log_split's unsigned difference allows)
  const log_split_f64 s = log_split(1.0 + w);
  const bool small = w < 0.41421356237309503;
  const double fe = small ? 0.0 : s.e;
  const double f = small ? w : s.f;
  return fma_(fe, 6.93147180369123816490e-01, fma_(fe, 1.90821492927058770002e-10, log1p_reduced_f64(f)));
}
// atan(n / d) for 0 <= n <= d, 0 < d, with one division; R is the result's type (f64's reduction:
// the branch below). For f32: t = n / d above 2 - sqrt(3) becomes pi/6 + atan(u),
// u = (t sqrt(3) - 1) / (sqrt(3) + t) = (n sqrt(3) - d) / (d sqrt(3) + n), so |u| <= 2 - sqrt(3);
// atan(u) = u + u^3 P(u^2), P of degree 6, near minimax (tools/fit_poly.py atan 6: 2^-49.7
// relative; the Taylor series needed degree 11 for 5e-17). 2^22 f32, one thread: atan 3.9 -> 2.7
// ms, atan2 5.5 -> 4.6, asin 5.0 -> 3.9, acos 5.4 -> 4.2. Over every float, atan and asin each round
// 2 results the other way from glibc's double function rounded to float (none before), still within
// 0.50 ulp; atan2 kept its bits on 1.2x10^8 random pairs.
template <class R = float>
CGRAD_SCALAR_INLINE double atan_ratio_f64(double n, double d) {
  if constexpr (sizeof(R) == 4) {
    const bool big = n > 0.26794919243112270 * d;
    const double base = big ? 0.52359877559829887 : 0.0;
    const double u = (big ? fma_(n, 1.7320508075688772, -d) : n) / (big ? fma_(d, 1.7320508075688772, n) : d);
    const double z = u * u;
    double p = -0.052212528203385726;
    p = fma_(p, z, 0.075340809185638305);
    p = fma_(p, z, -0.090817036046450306);
    p = fma_(p, z, 0.11110813792553056);
    p = fma_(p, z, -0.14285709124295834);
    p = fma_(p, z, 0.19999999957401343);
    p = fma_(p, z, -0.33333333333214205);
    return base + fma_(u * z, p, u);
  } else {
    // f64: u = t below 7/16, (2t - 1) / (2 + t) to 11/16 (plus atan(1/2)), (t - 1) / (t + 1) above
    // (plus pi/4): the numerators 2n - d and n - d are exact (Sterbenz), so u rounds twice and
    // |u| <= 7/16; P of degree 11 (tools/fit_poly.py atan64 11: 2^-57.9); the bases in two parts.
    // Operands past 2^1000 are scaled by 2^-4 first, so that 2d + n and n + d stay finite, and a d
    // below 2^-1000 by 2^64, so that the thresholds' products keep their bits (both exact). The bases
    // are selected before the polynomial: selected after it, on the same conditions as u, they let
    // GCC's jump threading copy the division and the polynomial into each of the three paths (atan).
    const double k = d > 0x1p1000 ? 0.0625 : d < 0x1p-1000 ? 0x1p64 : 1.0;
    n *= k, d *= k;
    const bool mid = n >= 0.4375 * d, top = n >= 0.6875 * d;
    const double b_hi = top ? 0.7853981633974483 : mid ? 0.4636476090008061 : 0.0;
    const double b_lo = top ? 3.061616997868383e-17 : mid ? 2.2698777452961687e-17 : 0.0;
    const double u = (top ? n - d : mid ? 2.0 * n - d : n) / (top ? n + d : mid ? 2.0 * d + n : d);
    const double z = u * u;
    double p = 0.014773184616983806;
    p = fma_(p, z, -0.033128134256069586);
    p = fma_(p, z, 0.04492259293193656);
    p = fma_(p, z, -0.052166797393136559);
    p = fma_(p, z, 0.058769464567550611);
    p = fma_(p, z, -0.06666241923359964);
    p = fma_(p, z, 0.07692285554889286);
    p = fma_(p, z, -0.090909083556025921);
    p = fma_(p, z, 0.11111111096645038);
    p = fma_(p, z, -0.14285714285566806);
    p = fma_(p, z, 0.1999999999999941);
    p = fma_(p, z, -0.33333333333333331);
    return b_hi + (b_lo + fma_(u * z, p, u));
  }
}
// atan2(y, x) with the sign of y; C99 Annex F's special values (atan2(±0, -0) = ±pi,
// atan2(±inf, ±inf) = ±pi/4 or ±3pi/4, NaN in, NaN out). For f32 results, of doubles that are
// floats or exact (or once-rounded) functions of them.
// The angle of (a, c) for a, c >= 0, neither both zero nor both infinite (there a NaN, which atan2_f64
// selects away), in [0, pi/2], or of (a, -c) when `neg`, in [pi/2, pi]: t = atan_ratio_f64 of the smaller
// over the larger, then pi/2 - t when a is the larger, and pi minus that when `neg`. For f64 results, one sum
// k + (k' + s t) with k + k' one of 0, pi/2 and pi in two parts (so atan2(1, -0) is pi/2 rounded once, not pi
// - (pi/2 rounded)). (A guard against a zero divisor here, `d == 0 ? 1 : d`, made asin 1.7x slower: atan2
// sets its operands up instead.)
template <class R = float>
CGRAD_SCALAR_INLINE double atan_angle_f64(double a, double c, bool neg) {
  const bool steep = a > c;
  if constexpr (sizeof(R) == 4) {
    const double t = atan_ratio_f64<R>(steep ? c : a, steep ? a : c);
    const double r = steep ? 1.5707963267948966 - t : t;
    return neg ? 3.1415926535897931 - r : r;
  } else {
    // (selects before the ratio's polynomial, as in atan_ratio_f64)
    const double hi = steep ? 1.5707963267948966 : neg ? 3.1415926535897931 : 0.0;
    const double lo = steep ? 6.123233995736766e-17 : neg ? 1.2246467991473532e-16 : 0.0;
    const double sg = steep ? -1.0 : 1.0;  // (two factors: GCC 12 vectorizes no comparison of two masks)
    const double sg2 = neg ? -sg : sg;
    const double t = atan_ratio_f64<R>(steep ? c : a, steep ? a : c);
    return hi + (lo + sg2 * t);
  }
}
// f64: the angle of (|y|, |x|) as it comes, both zero (0 / 0) and both infinite (inf / inf) selected
// afterwards, on integer tests of the bits, as are NaNs. Selecting the operands first (1 for both, as
// atan2_f32 once did) let GCC 12 thread jumps through the selects into masks it spilled (2^15 f64
// pairs, one thread, the kernel loop alone: 0.42-0.47 -> 0.31-0.39 s for 4000 passes; the same bits
// on 5x10^7 random pairs and every pair of special values).
CGRAD_SCALAR_INLINE double atan2_f64(double y, double x) {
  const int64_t bx = f64_to_bits(x) & 0x7fffffffffffffffLL, by = f64_to_bits(y) & 0x7fffffffffffffffLL;
  const bool neg = f64_to_bits(x) < 0;  // x negative or -0
  const double r = atan_angle_f64<double>(bits_to_f64(by), bits_to_f64(bx), neg);
  const double at_zero = neg ? 3.1415926535897931 : 0.0,
               at_inf = neg ? 2.3561944901923448 : 0.78539816339744828;
  const double s = (bx | by) == 0 ? at_zero : (bx & by) == f64_to_bits(inf<double>()) ? at_inf : r;
  return x != x || y != y ? x + y : with_sign_of(s, y);
}
// f32: |x| and |y| in double, clamped to [2^-600, 2^600] and [2^-900, 2^600] instead of atan2_f64's
// selects: no float is outside [2^-149, 2^128], so a clamped operand's ratio to the other is 1 (both
// infinite: pi/4, as there), below 2^-450, or above 2^450 (one zero or infinite: the angle is then
// 0, pi/2 or pi rounded to float, as there), and both zero give 2^-300 (0 or pi). The clamps act on
// the bits (non-negative doubles order as their bits): selects on the values let GCC 12 thread jumps
// through them, and its if-converted masks spilled (one thread, the kernel loop alone: 0.29-0.38 ->
// 0.22 s for 4000 passes over 2^16 pairs; over the engine, 2^22 pairs: 4.8-6.3 -> 3.1-3.9 ms; the
// same bits on 2x10^8 random bit patterns and every pair of special values).
CGRAD_SCALAR_INLINE double clamp_bits_f64(double a, double lo, double hi) {
  const int64_t b = f64_to_bits(a), l = f64_to_bits(lo), h = f64_to_bits(hi);
  const int64_t c = b < h ? b : h;
  return bits_to_f64(c > l ? c : l);
}
CGRAD_SCALAR_INLINE float atan2_f32(float y, float x) {
  const double ax = clamp_bits_f64(m_fabs(static_cast<double>(x)), 0x1p-600, 0x1p600);
  const double ay = clamp_bits_f64(m_fabs(static_cast<double>(y)), 0x1p-900, 0x1p600);
  const float r = static_cast<float>(atan_angle_f64(ay, ax, f32_to_bits(x) < 0));  // x negative or -0
  return x != x || y != y ? x + y : with_sign_of(r, y);
}
// atan takes atan_angle_f64 directly: atan2's sign, infinity and NaN cases are its to skip (2^22
// f32, one thread, over the engine: atan 4.5 -> 3.9 ms, and atan2 7.7 -> 5.6 with its zero guard
// moved; asin and acos, then atan_angle_f64 of their own, 7.3 -> 5.1 and 7.3 -> 5.8; the same bits
// for every float but NaN, whose payload now passes through). asin and acos: below.
CGRAD_SCALAR_INLINE float atan_f32(float x) {
  const float r = static_cast<float>(atan_angle_f64(m_fabs(static_cast<double>(x)), 1.0, false));
  return x != x ? x : with_sign_of(r, x);
}
// f64 atan, asin and acos, to f64 accuracy. atan: atan_angle_f64<double>. asin u = u + u z P(z),
// z = u^2, for |u| <= 1/2, P of degree 12 (tools/fit_poly.py asin64 12: 2^-57.4). Above 1/2,
// asin |x| = pi/2 - 2 asin(s), acos x = 2 asin(s) or pi - 2 asin(s), s = sqrt(w), w = (1 - |x|) / 2
// (exact), and s's rounding error c = (w - s^2) / 2s (exact_fms) added to the series' tail; below 1/2,
// acos x = pi/2 - asin x. One polynomial, its operand selected first. Each result is k - m asin u,
// k one of 0, pi/2, pi in two parts, m u exact (m = ±1, ±2): k - m u in two parts (Fast2Sum: |m u| <= 1
// < k, or k = 0), so only the tail m (u z P + c), below 0.05, carries the rounding of the terms.
// 2^22 f64 in [-1, 1), one thread of the Zen 4 VM, the kernel loop alone: asin 17.0 -> 5.9 ms (it
// was atan(|x| / sqrt(1 - x^2)) above 1/2: a division and a second polynomial), acos 7.0 -> 5.7;
// worst error on 2x10^8 random doubles (tools/ulp_sweep.cpp): asin 1.86 -> 0.69 ulp (1.16 without
// c), acos 1.14 -> 0.68 (1.01 with c but without the two parts).
CGRAD_SCALAR_INLINE double asin_poly_f64(double z) {
  double p = 0.028757851367421566;
  p = fma_(p, z, -0.014851887071247204);
  p = fma_(p, z, 0.017400879442694021);
  p = fma_(p, z, 0.0054575067186403581);
  p = fma_(p, z, 0.010322814350185779);
  p = fma_(p, z, 0.011479177415184906);
  p = fma_(p, z, 0.013971212973552933);
  p = fma_(p, z, 0.017352392720869973);
  p = fma_(p, z, 0.022372172942149889);
  p = fma_(p, z, 0.030381944138531247);
  p = fma_(p, z, 0.044642857146355429);
  p = fma_(p, z, 0.074999999999984329);
  p = fma_(p, z, 0.16666666666666669);
  return p;
}
// sqrt(w) - s for s = sqrt(w) rounded: (w - s^2) / 2s (0 at w = 0).
CGRAD_SCALAR_INLINE double sqrt_error_f64(double w, double s) {
  return exact_fms(s, s, w) / (2.0 * s + 0x1p-1000);
}
CGRAD_SCALAR_INLINE double atan_f64(double x) {
  const double r = atan_angle_f64<double>(m_fabs(x), 1.0, false);
  return x != x ? x : with_sign_of(r, x);
}
// k + k_lo - m (asin u + c), asin u = u + u z P(z), with k - m u in two parts (Fast2Sum: |m u| <= 1 < k,
// or k = 0); asin's and acos's every case.
CGRAD_SCALAR_INLINE double asin_reflected_f64(double u, double c, double k, double k_lo, double m) {
  const double t = fma_(u * (u * u), asin_poly_f64(u * u), c);
  const double hi = k - m * u, e = (k - hi) - m * u;
  return hi + ((k_lo + e) - m * t);
}
// (Every select comes before the polynomial: a select on `small` after it let GCC's jump threading
// copy the polynomial into both paths, which cost asin f32 40% of its time.)
CGRAD_SCALAR_INLINE double asin_f64(double x) {
  const double a = m_fabs(x), w = 0.5 * (1.0 - a), s = m_sqrt(w);
  const bool small = a < 0.5;
  const double u = small ? a : s, c = small ? 0.0 : sqrt_error_f64(w, s);
  const double k = small ? 0.0 : 1.5707963267948966, k_lo = small ? 0.0 : 6.123233995736766e-17;
  const double r = asin_reflected_f64(u, c, k, k_lo, small ? -1.0 : 2.0);
  return x != x ? x : a <= 1.0 ? with_sign_of(r, x) : quiet_nan<double>();
}
CGRAD_SCALAR_INLINE double acos_f64(double x) {
  const double a = m_fabs(x), w = 0.5 * (1.0 - a), s = m_sqrt(w);
  const bool small = a < 0.5, neg = f64_to_bits(x) < 0;
  const double u = small ? x : s, c = small ? 0.0 : sqrt_error_f64(w, s);
  const double k = small ? 1.5707963267948966 : neg ? 3.1415926535897931 : 0.0;
  const double k_lo = small ? 6.123233995736766e-17 : neg ? 1.2246467991473532e-16 : 0.0;
  const double r = asin_reflected_f64(u, c, k, k_lo, small ? 1.0 : neg ? 2.0 : -2.0);
  return x != x ? x : a <= 1.0 ? r : quiet_nan<double>();
}
// f32 asin and acos by the f64 ones' reflection, in double without their two-part sums and s's
// rounding error (below 2^-52 relative, where a float's half ulp is 2^-24): asin |x| = u + u z P(z)
// for u = |x| below 1/2, pi/2 - 2 asin(s) above; acos x = pi/2 - asin x, 2 asin(s) or pi - 2 asin(s);
// NaN beyond [-1, 1]. They were atan(|x| / c) and atan(c / |x|), c = sqrt((1 - x)(1 + x)): a division
// besides the square root (2^22 f32, one thread of the Zen 4 VM, the kernel loop alone: asin 6.4 ->
// 4.3 ms, acos 6.5 -> 4.5). P of degree 8 (tools/fit_poly.py asin64 8: 2^-42.0 relative), not
// asin_poly_f64's 12, f64's accuracy (until 2026-12-03; 2^16 f32, one thread, the kernel loop
// alone: 20% faster). Over every float (tools/ulp_sweep.cpp): glibc's double function rounded to
// float but for 48 floats (asin) and 16 (acos), within 0.500003 ulp.
CGRAD_SCALAR_INLINE double asin_reflected_f32(double u) {
  const double z = u * u;
  double p = 0.02834674523183333;
  p = fma_(p, z, 0.0010675063150363119);
  p = fma_(p, z, 0.01686409027396012);
  p = fma_(p, z, 0.016902683886393575);
  p = fma_(p, z, 0.022412417726695433);
  p = fma_(p, z, 0.030379945210024933);
  p = fma_(p, z, 0.044642906474584965);
  p = fma_(p, z, 0.074999999534297118);
  p = fma_(p, z, 0.16666666666738633);
  return fma_(u * z, p, u);
}
CGRAD_SCALAR_INLINE float asin_f32(float x) {
  const double a = m_fabs(static_cast<double>(x)), s = m_sqrt(0.5 * (1.0 - a));
  const bool small = a < 0.5;
  const double u = small ? a : s, k = small ? 0.0 : 1.5707963267948966, m = small ? 1.0 : -2.0;
  const float r = static_cast<float>(fma_(m, asin_reflected_f32(u), k));
  return x != x ? x : m_fabs(x) <= 1.0f ? with_sign_of(r, x) : quiet_nan<float>();
}
CGRAD_SCALAR_INLINE float acos_f32(float x) {
  const double v = x, a = m_fabs(v), s = m_sqrt(0.5 * (1.0 - a));
  const bool small = a < 0.5, neg = f32_to_bits(x) < 0;
  const double u = small ? v : s;
  const double k = small ? 1.5707963267948966 : neg ? 3.1415926535897931 : 0.0;
  const double m = small ? -1.0 : neg ? -2.0 : 2.0;
  const float r = static_cast<float>(fma_(m, asin_reflected_f32(u), k));
  return x != x ? x : m_fabs(x) <= 1.0f ? r : quiet_nan<float>();
}
// f64 asinh, acosh, atanh: log1p of an argument kept in two doubles (log1p_sum_f64), so that only
// the smaller terms' roundings reach the result.
// asinh |x| = log1p(w), w = |x| + x^2 / (1 + sqrt(1 + x^2)), w's own rounding kept; from 2^500 on
// (x^2 would overflow), log(2|x|) = log1p(|x| - 1) + ln2. With the sign of x.
CGRAD_SCALAR_INLINE double asinh_f64(double x) {
  const double a = m_fabs(x);
  const bool big = a > 3.2733906078961419e150;  // 2^500
  const double b = big ? 0.0 : a, s = b * b, q = s / (1.0 + m_sqrt(1.0 + s)), w = b + q;
  const double t = a - 1.0;  // (big: exact below 2^53, and a - t - 1 its error above)
  const double r = log1p_sum_f64(big ? t : w, big ? (a - t) - 1.0 : q - (w - b), big ? 1.0 : 0.0);
  return a < inf<double>() ? with_sign_of(r, x) : x;  // ±inf, NaN: themselves
}
// acosh x = log1p(w) for x >= 1, w = t + sqrt(t (x + 1)), t = x - 1 (exact up to 2^53): t x + t in
// two doubles, its square root corrected by one Newton step and w's own rounding kept; from 2^28 on,
// log(2x) = log1p(t) + ln2 (the next term, -1 / (4x^2), is below 2^-58 of it). NaN below 1.
CGRAD_SCALAR_INLINE double acosh_f64(double x) {
  const bool big = x > 268435456.0;  // 2^28
  const double t = x - 1.0, ts = big ? 0.0 : t, xs = big ? 1.0 : x;
  const double p = ts * xs, p_lo = two_prod_err(ts, xs, p);
  double p_lo2;
  const double ph = two_sum(p, ts, p_lo2), pl = p_lo + p_lo2;
  const double root = m_sqrt(ph), root2 = root + root;
  const double root_lo = (exact_fms(root, root, ph) + pl) / (root2 > 0.0 ? root2 : 1.0);  // (0 at x = 1)
  const double w = root + ts, w_lo = (root - w) + ts + root_lo;  // root >= t: the error exactly
  const double r = log1p_sum_f64(big ? t : w, big ? (x - t) - 1.0 : w_lo, big ? 1.0 : 0.0);
  return x >= 1.0 && x < inf<double>() ? r : x == inf<double>() || x != x ? x : quiet_nan<double>();
}
// atanh |x| = log1p(q) / 2, q = 2|x| / (1 - |x|): the denominator's rounding error d_lo and the
// quotient's remainder give q's second part (below 2^-27, |x| itself: x^3 / 3 is below half its ulp).
// ±inf at ±1, NaN beyond; with the sign of x.
CGRAD_SCALAR_INLINE double atanh_f64(double x) {
  const double a = m_fabs(x), as = a < 1.0 ? a : 0.0;
  const double d = 1.0 - as, d_lo = (1.0 - d) - as, q = (as + as) / d;
  const double q_lo = (exact_fms(q, d, as + as) - q * d_lo) / d;
  const double r = a < 7.450580596923828e-09 ? a : 0.5 * log1p_sum_f64(q, q_lo, 0.0);  // below 2^-27, |x|
  const double e = a < 1.0 ? r : a == 1.0 ? inf<double>() : quiet_nan<double>();
  return x != x ? x : with_sign_of(e, x);
}
// asinh |x| = log(|x| + sqrt(1 + x^2)) from 1/8 on (the argument within 2^-52 of its value, so the
// log within 2^-52 absolute, 2^-49 of asinh there), below it |x| + |x| z P(z), z = x^2, P the Taylor
// series to z^5 (the next term is below 2^-40 of the sum); with the sign of x. Until 2026-12-03
// log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) for every x: a division more per lane. The same bits for
// every float; 2^22 f32, one thread, the kernel loop 0.98 -> 0.83 ns an element.
CGRAD_SCALAR_INLINE float asinh_f32(float x) {
  const double a = m_fabs(static_cast<double>(x)), z = a * a;
  double p = 231.0 / 13312.0;
  p = fma_(p, z, -63.0 / 2816.0);
  p = fma_(p, z, 35.0 / 1152.0);
  p = fma_(p, z, -5.0 / 112.0);
  p = fma_(p, z, 3.0 / 40.0);
  p = fma_(p, z, -1.0 / 6.0);
  const double small = fma_(a * z, p, a), big = log_pos_f64(a + m_sqrt(fma_(a, a, 1.0)));
  const float r = static_cast<float>(a < 0.125 ? small : big);
  return finite_f32(x) ? with_sign_of(r, x) : x;  // ±inf, NaN: themselves
}
// acosh x = log1p(t + sqrt(t (x + 1))), t = x - 1 (exact, and so is the product); NaN below 1.
CGRAD_SCALAR_INLINE float acosh_f32(float x) {
  const double v = x, t = v - 1.0;
  const float r = static_cast<float>(log1p_pos_f64(t + m_sqrt(t * (v + 1.0))));
  return x >= 1.0f && x < inf<float>() ? r : x == inf<float>() ? x : quiet_nan<float>();
}
// atanh |x| = log1p(2|x| / (1 - |x|)) / 2, with the sign of x; ±inf at ±1, NaN beyond.
CGRAD_SCALAR_INLINE float atanh_f32(float x) {
  const double a = m_fabs(static_cast<double>(x));
  const float r = static_cast<float>(0.5 * log1p_pos_f64(2.0 * a / (1.0 - a)));
  const float e = m_fabs(x) < 1.0f ? r : m_fabs(x) == 1.0f ? inf<float>() : quiet_nan<float>();
  return x != x ? x : with_sign_of(e, x);
}
// pow(x, y) = ±e^(y log|x|) in double, with a log and an exp of their own, shorter than the f64
// ones: a finite result has |y log|x|| below 104, so log|x| to 2^-44.9 relative and e^t to 2^-37.8
// leave it within 2^-37 (relative) of the exact power before its one rounding to float.
// log|x|: 2^e m as log_pos_f64 does, log(1 + f) = 2s + 2s z Q(z) with Q of degree 4 (tools/fit_poly.py
// log1p 4), e ln2 in one double (e is at most 149 in magnitude).
CGRAD_SCALAR_INLINE double log_for_pow_f32(double a) {
  const log_split_f64 sp = log_split(a);
  const double s = sp.f / (2.0 + sp.f), z = s * s, z2 = z * z;
  const double q01 = fma_(0.19999997816384207, z, 0.33333333337884485);
  const double q23 = fma_(0.1108811835754997, z, 0.14286054001480791);
  const double q = fma_(fma_(0.097917323771341006, z2, q23), z2, q01);
  return fma_(sp.e, 0.69314718055994531, fma_(2.0 * s * z, q, 2.0 * s));
}
// e^t: t clamped to [-110, 90] (the float result is 0 or inf beyond; NaN, from a NaN y, comes out
// as some number that pow_f32 replaces), t = n ln2 + r, e^r = 1 + r + r^2 P(r) with P of degree 6
// (tools/fit_poly.py exppow 6) by Estrin's scheme, and 2^n (normal in double for every n here) in one
// factor.
CGRAD_SCALAR_INLINE double exp_for_pow_f32(double t) {
  double tc = t < -110.0 ? -110.0 : t;
  tc = tc > 90.0 ? 90.0 : tc;
  const double k = fma_(tc, 1.4426950408889634073599, 6755399441055744.0), n = k - 6755399441055744.0;
  const double r = fma_(-n, 0.69314718055994531, tc), r2 = r * r, r4 = r2 * r2;
  const double p01 = fma_(0.16666666718997508, r, 0.5),
               p23 = fma_(0.0083332984837548862, r, 0.041666666718980845);
  const double p45 = fma_(0.00019899273958649361, r, 0.001388885404961482);
  const double p = fma_(fma_(2.4859578222625295e-05, r2, p45), r4, fma_(p23, r2, p01));
  return (1.0 + fma_(r2, p, r)) * pow2_f64(f64_to_bits(k) - 0x4338000000000000LL);
}
// The operand of the log is selected first (1 where x is 0, inf or NaN), so that the power is
// computed for finite lanes only and those three take their limits in float: 0^y and inf^-y are 0,
// 0^-y and inf^y inf, for y > 0. Then the sign for a negative x and an odd integer y; C99 Annex F's
// special values: pow(x, ±0) = 1 and pow(1, y) = 1 even for NaN, pow(-1, ±inf) = 1, pow(x < 0
// finite, y not an integer) = NaN. 2^22 f32, one thread: 8.1 -> 5.8 ms with the f64 functions' log
// (degree 5, 2^-52.1) and exp (degree 9, Horner, the power of two in two factors) before.
CGRAD_SCALAR_INLINE float pow_f32(float x, float y) {
  const float ax = m_fabs(x);
  const bool finite = static_cast<uint32_t>(f32_to_bits(ax) - 1) < 0x7f7fffffu;  // not 0, inf or NaN
  const double l = log_for_pow_f32(static_cast<double>(finite ? ax : 1.0f));
  const float e0 = static_cast<float>(exp_for_pow_f32(static_cast<double>(y) * l));
  const float e = finite ? e0 : (ax == 0.0f) == (y > 0.0f) ? 0.0f : inf<float>();
  const float h = 0.5f * y;
  const bool integer = y == m_trunc(y), odd = integer && h != m_trunc(h);
  float r = f32_to_bits(x) < 0 && odd ? -e : e;
  r = x < 0.0f && x > -inf<float>() && !integer ? quiet_nan<float>() : r;
  r = x != x || y != y ? x + y : r;
  const bool one = y == 0.0f || x == 1.0f || (x == -1.0f && m_fabs(y) == inf<float>());
  return one ? 1.0f : r;
}
// f64 pow: e^(y log|x|) with log|x| = hi + lo to about 2^-65 relative, the product y (hi + lo) in two
// doubles, and exp of that sum with its reduced argument in two doubles too, so that even where
// |y log|x|| nears 709 the result is off by well under an ulp before its one rounding (an exact power
// such as 10^3 comes out exact). log(1 + f) = 2 atanh(s) = 2s + s^3 P(s^2), s = f / (2 + f) (f as in
// log_f64, |s| <= 0.172): s, s^3 and P in two doubles each, P = 2/3 + 2z/5 + z^2 Q(z) with Q the
// atanh series to z^10 (its next term is below 2^-74 of the sum); e ln2 in two parts.
struct dd_f64 {
  double hi, lo;
};
CGRAD_SCALAR_INLINE dd_f64 log_dd_f64(double a) {  // a positive, finite (else garbage, no trap)
  const log_split_f64 sp = log_split_any(a);
  const double f = sp.f, u = 2.0 + f, u_lo = (2.0 - u) + f;  // 2 + f in two parts
  const double inv = 1.0 / u, s = f * inv, s_lo = (exact_fms(s, u, f) - s * u_lo) * inv;  // (one division)
  const double z = s * s, z_lo = two_prod_err(s, s, z);
  const double c = s * z, c_lo = two_prod_err(s, z, c) + s * z_lo;  // s^3
  // (Estrin's scheme: the chains of the log and exp below bound the loops' speed, not their length)
  const double z2 = z * z, z4 = z2 * z2;
  const double q01 = fma_(2.0 / 9.0, z, 2.0 / 7.0), q23 = fma_(2.0 / 13.0, z, 2.0 / 11.0);
  const double q45 = fma_(2.0 / 17.0, z, 2.0 / 15.0), q67 = fma_(2.0 / 21.0, z, 2.0 / 19.0);
  const double q89 = fma_(2.0 / 25.0, z, 2.0 / 23.0), q03 = fma_(q23, z2, q01);
  const double q47 = fma_(q67, z2, q45), q8a = fma_(2.0 / 27.0, z2, q89);
  const double q = fma_(fma_(q8a, z4, q47), z4, q03);
  const double rest = z * fma_(z, q, 0.4), p = 0.66666666666666663 + rest;  // P: 2/3 + rest
  const double p_lo =
      ((0.66666666666666663 - p) + rest) + (3.700743415417188e-17 - 2.2204460492503132e-17 * z);
  const double t = c * p, t_lo = two_prod_err(c, p, t) + (c * p_lo + c_lo * p);  // s^3 P
  // s_lo through the derivative of 2 atanh(s), 2 / (1 - z) (to z^2)
  const double small = fma_(2.0 * s_lo, z * (1.0 + z), 2.0 * s_lo) + t_lo;
  const double e_hi = sp.e * 6.93147180369123816490e-01, e_lo = sp.e * 1.9082149292705877e-10;  // e_hi exact
  double err1, err2;
  const double a1 = two_sum(e_hi, 2.0 * s, err1), a2 = two_sum(a1, t, err2);
  const double sum_lo = err1 + err2 + e_lo + small, hi = a2 + sum_lo;
  return {hi, (a2 - hi) + sum_lo};
}
// e^(x + x_lo) for x in [-746, 710], |x_lo| below an ulp of x: the reduced argument r = x - n ln2 in
// two doubles (x_lo and the reduction's rounding error added to r, whose own rounding error is r_lo),
// e^(r + r_lo) = (1 + r) + r^2 p(r) + r_lo (1 + r), 1 + r in two parts, p the Taylor polynomial
// to r^12 (the next term is below 2^-62), one rounding.
CGRAD_SCALAR_INLINE double exp_dd_f64(double x, double x_lo) {
  const double t = fma_(x, 1.4426950408889634073599, 6755399441055744.0), n = t - 6755399441055744.0;
  const double r1 = fma_(-n, 6.93145751953125e-1, x);  // exact (16 bits of ln2 times at most 11)
  const double m = n * 1.42860682030941723212e-6, m_lo = two_prod_err(n, 1.42860682030941723212e-6, m);
  double r_err, r_lo;
  const double r0 = two_sum(r1, -m, r_err), r = two_sum(r0, (r_err - m_lo) + x_lo, r_lo);
  const double r2 = r * r, r4 = r2 * r2;
  const double p01 = fma_(0.16666666666666666, r, 0.5),
               p23 = fma_(0.008333333333333333, r, 0.041666666666666664);
  const double p45 = fma_(0.0001984126984126984, r, 0.001388888888888889);
  const double p67 = fma_(2.7557319223985893e-06, r, 2.48015873015873e-05);
  const double p89 = fma_(2.505210838544172e-08, r, 2.755731922398589e-07);
  const double pab = fma_(1.6059043836821613e-10, r, 2.08767569878681e-09);
  const double p03 = fma_(p23, r2, p01), p47 = fma_(p67, r2, p45), p8b = fma_(pab, r2, p89);
  const double p = fma_(fma_(fma_(1.1470745597729725e-11, r4, p8b), r4, p47), r4, p03);
  const double one = 1.0 + r, one_lo = (1.0 - one) + r;  // |r| < 1
  const double v = one + fma_(r2, p, one_lo + fma_(r_lo, r, r_lo));
  return scale_f64(v, f64_to_bits(t) - 0x4338000000000000LL);
}
CGRAD_SCALAR_INLINE_ALWAYS double pow_f64(double x, double y) {
  const double a = m_fabs(x);
  // (for 0, inf and NaN, l is garbage, which the selects below drop: selecting the operand instead
  // made the loops 10-25% slower)
  const dd_f64 l = log_dd_f64(a);
  const double l_hi = a > 0.0 && a < inf<double>() ? l.hi : a == 0.0 ? -inf<double>() : a;  // (NaN: a)
  const double p = y * l_hi;
  // (outside [-746, 710], the result is 0 or inf: p clamped, its second part dropped)
  double pc = p < -746.0 ? -746.0 : p;
  pc = pc > 710.0 ? 710.0 : pc;
  const double e = exp_dd_f64(pc, pc == p ? two_prod_err(y, l_hi, p) + y * l.lo : 0.0);
  const double h = 0.5 * y, ty = m_trunc(y);
  double r = f64_to_bits(x) < 0 && y == ty && h != m_trunc(h) ? -e : e;    // x negative (or -0), y odd
  r = x < 0.0 && x > -inf<double>() && y != ty ? quiet_nan<double>() : r;  // (y NaN too: x + y below)
  r = x != x || y != y ? x + y : r;
  return y == 0.0 || x == 1.0 || (x == -1.0 && m_fabs(y) == inf<double>()) ? 1.0 : r;
}
CGRAD_SCALAR_INLINE float atan2_(float y, float x) { return CGRAD_HOST_OWN(atan2_f32, m_atan2)(y, x); }
CGRAD_SCALAR_INLINE float atan_(float x) { return CGRAD_HOST_OWN(atan_f32, m_atan)(x); }
CGRAD_SCALAR_INLINE float asin_(float x) { return CGRAD_HOST_OWN(asin_f32, m_asin)(x); }
CGRAD_SCALAR_INLINE float acos_(float x) { return CGRAD_HOST_OWN(acos_f32, m_acos)(x); }
CGRAD_SCALAR_INLINE float asinh_(float x) { return CGRAD_HOST_OWN(asinh_f32, m_asinh)(x); }
CGRAD_SCALAR_INLINE float acosh_(float x) { return CGRAD_HOST_OWN(acosh_f32, m_acosh)(x); }
CGRAD_SCALAR_INLINE float atanh_(float x) { return CGRAD_HOST_OWN(atanh_f32, m_atanh)(x); }
CGRAD_SCALAR_INLINE float pow_(float x, float y) { return CGRAD_HOST_OWN(pow_f32, m_pow)(x, y); }
CGRAD_SCALAR_INLINE double asinh_(double x) { return CGRAD_HOST_OWN(asinh_f64, m_asinh)(x); }
CGRAD_SCALAR_INLINE double acosh_(double x) { return CGRAD_HOST_OWN(acosh_f64, m_acosh)(x); }
CGRAD_SCALAR_INLINE double atanh_(double x) { return CGRAD_HOST_OWN(atanh_f64, m_atanh)(x); }
CGRAD_SCALAR_INLINE_ALWAYS double pow_(double x, double y) { return CGRAD_HOST_OWN(pow_f64, m_pow)(x, y); }
CGRAD_SCALAR_INLINE double atan2_(double y, double x) { return CGRAD_HOST_OWN(atan2_f64, m_atan2)(y, x); }
CGRAD_SCALAR_INLINE double atan_(double x) { return CGRAD_HOST_OWN(atan_f64, m_atan)(x); }
CGRAD_SCALAR_INLINE double asin_(double x) { return CGRAD_HOST_OWN(asin_f64, m_asin)(x); }
CGRAD_SCALAR_INLINE double acos_(double x) { return CGRAD_HOST_OWN(acos_f64, m_acos)(x); }
#endif  // (CGRAD_SCALAR_LEAN)
#undef CGRAD_HOST_OWN

// f32 fmod, exact and with no call, so loops over it vectorize (glibc's fmodf is a call with a
// bit loop: remainder of 2^22 f32 took 83 ms). In double: |x| is reduced by d = |y| 2^e, e >= 0 chosen so
// that the quotient is below 2^28, and the step repeats 11 times (a quotient of two floats is below 2^277).
// Each step is exact: q = trunc(r / d) through |y|'s reciprocal is within one of the true quotient; q d (at
// most 29 + 24 bits) and r - q d (a multiple of the floats' grid below 2d) are exact, and a remainder pushed
// out of [0, d) by the reciprocal's error is moved back by one d. So the result is fmodf's bit for bit: the
// sign of x (zeros too), NaN for x infinite or y zero, x for y infinite.
CGRAD_SCALAR_INLINE double fmod_step(double r, double ay, double inv, int64_t ey) {
  int64_t e = (f64_to_bits(r) >> 52) - ey - 27;
  e = e < 0 ? 0 : e;
  const double d = bits_to_f64(f64_to_bits(ay) + (e << 52));                // |y| 2^e
  const double q = m_trunc(r * bits_to_f64(f64_to_bits(inv) - (e << 52)));  // r / d, +-1
  double t = r - q * d;  // (q d is exact, so an FMA or not gives the same)
  t = t < 0.0 ? t + d : t;
  return t >= d ? t - d : t;
}
CGRAD_SCALAR_INLINE float fmod_f32(float x, float y) {
  const double ay = m_fabs(static_cast<double>(y)), inv = 1.0 / ay;
  const int64_t ey = f64_to_bits(ay) >> 52;
  double r = m_fabs(static_cast<double>(x));
  // (written out: GCC 12 vectorizes no loop with a loop inside)
  r = fmod_step(r, ay, inv, ey), r = fmod_step(r, ay, inv, ey), r = fmod_step(r, ay, inv, ey);
  r = fmod_step(r, ay, inv, ey), r = fmod_step(r, ay, inv, ey), r = fmod_step(r, ay, inv, ey);
  r = fmod_step(r, ay, inv, ey), r = fmod_step(r, ay, inv, ey), r = fmod_step(r, ay, inv, ey);
  r = fmod_step(r, ay, inv, ey), r = fmod_step(r, ay, inv, ey);
  const float res = m_fabs(y) == inf<float>() ? x : with_sign_of(static_cast<float>(r), x);
  const float nan = x != x || y != y ? x + y : quiet_nan<float>();
  return finite_f32(x) && y == y && y != 0.0f ? res : nan;
}
// f64 fmod of the CPU kernels, exact and with no call (until 2026-12-03 glibc's fmod, a call with a
// loop over the quotient's bits: remainder of 2^22 f64 took 111 ms against NumPy's 77). |x| = X 2^ex and |y|
// = Y 2^ey with X and Y in [1, 2) (subnormals scaled by 2^54 first), g = ex - ey; then R = X 2^g mod Y by 43
// steps that each move up to 49 of the g bits into R (fmod_f64_step; 43 x 49 >= 2097, the widest g),
// and the result R 2^ey with the sign of x. A step: u = R 2^k (exact; |u| < 2^50 Y since |R| < 2Y),
// q = trunc(u inv) with inv = 1/Y rounded and then raised by 2^-51, so that |u inv| >= |u / Y| after
// its roundings and exceeds it by under 7 |u / Y| 2^-53 < 1: q is the true quotient truncated, or one
// further from zero. So u - q Y lies in (-Y, Y), a multiple of 2^-52 below 2 in magnitude (exact:
// exact_fms); a negative R is moved up by Y once, at the end (exact). The final scaling is exact too:
// the remainder is a multiple of y's grid below |y|. So the result is fmod's bit for bit: the sign of
// x (zeros too), NaN for x infinite or NaN and for y zero or NaN, x itself where |x| < |y| (y
// infinite too). Every lane takes all 43 steps (no loop, so loops over it vectorize), a chain of
// three dependent operations each: 2^22 pairs, one thread, the kernel loop 11 ns a pair (glibc's
// fmod 20 on small quotients), whatever g; remainder through the engine 111 -> 47-50 ms (NumPy 77;
// 3800 where the gaps are 2000 bits). Inlined (always: a call would not vectorize), it makes a unit
// that calls it compile about 70 ms longer (g++ 12: 110-120 ms against floor_divide's 40).
CGRAD_SCALAR_INLINE_ALWAYS double fmod_f64_step(double r, int64_t& g, double ym, double inv) {
  const int64_t k = g < 49 ? g : 49;
  g -= k;
  const double p = pow2_f64(k), q = m_trunc(r * (inv * p));  // (inv p off the chain through r)
  return exact_fms(q, ym, r * p);
}
// |x| = 2^e X, X in [1, 2), for a finite nonzero x: X and e
CGRAD_SCALAR_INLINE double fmod_f64_split(double a, int64_t& e) {
  const bool sub = a < 2.2250738585072014e-308;
  const int64_t b = f64_to_bits(sub ? a * 18014398509481984.0 : a);  // 2^54
  e = (b >> 52) - (sub ? 1023 + 54 : 1023);
  return bits_to_f64((b & 0x000fffffffffffffLL) | 0x3ff0000000000000LL);
}
CGRAD_SCALAR_INLINE_ALWAYS double fmod_f64(double x, double y) {
  const double ax = m_fabs(x), ay = m_fabs(y);
  int64_t ex, ey;
  double r = fmod_f64_split(ax, ex);
  const double ym = fmod_f64_split(ay, ey), inv = (1.0 / ym) * 1.0000000000000004;  // (1 + 2^-51)
  int64_t g = ex - ey;
  // (written out: GCC 12 vectorizes no loop with a loop inside)
#define CGRAD_FMOD_STEPS4                                                                               \
  r = fmod_f64_step(r, g, ym, inv), r = fmod_f64_step(r, g, ym, inv), r = fmod_f64_step(r, g, ym, inv), \
  r = fmod_f64_step(r, g, ym, inv)
  CGRAD_FMOD_STEPS4, CGRAD_FMOD_STEPS4, CGRAD_FMOD_STEPS4, CGRAD_FMOD_STEPS4, CGRAD_FMOD_STEPS4;
  CGRAD_FMOD_STEPS4, CGRAD_FMOD_STEPS4, CGRAD_FMOD_STEPS4, CGRAD_FMOD_STEPS4, CGRAD_FMOD_STEPS4;
  r = fmod_f64_step(r, g, ym, inv), r = fmod_f64_step(r, g, ym, inv), r = fmod_f64_step(r, g, ym, inv);
#undef CGRAD_FMOD_STEPS4
  r = r < 0.0 ? r + ym : r;
  const double res = ax < ay ? x : with_sign_of(scale_f64(r, ey), x);
  const double nan = x != x || y != y ? x + y : quiet_nan<double>();
  return ax < inf<double>() && ay == ay && ay != 0.0 ? res : nan;
}
#if !defined(__CUDACC_RTC__) && !defined(__CUDA_ARCH__)
CGRAD_SCALAR_INLINE float m_fmod(float x, float y) { return fmod_f32(x, y); }
#if defined(CGRAD_SCALAR_FREESTANDING)
CGRAD_SCALAR_INLINE_ALWAYS double m_fmod(double x, double y) { return fmod_f64(x, y); }
#else
// The library (the interpreter, constant folding) and other code including this header keep the C
// library's fmod for f64: the same bits (both are exact), and the interpreter built for any x86-64
// would take fmod_f64's 86 FMAs and truncations as calls (2^22 pairs: 1.2 s against glibc's 0.11).
CGRAD_SCALAR_INLINE double m_fmod(double x, double y) { return CGRAD_LIBM(fmod)(x, y); }
#endif
#endif
template <class T>
CGRAD_SCALAR_INLINE T exp(T x) {
  return exp_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T log(T x) {
  return log_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T sqrt(T x) {
  return m_sqrt(x);
}
template <class T>
CGRAD_SCALAR_INLINE T rsqrt(T x) {
  return T(1) / m_sqrt(x);
}
template <class T>
CGRAD_SCALAR_INLINE T abs(T x) {
  if constexpr (is_float<T>::value)
    return m_fabs(x);
  else if constexpr (!is_signed_int<T>::value)
    return x;
  else
    return x < 0 ? neg(x) : x;
}
template <class T>
CGRAD_SCALAR_INLINE T sin(T x) {
  return sin_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T cos(T x) {
  return cos_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T tanh(T x) {
  return tanh_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T sigmoid(T x) {
  return T(1) / (T(1) + exp_(-x));
}
template <class T>
CGRAD_SCALAR_INLINE T relu(T x) {
  if constexpr (!is_float<T>::value && !is_signed_int<T>::value)
    return x;
  else
    return x < T(0) ? T(0) : x;
}

// Rounding: integers are already integral (returned unchanged, as the standard says); round is
// half to even (rint in the default rounding mode).
template <class T>
CGRAD_SCALAR_INLINE T floor(T x) {
  if constexpr (is_float<T>::value)
    return m_floor(x);
  else
    return x;
}
template <class T>
CGRAD_SCALAR_INLINE T ceil(T x) {
  if constexpr (is_float<T>::value)
    return m_ceil(x);
  else
    return x;
}
template <class T>
CGRAD_SCALAR_INLINE T trunc(T x) {
  if constexpr (is_float<T>::value)
    return m_trunc(x);
  else
    return x;
}
template <class T>
CGRAD_SCALAR_INLINE T round(T x) {
  if constexpr (is_float<T>::value)
    return m_rint(x);
  else
    return x;
}
// sign: -1, +0 or 1 (+0 for either zero: the standard's "0", which its test suite and NumPy read
// as +0); NaN stays NaN (x == x fails only for NaN).
template <class T>
CGRAD_SCALAR_INLINE T sign(T x) {
  if constexpr (is_float<T>::value || is_signed_int<T>::value)
    return x > T(0) ? T(1) : x < T(0) ? T(-1) : x == x ? T(0) : x;
  else
    return x > T(0) ? T(1) : T(0);  // unsigned, bool
}
template <class T>
CGRAD_SCALAR_INLINE bool signbit(T x) {
  if constexpr (is_float<T>::value && sizeof(T) <= 4)
    return f32_to_bits(x) < 0;  // f16, bf16: exact in f32
  else if constexpr (is_float<T>::value)
    return f64_to_bits(x) < 0;
  else if constexpr (is_signed_int<T>::value)
    return x < T(0);
  else
    return false;
}
// Classification: integers and bools are always finite.
template <class T>
CGRAD_SCALAR_INLINE bool isnan(T x) {
  return x != x;
}
template <class T>
CGRAD_SCALAR_INLINE bool isinf(T x) {
  if constexpr (is_float<T>::value)
    return m_fabs(x) == inf<T>();
  else
    return false;
}
template <class T>
CGRAD_SCALAR_INLINE bool isfinite(T x) {
  if constexpr (is_float<T>::value)
    return m_fabs(x) < inf<T>();  // false for NaN and +-inf
  else
    return true;
}
// Transcendental functions of the standard (and erf, for GELU): the platform's libm (CUDA's
// math library on the GPU), whose special cases follow C99 Annex F as the standard's do; float
// exp, log, log1p, expm1, tanh and erf are cgrad's own (above), with the same special cases.
template <class T>
CGRAD_SCALAR_INLINE T log1p(T x) {
  return log1p_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T expm1(T x) {
  return expm1_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T log2(T x) {
  return log2_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T log10(T x) {
  return log10_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T tan(T x) {
  return tan_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T asin(T x) {
  return asin_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T acos(T x) {
  return acos_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T atan(T x) {
  return atan_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T sinh(T x) {
  return sinh_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T cosh(T x) {
  return cosh_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T asinh(T x) {
  return asinh_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T acosh(T x) {
  return acosh_(x);
}
template <class T>
CGRAD_SCALAR_INLINE T atanh(T x) {
  return atanh_(x);
}
template <class T>
CGRAD_SCALAR_INLINE_ALWAYS T erf(T x) {
  return erf_(x);
}
// Bitwise and logical: bitwise_invert of a bool is logical not; logical ops take bools.
template <class T>
CGRAD_SCALAR_INLINE T bitwise_invert(T x) {
  if constexpr (is_bool<T>::value)
    return !x;
  else
    return static_cast<T>(~x);
}
CGRAD_SCALAR_INLINE bool logical_not(bool x) { return !x; }

// cast<To>(x): anything -> bool is x != 0; float -> integer saturates to To's range and maps
// NaN to 0; every other conversion is C++'s (integer -> narrower integer wraps modulo 2^bits,
// integer -> float rounds to nearest).
//
// Complex (complex group): real -> complex gives imaginary part 0; complex -> complex rounds
// each part; complex -> bool is "either part nonzero"; complex -> real keeps the real part,
// converted as above (the frontend's astype rejects it; real() and imag() are the explicit way).
template <class To, class From>
CGRAD_SCALAR_INLINE To cast(From x) {
  if constexpr (is_complex<To>::value) {
    return To(x);
  } else if constexpr (is_complex<From>::value) {
    if constexpr (is_bool<To>::value)
      return static_cast<bool>(x);
    else
      return cast<To>(x.re);
  } else if constexpr (is_bool<To>::value) {
    return x != From(0);
  } else if constexpr (!is_float<To>::value && is_float<From>::value) {
    if (isnan_(x)) return To(0);
    constexpr To hi = int_info<To>::highest, lo = int_info<To>::lowest;
    // From(hi) is exact or rounds up (2^31, 2^32, 2^63, 2^64), so >= catches every value
    // above the range; From(lo) is exact (0 or -2^(bits-1)).
    if (x >= From(hi)) return hi;
    if (x <= From(lo)) return lo;
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

// ---- binary ----
template <class T>
CGRAD_SCALAR_INLINE T add(T a, T b) {
  if constexpr (is_float<T>::value)
    return a + b;
  else {
    using U = typename unsigned_of<T>::type;
    return static_cast<T>(U(a) + U(b));
  }
}
template <class T>
CGRAD_SCALAR_INLINE T sub(T a, T b) {
  if constexpr (is_float<T>::value)
    return a - b;
  else {
    using U = typename unsigned_of<T>::type;
    return static_cast<T>(U(a) - U(b));
  }
}
template <class T>
CGRAD_SCALAR_INLINE T mul(T a, T b) {
  if constexpr (is_float<T>::value)
    return a * b;
  else {
    using U = typename unsigned_of<T>::type;
#if defined(__CUDA_ARCH__) && defined(CGRAD_CUDA_EMULATOR)
    // NVRTC turns sums of products of 8- and 16-bit integers (also widened ones: the integer
    // matmul multiplies in int64) into dp4a/dp2a, which the emulated device cannot parse; an
    // empty asm on the product hides the pattern (CGRAD_CUDA_EMULATOR only).
    if constexpr (sizeof(T) == 8) {
      unsigned long long p = static_cast<unsigned long long>(U(a) * U(b));
      asm("" : "+l"(p));
      return static_cast<T>(p);
    } else {
      unsigned p = static_cast<unsigned>(U(a) * U(b));
      asm("" : "+r"(p));
      return static_cast<T>(p);
    }
#else
    return static_cast<T>(U(a) * U(b));
#endif
  }
}
template <class T>
CGRAD_SCALAR_INLINE T div(T a, T b) {
  if constexpr (is_float<T>::value)
    return a / b;
  else {
    if (b == 0) return T(0);
    if constexpr (is_signed_int<T>::value)
      if (b == T(-1)) return neg(a);  // INT_MIN / -1 overflows
    return static_cast<T>(a / b);
  }
}
template <class T>
CGRAD_SCALAR_INLINE_ALWAYS T pow(T a, T b) {
  if constexpr (is_float<T>::value)
    return pow_(a, b);
  else {
    if constexpr (is_signed_int<T>::value)
      if (b < 0) return a == T(1) ? T(1) : a == T(-1) ? ((b & 1) ? T(-1) : T(1)) : T(0);
    T r = 1;
    while (b) {
      if (b & 1) r = mul(r, a);
      a = mul(a, a);
      b >>= 1;
    }
    return r;
  }
}
// Branch-free so loops vectorize; a NaN operand gives NaN. A NaN `a` is kept by the comparison
// (false when unordered), so only `b` is tested: an accumulator is `a`, and its loop-carried
// chain is one max/min and one masked move (5 cycles per vector, against 9 when both operands
// were tested on the chain). The CPU JIT's max/min reduction loops no longer fold with it: they
// take OpenMP's own max/min and a NaN flag (render_cpu_reduce.cpp, vector_extreme), off the chain.
template <class T>
CGRAD_SCALAR_INLINE T maximum(T a, T b) {
  const T m = a < b ? b : a;
  if constexpr (is_float<T>::value)
    return b != b ? b : m;
  else
    return m;
}
// minimum tests b + 0 for NaN, not b itself: in a loop that reduces one value with both (max and
// min of a row, `x.max(1) - x.min(1)`), GCC 12 merged the two selects' shared b != b mask into one
// condition built in general registers (kmovw, and, or: a chain through the integer unit), and the
// loop ran 4-5x slower than either reduction alone (2^24 f32 from L1: 6.5 ms against 1.2; from
// memory 6.7 against 2.4). b + 0 is NaN exactly when b is, so the result is the same, but the
// compiler cannot tell the two tests apart: 1.4 ms from L1 in either order (a distinct test of b
// itself, !(b <= b), helped only with max first). A min alone pays one addition off its chain.
template <class T>
CGRAD_SCALAR_INLINE T minimum(T a, T b) {
  const T m = b < a ? b : a;
  if constexpr (is_float<T>::value) {
    const T c = b + T(0);
    return c != c ? b : m;
  } else {
    return m;
  }
}
// The (value, index) accumulators of argmax / argmin (ir::RedAcc::Indexed; the combining rows
// maximum / minimum): the pair (a, ai) takes (x, xi) when x beats a (is strictly more extreme;
// a NaN beats any number) or ties with it (equal, or NaN and NaN) at a smaller index. The rule is
// commutative and associative, so the first extreme wins whatever order partial pairs merge in
// (SIMD lanes, chunks of a split row, CUDA threads).
template <class T>
CGRAD_SCALAR_INLINE bool beats_maximum(T x, T a) {
  return (x != x && a == a) || a < x;  // (x != x: false for integers and bools)
}
template <class T>
CGRAD_SCALAR_INLINE bool beats_minimum(T x, T a) {
  return (x != x && a == a) || x < a;
}
template <class T>
CGRAD_SCALAR_INLINE bool ties(T x, T a) {
  return x == a || (x != x && a != a);
}
template <class T>
CGRAD_SCALAR_INLINE void arg_maximum(T& a, int64_t& ai, T x, int64_t xi) {
  if (beats_maximum(x, a) || (ties(x, a) && xi < ai)) {
    a = x;
    ai = xi;
  }
}
template <class T>
CGRAD_SCALAR_INLINE void arg_minimum(T& a, int64_t& ai, T x, int64_t xi) {
  if (beats_minimum(x, a) || (ties(x, a) && xi < ai)) {
    a = x;
    ai = xi;
  }
}
// Lanes of an argmax / argmin row loop (arg_lanes in render_cpu_reduce.cpp): a row's values come
// in pieces of whole steps, read in place from the row's buffer or staged by the kernel's vector
// loop into a buffer (`pad`, then the values, then `feed`; a last piece of less than a step is
// staged too); each 64-byte vector lane keeps its own extreme and the position where it
// first took it, four vectors a step combined in a tree first (NumPy's argmax loops have that
// shape too), and `finish` combines the lanes once per row: the first position of the extreme,
// or of the first NaN. It replaced a vector max per block of 1024 and a search of the winning
// block, whose fixed cost per block and row made rows of 100-1000 elements 1.3-2x slower than
// NumPy's argmax (bench/RESULTS.md, 2026-12-07). T: float, double, int32_t, uint32_t, int64_t or
// uint64_t (narrower integers are staged as int32_t). Positions are kept relative to `base_` in
// lanes as wide as T; a row longer than Span (2^30 for 32-bit lanes) folds its lanes into `held_`
// and starts again. The lanes' combines are OpenMP simd reductions in kernels (-fopenmp-simd),
// plain loops elsewhere (tests/ops/test_argminmax.cpp).
#if !defined(__CUDACC__)
#if defined(CGRAD_SCALAR_FREESTANDING) || defined(_OPENMP)
#define CGRAD_OMP_SIMD(clauses) CGRAD_PRAGMA(omp simd clauses)
#define CGRAD_PRAGMA(text) _Pragma(#text)
#else
#define CGRAD_OMP_SIMD(clauses)
#endif
template <int N>
struct lane_int;
template <>
struct lane_int<4> {
  typedef int32_t type;
};
template <>
struct lane_int<8> {
  typedef int64_t type;
};
template <class T, bool Max, int64_t Span = sizeof(T) == 4 ? (int64_t(1) << 30) : (int64_t(1) << 62)>
struct arg_lanes {
  static constexpr int L = 64 / static_cast<int>(sizeof(T));  // lanes of one 64-byte vector
  static constexpr int64_t kStep = 4 * L;                     // elements of one step of `feed`
  static constexpr int64_t kSpan = Span;
  static_assert(Span % kStep == 0 && Span <= (int64_t(1) << (8 * sizeof(T) - 2)), "positions fit the lanes");
  typedef typename lane_int<sizeof(T)>::type J;
  typedef T V __attribute__((vector_size(64)));
  typedef J I __attribute__((vector_size(64)));
  V id_, m_;
  I at_;
  T held_;
  int64_t base_ = 0, held_at_ = -1, nan_at_ = -1;

  CGRAD_SCALAR_INLINE explicit arg_lanes(T identity) : held_(identity) {
    id_ = V{} + identity;
    m_ = id_;
    at_ = I{};
  }
  // Whether a beats b (is strictly more extreme). (The vectors' own comparisons are written out
  // below: a function taking or returning a 64-byte vector has an ABI of its own in code built
  // without AVX-512, which GCC warns of.)
  CGRAD_SCALAR_INLINE static bool beats(T a, T b) { return Max ? b < a : a < b; }
  // Fills the identity from the last whole vector below n to n rounded up to kStep (the stage
  // then writes its n values over the start): returns that rounded count, what `feed` takes.
  CGRAD_SCALAR_INLINE int64_t pad(T* buf, int64_t n) const {
    const int64_t p = (n + kStep - 1) / kStep * kStep;
    for (int64_t q = n & ~int64_t(L - 1); q < p; q += L) __builtin_memcpy(buf + q, &id_, 64);
    return p;
  }
  // The values buf[0, n) at positions j0 + [0, n) of the row (n a multiple of kStep), in pieces
  // whose positions fit the lanes.
  CGRAD_SCALAR_INLINE void feed(const T* buf, int64_t n, int64_t j0) {
    for (int64_t c = 0; c < n && nan_at_ < 0; c += kSpan) {  // (after a NaN: it is the answer)
      const int64_t e = n - c < kSpan ? n : c + kSpan;
      if (j0 + e - base_ > kSpan) {
        fold();
        base_ = j0 + c;
      }
      take(buf + c, e - c, j0 + c);
    }
  }
  // One piece: positions j0 + [0, n) lie within kSpan of base_.
  CGRAD_SCALAR_INLINE void take(const T* buf, int64_t n, int64_t j0) {
    const J off = static_cast<J>(j0 - base_);
    I nan = I{};
    for (int64_t j = 0; j < n; j += kStep) {
      V a, b, x0, x1;
      __builtin_memcpy(&a, buf + j, 64);
      __builtin_memcpy(&b, buf + j + L, 64);
      __builtin_memcpy(&x0, buf + j + 2 * L, 64);
      __builtin_memcpy(&x1, buf + j + 3 * L, 64);
      if constexpr (is_float<T>::value) nan |= (a != a) | (b != b) | (x0 != x0) | (x1 != x1);
      // (ties keep the earlier vector: a before b, ab before the other two, the lanes' own first)
      const I bab = Max ? a < b : b < a, b01 = Max ? x0 < x1 : x1 < x0;
      const V xab = bab ? b : a, x01 = b01 ? x1 : x0;
      const I pab = bab ? I{} + L : I{}, p01 = b01 ? I{} + 3 * L : I{} + 2 * L;
      const I bx = Max ? xab < x01 : x01 < xab;
      const V x = bx ? x01 : xab;
      const I px = bx ? p01 : pab;
      const I bm = Max ? m_ < x : x < m_;
      m_ = bm ? x : m_;
      at_ = bm ? px + static_cast<J>(off + static_cast<J>(j)) : at_;
    }
    if constexpr (is_float<T>::value) {
      J nv[L], any = 0;
      __builtin_memcpy(nv, &nan, 64);
      CGRAD_OMP_SIMD(reduction(| : any))
      for (int l = 0; l < L; ++l) any |= nv[l];
      if (any)
        for (int64_t j = 0; j < n; ++j)
          if (buf[j] != buf[j]) {
            nan_at_ = j0 + j;
            return;
          }
    }
  }
  // The extreme of the lanes and its first position (a lane that never moved holds the identity
  // at its own position, which is in the row or ties with position 0 of `base_`).
  CGRAD_SCALAR_INLINE void lanes(T& best, int64_t& at) const {
    T mv[L];
    J pv[L];
    __builtin_memcpy(mv, &m_, 64);
    __builtin_memcpy(pv, &at_, 64);
    T b = mv[0];
    if constexpr (Max) {
      CGRAD_OMP_SIMD(reduction(max : b))
      for (int l = 0; l < L; ++l) b = b < mv[l] ? mv[l] : b;
    } else {
      CGRAD_OMP_SIMD(reduction(min : b))
      for (int l = 0; l < L; ++l) b = mv[l] < b ? mv[l] : b;
    }
    J p = static_cast<J>((uint64_t(1) << (8 * sizeof(J) - 1)) - 1);
    CGRAD_OMP_SIMD(reduction(min : p))
    for (int l = 0; l < L; ++l) {
      const J q = static_cast<J>(pv[l] + l);
      p = mv[l] == b && q < p ? q : p;
    }
    best = b;
    at = base_ + p;
  }
  CGRAD_SCALAR_INLINE void fold() {
    T b;
    int64_t a;
    lanes(b, a);
    if (held_at_ < 0 || beats(b, held_)) {
      held_ = b;
      held_at_ = a;
    }
    m_ = id_;
    at_ = I{};
  }
  // The row's first extreme (a NaN: the first NaN) and its position.
  CGRAD_SCALAR_INLINE void finish(T& best, int64_t& at) const {
    if constexpr (is_float<T>::value)
      if (nan_at_ >= 0) {
        best = quiet_nan<T>();
        at = nan_at_;
        return;
      }
    lanes(best, at);
    if (held_at_ >= 0 && !beats(best, held_)) {
      best = held_;
      at = held_at_;
    }
  }
};
#undef CGRAD_OMP_SIMD
#undef CGRAD_PRAGMA
#endif

template <class T>
CGRAD_SCALAR_INLINE bool lt(T a, T b) {
  return a < b;
}
template <class T>
CGRAD_SCALAR_INLINE bool le(T a, T b) {
  return a <= b;
}
template <class T>
CGRAD_SCALAR_INLINE bool gt(T a, T b) {
  return a > b;
}
template <class T>
CGRAD_SCALAR_INLINE bool ge(T a, T b) {
  return a >= b;
}
template <class T>
CGRAD_SCALAR_INLINE bool eq(T a, T b) {
  return a == b;
}
template <class T>
CGRAD_SCALAR_INLINE bool ne(T a, T b) {
  return a != b;
}

// Floating binary functions of the standard: libm, special cases per C99 Annex F.
template <class T>
CGRAD_SCALAR_INLINE T atan2(T a, T b) {
  return atan2_(a, b);
}
template <class T>
CGRAD_SCALAR_INLINE T hypot(T a, T b) {
  return m_hypot(a, b);
}
template <class T>
CGRAD_SCALAR_INLINE T copysign(T a, T b) {
  return m_copysign(a, b);
}
// nextafter of f32 and f64 on the bits (the C library's scalar calls kept every loop over them from
// vectorizing: 2^22 f32, one thread, 48 ms, as NumPy's 49). A finite nonzero a steps its sign and
// magnitude bits by 1 away from 0 or toward it: (u ^ s) - s with u = ±1 toward b and s = 0 or -1,
// a's sign, in integers (GCC 12 vectorizes no comparison of two masks), the sum unsigned (a NaN's
// lanes may wrap; they are selected away). 0 steps to the smallest subnormal toward b; a == b
// gives b (C99: nextafter(0, -0) = -0); NaN in, NaN out. Exact: the same bits on every backend.
CGRAD_SCALAR_INLINE float nextafter_f32(float a, float b) {
  const int32_t bits = f32_to_bits(a), sign = bits >> 31, up = a < b ? 1 : -1;
  const int32_t tiny = (f32_to_bits(b) & static_cast<int32_t>(0x80000000u)) | 1;
  const uint32_t stepped = static_cast<uint32_t>(bits) + static_cast<uint32_t>((up ^ sign) - sign);
  const float r = bits_to_f32(a == 0.0f ? tiny : static_cast<int32_t>(stepped));
  return a != a || b != b ? a + b : a == b ? b : r;
}
CGRAD_SCALAR_INLINE double nextafter_f64(double a, double b) {
  const int64_t bits = f64_to_bits(a), sign = bits >> 63, up = a < b ? 1 : -1;
  const int64_t tiny = (f64_to_bits(b) & static_cast<int64_t>(0x8000000000000000ULL)) | 1;
  const uint64_t stepped = static_cast<uint64_t>(bits) + static_cast<uint64_t>((up ^ sign) - sign);
  const double r = bits_to_f64(a == 0.0 ? tiny : static_cast<int64_t>(stepped));
  return a != a || b != b ? a + b : a == b ? b : r;
}
// nextafter of the 16-bit floats steps their own bit pattern (the f32 neighbour would round back
// to a); generated code computing them in float calls nextafter<S> with the storage type S.
template <class T>
CGRAD_SCALAR_INLINE T nextafter(T a, T b) {
  if constexpr (is_float<T>::value && sizeof(T) == 2) {
    const float fa = a, fb = b;
    if (fa != fa || fb != fb) return T(fa + fb);
    if (fa == fb) return b;
    uint16_t bits = a.bits;
    if (fa == 0.0f)
      bits = fb > 0.0f ? 0x0001 : 0x8001;  // the smallest subnormal toward b
    else if ((fa < fb) == (fa > 0.0f))
      bits = uint16_t(bits + 1);  // sign and magnitude: away from 0
    else
      bits = uint16_t(bits - 1);  // toward 0
    return T::from_bits(bits);
  } else if constexpr (sizeof(T) == 4) {
    return nextafter_f32(a, b);
  } else {
    return nextafter_f64(a, b);
  }
}
// log(exp(a) + exp(b)) without overflow: max + log1p(exp(-|a - b|)); NaN if either is NaN,
// +inf if either is +inf, -inf when both are -inf.
template <class T>
CGRAD_SCALAR_INLINE T logaddexp(T a, T b) {
  if (a != a || b != b) return a + b;
  const T m = a < b ? b : a;
  if (m_fabs(m) == inf<T>()) return m;
  const auto d = a < b ? a - b : b - a;  // -|a - b| (auto: f16 and bf16 keep it in float)
  return m + log1p_(exp_(d));
}
// remainder: the sign of the divisor, like Python's %. Floats: fmod, moved into the divisor's
// sign (a zero result takes the divisor's sign too). Integers: remainder by 0 gives 0 (the
// standard leaves it unspecified); INT_MIN % -1 is 0.
template <class T>
CGRAD_SCALAR_INLINE_ALWAYS T remainder(T a, T b) {  // (f64: fmod_f64's 43 steps, inlined)
  if constexpr (is_float<T>::value) {
    using F = decltype(m_fmod(a, b));  // float for f16 and bf16, rounded once on return
    const F r = m_fmod(a, b), fb = static_cast<F>(b);
    // selects, no branch: loops over it vectorize
    const F moved = (r < F(0)) != (fb < F(0)) ? r + fb : r;
    return static_cast<T>(r == F(0) ? m_copysign(F(0), fb) : moved);
  } else {
    if (b == 0) return T(0);
    if constexpr (is_signed_int<T>::value)
      if (b == T(-1)) return T(0);  // INT_MIN % -1 overflows in C++
    T r = static_cast<T>(a % b);
    if constexpr (is_signed_int<T>::value)
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  }
}
// floor_divide: the quotient rounded toward -inf. Floats: the floor of the exact quotient, as
// Python's //, NumPy's and PyTorch's: floor(a / b), less one where the division rounded up onto
// an integer n that the exact quotient is below (1 // 0.05f: 1 / 0.05f = 19.9999997 rounds to 20;
// the answer is 19, and floor(a / b) gave 20 until 2026-12-07, found by tools/fuzz_numpy.py seed
// 311100). The residual a - n b, rounded once, has the exact one's sign. A zero or infinite
// divisor, or an infinite dividend, follows IEEE division (the residual is NaN there): x / 0 is
// +-inf, the standard's special cases. Integers: floor division by 0 gives 0; INT_MIN // -1
// wraps to INT_MIN.
template <class T>
CGRAD_SCALAR_INLINE T floor_divide(T a, T b) {
  if constexpr (is_float<T>::value) {
    using F = decltype(m_floor(a / b));  // float for f16 and bf16, rounded once on return
    const F fa = static_cast<F>(a), fb = static_cast<F>(b), q = fa / fb, n = m_floor(q);
#if CGRAD_SCALAR_FMA_FUSED
    const F r = fma_(-n, fb, fa);
#else
    const double r = exact_fms(n, fb, fa);  // (float operands: in double, exactly)
#endif
    const bool below = q == n && r == r && r != 0 && (r < 0) != (fb < F(0));  // selects: vectorizes
    return static_cast<T>(below ? n - F(1) : n);
  } else {
    if (b == 0) return T(0);
    if constexpr (is_signed_int<T>::value)
      if (b == T(-1)) return neg(a);  // INT_MIN / -1 overflows in C++: wrap
    T q = static_cast<T>(a / b);
    if constexpr (is_signed_int<T>::value)
      if (a % b != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
    return q;
  }
}
// Bitwise ops on integers and bools. Shifts take integers; a shift count outside [0, bits)
// gives what shifting one bit at a time would: 0 for a left shift, the sign fill (0 or -1) for
// a right shift (C++ leaves both undefined; the standard requires counts >= 0).
template <class T>
CGRAD_SCALAR_INLINE T bitwise_and(T a, T b) {
  return static_cast<T>(a & b);
}
template <class T>
CGRAD_SCALAR_INLINE T bitwise_or(T a, T b) {
  return static_cast<T>(a | b);
}
template <class T>
CGRAD_SCALAR_INLINE T bitwise_xor(T a, T b) {
  return static_cast<T>(a ^ b);
}
template <class T>
CGRAD_SCALAR_INLINE T bitwise_left_shift(T a, T b) {
  using U = typename unsigned_of<T>::type;  // 32 bits at least: no promotion to int
  if constexpr (is_signed_int<T>::value)
    if (b < 0) return T(0);
  if (b >= T(sizeof(T) * 8)) return T(0);
  return static_cast<T>(static_cast<U>(a) << b);
}
template <class T>
CGRAD_SCALAR_INLINE T bitwise_right_shift(T a, T b) {
  if constexpr (is_signed_int<T>::value) {
    if (b < 0 || b >= T(sizeof(T) * 8)) return a < 0 ? T(-1) : T(0);
    return static_cast<T>(a >> b);  // arithmetic shift (C++20 defines it for negative a)
  } else {
    if (b >= T(sizeof(T) * 8)) return T(0);
    return static_cast<T>(a >> b);  // logical shift
  }
}
CGRAD_SCALAR_INLINE bool logical_and(bool a, bool b) { return a && b; }
CGRAD_SCALAR_INLINE bool logical_or(bool a, bool b) { return a || b; }
CGRAD_SCALAR_INLINE bool logical_xor(bool a, bool b) { return a != b; }

// ---- ternary ----
template <class T>
CGRAD_SCALAR_INLINE T where(bool c, T a, T b) {
  return c ? a : b;
}
#if !defined(__CUDACC_RTC__) && !defined(__CUDA_ARCH__)
// Floats on the host: the same value, as a bit select. GCC 12 does not vectorize `c ? a : b` on
// doubles when c is loop-invariant (a `where` on a row index read through a broadcast, as in an
// odeint state of shape (3, N)); the bit select vectorizes either way (checked with GCC 12 and
// clang 14, -fopt-info-vec / -Rpass=loop-vectorize).
CGRAD_SCALAR_INLINE float where(bool c, float a, float b) {
  const uint32_t m = uint32_t(0) - static_cast<uint32_t>(c);
  return __builtin_bit_cast(float,
                            (__builtin_bit_cast(uint32_t, a) & m) | (__builtin_bit_cast(uint32_t, b) & ~m));
}
CGRAD_SCALAR_INLINE double where(bool c, double a, double b) {
  const uint64_t m = uint64_t(0) - static_cast<uint64_t>(c);
  return __builtin_bit_cast(double,
                            (__builtin_bit_cast(uint64_t, a) & m) | (__builtin_bit_cast(uint64_t, b) & ~m));
}
#endif

// ---- reductions: identity and combine; float sums accumulate in double (acc_t) ----
template <class T>
struct acc {
  using type = T;
};
template <>
struct acc<float> {
  using type = double;
};
template <>
struct acc<float16_t> {
  using type = double;
};
template <>
struct acc<bfloat16_t> {
  using type = double;
};
template <>
struct acc<bool> {
  using type = int64_t;
};
template <>
struct acc<int8_t> {
  using type = int64_t;
};
template <>
struct acc<int16_t> {
  using type = int64_t;
};
template <>
struct acc<int32_t> {
  using type = int64_t;
};
// Unsigned sums wrap in int64 arithmetic: the same bits as uint64 arithmetic.
template <>
struct acc<uint8_t> {
  using type = int64_t;
};
template <>
struct acc<uint16_t> {
  using type = int64_t;
};
template <>
struct acc<uint32_t> {
  using type = int64_t;
};
template <>
struct acc<uint64_t> {
  using type = int64_t;
};

// ---- counter-based random numbers: value i of a stream depends only on (key, i) ----
CGRAD_SCALAR_INLINE uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
CGRAD_SCALAR_INLINE uint64_t rand_bits(uint64_t key, uint64_t i) {
  return mix64(mix64(key) ^ (i * 0xd1342543de82ef95ULL));
}
/// Uniform in [0, 1) with the full mantissa of T.
template <class T>
CGRAD_SCALAR_INLINE T rand_uniform(uint64_t key, uint64_t i) {
  uint64_t r = rand_bits(key, i);
  if constexpr (sizeof(T) == 2)  // the 16-bit floats: exactly representable multiples of 2^-mantissa
    return T(static_cast<float>(r >> (64 - T::kMantissaBits)) *
             (1.0f / static_cast<float>(1 << T::kMantissaBits)));
  else if constexpr (sizeof(T) == 4)
    return static_cast<T>(r >> 40) * T(5.9604644775390625e-08);  // 2^-24
  else
    return static_cast<T>(r >> 11) * T(1.1102230246251565e-16);  // 2^-53
}
/// Standard normal (Box-Muller on two independent uniforms of the same counter).
template <class T>
CGRAD_SCALAR_INLINE T rand_normal(uint64_t key, uint64_t i) {
  double u1 = static_cast<double>((rand_bits(key, 2 * i) >> 11) + 1) * 1.1102230246251565e-16;  // (0, 1]
  double u2 = static_cast<double>(rand_bits(key, 2 * i + 1) >> 11) * 1.1102230246251565e-16;
  return static_cast<T>(m_sqrt(-2.0 * m_log(u1)) * m_cos(6.283185307179586476925 * u2));
}

#if !defined(CGRAD_SCALAR_LEAN)  // (no complex value in a lean unit)
// ---- complex group (issue #15): the helpers of the rows that accept c64 and c128 ----
// Overloads of the element-wise helpers for complex_t<R> (more specialized than the generic
// templates above, so `cgrad::scalar::add(x, y)` in generated code picks them). Formulas are the
// textbook ones in R arithmetic (products not fused); special values (infinite or NaN parts,
// signed zeros) follow C99 Annex G where the Array API standard's special-case tables require
// them; branch cuts are C99's (log, sqrt along the negative real axis). docs/semantics.md.
template <class R>
CGRAD_SCALAR_INLINE bool isinf_(R x) {
  return m_fabs(x) == inf<R>();
}
template <class R>
CGRAD_SCALAR_INLINE bool isfinite_(R x) {
  return m_fabs(x) < inf<R>();
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> neg(complex_t<R> z) {
  return {-z.re, -z.im};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> add(complex_t<R> a, complex_t<R> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> sub(complex_t<R> a, complex_t<R> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> mul(complex_t<R> a, complex_t<R> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
// Smith's algorithm (the ratio of the divisor's parts, so |b|^2 never overflows); x / (0 + 0i) is
// copysign(inf, b.re) times each part of x, as C99's __divdc3.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> div(complex_t<R> a, complex_t<R> b) {
  if (b.re == R(0) && b.im == R(0)) {
    const R s = m_copysign(inf<R>(), b.re);
    return {s * a.re, s * a.im};
  }
  if (m_fabs(b.re) >= m_fabs(b.im)) {
    const R r = b.im / b.re, d = b.re + b.im * r;
    return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
  }
  const R r = b.re / b.im, d = b.re * r + b.im;
  return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
}
template <class R>
CGRAD_SCALAR_INLINE bool isnan(complex_t<R> z) {
  return z.re != z.re || z.im != z.im;
}
template <class R>
CGRAD_SCALAR_INLINE bool isinf(complex_t<R> z) {
  return isinf_(z.re) || isinf_(z.im);
}
template <class R>
CGRAD_SCALAR_INLINE bool isfinite(complex_t<R> z) {
  return isfinite_(z.re) && isfinite_(z.im);
}
// |z| = hypot(re, im): no overflow or underflow of the squares; +inf if either part is infinite.
template <class R>
CGRAD_SCALAR_INLINE R abs(complex_t<R> z) {
  return m_hypot(z.re, z.im);
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> conj(complex_t<R> z) {
  return {z.re, -z.im};
}
template <class R>
CGRAD_SCALAR_INLINE R real(complex_t<R> z) {
  return z.re;
}
template <class R>
CGRAD_SCALAR_INLINE R imag(complex_t<R> z) {
  return z.im;
}
// sign(z) = z / |z|; 0 for 0; NaN + NaN i if either part is NaN.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> sign(complex_t<R> z) {
  if (isnan(z)) return {quiet_nan<R>(), quiet_nan<R>()};
  if (z.re == R(0) && z.im == R(0)) return {R(0), R(0)};
  const R a = m_hypot(z.re, z.im);
  return {z.re / a, z.im / a};
}
// exp(x + iy) = e^x (cos y + i sin y), with C99's special cases: exp(x +- 0i) = exp(x) +- 0i,
// exp(-inf + iy) = +0 cis(y) (+-0 +- 0i for y infinite or NaN), exp(+inf + iy) = +inf cis(y)
// (+-inf + NaN i for y infinite or NaN), exp(x + inf i) = NaN + NaN i for finite x.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> exp(complex_t<R> z) {
  if (z.im == R(0)) return {m_exp(z.re), z.im};
  if (isinf_(z.re)) {
    if (z.re < R(0))
      return isfinite_(z.im) ? complex_t<R>{R(0) * m_cos(z.im), R(0) * m_sin(z.im)}
                             : complex_t<R>{R(0), R(0)};
    if (!isfinite_(z.im)) return {z.re, quiet_nan<R>()};
    return {z.re * m_cos(z.im), z.re * m_sin(z.im)};
  }
  const R e = m_exp(z.re);
  return {e * m_cos(z.im), e * m_sin(z.im)};
}
// expm1(x + iy) = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y: no cancellation near 0.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> expm1(complex_t<R> z) {
  if (z.im == R(0)) return {z.re == R(0) ? R(0) : m_expm1(z.re), z.im};  // expm1(-0 + 0i) = +0 + 0i
  if (isinf_(z.re)) {
    if (z.re < R(0))
      return isfinite_(z.im) ? complex_t<R>{R(-1), R(0) * m_sin(z.im)} : complex_t<R>{R(-1), R(0)};
    if (!isfinite_(z.im)) return {z.re, quiet_nan<R>()};
    return {z.re * m_cos(z.im), z.re * m_sin(z.im)};
  }
  const R s = m_sin(z.im * R(0.5));
  return {m_expm1(z.re) * m_cos(z.im) - R(2) * s * s, m_exp(z.re) * m_sin(z.im)};
}
// log(z) = log|z| + i arg(z): arg in [-pi, pi], the cut along the negative real axis
// (log(-0 + 0i) = -inf + pi i, log(+0 + 0i) = -inf + 0i, as C99).
// Near |z| = 1 the real part is log1p((m - 1)(m + 1) + n^2) / 2 (m = max(|x|, |y|), n = min;
// m - 1 is exact there), not log of a hypot rounded near 1; above a quarter of the largest value
// the parts are halved first, so |z| cannot overflow (log(max + max i) is finite).
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> log(complex_t<R> z) {
  const R ax = m_fabs(z.re), ay = m_fabs(z.im), m = ax < ay ? ay : ax, n = ax < ay ? ax : ay;
  const R arg = m_atan2(z.im, z.re);
  if (m >= R(0.5) && m <= R(2)) return {R(0.5) * m_log1p((m - R(1)) * (m + R(1)) + n * n), arg};
  const R big = sizeof(R) == 4 ? R(8.5e37) : R(4.4e307);
  if (m > big && !isinf_(m))
    return {m_log(m_hypot(ax * R(0.5), ay * R(0.5))) + R(0.693147180559945309417), arg};
  return {m_log(m_hypot(z.re, z.im)), arg};
}
// log1p(z) = log(1 + z); near 0, its real part as log1p(x (2 + x) + y^2) / 2 (no cancellation).
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> log1p(complex_t<R> z) {
  if (m_fabs(z.re) < R(0.5) && m_fabs(z.im) < R(0.5))
    return {R(0.5) * m_log1p(z.re * (R(2) + z.re) + z.im * z.im), m_atan2(z.im, R(1) + z.re)};
  return log(complex_t<R>{R(1) + z.re, z.im});
}
// The principal square root (re >= 0), cut along the negative real axis, with C99's special
// cases: sqrt(x +- inf i) = +inf +- inf i, sqrt(-inf + iy) = +0 +- inf i, sqrt(+inf + iy) =
// +inf +- 0i, NaN parts otherwise give NaN. Parts above max/4 are scaled so |z| cannot overflow.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> sqrt(complex_t<R> z) {
  if (isinf_(z.im)) return {inf<R>(), z.im};
  if (z.re != z.re) return {z.re, z.re};
  if (isinf_(z.re)) {
    if (z.re > R(0)) return {z.re, z.im != z.im ? z.im : m_copysign(R(0), z.im)};
    return {z.im != z.im ? z.im : R(0), m_copysign(inf<R>(), z.im)};
  }
  if (z.im != z.im) return {z.im, z.im};
  if (z.re == R(0) && z.im == R(0)) return {R(0), z.im};
  R a = m_fabs(z.re), b = m_fabs(z.im), up = R(1);
  const R big = sizeof(R) == 4 ? R(8.5e37) : R(4.4e307);
  if (a > big || b > big) a *= R(0.25), b *= R(0.25), up = R(2);
  const R t = m_sqrt((a + m_hypot(a, b)) * R(0.5)) * up;
  const R u = m_fabs(z.im) / (R(2) * t);
  if (z.re >= R(0)) return {t, m_copysign(u, z.im)};
  return {u, m_copysign(t, z.im)};
}
// sinh, cosh, tanh with C99's special cases; sin(z) = -i sinh(iz), cos(z) = cosh(iz),
// tan(z) = -i tanh(iz), as the standard defines them.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> sinh(complex_t<R> z) {
  if (z.im == R(0)) return {m_sinh(z.re), z.im};
  if (z.re == R(0) && !isfinite_(z.im)) return {z.re, z.im - z.im};
  if (isinf_(z.re)) {
    if (!isfinite_(z.im)) return {z.re, z.im - z.im};
    return {z.re * m_cos(z.im), z.re * m_sin(z.im)};
  }
  return {m_sinh(z.re) * m_cos(z.im), m_cosh(z.re) * m_sin(z.im)};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> cosh(complex_t<R> z) {
  if (z.im == R(0)) return {m_cosh(z.re), z.re != z.re ? z.im : m_copysign(R(0), z.re) * z.im};
  if (z.re == R(0) && !isfinite_(z.im)) return {z.im - z.im, R(0)};
  if (isinf_(z.re)) {
    if (!isfinite_(z.im)) return {inf<R>(), z.im - z.im};
    return {inf<R>() * m_cos(z.im), z.re * m_sin(z.im)};
  }
  return {m_cosh(z.re) * m_cos(z.im), m_sinh(z.re) * m_sin(z.im)};
}
// tanh: Kahan's formula (tan y, sinh x: no cancellation in cosh 2x + cos 2y); for |x| > 20,
// tanh x is +-1 in both precisions and the imaginary part 4 sin y cos y e^-2|x|.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> tanh(complex_t<R> z) {
  if (isinf_(z.re))
    return {m_copysign(R(1), z.re),
            m_copysign(R(0), z.im)};  // the standard: 1 + 0i for y > 0 (C99: 0 sin 2y)
  if (z.im == R(0)) return {m_tanh(z.re), z.im};
  if (!isfinite_(z.im)) return {z.re == R(0) ? z.re : z.im - z.im, z.im - z.im};
  if (z.re != z.re) return {z.re, z.re};
  if (m_fabs(z.re) > R(20))
    return {m_copysign(R(1), z.re), R(4) * m_sin(z.im) * m_cos(z.im) * m_exp(R(-2) * m_fabs(z.re))};
  const R t = m_tan(z.im), beta = R(1) + t * t, s = m_sinh(z.re), rho = m_sqrt(R(1) + s * s);
  const R den = R(1) + beta * s * s;
  return {beta * rho * s / den, t / den};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> sin(complex_t<R> z) {
  const complex_t<R> w = sinh(complex_t<R>{-z.im, z.re});
  return {w.im, -w.re};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> cos(complex_t<R> z) {
  return cosh(complex_t<R>{-z.im, z.re});
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> tan(complex_t<R> z) {
  const complex_t<R> w = tanh(complex_t<R>{-z.im, z.re});
  return {w.im, -w.re};
}
// pow(a, b) = exp(b log a); a^0 = 1 for every a (NaN included), 0^b = 0 for real b > 0.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> pow(complex_t<R> a, complex_t<R> b) {
  if (b.re == R(0) && b.im == R(0)) return {R(1), R(0)};
  if (a.re == R(0) && a.im == R(0) && b.im == R(0) && b.re > R(0)) return {R(0), R(0)};
  return exp(mul(b, log(a)));
}
// ---- complex group, cplxfn: the inverse trigonometric and hyperbolic functions, log2, log10, round ----
// Kahan's formulas ("Branch cuts for complex elementary functions", 1987): the parts come from
// the square roots of 1 - z and 1 + z, whose signed zeros put each side of a cut where C99 Annex G
// puts it (casin(2 + 0i) = pi/2 + i acosh 2, casin(2 - 0i) = pi/2 - i acosh 2) with no
// cancellation near +-1. Beyond cplx_big (2^12 in f32, 2^27 in f64: there the next term of the
// asymptotic series is below half an ulp) each function is its asymptote (log 2z, arg z, 1/z)
// computed without a square, so no finite input overflows. Special values (NaN, infinite parts)
// are C99's and the Array API standard's tables; asinh, acos and atanh use their symmetries
// (odd, conj(f(z)) = f(conj z)) to work in one quadrant and give the signs back with copysign.
// asin(z) = -i asinh(iz), atan(z) = -i atanh(iz) and acosh(z) = +-i acos(z), as the standard
// defines them (the rotations by i are exact). docs/semantics.md "Complex numbers".
// |x| with |-0| = +0, which the folds below rely on (the side of a cut): not fabs, because the
// emulated device's abs.f64 returns -0 for -0 (docs/cuda.md), and compilers turn copysign(x, 1)
// and a cleared sign bit back into that instruction; -0 + 0 is +0 in IEEE arithmetic.
template <class R>
CGRAD_SCALAR_INLINE R cplx_abs(R x) {
  return x < R(0) ? -x : x + R(0);
}
template <class R>
CGRAD_SCALAR_INLINE R cplx_big() {
  return sizeof(R) == 4 ? R(4096) : R(134217728);
}
template <class R>
CGRAD_SCALAR_INLINE R cplx_half_pi() {
  return R(1.57079632679489661923);
}
template <class R>
CGRAD_SCALAR_INLINE R cplx_ln2() {
  return R(0.693147180559945309417);
}
// log(2|z|) for m = max(|x|, |y|) >= n = min(|x|, |y|), with no square: the large-|z| real part.
template <class R>
CGRAD_SCALAR_INLINE R cplx_log_2abs(R m, R n) {
  if (isinf_(m)) return m;
  const R r = n / m;
  return cplx_ln2<R>() + m_log(m) + R(0.5) * m_log1p(r * r);
}
// Kahan's asin for finite z of moderate size: atan2(x, Re(sqrt(1 - z) sqrt(1 + z))) +
// i asinh(Im(conj(sqrt(1 - z)) sqrt(1 + z))).
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> cplx_asin_kahan(complex_t<R> z) {
  const complex_t<R> a = sqrt(complex_t<R>{R(1) - z.re, -z.im}), b = sqrt(complex_t<R>{R(1) + z.re, z.im});
  return {m_atan2(z.re, a.re * b.re - a.im * b.im), m_asinh(a.re * b.im - a.im * b.re)};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> asinh(complex_t<R> z) {
  const R x = z.re, y = z.im, ax = cplx_abs(x), ay = cplx_abs(y), nan = quiet_nan<R>();
  if (x != x) {
    if (y == R(0)) return {x, y};              // asinh(NaN +- 0i) = NaN +- 0i
    return {isinf_(y) ? inf<R>() : nan, nan};  // asinh(NaN + inf i) = +-inf + NaN i
  }
  if (y != y) return {isinf_(x) ? x : nan, nan};  // asinh(+-inf + NaN i) = +-inf + NaN i
  R re, im;
  if (ax > cplx_big<R>() || ay > cplx_big<R>()) {  // asinh z = log 2z + O(1/z^2)
    re = ax < ay ? cplx_log_2abs(ay, ax) : cplx_log_2abs(ax, ay);
    im = m_atan2(ay, ax);
  } else {  // asinh z = i asin(-iz)
    const complex_t<R> w = cplx_asin_kahan(complex_t<R>{ay, -ax});
    re = -w.im, im = w.re;
  }
  return {m_copysign(re, x), m_copysign(im, y)};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> asin(complex_t<R> z) {
  const complex_t<R> w = asinh(complex_t<R>{-z.im, z.re});
  return {w.im, -w.re};
}
// acos(x + iy) for y >= 0 (or NaN): real part in [0, pi], imaginary part <= 0 (NaN + inf i gives
// NaN - inf i, +-inf + NaN i gives NaN - inf i, so that acosh's real part is +inf).
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> cplx_acos_upper(R x, R y) {
  const R nan = quiet_nan<R>(), ax = cplx_abs(x);
  if (x != x) return {nan, isinf_(y) ? -y : nan};
  if (y != y) return {x == R(0) ? cplx_half_pi<R>() : nan, isinf_(x) ? -inf<R>() : nan};
  if (ax > cplx_big<R>() || y > cplx_big<R>())  // acos z = arg z - i log 2|z| + O(1/z^2)
    return {m_atan2(y, x), -(ax < y ? cplx_log_2abs(y, ax) : cplx_log_2abs(ax, y))};
  // Kahan: 2 atan2(Re sqrt(1 - z), Re sqrt(1 + z)) + i asinh(Im(conj(sqrt(1 + z)) sqrt(1 - z)))
  const complex_t<R> a = sqrt(complex_t<R>{R(1) - x, -y}), b = sqrt(complex_t<R>{R(1) + x, y});
  return {R(2) * m_atan2(a.re, b.re), m_asinh(b.re * a.im - b.im * a.re)};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> acos(complex_t<R> z) {
  const complex_t<R> w = cplx_acos_upper(z.re, cplx_abs(z.im));
  return {w.re, m_copysign(w.im, -z.im)};  // acos(conj z) = conj(acos z)
}
// acosh z = i acos z above the real axis (and on it with +0), -i acos z below: real part >= 0.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> acosh(complex_t<R> z) {
  const complex_t<R> w = cplx_acos_upper(z.re, cplx_abs(z.im));
  return {-w.im, m_copysign(w.re, z.im)};
}
// atanh(x + iy) = log1p(4x / ((1 - x)^2 + y^2)) / 4 + i atan2(2y, (1 - x)(1 + x) - y^2) / 2 (Hull
// et al.'s form; at |x| = 1 and |y| < 1 the real part as log(2/|y|) / 2 + log1p(y^2/4) / 4, so a
// tiny y does not underflow the denominator); beyond cplx_big, 1/z + i pi/2.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> atanh(complex_t<R> z) {
  const R x = z.re, y = z.im, ax = cplx_abs(x), ay = cplx_abs(y), nan = quiet_nan<R>();
  if (x != x)  // atanh(NaN + inf i) = +-0 + i pi/2
    return isinf_(y) ? complex_t<R>{R(0), m_copysign(cplx_half_pi<R>(), y)} : complex_t<R>{nan, nan};
  if (y != y) {  // atanh(+-inf + NaN i) = +-0 + NaN i, atanh(+-0 + NaN i) = +-0 + NaN i
    if (isinf_(x)) return {m_copysign(R(0), x), y};
    return {x == R(0) ? x : nan, nan};
  }
  R re, im;
  if (ax > cplx_big<R>() || ay > cplx_big<R>()) {
    if (isinf_(ax) || isinf_(ay)) {
      re = R(0), im = cplx_half_pi<R>();
    } else {
      const complex_t<R> w = div(complex_t<R>{R(1), R(0)}, complex_t<R>{ax, ay});
      re = w.re, im = cplx_half_pi<R>() + w.im;
    }
  } else {
    const R d = R(1) - ax;
    if (ax == R(1) && ay < R(1))  // (both terms positive: no cancellation)
      re = R(0.5) * (cplx_ln2<R>() - m_log(ay)) + R(0.25) * m_log1p(R(0.25) * ay * ay);
    else
      re = R(0.25) * m_log1p(R(4) * ax / (d * d + ay * ay));
    im = R(0.5) * m_atan2(R(2) * ay, d * (R(1) + ax) - ay * ay);
  }
  return {m_copysign(re, x), m_copysign(im, y)};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> atan(complex_t<R> z) {
  const complex_t<R> w = atanh(complex_t<R>{-z.im, z.re});
  return {w.im, -w.re};
}
// log2 z = log z / ln 2, log10 z = log z / ln 10: log's special cases, each part scaled.
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> log2(complex_t<R> z) {
  const complex_t<R> w = log(z);
  const R k = R(1.44269504088896340736);
  return {w.re * k, w.im * k};
}
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> log10(complex_t<R> z) {
  const complex_t<R> w = log(z);
  const R k = R(0.434294481903251827651);
  return {w.re * k, w.im * k};
}
// round rounds each part, half to even (the standard: real and imaginary parts separately).
template <class R>
CGRAD_SCALAR_INLINE complex_t<R> round(complex_t<R> z) {
  return {m_rint(z.re), m_rint(z.im)};
}
// complex(re, im): the complex value of two real parts (f16 and bf16 parts give c64).
template <class T>
struct complex_of {
  using type = complex64_t;
};
template <>
struct complex_of<double> {
  using type = complex128_t;
};
template <class T>
CGRAD_SCALAR_INLINE typename complex_of<T>::type complex(T re, T im) {
  using C = typename complex_of<T>::type;
  return C(static_cast<decltype(C::re)>(re), static_cast<decltype(C::re)>(im));
}
// Sums and products of c64 accumulate in c128, as f32 ones do in f64.
template <>
struct acc<complex64_t> {
  using type = complex128_t;
};
#endif  // (CGRAD_SCALAR_LEAN)

// ---- index group (issue #15) ----
/// take's position along its axis of length n: i wrapped once (-n <= i < 0 counts from the end,
/// as NumPy), or -1 when i is still outside [0, n): the kernel then reads 0 (docs/semantics.md).
CGRAD_SCALAR_INLINE int64_t take(int64_t i, int64_t n) {
  const int64_t j = i < 0 ? i + n : i;
  return j >= 0 && j < n ? j : -1;
}

// ---- devkern group: the order keys of sort and argsort (issue #15) ----
// The unsigned key of an element whose integer order is core/order.hpp's total order: NaN
// after every number in both directions (every NaN the largest key), -0 == +0 (one key),
// f16/bf16 ordered as float, bool false < true; with `descending` the complement reverses the
// order and the NaN key stays above every other (a value's complement is all ones only when
// its ascending key is 0, which no float has -- that would be a NaN's pattern -- and integers
// have no NaN). 32-bit keys for elements of at most 4 bytes, 64-bit otherwise. One definition
// for the interpreter's radix sort (interp_sort.cpp) and the CUDA sort kernel (cuda_sort.inc),
// so the two sort identically.
CGRAD_SCALAR_INLINE uint32_t order_key(float v, bool descending) {
  if (v != v) return 0xFFFFFFFFu;
  if (v == 0.0f) v = 0.0f;  // -0 -> +0
  const uint32_t b = static_cast<uint32_t>(f32_to_bits(v)), sign = 0x80000000u;
  const uint32_t key = (b & sign) ? ~b : (b | sign);  // negatives reversed below the positives
  return descending ? ~key : key;
}
CGRAD_SCALAR_INLINE uint64_t order_key(double v, bool descending) {
  if (v != v) return ~0ULL;
  if (v == 0.0) v = 0.0;
  const uint64_t b = static_cast<uint64_t>(f64_to_bits(v)), sign = 1ULL << 63;
  const uint64_t key = (b & sign) ? ~b : (b | sign);
  return descending ? ~key : key;
}
CGRAD_SCALAR_INLINE uint32_t order_key(float16_t v, bool descending) {
  return order_key(static_cast<float>(v), descending);
}
CGRAD_SCALAR_INLINE uint32_t order_key(bfloat16_t v, bool descending) {
  return order_key(static_cast<float>(v), descending);
}
CGRAD_SCALAR_INLINE uint32_t order_key_bits32(uint32_t key, bool descending) {
  return descending ? ~key : key;
}
CGRAD_SCALAR_INLINE uint32_t order_key(bool v, bool descending) {
  return order_key_bits32(v ? 1u : 0u, descending);
}
// Signed integers: the sign bit flipped in their own width maps them onto unsigned order.
CGRAD_SCALAR_INLINE uint32_t order_key(int8_t v, bool descending) {
  return order_key_bits32(static_cast<uint8_t>(static_cast<uint8_t>(v) ^ 0x80u), descending);
}
CGRAD_SCALAR_INLINE uint32_t order_key(int16_t v, bool descending) {
  return order_key_bits32(static_cast<uint16_t>(static_cast<uint16_t>(v) ^ 0x8000u), descending);
}
CGRAD_SCALAR_INLINE uint32_t order_key(int32_t v, bool descending) {
  return order_key_bits32(static_cast<uint32_t>(v) ^ 0x80000000u, descending);
}
CGRAD_SCALAR_INLINE uint64_t order_key(int64_t v, bool descending) {
  const uint64_t key = static_cast<uint64_t>(v) ^ (1ULL << 63);
  return descending ? ~key : key;
}
CGRAD_SCALAR_INLINE uint32_t order_key(uint8_t v, bool descending) { return order_key_bits32(v, descending); }
CGRAD_SCALAR_INLINE uint32_t order_key(uint16_t v, bool descending) {
  return order_key_bits32(v, descending);
}
CGRAD_SCALAR_INLINE uint32_t order_key(uint32_t v, bool descending) {
  return order_key_bits32(v, descending);
}
CGRAD_SCALAR_INLINE uint64_t order_key(uint64_t v, bool descending) { return descending ? ~v : v; }

}  // namespace CGRAD_SCALAR_NAMES
#undef CGRAD_SCALAR_NAMES
#undef CGRAD_SCALAR_FMA_FUSED
}  // namespace cgrad::scalar
