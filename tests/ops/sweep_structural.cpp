// Sweep of the non-element-wise rows: sources (tensor, full, arange, rand, randn), reductions
// (sum, max, min over any axes, keepdim, non-contiguous, 0-d and empty inputs), movement
// (reshape, permute, expand, slice, as views and in compositions) and cat, for every dtype,
// against index arithmetic written here.
#include "core/env.hpp"
#include "ir/op_table.h"
#include "util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace opt {

namespace {

using ir::Op;

std::string tag(const char* what, DType t) { return std::string(what) + " " + dtype_name(t); }

// Row-major multi-index <-> flat index.
std::vector<int64_t> unravel(int64_t k, const Shape& s) {
  std::vector<int64_t> idx(s.size());
  for (std::size_t d = s.size(); d-- > 0;) {
    idx[d] = k % s[d];
    k /= s[d];
  }
  return idx;
}
int64_t ravel(const std::vector<int64_t>& idx, const Shape& s) {
  int64_t k = 0;
  for (std::size_t d = 0; d < s.size(); ++d) k = k * s[d] + idx[d];
  return k;
}

// Expected tensor: element k of shape `out` is src element src_index(multi-index of k).
template <class F>
Data gather(const Data& src, const Shape& out, F src_index) {
  Data w;
  w.dtype = src.dtype;
  const int64_t n = core::numel(out);
  for (int64_t k = 0; k < n; ++k) {
    auto s = static_cast<std::size_t>(src_index(unravel(k, out)));
    if (is_floating(src.dtype))
      w.f.push_back(src.f[s]);
    else
      w.i.push_back(src.i[s]);
  }
  return w;
}

// Distinct values (where the dtype allows) so that any misplaced element shows.
Data ramp(DType t, std::size_t n) {
  Data d;
  d.dtype = t;
  for (std::size_t k = 0; k < n; ++k) {
    if (t == b8)
      d.i.push_back(static_cast<int64_t>((k * 7 / 3 + k / 5) % 2));
    else
      d.push_int(static_cast<int64_t>(k * 3 + 1) * (k % 2 ? -1 : 1));
  }
  return d;
}

}  // namespace

// ---------------------------------------------------------------- sources

