// The manipulation composites (moveaxis, roll, tile, repeat, unstack, meshgrid, tril/triu, diff)
// against reference loops over multi-indices written here (NumPy semantics), on f64, integer and
// b8 inputs and on non-contiguous layouts; argument errors; and the fusion they promise (one
// kernel for roll(x) + 1, tril(x) * 2 ... on the JIT).
#include "util.h"

#include <cgrad/manipulation.hpp>

#include "core/env.hpp"

#include <functional>
#include <numeric>

namespace opt {
namespace {

using Index = std::vector<int64_t>;

// A row-major array of doubles: the reference side of every test.
struct Ref {
  Shape shape;
  std::vector<double> v;
  double at(const Index& i) const {
    int64_t off = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + i[d];
    return v[static_cast<std::size_t>(off)];
  }
};

int64_t numel_of(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

// Builds the reference output of `shape` from a function of the output index.
Ref build(const Shape& shape, const std::function<double(const Index&)>& f) {
  Ref r{shape, {}};
  Index i(shape.size(), 0);
  for (int64_t k = 0; k < numel_of(shape); ++k) {
    r.v.push_back(f(i));
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++i[d] < shape[d]) break;
      i[d] = 0;
    }
  }
  return r;
}

Ref iota(const Shape& s, double scale = 1.0) {
  Ref r{s, {}};
  for (int64_t k = 0; k < numel_of(s); ++k) r.v.push_back(scale * static_cast<double>(k * k % 17) - 3.0 * k);
  return r;
}

Tensor as_tensor(const Ref& r, DType t = f64) { return tensor(r.v, r.shape).cast(t); }

void expect_eq(const Tensor& got, const Ref& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape) << what;
  EXPECT_EQ(got.cast(f64).to_vector<double>(), want.v) << what;
}

int64_t mod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

TEST(Manipulation, Moveaxis) {
  Ref x = iota({2, 3, 4, 5});
  Tensor t = as_tensor(x);
  auto check = [&](std::vector<int64_t> src, std::vector<int64_t> dst, std::vector<int64_t> perm) {
    Shape s;
    for (int64_t p : perm) s.push_back(x.shape[static_cast<std::size_t>(p)]);
    Ref want = build(s, [&](const Index& o) {
      Index i(4);
      for (std::size_t d = 0; d < 4; ++d) i[static_cast<std::size_t>(perm[d])] = o[d];
      return x.at(i);
    });
    expect_eq(moveaxis(t, src, dst), want, "moveaxis " + core::vec_str(src) + " -> " + core::vec_str(dst));
  };
  check({0}, {-1}, {1, 2, 3, 0});
  check({3}, {0}, {3, 0, 1, 2});
  check({0, 1}, {-1, -2}, {2, 3, 1, 0});
  check({2, 0}, {0, 3}, {2, 1, 3, 0});
  check({}, {}, {0, 1, 2, 3});
  expect_eq(moveaxis(t, 1, 2),
            build({2, 4, 3, 5},
                  [&](const Index& o) {
                    return x.at({o[0], o[2], o[1], o[3]});
                  }),
            "moveaxis int");
  EXPECT_THROW(moveaxis(t, {0, 1}, {1}), Error);
  EXPECT_THROW(moveaxis(t, {0, 0}, {1, 2}), Error);
  EXPECT_THROW(moveaxis(t, {0, 1}, {2, 2}), Error);
  EXPECT_THROW(moveaxis(t, 4, 0), Error);
}

