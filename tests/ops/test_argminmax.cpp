// argmax and argmin (the Argmax/Argmin rows of the argmax group: one-pass reductions whose
// accumulator pairs the extreme with its index) against loops written here: every dtype, every
// axis, keepdim, the flattened form, ties (the first index wins), NaN (the first NaN wins), -0,
// integer extremes, layouts, rows long enough for the JIT's blocked search and its split rows,
// fused element-wise inputs, and the zero-size error. sweep_arg is the op sweep's entry.
#include "ir/op.h"
#include "util.h"

#include <cmath>

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
    auto set = [&](int64_t r, int64_t j, double v) {
      const auto k = static_cast<std::size_t>(r * len + j);
      if (is_floating(t))
        d.f[k] = v;
      else
        d.i[k] = static_cast<int64_t>(v);
    };
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
