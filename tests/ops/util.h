// Shared helpers of the op tests: deterministic data with edge values for every dtype, input
// tensors in several layouts (contiguous, transposed, strided, 0-d, empty), and comparisons
// (exact for integers, ulp-based for floats, NaN equal to NaN).
#pragma once

#include "core/dtype.hpp"
#include "core/shape.hpp"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>
#include <cgrad/scalar.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opt {

using namespace cgrad;

inline constexpr DType kDTypes[] = {f32, f64, i32, i64, b8, i8, i16, u8, u16, u32, u64, f16, bf16};

/// Values of one dtype held widely: floats as double (f32 values already rounded to float),
/// integers and bools as int64 (u64 values above INT64_MAX as their bits: compare them with
/// int_less, convert them with int_to_double).
struct Data {
  DType dtype = f32;
  std::vector<double> f;
  std::vector<int64_t> i;
  /// For expected values only, optional: per element, a magnitude whose ulps also bound the error
  /// (an op whose result cancels, such as logaddexp near 0: its rounding errors are ulps of the
  /// operands, not of the result, in any implementation of its formula).
  std::vector<double> scale = {};
  std::size_t size() const { return is_floating(dtype) ? f.size() : i.size(); }
  double fv(std::size_t k) const;
  void push(double v);
  void push_int(int64_t v);
};

/// Deterministic generator (splitmix64), independent of the library's.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next();
  double uniform(double lo, double hi);
  int64_t range(int64_t lo, int64_t hi);  // inclusive
};

/// Edge values of a dtype (0, negatives, extremes; NaN, inf, denormals for floats).
Data edges(DType t);
/// `n` pseudo-random values: a mix of small, large and full-range values.
Data random_data(DType t, std::size_t n, uint64_t seed);
/// Concatenation of data of the same dtype.
Data concat(const Data& a, const Data& b);
/// Operand pairs: every edge value with every edge value, then random pairs.
std::pair<Data, Data> pairs(DType t, std::size_t n_random, uint64_t seed);

/// Ways of building an input tensor holding given logical values.
enum class Layout { Contiguous, Transposed, Strided, ZeroDim, Empty, EmptyRows };
inline constexpr Layout kLayouts[] = {Layout::Contiguous, Layout::Transposed, Layout::Strided,
                                      Layout::ZeroDim,    Layout::Empty,      Layout::EmptyRows};
const char* layout_name(Layout l);
/// The logical shape used for `n` values in layout `l` (values beyond it are not used).
Shape layout_shape(Layout l, std::size_t n);
/// A tensor of logical shape layout_shape(l, d.size()) whose row-major elements are d's first values.
Tensor make(const Data& d, Layout l);
/// A contiguous tensor of `shape`.
Tensor make(const Data& d, const Shape& shape);
/// A tensor from all of d's values with `shape` (tensor() checks that they fill it).
Tensor make_all(const Data& d, const Shape& shape);
/// The evaluated values of `t` in row-major order.
Data read(const Tensor& t);

/// Float closeness: equal (NaN == NaN, same infinities), within `ulps` units in the last place of
/// dtype `t`, or for ulps > 0 within the smallest normal of `t` in absolute terms (underflow).
::testing::AssertionResult close(double got, double want, DType t, int ulps);
/// want rounded to dtype t (float for f32; to nearest even in f16 and bf16, by a reference
/// written in the test).
double round_to(double want, DType t);
/// Compare every element; `what` describes the case in messages (at most a few are reported).
void expect_values(const Data& got, const Data& want, int ulps, const std::string& what);

/// Wraps v to a signed integer of `bits` bits (two's complement), as i32/i64 arithmetic does.
int64_t wrap(uint64_t v, int bits);
/// v reduced modulo 2^bits of integer dtype t (sign- or zero-extended; != 0 for b8).
int64_t wrap_as(uint64_t v, DType t);
/// a < b for values of integer dtype t (unsigned order for u64).
bool int_less(int64_t a, int64_t b, DType t);
/// An integer value of dtype t as double / float (rounded once, from its true value).
double int_to_double(int64_t v, DType t);
float int_to_float(int64_t v, DType t);
int bits_of(DType t);

template <class F>
ErrorCode error_code(F&& f, std::string* msg = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (msg) *msg = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no cgrad::Error thrown";
  return ErrorCode::Internal;
}

/// One op-table sweep: exercises `op` for dtype `t` through the public API and checks values.
using SweepFn = void (*)(int op, DType t);
void sweep_unary(int op, DType t);
void sweep_cast(int op, DType t);
void sweep_binary(int op, DType t);
void sweep_where(int op, DType t);
void sweep_source(int op, DType t);
void sweep_reduce(int op, DType t);
/// argmax group: argmax/argmin (Reduce rows) through sweep_reduce, against loops (test_argminmax.cpp).
void sweep_arg(int op, DType t);
void sweep_scan(int op, DType t);  // sweep_scan.cpp (scan group)
void sweep_movement(int op, DType t);
void sweep_cat(int op, DType t);
void sweep_take(int op, DType t);     // index group (sweep_index.cpp)
void sweep_scatter(int op, DType t);  // scatter group (sweep_scatter.cpp)
void sweep_matmul(int op, DType t);
void sweep_collective(int op, DType t);
/// The User row (user element-wise functions, sweep_user.cpp).
void sweep_user(int op, DType t);
/// Sort and Argsort (group sort, test_sort.cpp).
void sweep_sort(int op, DType t);
/// complex group (test_complex.cpp): conj, real, imag and complex(re, im) over the real dtypes
/// of kDTypes (their complex inputs are swept by the ComplexDTypes tests there).
void sweep_complex(int op, DType t);
/// Whether the element-wise sweeps know op `op` (the coverage test requires each op be known
/// by the sweep it is routed to).
bool unary_known(int op);
bool binary_known(int op);

}  // namespace opt