TEST(Manipulation, Roll) {
  Ref x = iota({3, 5});
  for (DType dt : {f64, i32, u8}) {
    Ref xr = x;
    if (dt == u8)
      for (auto& e : xr.v) e = static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(e)));
    Tensor t = as_tensor(xr, dt);
    for (int64_t s : {0, 1, 4, 7, -2, -16}) {
      Ref flat = build({3, 5}, [&](const Index& o) {
        int64_t k = mod(o[0] * 5 + o[1] - s, 15);
        return xr.v[static_cast<std::size_t>(k)];
      });
      Tensor r = roll(t, s);
      EXPECT_EQ(r.dtype(), dt);
      expect_eq(r, flat, "roll flat " + std::to_string(s));
      expect_eq(roll(t, s, 1),
                build({3, 5},
                      [&](const Index& o) {
                        return xr.at({o[0], mod(o[1] - s, 5)});
                      }),
                "roll axis 1 by " + std::to_string(s));
      expect_eq(roll(t, {s, 2, 1}, {0, -1, 0}),
                build({3, 5},
                      [&](const Index& o) {
                        return xr.at({mod(o[0] - s - 1, 3), mod(o[1] - 2, 5)});
                      }),
                "roll tuple " + std::to_string(s));
    }
  }
  // a transposed (non-contiguous) input, 0-d and empty tensors
  Tensor tt = as_tensor(x).T();
  expect_eq(roll(tt, 2, 0),
            build({5, 3},
                  [&](const Index& o) {
                    return x.at({o[1], mod(o[0] - 2, 5)});
                  }),
            "roll transposed");
  expect_eq(roll(tensor(std::vector<double>{4.0}, {}), 3), Ref{{}, {4.0}}, "roll 0-d");
  expect_eq(roll(zeros({0, 3}, f64), 1, 1), Ref{{0, 3}, {}}, "roll empty");
  Tensor b = tensor(std::vector<bool>{true, false, false}, {3});
  EXPECT_EQ(roll(b, 1).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_THROW(roll(tt, {1, 2}, {0}), Error);
  EXPECT_THROW(roll(tt, {1, 2}, {}), Error);
  EXPECT_THROW(roll(tt, 1, 2), Error);
}

TEST(Manipulation, Tile) {
  Ref x = iota({2, 3});
  Tensor t = as_tensor(x, i64);
  auto check = [&](std::vector<int64_t> reps) {
    const std::size_t nd = std::max<std::size_t>(2, reps.size());
    Shape xs = x.shape, rs(reps.begin(), reps.end());
    xs.insert(xs.begin(), nd - xs.size(), 1);
    rs.insert(rs.begin(), nd - rs.size(), 1);
    Shape s;
    for (std::size_t d = 0; d < nd; ++d) s.push_back(xs[d] * rs[d]);
    Ref want = build(s, [&](const Index& o) { return x.at({o[nd - 2] % 2, o[nd - 1] % 3}); });
    Tensor got = tile(t, reps);
    EXPECT_EQ(got.dtype(), i64);
    expect_eq(got, want, "tile " + core::vec_str(reps));
  };
  for (auto reps :
       std::vector<std::vector<int64_t>>{{2}, {3, 2}, {1, 1}, {2, 1, 3}, {}, {0, 2}, {1, 2, 2, 1}})
    check(reps);
  expect_eq(tile(as_tensor(x).T(), {2, 1}),
            build({6, 2},
                  [&](const Index& o) {
                    return x.at({o[1], o[0] % 3});
                  }),
            "tile transposed");
  expect_eq(tile(tensor(std::vector<double>{1.5}, {}), {3}), Ref{{3}, {1.5, 1.5, 1.5}}, "tile 0-d");
  EXPECT_THROW(tile(t, {-1}), Error);
}

TEST(Manipulation, RepeatWithOneCount) {
  Ref x = iota({2, 3});
  Tensor t = as_tensor(x, i32);
  for (int64_t r : {0, 1, 3}) {
    expect_eq(repeat(t, r),
              build({6 * r}, [&](const Index& o) { return x.v[static_cast<std::size_t>(o[0] / r)]; }),
              "repeat flat " + std::to_string(r));
    expect_eq(repeat(t, r, 0),
              build({2 * r, 3},
                    [&](const Index& o) {
                      return x.at({o[0] / r, o[1]});
                    }),
              "repeat axis 0");
    expect_eq(repeat(t, r, -1),
              build({2, 3 * r},
                    [&](const Index& o) {
                      return x.at({o[0], o[1] / r});
                    }),
              "repeat axis -1");
  }
  EXPECT_EQ(repeat(t, 2, 1).dtype(), i32);
  EXPECT_THROW(repeat(t, -1, 0), Error);
  EXPECT_THROW(repeat(t, 2, 2), Error);
}

