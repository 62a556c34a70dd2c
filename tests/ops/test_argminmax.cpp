// argmax and argmin (the Argmax/Argmin rows of the argmax group: one-pass reductions whose
// accumulator pairs the extreme with its index) against loops written here: every dtype, every
// axis, keepdim, the flattened form, ties (the first index wins), NaN (the first NaN wins), -0,
// integer extremes, layouts, rows long enough for the JIT's blocked search and its split rows,
// fused element-wise inputs, and the zero-size error. sweep_arg is the op sweep's entry.
#include "ir/op.h"
#include "util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace opt {
namespace {

// Whether element v beats the extreme b so far (exact: integers compare as integers, so 64-bit
// values that round to the same double stay apart). A NaN beats any number.
bool beats(const Data& d, std::size_t v, std::size_t b, bool is_max) {
  if (is_floating(d.dtype)) {
    const double x = d.f[v], y = d.f[b];
    if (std::isnan(y)) return false;
    return std::isnan(x) || (is_max ? x > y : x < y);
  }
  return is_max ? int_less(d.i[b], d.i[v], d.dtype) : int_less(d.i[v], d.i[b], d.dtype);
}

// The reference: along `axis` of row-major data of shape s, the first index of the extreme
// (a NaN beats everything; among equal values the first).
std::vector<int64_t> ref_arg(const Data& d, const Shape& s, int64_t axis, bool is_max) {
  const int64_t n = s[static_cast<std::size_t>(axis)];
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= s[static_cast<std::size_t>(k)];
  for (std::size_t k = static_cast<std::size_t>(axis) + 1; k < s.size(); ++k) inner *= s[k];
  std::vector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      const auto at = [&](int64_t q) { return static_cast<std::size_t>((o * n + q) * inner + i); };
      for (int64_t j = 1; j < n; ++j)
        if (beats(d, at(j), at(best), is_max)) best = j;
      out.push_back(best);
    }
  return out;
}

// Data with ties and, for floats, NaNs and infinities: small integers make ties frequent.
Data tie_data(DType t, std::size_t n, uint64_t seed, bool with_nan) {
  Data d;
  d.dtype = t;
  Rng g(seed);
  for (std::size_t k = 0; k < n; ++k) {
    const int64_t v = g.range(-3, 3);
    if (t == b8)
      d.push_int(v > 0);
    else if (!is_floating(t))
      d.push_int(v * 1000003);
    else if (with_nan && v == 3 && g.range(0, 3) == 0)
      d.push(std::numeric_limits<double>::quiet_NaN());
    else if (v == -3)
      d.push(-std::numeric_limits<double>::infinity());
    else
      d.push(static_cast<double>(v) * 0.5);
  }
  return d;
}

// Element k of d set to v (an integer dtype's as an integer).
void set_at(Data& d, std::size_t k, double v) {
  if (is_floating(d.dtype))
    d.f[k] = v;
  else
    d.i[k] = static_cast<int64_t>(v);
}

class ArgMinMax : public ::testing::TestWithParam<DType> {};

