// argmax and argmin (compositions of op-table rows: a max/min reduction, then a min reduction
// over the indices that reach it) against loops written here: every dtype, every axis, keepdim,
// the flattened form, ties (the first index wins), NaN (the first NaN wins), layouts, and the
// zero-size error.
#include "util.h"

#include <cmath>

namespace opt {
namespace {

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
      for (int64_t j = 0; j < n; ++j) {
        const auto at = [&](int64_t q) { return static_cast<std::size_t>((o * n + q) * inner + i); };
        const double v = d.fv(at(j)), b = d.fv(at(best));
        if (std::isnan(b)) break;
        if (std::isnan(v) || (is_max ? v > b : v < b)) best = j;
      }
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

INSTANTIATE_TEST_SUITE_P(EveryDType, ArgMinMax, ::testing::ValuesIn(kDTypes),
                         [](const ::testing::TestParamInfo<DType>& p) {
                           return std::string(dtype_name(p.param));
                         });

}  // namespace
}  // namespace opt