TEST(Manipulation, RepeatWithCountsTensor) {
  Ref x = iota({3, 4});
  Tensor t = as_tensor(x);
  const std::vector<int64_t> counts{2, 0, 1, 2};
  Tensor r = tensor(counts, {4});
  std::vector<int64_t> src;  // output column -> input column
  for (std::size_t c = 0; c < counts.size(); ++c)
    src.insert(src.end(), static_cast<std::size_t>(counts[c]), static_cast<int64_t>(c));
  expect_eq(repeat(t, r, 1),
            build({3, 5},
                  [&](const Index& o) {
                    return x.at({o[0], src[static_cast<std::size_t>(o[1])]});
                  }),
            "repeat counts axis 1");
  expect_eq(repeat(t.T(), r, 0),
            build({5, 3},
                  [&](const Index& o) {
                    return x.at({o[1], src[static_cast<std::size_t>(o[0])]});
                  }),
            "repeat counts transposed");
  // one count for all, the flattened form, all-zero counts, i32 counts
  expect_eq(repeat(t, tensor(std::vector<int32_t>{2}, {1}), 0),
            build({6, 4},
                  [&](const Index& o) {
                    return x.at({o[0] / 2, o[1]});
                  }),
            "repeat one count");
  std::vector<int64_t> flat_counts(12);
  for (std::size_t k = 0; k < 12; ++k) flat_counts[k] = static_cast<int64_t>(k % 3);
  std::vector<double> flat_want;
  for (std::size_t k = 0; k < 12; ++k)
    flat_want.insert(flat_want.end(), static_cast<std::size_t>(flat_counts[k]), x.v[k]);
  expect_eq(repeat(t, tensor(flat_counts, {12})), Ref{{12}, flat_want}, "repeat counts flattened");
  expect_eq(repeat(t, tensor(std::vector<int64_t>{0, 0, 0}, {3}), 0), Ref{{0, 4}, {}}, "repeat zero counts");
  EXPECT_THROW(repeat(t, tensor(std::vector<int64_t>{1, 2}, {2}), 1), Error);      // wrong length
  EXPECT_THROW(repeat(t, tensor(std::vector<int64_t>{1, -1, 1}, {3}), 0), Error);  // negative
  EXPECT_THROW(repeat(t, tensor(std::vector<double>{1, 1, 1}, {3}), 0), Error);    // not integers
}

TEST(Manipulation, Unstack) {
  Ref x = iota({2, 3, 4});
  Tensor t = as_tensor(x);
  for (int64_t axis : {0, 1, 2, -1}) {
    const int64_t a = mod(axis, 3);
    std::vector<Tensor> parts = unstack(t, axis);
    ASSERT_EQ(static_cast<int64_t>(parts.size()), x.shape[static_cast<std::size_t>(a)]);
    Shape rest = x.shape;
    rest.erase(rest.begin() + a);
    for (std::size_t p = 0; p < parts.size(); ++p)
      expect_eq(parts[p],
                build(rest,
                      [&](const Index& o) {
                        Index i = o;
                        i.insert(i.begin() + a, static_cast<int64_t>(p));
                        return x.at(i);
                      }),
                "unstack axis " + std::to_string(axis));
  }
  EXPECT_TRUE(unstack(zeros({0, 2}), 0).empty());
  EXPECT_THROW(unstack(tensor(std::vector<double>{1.0}, {}), 0), Error);
  EXPECT_THROW(unstack(t, 3), Error);
}