void sweep_source(int op_index, DType t) {
  const Op op = Op(op_index);
  switch (op) {
    case Op::Buffer: {
      Data d = concat(edges(t), random_data(t, 30, 1));
      for (const Shape& s : {Shape{static_cast<int64_t>(d.size())}, Shape{}, Shape{0}, Shape{2, 0, 3}}) {
        Tensor x = make(d, s);
        EXPECT_TRUE(x.is_evaluated());
        EXPECT_EQ(x.dtype(), t);
        EXPECT_EQ(x.shape(), s);
        Data want = d;
        want.f.resize(is_floating(t) ? static_cast<std::size_t>(core::numel(s)) : 0);
        want.i.resize(is_floating(t) ? 0 : static_cast<std::size_t>(core::numel(s)));
        expect_values(read(x), want, 0, tag("tensor()", t) + " " + shape_str(s));
      }
      // Wrong number of values for the shape.
      std::string msg;
      EXPECT_EQ(error_code([&] { make_all(d, Shape{static_cast<int64_t>(d.size()) + 1}); }, &msg),
                ErrorCode::ShapeMismatch);
      EXPECT_NE(msg.find("tensor"), std::string::npos) << msg;
      EXPECT_EQ(error_code([&] { make_all(d, Shape{2, -3}); }), ErrorCode::InvalidArgument);
      break;
    }
    case Op::Full: {
      const double nan = std::numeric_limits<double>::quiet_NaN(),
                   inf = std::numeric_limits<double>::infinity();
      for (double v :
           {0.0, 1.0, 2.5, -2.5, -0.5, 0.75, 1e10, -1e10, 1e300, -1e300, nan, inf, -inf, 3e9, -3e9}) {
        for (const Shape& s : {Shape{2, 3}, Shape{}, Shape{0}}) {
          Tensor x = full(s, v, t);
          EXPECT_EQ(x.dtype(), t);
          EXPECT_EQ(x.shape(), s);
          Data want;
          want.dtype = t;
          for (int64_t k = 0; k < core::numel(s); ++k) {
            if (is_floating(t)) {
              want.f.push_back(round_to(v, t));
            } else if (t == b8) {
              want.i.push_back(v != 0);
            } else {
              // Converted like a cast: saturating, NaN -> 0, truncation toward zero.
              const IInfo lim = iinfo(t);
              const double above = std::ldexp(1.0, is_unsigned(t) ? bits_of(t) : bits_of(t) - 1);  // max + 1
              const double tv = std::trunc(v);
              want.i.push_back(std::isnan(v)                       ? 0
                               : v >= above                        ? static_cast<int64_t>(lim.max)
                               : v <= static_cast<double>(lim.min) ? lim.min
                               : t == u64 ? static_cast<int64_t>(static_cast<uint64_t>(tv))
                                          : static_cast<int64_t>(tv));
            }
          }
          expect_values(read(x), want, 0,
                        tag("full", t) + " value " + std::to_string(v) + " " + shape_str(s));
        }
      }
      Data z = read(zeros({4}, t)), o = read(ones({2, 2}, t));
      for (std::size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(z.fv(k), 0.0);
        EXPECT_EQ(o.fv(k), 1.0);
      }
      EXPECT_EQ(zeros({4}, t).dtype(), t);
      break;
    }
    case Op::Arange: {
      if (t == b8) {
        EXPECT_EQ(error_code([] { arange(3, b8); }), ErrorCode::DTypeMismatch);
        break;
      }
      for (int64_t n : {0, 1, 7, 100}) {
        Tensor x = arange(n, t);
        EXPECT_EQ(x.dtype(), t);
        EXPECT_EQ(x.shape(), (Shape{n}));
        Data want;
        want.dtype = t;
        for (int64_t k = 0; k < n; ++k) want.push_int(k);
        expect_values(read(x), want, 0, tag("arange", t));
      }
      EXPECT_EQ(error_code([&] { arange(-1, t); }), ErrorCode::InvalidArgument);
      break;
    }
    case Op::Rand:
    case Op::Randn: {
      auto gen = [&](const Shape& s) { return op == Op::Rand ? rand(s, t) : randn(s, t); };
      if (!is_floating(t)) {
        std::string msg;
        EXPECT_EQ(error_code([&] { gen({3}); }, &msg), ErrorCode::DTypeMismatch);
        EXPECT_NE(msg.find(ir::op_name(op)), std::string::npos) << msg;
        break;
      }
      manual_seed(1234);
      Tensor a = gen({64, 8});
      Tensor b = gen({64, 8});
      EXPECT_EQ(a.dtype(), t);
      EXPECT_EQ(a.shape(), (Shape{64, 8}));
      Data va = read(a), vb = read(b);
      manual_seed(1234);
      Data va2 = read(gen({64, 8}));
      expect_values(va2, va, 0, tag("same seed, same values", t));
      EXPECT_NE(va.f, vb.f) << "consecutive calls differ";
      for (double v : va.f) {
        EXPECT_TRUE(std::isfinite(v));
        if (op == Op::Rand) {
          EXPECT_GE(v, 0.0);
          EXPECT_LT(v, 1.0);
        }
      }
      EXPECT_EQ(gen({0}).numel(), 0);
      EXPECT_EQ(read(gen({})).size(), 1u);
      break;
    }
    default: ADD_FAILURE() << "not a source: " << ir::op_name(op);
  }
}

// ---------------------------------------------------------------- reductions

