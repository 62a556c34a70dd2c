// matmul with NumPy semantics for every numeric dtype: 2-D, batched, broadcast batch dims,
// 1-D operands (promoted, then the added dim removed), non-contiguous operands, zero-size dims,
// integer wrap-around; against a reference loop written here.
// Also the AllReduce sweep (one process), the other whole-buffer library op.
#include "ir/op_table.h"
#include "util.h"

#include <cgrad/dist.hpp>

#include <cmath>

namespace opt {

namespace {

struct Ref {
  Shape shape;
  Data vals;
  std::vector<double> scale;  // sum of |a||b| per output element (float tolerance)
};

Ref matmul_ref(const Data& a, Shape sa, const Data& b, Shape sb) {
  const DType t = a.dtype;
  const bool a1 = sa.size() == 1, b1 = sb.size() == 1;
  if (a1) sa = {1, sa[0]};
  if (b1) sb = {sb[0], 1};
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  // Broadcast batch dims, right-aligned.
  Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  const std::size_t nb = std::max(ba.size(), bb.size());
  ba.insert(ba.begin(), nb - ba.size(), 1);
  bb.insert(bb.begin(), nb - bb.size(), 1);
  Shape batch(nb);
  for (std::size_t q = 0; q < nb; ++q) batch[q] = ba[q] == 1 ? bb[q] : ba[q];
  int64_t nbatch = 1;
  for (int64_t v : batch) nbatch *= v;
  Ref r;
  r.vals.dtype = t;
  for (int64_t bi = 0; bi < nbatch; ++bi) {
    // Batch multi-index -> flat batch offset in a and in b.
    int64_t rem = bi, oa = 0, ob = 0, stride_a = 1, stride_b = 1;
    for (std::size_t q = nb; q-- > 0;) {
      const int64_t idx = rem % batch[q];
      rem /= batch[q];
      oa += (ba[q] == 1 ? 0 : idx) * stride_a;
      ob += (bb[q] == 1 ? 0 : idx) * stride_b;
      stride_a *= ba[q];
      stride_b *= bb[q];
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double facc = 0, scale = 0;
        uint64_t iacc = 0;
        for (int64_t p = 0; p < k; ++p) {
          const auto ia = static_cast<std::size_t>(oa * m * k + i * k + p);
          const auto ib = static_cast<std::size_t>(ob * k * n + p * n + j);
          if (is_floating(t)) {
            facc += a.f[ia] * b.f[ib];
            scale += std::fabs(a.f[ia] * b.f[ib]);
          } else {
            iacc += static_cast<uint64_t>(a.i[ia]) * static_cast<uint64_t>(b.i[ib]);
          }
        }
        if (is_floating(t))
          r.vals.f.push_back(round_to(facc, t));
        else
          r.vals.i.push_back(wrap_as(iacc, t));
        r.scale.push_back(scale);
      }
  }
  r.shape = batch;
  if (!a1) r.shape.push_back(m);
  if (!b1) r.shape.push_back(n);
  return r;
}

void check(const Tensor& got, const Ref& want, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.shape(), want.shape);
  ASSERT_EQ(got.dtype(), want.vals.dtype);
  Data g = read(got);
  ASSERT_EQ(g.size(), want.vals.size());
  if (!is_floating(g.dtype)) {
    expect_values(g, want.vals, 0, what);
    return;
  }
  // 8 units of the dtype's precision (f32: 2^-20) relative to sum |a||b|, plus its smallest normal.
  const double rel = g.dtype == f64 ? 0x1p-48 : 8 * finfo(g.dtype).eps;
  int reported = 0;
  for (std::size_t q = 0; q < g.size() && reported < 5; ++q) {
    const double tol = rel * want.scale[q] + (g.dtype == f64 ? 1e-300 : finfo(g.dtype).smallest_normal);
    if (g.f[q] != want.vals.f[q] &&
        !(std::fabs(g.f[q] - want.vals.f[q]) <= tol)) {  // (==: f16 overflow to inf)
      ADD_FAILURE() << what << ": element " << q << ": got " << g.f[q] << ", want " << want.vals.f[q];
      ++reported;
    }
  }
}

Data values(DType t, std::size_t n, uint64_t seed) {
  Data d = random_data(t, n, seed);
  if (is_floating(t))
    for (auto& v : d.f)
      v = std::isfinite(v) ? round_to(std::fmod(v, 100.0), t) : 1.5;  // products finite (f16: 2^30 was inf)
  return d;
}

}  // namespace