TEST(Manipulation, Meshgrid) {
  Tensor a = tensor(std::vector<int32_t>{1, 2, 3}, {3});
  Tensor b = tensor(std::vector<double>{10, 20}, {2});
  Tensor c = tensor(std::vector<int64_t>{7, 8, 9, 5}, {4});
  std::vector<Tensor> ij = meshgrid({a, b, c}, "ij");
  ASSERT_EQ(ij.size(), 3u);
  for (auto& g : ij) EXPECT_EQ(g.dtype(), f64);  // promoted together
  expect_eq(ij[0], build({3, 2, 4}, [](const Index& o) { return 1.0 + static_cast<double>(o[0]); }), "ij 0");
  expect_eq(ij[1], build({3, 2, 4}, [](const Index& o) { return 10.0 * static_cast<double>(o[1] + 1); }),
            "ij 1");
  expect_eq(ij[2],
            build({3, 2, 4},
                  [](const Index& o) {
                    return std::vector<double>{7, 8, 9, 5}[static_cast<std::size_t>(o[2])];
                  }),
            "ij 2");
  std::vector<Tensor> xy = meshgrid({a, b, c});  // "xy": the first two dims swapped
  expect_eq(xy[0], build({2, 3, 4}, [](const Index& o) { return 1.0 + static_cast<double>(o[1]); }), "xy 0");
  expect_eq(xy[1], build({2, 3, 4}, [](const Index& o) { return 10.0 * static_cast<double>(o[0] + 1); }),
            "xy 1");
  expect_eq(meshgrid({a}, "xy")[0], Ref{{3}, {1, 2, 3}}, "xy one input");
  EXPECT_TRUE(meshgrid({}).empty());
  EXPECT_THROW(meshgrid({a, b}, "yx"), Error);
  EXPECT_THROW(meshgrid({zeros({2, 2})}), Error);
}

TEST(Manipulation, TrilTriu) {
  Ref x = iota({2, 3, 4});
  for (DType dt : {f64, i16, b8}) {
    Ref xr = x;
    if (dt == b8)
      for (auto& e : xr.v) e = e != 0 ? 1.0 : 0.0;
    else if (dt == i16)
      for (auto& e : xr.v) e = static_cast<double>(static_cast<int16_t>(static_cast<int64_t>(e)));
    Tensor t = as_tensor(xr, dt);
    for (int64_t k : {-3, -1, 0, 1, 2, 5}) {
      Tensor lo = tril(t, k), up = triu(t, k);
      EXPECT_EQ(lo.dtype(), dt);
      expect_eq(lo, build(x.shape, [&](const Index& o) { return o[2] - o[1] <= k ? xr.at(o) : 0.0; }),
                "tril k=" + std::to_string(k));
      expect_eq(up, build(x.shape, [&](const Index& o) { return o[2] - o[1] >= k ? xr.at(o) : 0.0; }),
                "triu k=" + std::to_string(k));
    }
  }
  // NaN above the diagonal is dropped (a select, not a product with 0)
  Tensor n = tensor(std::vector<double>{1, std::nan(""), 3, 4}, {2, 2});
  EXPECT_EQ(tril(n).to_vector<double>(), (std::vector<double>{1, 0, 3, 4}));
  EXPECT_THROW(tril(zeros({3})), Error);
  EXPECT_THROW(triu(tensor(std::vector<double>{1.0}, {})), Error);
}