namespace {

// Reference reduction of `d` (logical shape `s`, row-major) over `axes`: keepdim-shaped output,
// combining in row-major order (float sums accumulate in double, integer sums wrap in 64 bits).
Data reduce_ref(Op op, const Data& d, const Shape& s, const std::vector<int64_t>& axes) {
  Shape out = s;
  std::vector<bool> red(s.size(), axes.empty());
  for (int64_t a : axes) red[static_cast<std::size_t>(a < 0 ? a + static_cast<int64_t>(s.size()) : a)] = true;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (red[k]) out[k] = 1;
  const auto n_out = static_cast<std::size_t>(core::numel(out));
  const bool sum = op == Op::Sum, prod = op == Op::Prod, logical = op == Op::Any || op == Op::All;
  const DType out_t = logical ? b8 : sum || prod ? core::sum_dtype(d.dtype) : d.dtype;  // i64, u64 or float
  std::vector<double> facc(n_out, prod ? 1.0 : 0.0);
  std::vector<uint64_t> iacc(n_out, prod || op == Op::All ? 1 : 0);
  std::vector<bool> first(n_out, true);
  for (int64_t k = 0; k < core::numel(s); ++k) {
    auto idx = unravel(k, s);
    for (std::size_t q = 0; q < s.size(); ++q)
      if (red[q]) idx[q] = 0;
    auto o = static_cast<std::size_t>(ravel(idx, out));
    const auto ku = static_cast<std::size_t>(k);
    if (logical) {  // x != 0 (NaN counts as true)
      const bool v = is_floating(d.dtype) ? d.f[ku] != 0 : d.i[ku] != 0;
      iacc[o] = op == Op::Any ? (iacc[o] || v) : (iacc[o] && v);
    } else if (is_floating(d.dtype)) {
      double v = d.f[ku];
      if (sum)
        facc[o] += v;
      else if (prod)
        facc[o] *= v;
      else if (first[o])
        facc[o] = v;
      else if (std::isnan(facc[o]) || std::isnan(v))
        facc[o] = std::numeric_limits<double>::quiet_NaN();
      else
        facc[o] = op == Op::Max ? std::max(facc[o], v) : std::min(facc[o], v);
    } else {
      int64_t v = d.i[ku];
      if (sum)
        iacc[o] += static_cast<uint64_t>(v);
      else if (prod)
        iacc[o] *= static_cast<uint64_t>(v);  // wraps like the i64 accumulator
      else if (first[o])
        iacc[o] = static_cast<uint64_t>(v);
      else {
        const auto cur = static_cast<int64_t>(iacc[o]);
        const bool take = op == Op::Max ? int_less(cur, v, d.dtype) : int_less(v, cur, d.dtype);
        iacc[o] = static_cast<uint64_t>(take ? v : cur);
      }
    }
    first[o] = false;
  }
  Data w;
  w.dtype = out_t;
  for (std::size_t o = 0; o < n_out; ++o) {
    if (is_floating(out_t))
      w.f.push_back(round_to(facc[o], out_t));
    else
      w.i.push_back(static_cast<int64_t>(iacc[o]));
  }
  return w;
}

Shape reduced_shape(const Shape& s, std::vector<int64_t> axes, bool keepdim) {
  const auto nd = static_cast<int64_t>(s.size());
  for (auto& a : axes) a = a < 0 ? a + nd : a;
  Shape r;
  for (int64_t k = 0; k < nd; ++k) {
    bool red = axes.empty() || std::find(axes.begin(), axes.end(), k) != axes.end();
    if (!red)
      r.push_back(s[static_cast<std::size_t>(k)]);
    else if (keepdim)
      r.push_back(1);
  }
  return r;
}

}  // namespace

// The interpreter sums sequentially in double and rounds once: results are exact references.
// A fusing backend reassociates float sums (SIMD lanes, chunks), documented in docs/fusion.md:
// there a float sum may differ by a few ulp of the double result.
int sum_ulps(Op op, DType t) {
  if ((op != Op::Sum && op != Op::Prod) || !is_floating(t) || core::env().backend == "interpreter") return 0;
  return t == f64 ? 64 : 1;
}

// Checks the reduction `got` of `d` (shape `s`) over `axes` against the reference. The JIT
// sums f32 in float blocks (docs/semantics.md): its documented bound is an absolute error of
// (512/L + log2 L) * 2^-24 * sum|x_i| (36 * 2^-24 for L = 16 lanes), which ulps of the result
// cannot express when terms cancel; checked here with 40 * 2^-24 (the reference's own rounding
// to f32 adds half an ulp). f64 sums in double in any order of its lanes: within 64 ulps of the
// result, or where terms cancel within (n - 1) 2^-53 sum|x_i| for n terms, the bound of any order
// (edge values put +-max and 4.5 in one row: 0 in the lanes' order of a 256-bit vector, 4.5 in
// the interpreter's; the check had passed where GCC used 512-bit vectors).
void expect_reduced(Op op, const Data& got, const Data& d, const Shape& s, const std::vector<int64_t>& axes,
                    const std::string& what) {
  const Data want = reduce_ref(op, d, s, axes);
  if (op != Op::Sum || (d.dtype != f32 && d.dtype != f64) || core::env().backend == "interpreter")
    return expect_values(got, want, sum_ulps(op, d.dtype), what);
  Data magnitudes = d;
  for (double& v : magnitudes.f) v = std::fabs(v);
  magnitudes.dtype = f64;  // not rounded to f32
  const Data scale = reduce_ref(Op::Sum, magnitudes, s, axes);
  ASSERT_EQ(got.size(), want.size()) << what;
  const double terms = want.size() ? static_cast<double>(d.size()) / static_cast<double>(want.size()) : 0;
  int reported = 0;
  for (std::size_t k = 0; k < got.size() && reported < 5; ++k) {
    const double g = got.f[k], w = want.f[k];
    const double bound = d.dtype == f32
                             ? 40 * 0x1p-24 * scale.f[k]
                             : std::max(64 * (std::nextafter(std::fabs(w), INFINITY) - std::fabs(w)),
                                        (terms - 1) * 0x1p-53 * scale.f[k]);
    const bool ok = std::isnan(w) || std::isinf(w) ? (std::isnan(g) && std::isnan(w)) || g == w
                                                   : std::fabs(g - w) <= bound;
    if (!ok) {
      ADD_FAILURE() << what << ": element " << k << ": got " << g << ", want " << w << " (bound " << bound
                    << ")";
      ++reported;
    }
  }
}