void sweep_matmul(int, DType t) {
  if (t == b8) {
    Tensor a = tensor(std::vector<bool>{true, false, true, true}, {2, 2});
    std::string msg;
    EXPECT_EQ(error_code([&] { matmul(a, a); }, &msg), ErrorCode::DTypeMismatch);
    EXPECT_NE(msg.find("matmul"), std::string::npos) << msg;
    // A b8 operand with a numeric one promotes.
    EXPECT_EQ(matmul(a, tensor(std::vector<float>{1, 2, 3, 4}, {2, 2})).dtype(), f32);
    return;
  }
  const std::string name = std::string("matmul ") + dtype_name(t);
  const std::pair<Shape, Shape> cases[] = {
      {{3, 4}, {4, 5}},
      {{2, 3, 4}, {4, 5}},
      {{4, 5}, {2, 5, 3}},
      {{4}, {4, 5}},
      {{3, 4}, {4}},
      {{4}, {4}},
      {{2, 1, 3, 4}, {5, 4, 2}},
      {{1, 3, 4}, {2, 4, 5}},
      {{2, 3, 4}, {4}},
      {{4}, {2, 4, 3}},
      {{1, 1}, {1, 1}},
      {{3, 0}, {0, 2}},
      {{0, 4}, {4, 2}},
      {{0, 3, 4}, {4, 2}},
      {{0}, {0}},
      {{1, 7}, {7, 1}},
  };
  uint64_t seed = 100;
  for (const auto& [sa, sb] : cases) {
    Data a = values(t, static_cast<std::size_t>(core::numel(sa)), seed++);
    Data b = values(t, static_cast<std::size_t>(core::numel(sb)), seed++);
    check(matmul(make(a, sa), make(b, sb)), matmul_ref(a, sa, b, sb),
          name + " " + shape_str(sa) + " x " + shape_str(sb));
  }
  // Non-contiguous operands: a transposed left operand, a strided right operand.
  Data a = values(t, 12, 1), b = values(t, 40, 2);
  Tensor at = make(a, Shape{4, 3}).T();                  // logical (3, 4): element (i, p) = a[p * 3 + i]
  Tensor bs = make(b, Shape{4, 10}).slice(1, 0, 10, 2);  // (4, 5): element (p, j) = b[p * 10 + 2j]
  Data al, bl;
  al.dtype = bl.dtype = t;
  for (int i = 0; i < 3; ++i)
    for (int p = 0; p < 4; ++p) {
      if (is_floating(t))
        al.f.push_back(a.f[static_cast<std::size_t>(p * 3 + i)]);
      else
        al.i.push_back(a.i[static_cast<std::size_t>(p * 3 + i)]);
    }
  for (int p = 0; p < 4; ++p)
    for (int j = 0; j < 5; ++j) {
      if (is_floating(t))
        bl.f.push_back(b.f[static_cast<std::size_t>(p * 10 + 2 * j)]);
      else
        bl.i.push_back(b.i[static_cast<std::size_t>(p * 10 + 2 * j)]);
    }
  check(matmul(at, bs), matmul_ref(al, {3, 4}, bl, {4, 5}), name + " transposed x strided");
  // An unevaluated element-wise operand.
  check(
      matmul(make(al, Shape{3, 4}) * make(al, Shape{3, 4}), make(bl, Shape{4, 5})),
      [&] {
        Data sq = al;
        for (std::size_t q = 0; q < sq.size(); ++q) {
          if (is_floating(t))
            sq.f[q] = round_to(al.f[q] * al.f[q], t);
          else
            sq.i[q] = wrap_as(static_cast<uint64_t>(al.i[q]) * static_cast<uint64_t>(al.i[q]), t);
        }
        return matmul_ref(sq, {3, 4}, bl, {4, 5});
      }(),
      name + " of a lazy product");
  // Errors.
  Tensor x = make(a, Shape{3, 4});
  std::string msg;
  EXPECT_EQ(error_code([&] { matmul(x, x); }, &msg), ErrorCode::ShapeMismatch);
  EXPECT_NE(msg.find("matmul"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(3, 4)"), std::string::npos) << msg;
  EXPECT_EQ(error_code([&] {
              matmul(make(a, Shape{2, 3, 2}), make(b, Shape{3, 2, 4}));
            }),
            ErrorCode::ShapeMismatch);
  EXPECT_EQ(error_code([&] { matmul(make(a, Shape{}), x); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([&] { matmul(make(a, Shape{3}), make(a, Shape{4})); }), ErrorCode::ShapeMismatch);
}

TEST(Matmul, MixedDTypesPromote) {
  Tensor a = tensor(std::vector<int32_t>{1, 2, 3, 4}, {2, 2});
  Tensor b = tensor(std::vector<double>{0.5, 1, 1.5, 2}, {2, 2});
  Tensor c = matmul(a, b);
  EXPECT_EQ(c.dtype(), f64);
  EXPECT_EQ(c.to_vector<double>(), (std::vector<double>{3.5, 5, 7.5, 11}));
  Tensor d = matmul(a, tensor(std::vector<int64_t>{1, 0, 0, 1}, {2, 2}));
  EXPECT_EQ(d.dtype(), i64);
  EXPECT_EQ(d.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(Matmul, IntegerWrapAround) {
  const int32_t big = 1 << 30;
  Tensor a = tensor(std::vector<int32_t>{big, big}, {1, 2});
  Tensor b = tensor(std::vector<int32_t>{4, 4}, {2, 1});
  // 2^32 + 2^32 wraps to 0 in i32.
  EXPECT_EQ(matmul(a, b).to_vector<int32_t>(), std::vector<int32_t>{0});
  Tensor c = tensor(std::vector<int32_t>{big, 1}, {1, 2});
  Tensor d = tensor(std::vector<int32_t>{2, 5}, {2, 1});
  EXPECT_EQ(matmul(c, d).to_vector<int32_t>(), std::vector<int32_t>{INT32_MIN + 5});
}

}  // namespace opt

namespace opt {

// AllReduce in one process (no communicator): every reduction is the identity on every numeric
// dtype, of contiguous and strided inputs; b8 is rejected when the op is built. The reductions
// over several processes are tests/dist (mpi_check).
void sweep_collective(int, DType t) {
  const std::string name = std::string("all_reduce ") + dtype_name(t);
  Data d = values(t, 24, 7);
  if (t == b8) {
    EXPECT_EQ(error_code([&] { dist::all_reduce(make(d, Shape{4, 6})); }), ErrorCode::DTypeMismatch);
    return;
  }
  for (dist::ReduceOp op : {dist::ReduceOp::Sum, dist::ReduceOp::Max, dist::ReduceOp::Min}) {
    Tensor x = make(d, Shape{4, 6});
    Tensor y = dist::all_reduce(x, op);
    EXPECT_EQ(y.shape(), x.shape());
    EXPECT_EQ(y.dtype(), t);
    expect_values(read(y), d, 0, name);
    expect_values(read(dist::all_reduce(x.T(), op)), read(x.T()), 0, name + " of a transposed view");
  }
}

}  // namespace opt