TEST(Manipulation, Diff) {
  Ref x = iota({3, 5}, 0.5);
  Tensor t = as_tensor(x);
  // n-th differences by the binomial formula: sum_j (-1)^(n-j) C(n, j) x[i + j]
  auto nth = [&](int64_t n, int64_t axis) {
    Shape s = x.shape;
    s[static_cast<std::size_t>(axis)] -= n;
    return build(s, [&](const Index& o) {
      double acc = 0, c = 1;
      for (int64_t j = 0; j <= n; ++j) {
        Index i = o;
        i[static_cast<std::size_t>(axis)] += j;
        acc += ((n - j) % 2 ? -c : c) * x.at(i);
        c = c * static_cast<double>(n - j) / static_cast<double>(j + 1);
      }
      return acc;
    });
  };
  for (int64_t n : {0, 1, 2, 3}) {
    expect_eq(diff(t, -1, n), nth(n, 1), "diff axis -1 n=" + std::to_string(n));
    if (n < 3) expect_eq(diff(t, 0, n), nth(n, 0), "diff axis 0 n=" + std::to_string(n));
  }
  expect_eq(diff(t, 0, 4), Ref{{0, 5}, {}}, "diff past the length");
  // prepend / append are concatenated first; integers wrap, b8 gives !=
  Tensor pre = tensor(std::vector<int32_t>{100, 200, 300}, {3, 1});
  Tensor app = zeros({3, 2}, f64);
  Tensor d = diff(t, 1, 1, pre, app);
  ASSERT_EQ(d.shape(), (Shape{3, 7}));
  EXPECT_EQ(d.to_vector<double>(), diff(cat({pre, t, app}, 1), 1).to_vector<double>());
  EXPECT_EQ(diff(tensor(std::vector<uint8_t>{5, 3, 250}, {3})).to_vector<uint8_t>(),
            (std::vector<uint8_t>{254, 247}));
  EXPECT_EQ(diff(tensor(std::vector<bool>{true, true, false, true}, {4})).to_vector<bool>(),
            (std::vector<bool>{false, true, true}));
  EXPECT_THROW(diff(t, 1, 1, zeros({2, 1}, f64)), Error);  // rows differ
  EXPECT_THROW(diff(t, 1, -1), Error);
  EXPECT_THROW(diff(tensor(std::vector<double>{1.0}, {}), 0), Error);
}

// einsum against loops over its definition: products of the operands' elements summed over the
// labels the output lacks. Reference sums are of small integers (exact in any order).
TEST(Manipulation, Einsum) {
  const Ref a = iota({2, 3, 4}), b = iota({2, 4, 5}, 2.0), m = iota({4, 4}), v = iota({4}, 3.0);
  expect_eq(einsum("bij,bjk->bik", {as_tensor(a), as_tensor(b)}),
            build({2, 3, 5},
                  [&](const Index& i) {
                    double acc = 0;
                    for (int64_t j = 0; j < 4; ++j) acc += a.at({i[0], i[1], j}) * b.at({i[0], j, i[2]});
                    return acc;
                  }),
            "batched matmul");
  expect_eq(einsum("ii->i", {as_tensor(m)}),
            build({4},
                  [&](const Index& i) {
                    return m.at({i[0], i[0]});
                  }),
            "diagonal");
  expect_eq(einsum("ii", {as_tensor(m)}),
            build({},
                  [&](const Index&) {
                    double t = 0;
                    for (int64_t i = 0; i < 4; ++i) t += m.at({i, i});
                    return t;
                  }),
            "trace (implicit output)");
  expect_eq(einsum("ij,j", {as_tensor(m), as_tensor(v)}),
            build({4},
                  [&](const Index& i) {
                    double acc = 0;
                    for (int64_t j = 0; j < 4; ++j) acc += m.at({i[0], j}) * v.at({j});
                    return acc;
                  }),
            "matrix-vector");
  expect_eq(einsum("kji", {as_tensor(a)}),
            build({4, 3, 2},
                  [&](const Index& i) {
                    return a.at({i[2], i[1], i[0]});
                  }),
            "implicit output: letters sorted");
  expect_eq(einsum("i,j->ij", {as_tensor(v), as_tensor(v)}),
            build({4, 4}, [&](const Index& i) { return v.at({i[0]}) * v.at({i[1]}); }), "outer");
  expect_eq(einsum("...j,j->...", {as_tensor(a), as_tensor(v)}),
            build({2, 3},
                  [&](const Index& i) {
                    double acc = 0;
                    for (int64_t j = 0; j < 4; ++j) acc += a.at({i[0], i[1], j}) * v.at({j});
                    return acc;
                  }),
            "broadcast dims");
  expect_eq(einsum("bij,bjk,k->i", {as_tensor(a), as_tensor(b), as_tensor(iota({5}))}),
            build({3},
                  [&](const Index& i) {
                    double acc = 0;
                    for (int64_t q = 0; q < 2; ++q)
                      for (int64_t j = 0; j < 4; ++j)
                        for (int64_t k = 0; k < 5; ++k)
                          acc += a.at({q, i[0], j}) * b.at({q, j, k}) * iota({5}).at({k});
                    return acc;
                  }),
            "three operands, batch summed");
  const Tensor x = as_tensor(a);
  EXPECT_THROW(einsum("ij,jk", {as_tensor(m), x}), Error);    // 2 terms, ranks differ
  EXPECT_THROW(einsum("ijk,ijk", {x, as_tensor(b)}), Error);  // j: 3 against 4
  EXPECT_THROW(einsum("ijk->il", {x}), Error);                // l names no input dim
  EXPECT_THROW(einsum("ijk->ii", {x}), Error);                // a repeated output label
  EXPECT_THROW(einsum("ij", {x}), Error);                     // too few letters
  EXPECT_THROW(einsum("ijk,ijk", {x}), Error);                // one operand for two terms
  EXPECT_THROW(einsum("i2k", {x}), Error);                    // not a letter
  // integers keep their dtype whichever letters are summed (NumPy's), wrapping as NumPy's do
  const Tensor c = full({3, 50}, 3.0, i8);
  EXPECT_EQ(einsum("ij->i", {c}).dtype(), i8);
  EXPECT_EQ(einsum("ij->i", {c}).cast(f64).to_vector<double>(), (std::vector<double>{-106, -106, -106}));
  EXPECT_EQ(einsum("ij,kj->ik", {c, c}).dtype(), i8);
}