void sweep_reduce(int op_index, DType t) {
  const Op op = Op(op_index);
  if (op == Op::Argmax || op == Op::Argmin) return sweep_arg(op_index, t);  // argmax group
  auto fn = [op](const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
    switch (op) {
      case Op::Sum: return sum(x, axes, keepdim);
      case Op::Max: return max(x, axes, keepdim);
      case Op::Min: return min(x, axes, keepdim);
      case Op::Prod: return prod(x, axes, keepdim);
      case Op::Any: return any(x, axes, keepdim);
      case Op::All: return all(x, axes, keepdim);
      default: throw Error(ErrorCode::Internal, "sweep_reduce: not a reduction");
    }
  };
  auto method = [op, &fn](const Tensor& x) {  // the Tensor methods where they exist
    return op == Op::Sum   ? x.sum({0})
           : op == Op::Max ? x.max({0})
           : op == Op::Min ? x.min({0})
                           : fn(x, {0}, false);
  };
  const std::string name = tag(ir::op_name(op), t);
  const bool logical = op == Op::Any || op == Op::All;
  const DType out_t = logical ? b8 : op == Op::Sum || op == Op::Prod ? core::sum_dtype(t) : t;
  // Finite random data (float sums are compared exactly with the double-accumulated sum), and
  // edge values (NaN, inf, integer extremes: integer sums and products wrap). Float products
  // take factors in [-2, 2] and the special values that cannot overflow in part of a row: a
  // product reassociated by a backend must not turn a finite overflow into a NaN.
  auto padded = [](Data e) {
    while (e.size() % 8) e = concat(e, random_data(e.dtype, 1, e.size()));
    return e;
  };
  auto bounded = [t](std::size_t n, uint64_t seed) {
    Data r;
    r.dtype = t;
    Rng g(seed);
    for (std::size_t k = 0; k < n; ++k) r.push(g.uniform(-2, 2));
    return r;
  };
  const bool float_prod = op == Op::Prod && is_floating(t);
  Data float_edges;
  float_edges.dtype = t;
  if (float_prod)
    for (double v : {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), 1.5})
      float_edges.push(v);
  const Data datasets[] = {float_prod ? bounded(48, 21) : random_data(t, 48, 21),
                           padded(float_prod ? concat(float_edges, bounded(6, 3)) : edges(t))};
  for (const Data& d : datasets) {
    for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
      Tensor x = make(d, l);
      const Shape s = x.shape();
      const std::vector<std::vector<int64_t>> axes_list = {{}, {0}, {1}, {-1}, {0, 1}, {1, 0}};
      for (const auto& axes : axes_list)
        for (bool keepdim : {false, true}) {
          Tensor y = fn(x, axes, keepdim);
          EXPECT_EQ(y.dtype(), out_t);
          EXPECT_EQ(y.shape(), reduced_shape(s, axes, keepdim));
          expect_reduced(
              op, read(y), d, s, axes,
              name + " " + layout_name(l) + " axes " + core::vec_str(axes) + (keepdim ? " keepdim" : ""));
        }
      // Also as a method.
      expect_reduced(op, read(method(x)), d, s, {0}, name + " method");
    }
  }
  // 3-D, non-adjacent axes.
  Data d3 = random_data(t, 24, 5);
  for (const auto& axes : std::vector<std::vector<int64_t>>{{0, 2}, {1}, {-3, -1}, {}}) {
    Tensor x = make(d3, Shape{2, 3, 4});
    Tensor y = fn(x, axes, true);
    EXPECT_EQ(y.shape(), reduced_shape({2, 3, 4}, axes, true));
    expect_reduced(op, read(y), d3, {2, 3, 4}, axes, name + " 3-D axes " + core::vec_str(axes));
  }
  // 0-d: reducing over no axes gives the value itself.
  Tensor z = fn(make(d3, Shape{}), {}, false);
  EXPECT_EQ(z.shape(), Shape{});
  expect_reduced(op, read(z), d3, {}, {}, name + " 0-d");
  EXPECT_EQ(fn(make(d3, Shape{}), {}, true).shape(), Shape{});
  // Empty inputs: sum gives 0, prod 1, any false, all true; max/min over an empty extent have
  // no identity.
  Tensor e = make(d3, Shape{2, 0, 3});
  if (ir::info(op).reduce.empty_ok) {
    const double id = op == Op::Prod || op == Op::All ? 1.0 : 0.0;
    Tensor s1 = fn(e, {1}, false);
    EXPECT_EQ(s1.shape(), (Shape{2, 3}));
    Data r1 = read(s1);
    ASSERT_EQ(r1.size(), 6u);
    for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(r1.fv(k), id);
    EXPECT_EQ(read(fn(e, {}, false)).fv(0), id);
    EXPECT_EQ(read(fn(make(d3, Shape{0}), {}, false)).fv(0), id);
  } else {
    std::string msg;
    EXPECT_EQ(error_code([&] { fn(e, {1}, false); }, &msg), ErrorCode::InvalidArgument);
    EXPECT_NE(msg.find(ir::op_name(op)), std::string::npos) << msg;
    EXPECT_EQ(error_code([&] { fn(make(d3, Shape{0}), {}, false); }), ErrorCode::InvalidArgument);
    Tensor ok = fn(e, {2}, false);  // reducing a non-empty extent of an empty tensor is fine
    EXPECT_EQ(ok.shape(), (Shape{2, 0}));
    EXPECT_EQ(ok.numel(), 0);
    EXPECT_EQ(read(ok).size(), 0u);
  }
  EXPECT_EQ(fn(e, {0, 2}, true).shape(), (Shape{1, 0, 1}));
  // Bad axes.
  Tensor x = make(d3, Shape{2, 3, 4});
  EXPECT_EQ(error_code([&] { fn(x, {3}, false); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([&] { fn(x, {0, -3}, false); }), ErrorCode::InvalidArgument);
}

// ---------------------------------------------------------------- movement

void sweep_movement(int op_index, DType t) {
  const Op op = Op(op_index);
  const std::string name = tag(ir::op_name(op), t);
  Data d = ramp(t, 120);
  const Shape s3{2, 3, 4};
  Tensor x = make(d, s3);
  switch (op) {
    case Op::Reshape: {
      struct Case {
        Shape to, want;
      };
      for (const Case& c : {Case{{4, -1}, {4, 6}}, Case{{24}, {24}}, Case{{-1}, {24}}, Case{{2, 12}, {2, 12}},
                            Case{{1, 2, 1, 12, 1}, {1, 2, 1, 12, 1}}, Case{{3, 2, -1}, {3, 2, 4}}}) {
        Tensor y = x.reshape(c.to);
        EXPECT_EQ(y.shape(), c.want);
        expect_values(read(y),
                      gather(d, c.want, [&](const std::vector<int64_t>& i) { return ravel(i, c.want); }), 0,
                      name + " to " + shape_str(c.to));
      }
      // Non-contiguous sources: a transposed matrix and a strided slice (need a copy), an
      // expanded row (stays a view with zero strides).
      Tensor m = make(d, Shape{4, 6});
      Tensor tr = m.T().reshape({-1});
      expect_values(read(tr),
                    gather(d, {24}, [](const std::vector<int64_t>& i) { return (i[0] % 4) * 6 + i[0] / 4; }),
                    0, name + " of transposed");
      Tensor sl = m.slice(1, 1, 6, 2).reshape({2, 6});
      expect_values(read(sl),
                    gather(d, {2, 6},
                           [](const std::vector<int64_t>& i) {
                             int64_t k = i[0] * 6 + i[1];
                             return (k / 3) * 6 + 1 + 2 * (k % 3);
                           }),
                    0, name + " of strided slice");
      Tensor ex = make(d, Shape{1, 4}).expand({3, 4});
      expect_values(read(ex.reshape({12})),
                    gather(d, {12}, [](const std::vector<int64_t>& i) { return i[0] % 4; }), 0,
                    name + " of expanded (copy)");
      expect_values(read(ex.reshape({3, 2, 2})),
                    gather(d, {3, 2, 2}, [](const std::vector<int64_t>& i) { return i[1] * 2 + i[2]; }), 0,
                    name + " of expanded (view)");
      // 0-d <-> one element; empty.
      Tensor one = make(d, Shape{1, 1});
      EXPECT_EQ(one.reshape({}).shape(), Shape{});
      expect_values(read(one.reshape({})),
                    gather(d, {}, [](const std::vector<int64_t>&) { return int64_t{0}; }), 0,
                    name + " to 0-d");
      EXPECT_EQ(make(d, Shape{}).reshape({1, -1}).shape(), (Shape{1, 1}));
      Tensor e = make(d, Shape{0, 3});
      EXPECT_EQ(e.reshape({3, 0}).shape(), (Shape{3, 0}));
      EXPECT_EQ(e.reshape({-1}).shape(), (Shape{0}));
      EXPECT_EQ(error_code([&] { e.reshape({0, -1}); }), ErrorCode::ShapeMismatch);
      EXPECT_EQ(error_code([&] { x.reshape({5, -1}); }), ErrorCode::ShapeMismatch);
      EXPECT_EQ(error_code([&] { x.reshape({-1, -1}); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { x.reshape({25}); }), ErrorCode::ShapeMismatch);
      EXPECT_EQ(error_code([&] { x.reshape({-2, -12}); }), ErrorCode::InvalidArgument);
      break;
    }
    case Op::Permute: {
      for (const std::vector<int64_t>& p :
           {std::vector<int64_t>{2, 0, 1}, {1, 0, 2}, {-1, -2, -3}, {0, 1, 2}}) {
        Tensor y = x.permute(p);
        Shape out(3);
        std::vector<int64_t> pn(3);
        for (std::size_t k = 0; k < 3; ++k) {
          pn[k] = p[k] < 0 ? p[k] + 3 : p[k];
          out[k] = s3[static_cast<std::size_t>(pn[k])];
        }
        EXPECT_EQ(y.shape(), out);
        expect_values(read(y),
                      gather(d, out,
                             [&](const std::vector<int64_t>& i) {
                               std::vector<int64_t> src(3);
                               for (std::size_t k = 0; k < 3; ++k)
                                 src[static_cast<std::size_t>(pn[k])] = i[k];
                               return ravel(src, s3);
                             }),
                      0, name + " " + core::vec_str(p));
      }
      // transpose, T, permute of a permuted tensor, of a 0-d tensor and of an empty one.
      Tensor tt = x.transpose(0, 2);
      EXPECT_EQ(tt.shape(), (Shape{4, 3, 2}));
      expect_values(read(tt),
                    gather(d, {4, 3, 2},
                           [&](const std::vector<int64_t>& i) {
                             return ravel({i[2], i[1], i[0]}, s3);
                           }),
                    0, name + " transpose(0, 2)");
      Tensor tT = x.T();
      EXPECT_EQ(tT.shape(), (Shape{2, 4, 3}));
      expect_values(read(tT),
                    gather(d, {2, 4, 3},
                           [&](const std::vector<int64_t>& i) {
                             return ravel({i[0], i[2], i[1]}, s3);
                           }),
                    0, name + " T");
      expect_values(read(x.permute({1, 2, 0}).permute({2, 0, 1})), read(x), 0,
                    name + " inverse permutations");
      expect_values(read(x.transpose(-1, -1)), read(x), 0, name + " transpose of a dim with itself");
      EXPECT_EQ(make(d, Shape{}).permute({}).shape(), Shape{});
      EXPECT_EQ(make(d, Shape{0, 3}).T().shape(), (Shape{3, 0}));
      EXPECT_EQ(error_code([&] { x.permute({0, 0, 1}); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { x.permute({0, 1}); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { x.permute({0, 1, 3}); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { x.transpose(0, 3); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { make(d, Shape{3}).T(); }), ErrorCode::InvalidArgument);
      break;
    }
    case Op::Expand: {
      Tensor c = make(d, Shape{3, 1});
      Tensor y = c.expand({2, 3, 4});
      EXPECT_EQ(y.shape(), (Shape{2, 3, 4}));
      expect_values(read(y), gather(d, {2, 3, 4}, [](const std::vector<int64_t>& i) { return i[1]; }), 0,
                    name + " (3, 1) -> (2, 3, 4)");
      Tensor y2 = c.expand({-1, 5});
      EXPECT_EQ(y2.shape(), (Shape{3, 5}));
      expect_values(read(y2), gather(d, {3, 5}, [](const std::vector<int64_t>& i) { return i[0]; }), 0,
                    name + " with -1");
      Tensor z = make(d, Shape{}).expand({2, 2});
      expect_values(read(z), gather(d, {2, 2}, [](const std::vector<int64_t>&) { return int64_t{0}; }), 0,
                    name + " of 0-d");
      EXPECT_EQ(make(d, Shape{1}).expand({0}).shape(), (Shape{0}));
      expect_values(read(x.expand({2, 3, 4})), read(x), 0, name + " to its own shape");
      // expand of a transposed view
      Tensor r = make(d, Shape{1, 3}).T().expand({3, 4});
      expect_values(read(r), gather(d, {3, 4}, [](const std::vector<int64_t>& i) { return i[0]; }), 0,
                    name + " of transposed");
      EXPECT_EQ(error_code([&] { c.expand({3, 2, 2}); }), ErrorCode::ShapeMismatch);
      EXPECT_EQ(error_code([&] { c.expand({1}); }), ErrorCode::ShapeMismatch);
      EXPECT_EQ(error_code([&] { c.expand({-1, 3, 1}); }), ErrorCode::InvalidArgument);
      break;
    }
    case Op::Slice: {
      Tensor m = make(d, Shape{5, 6});
      struct Case {
        int64_t dim, start, stop, step;
        std::vector<int64_t> picked;  // indices kept along dim
      };
      for (const Case& c : {Case{0, 1, 5, 2, {1, 3}}, Case{1, -4, -1, 1, {2, 3, 4}}, Case{1, 0, 6, 4, {0, 4}},
                            Case{0, 3, 3, 1, {}}, Case{0, 4, 2, 1, {}}, Case{-1, 5, 6, 1, {5}},
                            Case{0, 0, 5, 1, {0, 1, 2, 3, 4}}, Case{-2, -5, 5, 3, {0, 3}},
                            Case{1, 0, 6, 7, {0}}, Case{1, 6, 6, 1, {}}}) {
        Tensor y = m.slice(c.dim, c.start, c.stop, c.step);
        const std::size_t dn = static_cast<std::size_t>(c.dim < 0 ? c.dim + 2 : c.dim);
        Shape out{5, 6};
        out[dn] = static_cast<int64_t>(c.picked.size());
        EXPECT_EQ(y.shape(), out);
        expect_values(read(y),
                      gather(d, out,
                             [&](std::vector<int64_t> i) {
                               i[dn] = c.picked[static_cast<std::size_t>(i[dn])];
                               return ravel(i, {5, 6});
                             }),
                      0,
                      name + " dim " + std::to_string(c.dim) + " [" + std::to_string(c.start) + ":" +
                          std::to_string(c.stop) + ":" + std::to_string(c.step) + "]");
      }
      // slice of a slice, slice of a transposed view, then transposed.
      Tensor ss = m.slice(1, 1, 6, 2).slice(1, 1, 3);
      EXPECT_EQ(ss.shape(), (Shape{5, 2}));
      expect_values(read(ss),
                    gather(d, {5, 2}, [](const std::vector<int64_t>& i) { return i[0] * 6 + 3 + 2 * i[1]; }),
                    0, name + " of slice");
      Tensor st = m.T().slice(0, 2, 5, 2).T();
      EXPECT_EQ(st.shape(), (Shape{5, 2}));
      expect_values(read(st),
                    gather(d, {5, 2}, [](const std::vector<int64_t>& i) { return i[0] * 6 + 2 + 2 * i[1]; }),
                    0, name + " of transposed");
      EXPECT_EQ(error_code([&] { m.slice(0, 0, 6); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { m.slice(0, -6, 2); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { m.slice(0, 0, 2, 0); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { m.slice(0, 0, 2, -1); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { m.slice(2, 0, 1); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { make(d, Shape{}).slice(0, 0, 1); }), ErrorCode::InvalidArgument);
      break;
    }
    case Op::Flip: {
      Tensor m = make(d, Shape{5, 6});
      auto flipped = [&](const Shape& sh, std::vector<bool> rev) {  // d of shape sh, reversed along rev
        return gather(d, sh, [&](std::vector<int64_t> i) {
          for (std::size_t q = 0; q < i.size(); ++q)
            if (rev[q]) i[q] = sh[q] - 1 - i[q];
          return ravel(i, sh);
        });
      };
      const std::pair<std::vector<int64_t>, std::vector<bool>> cases[] = {{{0}, {true, false}},
                                                                          {{1}, {false, true}},
                                                                          {{-1}, {false, true}},
                                                                          {{}, {true, true}},
                                                                          {{1, 0}, {true, true}}};
      for (const auto& [axes, rev] : cases) {
        Tensor y = flip(m, axes);
        EXPECT_EQ(y.shape(), (Shape{5, 6}));
        expect_values(read(y), flipped({5, 6}, rev), 0, name + " axes " + core::vec_str(axes));
        // consumed element-wise (fused on the JIT) and by a reduction
        if (t == b8) continue;  // no arithmetic on b8
        Data want = flipped({5, 6}, rev);
        for (auto& v : want.f) v = round_to(v * 2, t);
        for (auto& v : want.i) v = wrap_as(static_cast<uint64_t>(v) * 2, t);  // unsigned: zero-extended
        expect_values(read(y * 2), want, 0, name + " * 2 axes " + core::vec_str(axes));
      }
      // 3-D, flip of a flip, of a slice, of a transposed view.
      expect_values(read(flip(x, {0, 2})), flipped(s3, {true, false, true}), 0, name + " 3-D axes [0, 2]");
      expect_values(read(flip(flip(x, {1}), {1})), read(x), 0, name + " of flip");
      expect_values(read(flip(m.slice(1, 1, 6, 2), {1})),
                    gather(d, {5, 3}, [](const std::vector<int64_t>& i) { return i[0] * 6 + 5 - 2 * i[1]; }),
                    0, name + " of slice");
      expect_values(read(flip(m.T(), {0})),
                    gather(d, {6, 5}, [](const std::vector<int64_t>& i) { return i[1] * 6 + 5 - i[0]; }), 0,
                    name + " of transposed");
      // 0-d, empty and size-1 dims are unchanged; bad axes throw.
      expect_values(read(flip(make(d, Shape{}))), read(make(d, Shape{})), 0, name + " 0-d");
      EXPECT_EQ(flip(make(d, Shape{2, 0}), {0}).shape(), (Shape{2, 0}));
      EXPECT_EQ(error_code([&] { flip(m, {2}); }), ErrorCode::InvalidArgument);
      EXPECT_EQ(error_code([&] { flip(m, {0, -2}); }), ErrorCode::InvalidArgument);
      break;
    }
    default: ADD_FAILURE() << "not a movement op: " << ir::op_name(op);
  }
}

// ---------------------------------------------------------------- cat

void sweep_cat(int, DType t) {
  const std::string name = tag("cat", t);
  Data d = ramp(t, 60);
  // Pieces along dim 0: (2, 3), (1, 3), (0, 3), a transposed (3, 3) view.
  Tensor a = make(d, Shape{2, 3});
  Tensor b = make(d, Shape{1, 3});
  Tensor e = make(d, Shape{0, 3});
  Tensor c = make(d, Shape{3, 3}).T();
  Tensor y = cat({a, b, e, c}, 0);
  ASSERT_EQ(y.shape(), (Shape{6, 3}));
  EXPECT_EQ(y.dtype(), t);
  expect_values(read(y),
                gather(d, {6, 3},
                       [](const std::vector<int64_t>& i) {
                         if (i[0] < 2) return i[0] * 3 + i[1];
                         if (i[0] < 3) return i[1];
                         return i[1] * 3 + (i[0] - 3);
                       }),
                0, name + " dim 0");
  // Along the last dim, with a strided piece.
  Tensor p = make(d, Shape{2, 1});
  Tensor q = make(d, Shape{2, 8}).slice(1, 0, 8, 2);
  Tensor y2 = cat({p, q}, -1);
  ASSERT_EQ(y2.shape(), (Shape{2, 5}));
  expect_values(
      read(y2),
      gather(d, {2, 5},
             [](const std::vector<int64_t>& i) { return i[1] == 0 ? i[0] : i[0] * 8 + 2 * (i[1] - 1); }),
      0, name + " dim -1");
  // A single tensor; all-empty pieces; 1-D.
  expect_values(read(cat({a}, 1)), read(a), 0, name + " of one tensor");
  EXPECT_EQ(cat({e, e}, 0).shape(), (Shape{0, 3}));
  EXPECT_EQ(cat({e, e}, 1).shape(), (Shape{0, 6}));
  Tensor v = cat({make(d, Shape{2}), make(d, Shape{3})});
  expect_values(read(v),
                gather(d, {5}, [](const std::vector<int64_t>& i) { return i[0] < 2 ? i[0] : i[0] - 2; }), 0,
                name + " 1-D");
  // Mixed dtypes promote like element-wise ops.
  for (DType u : kDTypes) {
    Tensor w = cat({a, make(ramp(u, 6), Shape{2, 3})}, 0);
    EXPECT_EQ(w.dtype(), core::promote(t, u)) << dtype_name(t) << " with " << dtype_name(u);
  }
  // Errors: shapes differing outside dim, rank mismatch, 0-d, nothing, bad dim.
  EXPECT_EQ(error_code([&] { cat({a, make(d, Shape{2, 4})}, 0); }), ErrorCode::ShapeMismatch);
  EXPECT_EQ(error_code([&] { cat({a, make(d, Shape{3})}, 0); }), ErrorCode::ShapeMismatch);
  EXPECT_EQ(error_code([&] { cat({make(d, Shape{}), make(d, Shape{})}, 0); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([&] { cat({}, 0); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([&] { cat({a, b}, 2); }), ErrorCode::InvalidArgument);
}

}  // namespace opt
