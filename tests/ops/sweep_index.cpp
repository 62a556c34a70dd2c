// The index group (issue #15): take and take_along_axis (the gather row, Op::Take), searchsorted
// (a binary search of fused gathers) and nonzero, against loops written here, for every dtype:
// negative indices (wrap once), out-of-range indices (read 0), every axis, strided inputs,
// broadcasting, empty arrays, index dtypes, errors; and the kernel count of a fused gather.
#include "util.h"

#include <cgrad/interop.hpp>

#include "core/env.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace opt {
namespace {

// The reference gather: along `axis` of row-major data of shape s, at positions `idx` (of shape
// is, equal to s outside the axis); -n <= i < 0 wraps, other out-of-range positions give 0.
Data take_ref(const Data& d, const Shape& s, const std::vector<int64_t>& idx, const Shape& is, int64_t axis) {
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t n = s[ax];
  Data w;
  w.dtype = d.dtype;
  const core::Strides ds = core::contiguous_strides(s), st = core::contiguous_strides(is);
  for (int64_t k = 0; k < core::numel(is); ++k) {
    int64_t src = 0, rem = k;
    int64_t p = idx[static_cast<std::size_t>(k)];
    if (p < 0) p += n;
    for (std::size_t q = 0; q < is.size(); ++q) {
      const int64_t c = rem / st[q];
      rem %= st[q];
      src += (q == ax ? p : c) * ds[q];
    }
    const bool ok = p >= 0 && p < n;
    if (is_floating(d.dtype))
      w.push(ok ? d.f[static_cast<std::size_t>(src)] : 0.0);
    else
      w.push_int(ok ? d.i[static_cast<std::size_t>(src)] : 0);
  }
  return w;
}

std::vector<int64_t> positions(std::size_t count, int64_t n, uint64_t seed) {
  Rng g(seed);
  std::vector<int64_t> v;
  for (std::size_t k = 0; k < count; ++k) v.push_back(g.range(-n - 2, n + 1));  // some out of range
  return v;
}

}  // namespace