TEST_P(ArgMinMax, MatchLoopsOnEveryAxis) {
  const DType t = GetParam();
  const Shape s{3, 5, 4};
  for (bool with_nan : {false, true}) {
    if (with_nan && !is_floating(t)) continue;
    const Data d = tie_data(t, 60, with_nan ? 7 : 3, with_nan);
    for (Layout l : {Layout::Contiguous, Layout::Transposed}) {
      // Contiguous: 3-D; Transposed: the 2-D transposed layout of util.h.
      Tensor x = l == Layout::Contiguous ? make(d, s) : make(d, l);
      const Shape xs = x.shape();
      for (int64_t axis = 0; axis < static_cast<int64_t>(xs.size()); ++axis)
        for (bool is_max : {true, false}) {
          const std::string what = std::string(is_max ? "argmax" : "argmin") + " " + dtype_name(t) + " " +
                                   layout_name(l) + " axis " + std::to_string(axis) +
                                   (with_nan ? " with NaN" : "");
          // The reference reads row-major logical values.
          Data logical = read(x);
          const std::vector<int64_t> want = ref_arg(logical, xs, axis, is_max);
          for (bool keepdim : {false, true}) {
            Tensor y = is_max ? argmax(x, axis, keepdim) : argmin(x, axis, keepdim);
            EXPECT_EQ(y.dtype(), i64) << what;
            Shape ys = xs;
            if (keepdim)
              ys[static_cast<std::size_t>(axis)] = 1;
            else
              ys.erase(ys.begin() + axis);
            EXPECT_EQ(y.shape(), ys) << what;
            EXPECT_EQ(y.to_vector<int64_t>(), want) << what << (keepdim ? " keepdim" : "");
          }
          // Negative axes count from the end.
          Tensor yn = is_max ? argmax(x, axis - static_cast<int64_t>(xs.size()))
                             : argmin(x, axis - static_cast<int64_t>(xs.size()));
          EXPECT_EQ(yn.to_vector<int64_t>(), want) << what << " negative axis";
        }
      // Flattened: one index into the row-major logical order.
      const Data flat = read(x);
      const Shape fs{x.numel()};
      for (bool is_max : {true, false}) {
        Tensor y = is_max ? argmax(x) : argmin(x);
        EXPECT_EQ(y.shape(), Shape{});
        EXPECT_EQ(y.item<int64_t>(), ref_arg(flat, fs, 0, is_max)[0]) << dtype_name(t) << " flattened";
        Tensor yk = is_max ? argmax(x, std::nullopt, true) : argmin(x, std::nullopt, true);
        EXPECT_EQ(yk.shape(), Shape(xs.size(), 1));
      }
    }
  }
}

