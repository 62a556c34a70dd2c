// The scatter group (issue #15): scatter_add (take's inverse) and scatter_add_along_axis
// (take_along_axis's), the one scatter row Op::ScatterAdd, against loops written here for every
// numeric dtype: repeated indices (accumulated in increasing source position, so float sums are
// exact against a reference that adds in that order), negative (wrap once) and out-of-range (add
// nothing) indices, every axis, strided base and src, index dtypes, the zeros overload, empty
// arrays, promotion and errors; and scatter_add's gradient (a take of the output's).
#include "util.h"

namespace opt {
namespace {

// out (row-major, shape bs) += src (row-major, shape ss) at positions idx (shape ss) along axis, in
// row-major order of src, each addition rounded to (or wrapped in) the dtype.
Data scatter_ref(Data out, const Shape& bs, const Data& src, const Shape& ss, const std::vector<int64_t>& idx,
                 int64_t axis) {
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t n = bs[ax];
  const core::Strides bst = core::contiguous_strides(bs), sst = core::contiguous_strides(ss);
  for (int64_t k = 0; k < core::numel(ss); ++k) {
    int64_t p = idx[static_cast<std::size_t>(k)];
    if (p < 0) p += n;
    if (p < 0 || p >= n) continue;
    int64_t dst = 0, rem = k;
    for (std::size_t q = 0; q < ss.size(); ++q) {
      const int64_t c = rem / sst[q];
      rem %= sst[q];
      dst += (q == ax ? p : c) * bst[q];
    }
    const auto d = static_cast<std::size_t>(dst), s = static_cast<std::size_t>(k);
    if (is_floating(out.dtype))
      out.f[d] = round_to(out.f[d] + src.f[s], out.dtype);
    else
      out.i[d] = wrap_as(static_cast<uint64_t>(out.i[d]) + static_cast<uint64_t>(src.i[s]), out.dtype);
  }
  return out;
}

// The positions of take's 1-D indices broadcast over src's shape (ss, with the axis of length iv's).
std::vector<int64_t> spread(const std::vector<int64_t>& iv, const Shape& ss, int64_t axis) {
  std::vector<int64_t> full;
  const int64_t st = core::contiguous_strides(ss)[static_cast<std::size_t>(axis)];
  for (int64_t k = 0; k < core::numel(ss); ++k)
    full.push_back(iv[static_cast<std::size_t>(k / st % static_cast<int64_t>(iv.size()))]);
  return full;
}

Data zeros_of(DType t, std::size_t n) {
  Data z;
  z.dtype = t;
  for (std::size_t k = 0; k < n; ++k) is_floating(t) ? z.push(0.0) : z.push_int(0);
  return z;
}

}  // namespace

void sweep_scatter(int, DType t) {
  const std::string name = std::string("scatter_add ") + dtype_name(t);
  const Shape s{3, 5, 4};
  Tensor base = make(random_data(t, 60, 21), s);
  if (t == b8) {  // numeric only: a bool base or src is an error, raised when the op is built
    EXPECT_EQ(
        error_code([&] { scatter_add(base, 0, tensor(std::vector<int64_t>{0}, {1}), base.slice(0, 0, 1)); }),
        ErrorCode::DTypeMismatch);
    return;
  }
  const Data bv = read(base);
  for (int64_t axis = 0; axis < 3; ++axis) {
    const int64_t n = s[static_cast<std::size_t>(axis)];
    // take's layout: 1-D indices with repeats and the edges -n, -1, 0, n-1, n, -n-1
    const std::vector<int64_t> iv{-n, -1, 0, n - 1, n, -n - 1, 1, 0, -1};
    Shape ss = s;
    ss[static_cast<std::size_t>(axis)] = static_cast<int64_t>(iv.size());
    const Data sv =
        random_data(t, static_cast<std::size_t>(core::numel(ss)), 30 + static_cast<uint64_t>(axis));
    Tensor src = make(sv, ss);
    const Data want = scatter_ref(bv, s, sv, ss, spread(iv, ss, axis), axis);
    std::vector<int32_t> iv32(iv.begin(), iv.end());
    for (const Tensor& idx : {tensor(iv, {9}), tensor(iv32, {9})}) {
      Tensor y = scatter_add(base, axis, idx, src);
      ASSERT_EQ(y.shape(), s);
      EXPECT_EQ(y.dtype(), t);
      expect_values(read(y), want, 0, name + " axis " + std::to_string(axis) + " " + dtype_name(idx.dtype()));
    }
    // into zeros of a shape; the along-axis layout with random positions of src's shape
    expect_values(read(scatter_add(s, axis, tensor(iv, {9}), src)),
                  scatter_ref(zeros_of(t, 60), s, sv, ss, spread(iv, ss, axis), axis), 0,
                  name + " zeros, axis " + std::to_string(axis));
    Rng g(7 + static_cast<uint64_t>(axis));
    std::vector<int64_t> pv;
    for (int64_t k = 0; k < core::numel(ss); ++k) pv.push_back(g.range(-n - 2, n + 1));
    expect_values(read(scatter_add_along_axis(base, axis, tensor(pv, ss), src)),
                  scatter_ref(bv, s, sv, ss, pv, axis), 0, name + " along axis " + std::to_string(axis));
  }
  // Strided operands: a transposed base and a transposed src with 2-D indices (take's layout).
  Tensor bt = make(random_data(t, 60, 41), Shape{5, 12}).T();  // (12, 5)
  const Data btv = read(bt);
  const std::vector<int64_t> iv{4, -1, 0, 2, 4, -6};
  Tensor st = make(random_data(t, 72, 43), Shape{6, 12}).T();  // (12, 6) viewed as (12, 2, 3)
  const Data stv = read(st);
  Tensor y = scatter_add(bt, 1, tensor(iv, {2, 3}), st.reshape({12, 2, 3}));
  ASSERT_EQ(y.shape(), (Shape{12, 5}));
  expect_values(read(y), scatter_ref(btv, {12, 5}, stv, {12, 6}, spread(iv, {12, 6}, 1), 1), 0,
                name + " transposed, 2-D indices");
  // Broadcast indices in the along-axis layout: (1, 3) indices over a (4, 3) src.
  Tensor b2 = make(random_data(t, 8, 51), Shape{4, 2});
  Tensor s2 = make(random_data(t, 12, 53), Shape{4, 3});
  const std::vector<int64_t> p2{1, -2, 1};
  std::vector<int64_t> p2full;
  for (int r = 0; r < 4; ++r) p2full.insert(p2full.end(), p2.begin(), p2.end());
  expect_values(read(scatter_add_along_axis(b2, 1, tensor(p2, {1, 3}), s2)),
                scatter_ref(read(b2), {4, 2}, read(s2), {4, 3}, p2full, 1), 0, name + " along, broadcast");
  // Empty: no indices leave base as it is; an empty axis has every index out of range.
  expect_values(
      read(scatter_add(base, 1, tensor(std::vector<int64_t>{}, {0}), make(Data{t, {}, {}}, Shape{3, 0, 4}))),
      bv, 0, name + " no indices");
  Tensor e = make(Data{t, {}, {}}, Shape{3, 0});
  EXPECT_EQ(
      scatter_add(e, 1, tensor(std::vector<int64_t>{0, -1}, {2}), make(random_data(t, 6, 3), Shape{3, 2}))
          .shape(),
      (Shape{3, 0}));
  // Errors: float indices, src of the wrong shape, axis out of range, rank mismatch, a 0-d base.
  Tensor i1 = tensor(std::vector<int64_t>{0}, {1});
  Tensor s1 = base.slice(1, 0, 1);
  EXPECT_EQ(error_code([&] { scatter_add(base, 1, tensor(std::vector<float>{0}, {1}), s1); }),
            ErrorCode::DTypeMismatch);
  EXPECT_EQ(error_code([&] { scatter_add(base, 0, i1, s1); }), ErrorCode::ShapeMismatch);
  EXPECT_EQ(error_code([&] { scatter_add(base, 3, i1, s1); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([&] { scatter_add_along_axis(base, 1, i1, s1); }), ErrorCode::ShapeMismatch);
  EXPECT_EQ(error_code([&] {
              scatter_add_along_axis(base, 1, tensor(std::vector<int64_t>(24, 0), {2, 3, 4}), s1);
            }),
            ErrorCode::ShapeMismatch);
  EXPECT_EQ(error_code([&] { scatter_add(make(random_data(t, 1, 1), Shape{}), 0, i1, s1); }),
            ErrorCode::InvalidArgument);
}

namespace {

TEST(ScatterAdd, PromotesAndMatchesTakesGradient) {
  // f32 base, i32 src: f32; a computed src (exp) and computed indices.
  Tensor b = tensor(std::vector<float>{1, 2, 3}, {3});
  Tensor y = scatter_add(b, 0, tensor(std::vector<int64_t>{2, 2, 0}, {3}) - 0,
                         tensor(std::vector<int32_t>{10, 20, 30}, {3}));
  EXPECT_EQ(y.dtype(), f32);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{31, 2, 33}));
  // Differentiable in base and src: d/dsrc reads the output's gradient back at the indices.
  Tensor base = tensor(std::vector<double>{1, 2, 3, 4}, {2, 2}).requires_grad(true);
  Tensor src = tensor(std::vector<double>{5, 6, 7, 8, 9, 10}, {2, 3}).requires_grad(true);
  Tensor w = tensor(std::vector<double>{1, 10, 100, 1000}, {2, 2});
  Tensor out = scatter_add(base, 1, tensor(std::vector<int64_t>{1, -1, 7}, {3}), src);
  EXPECT_EQ(out.to_vector<double>(), (std::vector<double>{1, 2 + 5 + 6, 3, 4 + 8 + 9}));
  sum(out * w).backward();
  EXPECT_EQ(base.grad().to_vector<double>(), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_EQ(src.grad().to_vector<double>(), (std::vector<double>{10, 10, 0, 1000, 1000, 0}));
}

TEST(ScatterAdd, LeavesBaseIntact) {
  Tensor b = tensor(std::vector<int64_t>{1, 2, 3}, {3});
  Tensor y =
      scatter_add(b, 0, tensor(std::vector<int64_t>{0, 0}, {2}), tensor(std::vector<int64_t>{5, 6}, {2}));
  EXPECT_EQ(y.to_vector<int64_t>(), (std::vector<int64_t>{12, 2, 3}));
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(y.to_vector<int64_t>(), (std::vector<int64_t>{12, 2, 3}));  // a second evaluation
}

}  // namespace
}  // namespace opt