void sweep_take(int, DType t) {
  const std::string name = std::string("take ") + dtype_name(t);
  const Data d = random_data(t, 60, 11);
  const Shape s{3, 5, 4};
  Tensor x = make(d, s);
  const Data xv = read(x);
  for (int64_t axis = 0; axis < 3; ++axis) {
    const int64_t n = s[static_cast<std::size_t>(axis)];
    // take: 1-D indices of three integer dtypes (edges: -n, -1, 0, n-1, n, -n-1)
    std::vector<int64_t> iv{-n, -1, 0, n - 1, n, -n - 1, 1};
    Shape want_shape = s;
    want_shape[static_cast<std::size_t>(axis)] = static_cast<int64_t>(iv.size());
    std::vector<int64_t> full;  // the positions broadcast to the output's shape, for the reference
    for (int64_t k = 0; k < core::numel(want_shape); ++k)
      full.push_back(iv[static_cast<std::size_t>(
          k / core::contiguous_strides(want_shape)[static_cast<std::size_t>(axis)] %
          static_cast<int64_t>(iv.size()))]);
    const Data want = take_ref(xv, s, full, want_shape, axis);
    std::vector<int32_t> iv32(iv.begin(), iv.end());
    for (const Tensor& idx : {tensor(iv, {7}), tensor(iv32, {7})}) {
      Tensor y = take(x, idx, axis);
      ASSERT_EQ(y.shape(), want_shape);
      EXPECT_EQ(y.dtype(), t);
      expect_values(read(y), want, 0, name + " axis " + std::to_string(axis) + " " + dtype_name(idx.dtype()));
    }
    // take_along_axis with random positions of the output's shape
    Shape is = s;
    is[static_cast<std::size_t>(axis)] = 6;
    const std::vector<int64_t> pv =
        positions(static_cast<std::size_t>(core::numel(is)), n, 5 + static_cast<uint64_t>(axis));
    Tensor y = take_along_axis(x, tensor(pv, is), axis);
    expect_values(read(y), take_ref(xv, s, pv, is, axis), 0, name + " along axis " + std::to_string(axis));
  }
  // A transposed (strided) input, a consumer in the same kernel, and a 2-D index of take.
  Tensor xt = make(d, Shape{5, 12}).T();  // (12, 5)
  const Data xtv = read(xt);
  std::vector<int64_t> iv{4, -1, 0, 2, 9, -6};
  Tensor y = take(xt, tensor(iv, {2, 3}), 1);
  ASSERT_EQ(y.shape(), (Shape{12, 2, 3}));
  std::vector<int64_t> full;
  for (int64_t r = 0; r < 12; ++r) full.insert(full.end(), iv.begin(), iv.end());
  expect_values(read(y), take_ref(xtv, {12, 5}, full, {12, 6}, 1), 0, name + " transposed, 2-D indices");
  // 1-D x without an axis; 0-d indices; empty indices; an empty axis (every position reads 0).
  Tensor v = make(d, Shape{10});
  const Data vv = read(v);
  expect_values(read(take(v, tensor(std::vector<int64_t>{3, -10, 12}, {3}))),
                take_ref(vv, {10}, {3, -10, 12}, {3}, 0), 0, name + " 1-D");
  EXPECT_EQ(take(v, tensor(std::vector<int64_t>{-2}, {})).shape(), Shape{});
  EXPECT_EQ(take(x, tensor(std::vector<int64_t>{}, {0}), 1).shape(), (Shape{3, 0, 4}));
  Tensor e = make(d, Shape{3, 0});
  Data zeros3 = take_ref(read(make(d, Shape{3, 1})), {3, 1}, {5, 5, 5}, {3, 1}, 1);
  expect_values(read(take(e, tensor(std::vector<int64_t>{0}, {1}), 1)), zeros3, 0, name + " empty axis");
  // take_along_axis broadcasting outside the axis: x (3, 1, 4) with indices (1, 5, 2)
  Tensor xb = make(d, Shape{3, 1, 4});
  const std::vector<int64_t> pb = positions(10, 4, 9);
  Tensor yb = take_along_axis(xb, tensor(pb, {1, 5, 2}), -1);
  ASSERT_EQ(yb.shape(), (Shape{3, 5, 2}));
  std::vector<int64_t> pfull;
  for (int r = 0; r < 3; ++r) pfull.insert(pfull.end(), pb.begin(), pb.end());
  const Data xbv = read(xb);
  Data xbe;  // x broadcast to (3, 5, 4)
  xbe.dtype = t;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c)
      for (int k = 0; k < 4; ++k) {
        const auto at = static_cast<std::size_t>(r * 4 + k);
        if (is_floating(t))
          xbe.push(xbv.f[at]);
        else
          xbe.push_int(xbv.i[at]);
      }
  expect_values(read(yb), take_ref(xbe, {3, 5, 4}, pfull, {3, 5, 2}, 2), 0, name + " along, broadcast");
  // Errors: float or b8 indices, no axis for 2-D x, bad axis, rank mismatch, bad broadcast.
  EXPECT_EQ(error_code([&] { take(x, tensor(std::vector<float>{0}, {1}), 0); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(error_code([&] { take(x, tensor(std::vector<bool>{false}, {1}), 0); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(error_code([&] { take(x, tensor(std::vector<int64_t>{0}, {1})); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([&] { take(x, tensor(std::vector<int64_t>{0}, {1}), 3); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([&] { take_along_axis(x, tensor(std::vector<int64_t>{0}, {1}), 0); }),
            ErrorCode::ShapeMismatch);
  EXPECT_EQ(error_code([&] {
              take_along_axis(x, tensor(std::vector<int64_t>(12, 0), {1, 3, 4}), 0);
            }),
            ErrorCode::ShapeMismatch);
}

namespace {

TEST(Take, FusesAsAnIndirectLoad) {
  // take(exp(x), i) * 2: exp is computed at the gathered positions, in the consumer's kernel.
  Tensor x = tensor(std::vector<float>{0.f, 1.f, 2.f, 3.f, 4.f, 5.f}, {2, 3});
  Tensor i = tensor(std::vector<int64_t>{2, -3, 1, 0}, {4});
  Tensor y = take(exp(x), i, 1) * 2.0;
  reset_stats();
  y.eval();
  if (core::env().backend != "interpreter") {
    EXPECT_EQ(stats().kernels_launched, 1u);
  }
  const std::vector<float> got = y.to_vector<float>();
  const int src[4] = {2, 0, 1, 0};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_FLOAT_EQ(got[static_cast<std::size_t>(r * 4 + c)],
                      2.f * std::exp(static_cast<float>(r * 3 + src[c])));
  // Computed indices fuse too; a reduction read at gathered positions is materialized first.
  Tensor j = tensor(std::vector<int64_t>{0, 1, 2, 3}, {4}) - 1;
  Tensor z = take(sum(x, {1}), remainder(j, 2)) + 1.0;  // sum (2,) read at 0/-1
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{13.f, 4.f, 13.f, 4.f}));
}

TEST(Take, GradientScattersBack) {
  Tensor x = tensor(std::vector<double>{1, 2, 3, 4}, {4}).requires_grad(true);
  Tensor y = sum(take(x, tensor(std::vector<int64_t>{0, 3, 3, -1, 7, -5}, {6})) * 2.0);
  y.backward();
  // position 3 is read three times (3, 3, -1); 7 and -5 are out of range and read 0
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{2, 0, 0, 6}));
}

int64_t search_ref(const std::vector<double>& s, double v, bool right) {
  int64_t k = 0;
  for (double e : s) {
    const bool before = std::isnan(v) ? (right || !std::isnan(e)) : (right ? e <= v : e < v);
    k += before;
  }
  return k;
}

TEST(SearchSorted, MatchesLoops) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t n : {0, 1, 2, 3, 7, 8, 9, 33}) {
    std::vector<double> s;
    for (int64_t k = 0; k < n; ++k) s.push_back(static_cast<double>(k / 2));  // ties
    if (n > 4) s.back() = nan;                                                // NaN sorts last
    std::vector<double> v{-1, 0, 0.5, 1, 2, 3.5, 100, nan, static_cast<double>(n / 4)};
    for (const char* side : {"left", "right"}) {
      Tensor r = searchsorted(tensor(s, {n}), tensor(v, {3, 3}), side);
      ASSERT_EQ(r.shape(), (Shape{3, 3}));
      EXPECT_EQ(r.dtype(), i64);
      const auto got = r.to_vector<int64_t>();
      for (std::size_t k = 0; k < v.size(); ++k)
        EXPECT_EQ(got[k], search_ref(s, v[k], std::string(side) == "right"))
            << "n " << n << " " << side << " v " << v[k];
    }
  }
  // integers, mixed with a float query
  Tensor si = tensor(std::vector<int32_t>{-5, 0, 0, 3, 9}, {5});
  EXPECT_EQ(searchsorted(si, tensor(std::vector<int32_t>{0, 10, -9}, {3})).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 5, 0}));
  EXPECT_EQ(searchsorted(si, tensor(std::vector<float>{0.5f}, {1}), "right").to_vector<int64_t>(),
            (std::vector<int64_t>{3}));
  // the binary search (10 gathers of a 1000-element x1) is one kernel
  std::vector<float> big(1000), q(64);
  for (std::size_t k = 0; k < big.size(); ++k) big[k] = static_cast<float>(k) * 0.5f;
  for (std::size_t k = 0; k < q.size(); ++k) q[k] = static_cast<float>(k) * 7.3f;
  Tensor r = searchsorted(tensor(big, {1000}), tensor(q, {8, 8}));
  reset_stats();
  r.eval();
  if (core::env().backend != "interpreter") {
    EXPECT_EQ(stats().kernels_launched, 1u);
  }
  const auto rv = r.to_vector<int64_t>();
  for (std::size_t k = 0; k < q.size(); ++k)
    EXPECT_EQ(rv[k], std::min<int64_t>(1000, static_cast<int64_t>(std::ceil(q[k] / 0.5f))));
  EXPECT_EQ(error_code([&] { searchsorted(si, si, "middle"); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([&] {
              searchsorted(tensor(std::vector<float>{1, 2}, {1, 2}), si);
            }),
            ErrorCode::InvalidArgument);
}

TEST(Nonzero, MatchesLoops) {
  for (DType t : kDTypes) {
    const Data d = random_data(t, 24, 3);
    Tensor x = make(d, Shape{2, 3, 4}).permute({2, 0, 1});  // (4, 2, 3), strided
    const Data xv = read(x);
    std::vector<std::vector<int64_t>> want(3);
    for (int64_t k = 0; k < 24; ++k) {
      const bool nz =
          is_floating(t) ? xv.f[static_cast<std::size_t>(k)] != 0.0 : xv.i[static_cast<std::size_t>(k)] != 0;
      if (!nz) continue;
      want[0].push_back(k / 6);
      want[1].push_back(k / 3 % 2);
      want[2].push_back(k % 3);
    }
    const std::vector<Tensor> got = nonzero(x);
    ASSERT_EQ(got.size(), 3u);
    for (std::size_t a = 0; a < 3; ++a)
      EXPECT_EQ(got[a].to_vector<int64_t>(), want[a]) << dtype_name(t) << " dim " << a;
  }
  EXPECT_EQ(nonzero(zeros({0, 3}))[1].shape(), Shape{0});
  EXPECT_EQ(error_code([&] { nonzero(ones({})); }), ErrorCode::InvalidArgument);
}

// Long rows go eight mask bytes at a time (frontend/index.cpp): every density from empty to
// full, row lengths that are and are not multiples of 8, a strided mask (read through a copy)
// and, read in place, b8 bytes other than 0 and 1 (a buffer from outside: any nonzero byte is
// true; the strided copy reads each element as a bool, which must then be 0 or 1: UBSan).
TEST(Nonzero, LongRowsEveryDensityAndAnyTrueByte) {
  std::mt19937_64 g(5);
  for (const Shape& s : {Shape{1001}, Shape{64}, Shape{3, 67}, Shape{5, 8, 16}})
    for (int pct : {0, 3, 50, 97, 100})
      for (bool strided : {false, true}) {
        const int64_t n = core::numel(s);
        std::vector<uint8_t> bytes(static_cast<std::size_t>(n));
        for (uint8_t& b : bytes)
          b = g() % 100 < static_cast<uint64_t>(pct) ? static_cast<uint8_t>(strided ? 1 : 1 + g() % 255) : 0;
        Shape fs = s;  // strided: the mask is the transpose of a buffer of the reversed shape
        if (strided) std::reverse(fs.begin(), fs.end());
        Tensor m =
            from_blob(bytes.data(), fs, core::contiguous_strides(fs), DType::b8, Device::cpu(), nullptr);
        if (strided) {
          std::vector<int64_t> perm(s.size());
          for (std::size_t a = 0; a < s.size(); ++a) perm[a] = static_cast<int64_t>(s.size() - 1 - a);
          m = m.permute(perm);
        }
        const core::Strides ms = core::contiguous_strides(fs);
        std::vector<std::vector<int64_t>> want(s.size());
        for (int64_t k = 0; k < n; ++k) {  // row-major over s, read where the buffer has it
          int64_t rem = k, at = 0;
          std::vector<int64_t> ix(s.size());
          for (std::size_t a = s.size(); a-- > 0;) ix[a] = rem % s[a], rem /= s[a];
          for (std::size_t a = 0; a < s.size(); ++a) at += ix[a] * ms[strided ? s.size() - 1 - a : a];
          if (bytes[static_cast<std::size_t>(at)] == 0) continue;
          for (std::size_t a = 0; a < s.size(); ++a) want[a].push_back(ix[a]);
        }
        const std::vector<Tensor> got = nonzero(m);
        ASSERT_EQ(got.size(), s.size());
        for (std::size_t a = 0; a < s.size(); ++a)
          EXPECT_EQ(got[a].to_vector<int64_t>(), want[a])
              << shape_str(s) << " " << pct << "% strided " << strided << " dim " << a;
      }
}

}  // namespace
}  // namespace opt