TEST_P(ArgMinMax, FusesIntoElementwiseInputsAndRejectsEmpty) {
  const DType t = GetParam();
  const Data d = tie_data(t, 12, 11, false);
  Tensor x = make(d, Shape{3, 4});
  // An element-wise input: argmax(x) of a where() expression.
  if (t != b8) {
    Tensor e = where(x > x.slice(1, 0, 1), x, x.slice(1, 0, 1));
    Data ev = read(e);
    EXPECT_EQ(argmax(e, 1).to_vector<int64_t>(), ref_arg(ev, {3, 4}, 1, true));
  }
  std::string msg;
  EXPECT_EQ(error_code([&] { argmax(make(d, Shape{3, 0}), 1); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("argmax"), std::string::npos) << msg;
  EXPECT_EQ(error_code([&] { argmin(make(d, Shape{0})); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([&] { argmax(x, 2); }), ErrorCode::InvalidArgument);
  // Reducing a non-empty axis of an empty tensor is fine.
  EXPECT_EQ(argmax(make(d, Shape{0, 3}), 1).shape(), Shape{0});
}

// Special values: -0 equals +0 (the first wins), all-equal rows give 0 (also rows of the
// accumulator's start value: -inf for argmax, the integer extremes), the first NaN wins wherever
// it is, and a row of NaNs gives 0.
TEST(ArgMinMaxEdges, TiesZerosInfinitiesAndNaN) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto f64v = [](std::vector<double> v) { return tensor(v, {static_cast<int64_t>(v.size())}); };
  EXPECT_EQ(argmax(f64v({-0.0, 0.0})).item<int64_t>(), 0);
  EXPECT_EQ(argmax(f64v({0.0, -0.0})).item<int64_t>(), 0);
  EXPECT_EQ(argmin(f64v({0.0, -0.0, -0.0})).item<int64_t>(), 0);
  EXPECT_EQ(argmax(f64v({-inf, -inf, -inf})).item<int64_t>(), 0);
  EXPECT_EQ(argmin(f64v({inf, inf})).item<int64_t>(), 0);
  EXPECT_EQ(argmax(f64v({2, 2, 2, 2})).item<int64_t>(), 0);
  EXPECT_EQ(argmax(f64v({1, inf, nan, nan, inf})).item<int64_t>(), 2);
  EXPECT_EQ(argmin(f64v({1, -inf, 0, nan})).item<int64_t>(), 3);
  EXPECT_EQ(argmax(f64v({nan, nan})).item<int64_t>(), 0);
  EXPECT_EQ(argmin(f64v({nan, 1, nan})).item<int64_t>(), 0);
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(argmax(tensor(std::vector<int64_t>{lo, lo, lo}, {3})).item<int64_t>(), 0);
  EXPECT_EQ(argmin(tensor(std::vector<int64_t>{hi, hi - 1, hi - 1}, {3})).item<int64_t>(), 1);
  EXPECT_EQ(argmax(tensor(std::vector<int64_t>{hi - 1, hi}, {2}).cast(DType::u64)).item<int64_t>(), 1);
  EXPECT_EQ(argmax(tensor(std::vector<int64_t>{0, -1}, {2}).cast(DType::u64)).item<int64_t>(), 1);
  // 0-d: the only element.
  EXPECT_EQ(argmax(tensor(std::vector<double>{3.0}, {})).item<int64_t>(), 0);
}

// Rows long enough for the JIT's blocked loops and for rows split across the pool: the extreme
// planted in a late block behind equal values in an earlier one, NaNs in late blocks, strided
// (transposed) reads, 3-D flattened, and fused inputs (argmax(a * b)) against the loops on the
// materialized product.
TEST(ArgMinMaxLong, LongRowsSplitRowsAndFusedInputs) {
  for (DType t : {f32, f64, i32, i64, u8, f16, bf16}) {
    const int64_t rows = 3, len = 5003;
    Data d;
    d.dtype = t;
    Rng g(99);
    for (int64_t k = 0; k < rows * len; ++k) {
      const int64_t v = g.range(0, 50);
      if (is_floating(t))
        d.push(static_cast<double>(v));
      else
        d.push_int(v);
    }
    // row 0: the maximum twice, first in a late block; row 1: the minimum at the very end;
    // row 2 (floats): a NaN late, then a larger value.
    auto set = [&](int64_t r, int64_t j, double v) { set_at(d, static_cast<std::size_t>(r * len + j), v); };
    set(0, 3000, 100);
    set(0, 4000, 100);
    set(1, len - 1, -1 * static_cast<double>(!is_unsigned(t)));
    if (is_floating(t)) {
      set(2, 4500, std::numeric_limits<double>::quiet_NaN());
      set(2, 4600, 1000);
    }
    const std::string what = dtype_name(t);
    Tensor x = make(d, Shape{rows, len});
    for (bool is_max : {true, false}) {
      EXPECT_EQ((is_max ? argmax(x, 1) : argmin(x, 1)).to_vector<int64_t>(),
                ref_arg(d, {rows, len}, 1, is_max))
          << what;
      const Data flat = read(x);
      EXPECT_EQ((is_max ? argmax(x) : argmin(x)).item<int64_t>(), ref_arg(flat, {rows * len}, 0, is_max)[0])
          << what << " flattened";
      Tensor xt = x.transpose(0, 1);  // (len, rows), strided along axis 0
      EXPECT_EQ((is_max ? argmax(xt, 0) : argmin(xt, 0)).to_vector<int64_t>(),
                ref_arg(d, {rows, len}, 1, is_max))
          << what << " transposed";
      Tensor x3 = x.reshape({rows, 1, len});
      EXPECT_EQ(
          (is_max ? argmax(x3, std::nullopt, true) : argmin(x3, std::nullopt, true)).to_vector<int64_t>(),
          ref_arg(flat, {rows * len}, 0, is_max))
          << what << " 3-D keepdim";
    }
  }
  // A long flat input (split over the pool's threads), its maximum and a NaN late.
  Data big;
  big.dtype = f32;
  Rng g(5);
  for (int64_t k = 0; k < (1 << 20); ++k) big.push(g.uniform(-1, 1));
  big.f[700001] = 2;
  big.f[900001] = 2;
  Tensor b = make(big, Shape{1 << 20});
  EXPECT_EQ(argmax(b).item<int64_t>(), 700001);
  EXPECT_EQ(argmin(b).item<int64_t>(), ref_arg(big, {1 << 20}, 0, false)[0]);
  big.f[1000001] = std::numeric_limits<double>::quiet_NaN();
  big.f[1000002] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(argmax(make(big, Shape{1 << 20})).item<int64_t>(), 1000001);
  // Fused element-wise input.
  Data a = random_data(f32, 64 * 700, 8), c = random_data(f32, 64 * 700, 9);
  Tensor ta = make(a, Shape{64, 700}), tc = make(c, Shape{64, 700});
  const Data prod = read(ta * tc);
  EXPECT_EQ(argmax(ta * tc, 1).to_vector<int64_t>(), ref_arg(prod, {64, 700}, 1, true));
  EXPECT_EQ(argmin(ta * tc, 0).to_vector<int64_t>(), ref_arg(prod, {64, 700}, 0, false));
}

// Many ties spread over a row (values k % 7 and a late NaN): SIMD lanes, split rows and device
// threads each hold a tie; merging them must keep the first. Sizes stay small enough for the
// emulated device of the gpu mirror (a block per row, and a row split over blocks).
TEST(ArgMinMaxTies, TiesAcrossLanesChunksAndThreads) {
  for (DType t : {f32, i32, f16}) {
    Data d;
    d.dtype = t;
    const int64_t rows = 4, len = 2500;
    for (int64_t k = 0; k < rows * len; ++k) {
      const int64_t v = (k * 5 + k / len) % 7;
      if (is_floating(t))
        d.push(static_cast<double>(v));
      else
        d.push_int(v);
    }
    if (is_floating(t))
      d.f[static_cast<std::size_t>(3 * len + 2000)] = std::numeric_limits<double>::quiet_NaN();
    Tensor x = make(d, Shape{rows, len});
    const Data flat = read(x.slice(0, 0, 3));  // (3 rows: without the NaN)
    for (bool is_max : {true, false}) {
      const std::string what = std::string(dtype_name(t)) + (is_max ? " argmax" : " argmin");
      EXPECT_EQ((is_max ? argmax(x, 1) : argmin(x, 1)).to_vector<int64_t>(),
                ref_arg(d, {rows, len}, 1, is_max))
          << what;
      EXPECT_EQ((is_max ? argmax(x.slice(0, 0, 3)) : argmin(x.slice(0, 0, 3))).item<int64_t>(),
                ref_arg(flat, {3 * len}, 0, is_max)[0])
          << what << " flattened";
      EXPECT_EQ((is_max ? argmax(x.T(), 0) : argmin(x.T(), 0)).to_vector<int64_t>(),
                ref_arg(d, {rows, len}, 1, is_max))
          << what << " transposed";
    }
  }
}

// The row loop's lanes (scalar::arg_lanes, render_cpu_reduce.cpp) in each of the JIT's forms:
// rows read straight from their buffer (a last piece of less than a step copied and padded),
// rows staged by a fused input (`maximum(x, x)`), and rows staged beside a sum of the same values
// (one kernel, blocks of 512); every dtype, lengths about the lanes' steps (64 f32, 32 f64
// values) and blocks, the extreme tied in neighbouring lanes, vectors and steps, NaNs late and
// early, signed zeros, and rows of the accumulator's start value (-inf, integer extremes).
TEST(ArgMinMaxLanes, EveryRowFormLengthAndDType) {
  for (DType t : kDTypes) {
    if (t == b8) continue;  // (a scalar loop: no vector max)
    for (int64_t len : {32, 33, 63, 64, 65, 96, 127, 129, 511, 513, 1023, 1025, 2100}) {
      const int64_t rows = 6;
      Data d = tie_data(t, static_cast<std::size_t>(rows * len), static_cast<uint64_t>(len), false);
      auto set = [&](int64_t r, int64_t j, double v) { set_at(d, static_cast<std::size_t>(r * len + j), v); };
      // row 1: the maximum and minimum at positions one lane, one vector and one step apart
      for (int64_t j : {len / 3, len / 3 + 1, len / 3 + 16, len / 3 + 64, len - 1}) set(1, j, 90);
      for (int64_t j : {len / 2, len / 2 + 8, len - 2}) set(1, j, is_unsigned(t) ? 0 : -90);
      if (is_floating(t)) {
        set(2, len - 1, std::numeric_limits<double>::quiet_NaN());  // a NaN in the last piece
        set(3, 5, std::numeric_limits<double>::quiet_NaN());        // and early, with one later
        set(3, len - 3, std::numeric_limits<double>::quiet_NaN());
        for (int64_t j = 0; j < len; ++j) set(4, j, j % 3 == 1 ? 0.0 : -0.0);  // signed zeros only
        for (int64_t j = 0; j < len; ++j) set(5, j, -std::numeric_limits<double>::infinity());
      } else {
        Data e;  // the type's least and greatest
        e.dtype = t;
        e.push_int(iinfo(t).min);
        e.push_int(static_cast<int64_t>(iinfo(t).max));
        for (int64_t j = 0; j < len; ++j) {
          d.i[static_cast<std::size_t>(4 * len + j)] = e.i[0];
          d.i[static_cast<std::size_t>(5 * len + j)] = e.i[1];
        }
      }
      Tensor x = make(d, Shape{rows, len});
      Tensor fused = maximum(x, x);
      const std::string what = std::string(dtype_name(t)) + " rows of " + std::to_string(len);
      for (bool is_max : {true, false}) {
        const std::vector<int64_t> want = ref_arg(d, {rows, len}, 1, is_max);
        auto arg = [&](const Tensor& v) { return is_max ? argmax(v, 1) : argmin(v, 1); };
        EXPECT_EQ(arg(x).to_vector<int64_t>(), want) << what << (is_max ? " argmax" : " argmin");
        EXPECT_EQ(arg(fused).to_vector<int64_t>(), want) << what << " staged";
        if (is_floating(t)) {
          Tensor a = arg(x), sum_ = sum(x, {1});
          eval({a, sum_});
          EXPECT_EQ(a.to_vector<int64_t>(), want) << what << " beside a sum";
        }
      }
    }
  }
}

// scalar::arg_lanes itself, with a span of 256 positions so that rows fold their lanes: arrays of
// every length to 700 and a few longer, fed in blocks of 96 values padded to steps.
template <class T>
void expect_lanes_find_first_extreme(uint64_t seed) {
  Rng g(seed);
  auto check = [&](const std::vector<T>& v, const char* what) {
    for (bool is_max : {true, false}) {
      int64_t want = 0;
      for (std::size_t j = 1; j < v.size(); ++j) {
        const T x = v[j], b = v[static_cast<std::size_t>(want)];
        if (b != b) break;
        if (x != x || (is_max ? b < x : x < b)) want = static_cast<int64_t>(j);
      }
      T got_v{};
      int64_t got = -1;
      // block > 0: staged blocks of that many values (the kernels' staged rows); 0: the whole
      // array in one feed (rows read in place), so that one feed crosses several spans
      auto run = [&](auto&& lanes, std::size_t block) {
        std::vector<T> buf(block ? 128 : v.size() + 64);
        const std::size_t b = block ? block : v.size();
        for (std::size_t jb = 0; jb < v.size(); jb += b) {
          const std::size_t m = std::min<std::size_t>(b, v.size() - jb);
          const int64_t n = lanes.pad(buf.data(), static_cast<int64_t>(m));
          std::copy(v.begin() + static_cast<std::ptrdiff_t>(jb),
                    v.begin() + static_cast<std::ptrdiff_t>(jb + m), buf.begin());
          lanes.feed(buf.data(), n, static_cast<int64_t>(jb));
        }
        lanes.finish(got_v, got);
      };
      const T lo = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                        : std::numeric_limits<T>::lowest();
      const T hi = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                        : std::numeric_limits<T>::max();
      for (std::size_t block : {96, 0}) {
        if (is_max)
          run(cgrad::scalar::arg_lanes<T, true, 256>(lo), block);
        else
          run(cgrad::scalar::arg_lanes<T, false, 256>(hi), block);
        ASSERT_EQ(got, want) << what << " n " << v.size() << (is_max ? " max" : " min") << " block " << block;
      }
    }
  };
  std::vector<std::size_t> lengths;
  for (std::size_t n = 1; n <= 700; ++n) lengths.push_back(n);
  for (std::size_t n : {1023, 1024, 1025, 2047, 5000}) lengths.push_back(n);
  for (std::size_t n : lengths) {
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(g.range(0, 6));  // many ties
    check(v, "ties");
    v[static_cast<std::size_t>(g.range(0, static_cast<int64_t>(n) - 1))] = static_cast<T>(7);
    v[static_cast<std::size_t>(g.range(0, static_cast<int64_t>(n) - 1))] = static_cast<T>(7);
    check(v, "two maxima");
    if constexpr (std::numeric_limits<T>::has_quiet_NaN) {
      v[static_cast<std::size_t>(g.range(0, static_cast<int64_t>(n) - 1))] =
          std::numeric_limits<T>::quiet_NaN();
      check(v, "a NaN");
    }
    std::fill(v.begin(), v.end(),
              std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                   : std::numeric_limits<T>::lowest());
    check(v, "all the start value");
  }
}

TEST(ArgMinMaxLanes, TheLanesFindTheFirstExtremeAcrossFolds) {
  expect_lanes_find_first_extreme<float>(1);
  expect_lanes_find_first_extreme<double>(2);
  expect_lanes_find_first_extreme<int32_t>(3);
  expect_lanes_find_first_extreme<uint32_t>(4);
  expect_lanes_find_first_extreme<int64_t>(5);
  expect_lanes_find_first_extreme<uint64_t>(6);
}

INSTANTIATE_TEST_SUITE_P(EveryDType, ArgMinMax, ::testing::ValuesIn(kDTypes),
                         [](const ::testing::TestParamInfo<DType>& p) {
                           return std::string(dtype_name(p.param));
                         });

}  // namespace

// The op sweep's entry (sweep_reduce): random data and edge values (NaN, infinities, integer
// extremes), every layout of util.h, axes none / 0 / 1 / -1, keepdim, a 3-D input on every axis.
void sweep_arg(int op_index, DType t) {
  const bool is_max = ir::Op(op_index) == ir::Op::Argmax;
  auto fn = [is_max](const Tensor& x, std::optional<int64_t> axis, bool keepdim) {
    return is_max ? argmax(x, axis, keepdim) : argmin(x, axis, keepdim);
  };
  Data e = edges(t);
  while (e.size() % 8) e = concat(e, random_data(t, 1, e.size()));
  for (const Data& d : {random_data(t, 48, 21), e})
    for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
      Tensor x = make(d, l);
      const Shape s = x.shape();
      const Data logical = read(x);
      const std::string what =
          std::string(is_max ? "argmax " : "argmin ") + dtype_name(t) + " " + layout_name(l);
      for (bool keepdim : {false, true}) {
        for (int64_t axis : {0, 1, -1}) {
          Tensor y = fn(x, axis, keepdim);
          EXPECT_EQ(y.dtype(), i64) << what;
          EXPECT_EQ(y.to_vector<int64_t>(), ref_arg(logical, s, axis < 0 ? axis + 2 : axis, is_max))
              << what << " axis " << axis;
        }
        EXPECT_EQ(fn(x, std::nullopt, keepdim).to_vector<int64_t>(), ref_arg(logical, {x.numel()}, 0, is_max))
            << what << " all axes";
      }
    }
  const Data d3 = random_data(t, 24, 5);
  Tensor x3 = make(d3, Shape{2, 3, 4});
  for (int64_t axis : {0, 1, 2})
    EXPECT_EQ(fn(x3, axis, true).to_vector<int64_t>(), ref_arg(d3, {2, 3, 4}, axis, is_max)) << axis;
}

}  // namespace opt
