// Scans (scan group, issue #15): cumulative_sum / cumulative_prod against loops written here,
// for every dtype, layout and axis, with include_initial and an explicit dtype; error cases,
// empty axes, and (on the JIT) the kernel count of a scan with a fused producer.
#include "core/env.hpp"
#include "ir/op_table.h"
#include "util.h"

#include <cstring>

namespace opt {

using ir::Op;

namespace {

// The scan of row-major values `d` of shape `s` along `axis`, as dtype `out`: integers combine
// in 64-bit wrapping arithmetic and are wrapped to `out`; floats accumulate in double, each
// running value rounded to `out` once. With `initial`, the identity comes first.
Data scan_ref(Op op, const Data& d, const Shape& s, int64_t axis, DType out, bool initial) {
  const auto ax = static_cast<std::size_t>(axis);
  int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < ax; ++k) outer *= s[k];
  for (std::size_t k = ax + 1; k < s.size(); ++k) inner *= s[k];
  const int64_t len = s[ax], olen = len + (initial ? 1 : 0);
  const bool sum = op == Op::CumSum;
  Data r;
  r.dtype = out;
  const std::size_t n = static_cast<std::size_t>(outer * olen * inner);
  if (is_floating(out))
    r.f.assign(n, 0.0);
  else
    r.i.assign(n, 0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t q = 0; q < inner; ++q) {
      double fa = sum ? 0.0 : 1.0;
      uint64_t ia = sum ? 0 : 1;
      auto put = [&](int64_t j) {
        const auto at = static_cast<std::size_t>((o * olen + j) * inner + q);
        if (is_floating(out))
          r.f[at] = round_to(fa, out);
        else
          r.i[at] = wrap_as(ia, out);
      };
      if (initial) put(0);
      for (int64_t j = 0; j < len; ++j) {
        const auto at = static_cast<std::size_t>((o * len + j) * inner + q);
        if (is_floating(out)) {
          const double v = is_floating(d.dtype) ? d.f[at] : int_to_double(d.i[at], d.dtype);
          fa = sum ? fa + v : fa * v;
        } else {
          // the input converted to `out` first (as the frontend's cast), then combined
          const auto v = static_cast<uint64_t>(wrap_as(static_cast<uint64_t>(d.i[at]), out));
          ia = sum ? ia + v : ia * v;
        }
        put(j + (initial ? 1 : 0));
      }
    }
  return r;
}

Tensor scan_of(Op op, const Tensor& x, std::optional<int64_t> axis, std::optional<DType> dt, bool initial) {
  return op == Op::CumSum ? cumulative_sum(x, axis, dt, initial) : cumulative_prod(x, axis, dt, initial);
}

}  // namespace

void sweep_scan(int op_index, DType t) {
  const Op op = Op(op_index);
  const std::string name = std::string(ir::op_name(op)) + " " + dtype_name(t);
  const DType out_t = core::sum_dtype(t);
  // Float products take factors in [-2, 2] (rows are short: no overflow); edge values too.
  Data bounded = random_data(t, 24, 7);
  if (is_floating(t)) {
    bounded.f.clear();
    Rng g(7);
    for (int k = 0; k < 24; ++k) bounded.push(g.uniform(-2, 2));
  }
  Data e = edges(t);
  while (e.size() % 4) e = concat(e, random_data(t, 1, e.size()));
  const Data datasets[] = {op == Op::CumProd && is_floating(t) ? bounded : random_data(t, 24, 5), e};
  for (const Data& d : datasets)
    for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
      Tensor x = make(d, l);
      const Shape s = x.shape();
      const Data xs = read(x);
      for (int64_t axis : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{-2}})
        for (bool initial : {false, true}) {
          const std::string what = name + " " + layout_name(l) + " axis " + std::to_string(axis) +
                                   (initial ? " include_initial" : "");
          Tensor y = scan_of(op, x, axis, std::nullopt, initial);
          EXPECT_EQ(y.dtype(), out_t) << what;
          const int64_t a = axis < 0 ? axis + 2 : axis;
          Shape ws = s;
          ws[static_cast<std::size_t>(a)] += initial ? 1 : 0;
          EXPECT_EQ(y.shape(), ws) << what;
          expect_values(read(y), scan_ref(op, xs, s, a, out_t, initial), 1, what);
        }
      // An explicit dtype: the input is converted first, the running value wraps / rounds in it.
      const DType as = is_floating(t) ? f64 : t == b8 ? i32 : t;
      expect_values(read(scan_of(op, x, 1, as, false)), scan_ref(op, xs, s, 1, as, false), 1,
                    name + " dtype");
    }
  // 1-D without axis, and 3-D along the middle axis (rows that are neither first nor last).
  const Data d = op == Op::CumProd && is_floating(t) ? bounded : random_data(t, 24, 9);
  Tensor v = make_all(d, Shape{24});
  expect_values(read(scan_of(op, v, std::nullopt, std::nullopt, false)),
                scan_ref(op, read(v), {24}, 0, out_t, false), 1, name + " 1-D");
  Tensor x3 = make_all(d, Shape{2, 3, 4});
  expect_values(read(scan_of(op, x3, -2, std::nullopt, true)),
                scan_ref(op, read(x3), {2, 3, 4}, 1, out_t, true), 1, name + " 3-D middle axis");
}

namespace {

TEST(Scan, Errors) {
  std::string msg;
  EXPECT_EQ(error_code(
                [] {
                  (void)cumulative_sum(full({2, 3}, 1.0, f32));
                },
                &msg),
            ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("axis is required"), std::string::npos) << msg;
  EXPECT_EQ(error_code([] { (void)cumulative_prod(full({}, 1.0, f32)); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([] { (void)cumulative_sum(full({3}, 1.0, f32), 1); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([] { (void)cumulative_sum(full({3}, 1.0, f32), 0, b8); }), ErrorCode::DTypeMismatch);
}

TEST(Scan, EmptyAxis) {
  Tensor x = full({3, 0}, 1.0, f32);
  EXPECT_EQ(cumulative_sum(x, 1).shape(), (Shape{3, 0}));
  EXPECT_EQ(cumulative_sum(x, 1).to_vector<float>().size(), 0u);
  Tensor y = cumulative_prod(x, 1, std::nullopt, true);
  EXPECT_EQ(y.shape(), (Shape{3, 1}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(cumulative_sum(full({0, 4}, 1.0, i32), 0, std::nullopt, true).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 0, 0, 0}));
}

// The element-wise producer fuses into the scan's kernel: cumulative_sum(x * 2 + 1) is one kernel.
TEST(Scan, ProducerFusesIntoOneKernel) {
  Tensor x = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  for (int64_t axis : {0, 1}) {
    Tensor y = cumulative_sum(x * 2.0 + 1.0, axis);
    reset_stats();
    const std::vector<float> got = y.to_vector<float>();
    if (core::env().backend != "interpreter") {
      EXPECT_EQ(stats().kernels_launched, 1u) << "axis " << axis;
    }
    const std::vector<float> want =
        axis == 1 ? std::vector<float>{3, 8, 15, 9, 20, 33} : std::vector<float>{3, 5, 7, 12, 16, 20};
    EXPECT_EQ(got, want);
  }
  // A consumer reads the scan from memory: two kernels, the right values.
  Tensor z = cumulative_prod(x, 1) - 1.0;
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{0, 1, 5, 3, 19, 119}));
}

}  // namespace
}  // namespace opt