// The promise of composites: they are index math over fused ops, so an element-wise consumer
// of each is one kernel on the JIT (the interpreter runs node by node). Limits of the design
// (docs/fusion.md rule 7 and the reshape rule): a roll is a cat of two slices, which fuses when
// the axis splits into at most 8 equal parts (the shift and the length share a divisor), else
// it is a library copy; tile and repeat merge a broadcast dim into a real one, a reshape that
// is no view, so the repeated tensor is stored by one kernel and read by the next.
TEST(Manipulation, CompositesFuseWithTheirConsumers) {
  if (core::env().backend == "interpreter") GTEST_SKIP() << "kernel counts are the JIT's";
  Tensor x = as_tensor(iota({64, 32})).eval(), y = as_tensor(iota({64, 32}, 2.0)).eval();
  auto kernels = [](Tensor t) {
    reset_stats();
    t.eval();
    return stats().kernels_launched;
  };
  EXPECT_EQ(kernels(roll(x, 8, 1) + 1.0), 1u);            // parts 24 | 8: 4 equal parts
  EXPECT_EQ(kernels(roll(x * y, 512) + 1.0), 1u);         // flattened, by whole rows: axis 0
  EXPECT_LE(kernels(roll(x, {16, -8}, {0, 1}) * y), 2u);  // a cat of slices of a cat: stored once
  EXPECT_LE(kernels(roll(x, 5, 1) + 1.0), 2u);            // 27 | 5: the cat is a library copy
  EXPECT_EQ(kernels(tril(x) * 2.0), 1u);
  EXPECT_EQ(kernels(triu(x * y, 1) + y), 1u);
  EXPECT_EQ(kernels(moveaxis(x, 0, 1) * 2.0), 1u);
  EXPECT_EQ(kernels(diff(x * y, 1) + 1.0), 1u);
  EXPECT_EQ(kernels(unstack(x * y, 1)[3] + 1.0), 1u);
  EXPECT_EQ(kernels(meshgrid({x.slice(0, 0, 1).reshape({32}), y.slice(1, 0, 1).reshape({64})})[1] * 2.0), 1u);
  EXPECT_LE(kernels(repeat(x, 3, 0) * 2.0), 2u);
  EXPECT_LE(kernels(tile(x, {2, 3}) * 2.0), 2u);
}

}  // namespace
}  // namespace opt
