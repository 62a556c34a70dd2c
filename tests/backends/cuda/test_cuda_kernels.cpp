// The device kernels of the rows that are not element-wise or reductions (issue #15, devkern
// group): the block scans of cumulative_sum/prod on long rows, sort/argsort and scatter_add.
// Each result on cuda:0 is compared with the same work on the CPU, which runs on the reference
// interpreter here (the test sets CGRAD_BACKEND=interpreter): integers, sorts and scatters
// exactly, float scans within the bound of their summation order (docs/cuda.md). It also sets
// CGRAD_FP_CONTRACT=0, so a fused element-wise input rounds each product on the device as the
// interpreter does and only the scan's order is measured. Sizes are small (the emulated device
// of tools/test.sh runs every instruction on the host) but cover rows of several blocks. Each
// test skips (one line) without a GPU.
#include "backends/cuda/loader.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace cgrad;
namespace cu = cgrad::backends::cuda;

// Set before main(): cgrad reads its environment on first use.
const bool g_env = [] {
  setenv("CGRAD_BACKEND", "interpreter", 1);
  setenv("CGRAD_FP_CONTRACT", "0", 1);
  return true;
}();

#define REQUIRE_GPU() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: " << cu::driver_status()

// A deterministic generator (the tests' own; no dependence on cgrad's random sources).
struct Lcg {
  uint64_t s;
  uint64_t next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 33;
  }
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() % 1000003) / 1000003.0;
  }
};

// n values of dtype t: floats in [lo, hi], integers spread over a small range (many ties) or,
// with `wide`, over the whole type (wrap-around in sums).
Tensor values(DType t, const Shape& shape, uint64_t seed, double lo = -4, double hi = 4, bool wide = false) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  Lcg g{seed};
  if (is_floating(t)) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = g.uniform(lo, hi);
    return tensor(v, shape).cast(t).eval();
  }
  std::vector<int64_t> v(static_cast<std::size_t>(n));
  for (auto& x : v)
    x = wide ? static_cast<int64_t>(g.next() * 2654435761ULL) : static_cast<int64_t>(g.next() % 19) - 9;
  return tensor(v, shape).cast(t).eval();
}

// The device run of `f` on a copy of x on cuda:0, downloaded.
template <class F>
Tensor on_device(const F& f, const Tensor& x) {
  return f(x.to(Device::cuda())).to(Device::cpu()).eval();
}

// Exact equality of two tensors of the same dtype and shape: every integer, and every float
// bit pattern up to NaN payloads (NaN matches NaN; -0 and +0 differ).
void expect_identical(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if (is_floating(want.dtype())) {
    const auto g = got.to_vector<double>(), w = want.to_vector<double>();
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (std::isnan(w[i])) {
        ASSERT_TRUE(std::isnan(g[i])) << what << " element " << i;
        continue;
      }
      ASSERT_EQ(g[i], w[i]) << what << " element " << i;
      ASSERT_EQ(std::signbit(g[i]), std::signbit(w[i])) << what << " element " << i << " (sign of zero)";
    }
  } else if (want.dtype() == u64) {
    ASSERT_EQ(got.to_vector<uint64_t>(), want.to_vector<uint64_t>()) << what;
  } else {
    ASSERT_EQ(got.to_vector<int64_t>(), want.to_vector<int64_t>()) << what;
  }
}

// ---- scans -----------------------------------------------------------------------------------

// The relative precision of a float dtype's storage (half an ulp rounds, one ulp bounds a flip).
double eps_of(DType t) {
  switch (t) {
    case DType::f16: return 0x1p-10;
    case DType::bf16: return 0x1p-7;
    case DType::f32: return 0x1p-23;
    default: return 0x1p-52;
  }
}

// A float scan on the device against the interpreter's sequential one. Both run in f64, along
// different trees (docs/cuda.md): the sequential value of element j of a row of n is within
// (n - 1) u S_j of the exact one (u = 2^-53, S_j the running sum of |x|, or for products the
// running product of |x|), the device's within L u S_j with L = log2(256) + ceil(n / 256) + 1
// roundings on its path; so they differ by at most (n + L) u S_j, plus one ulp of the output
// type when the two f64 values round to it apart.
void expect_scan_close(const Tensor& got, const Tensor& want, const Tensor& x, int64_t axis, bool prod,
                       const std::string& what, bool initial = false) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const Tensor mag = prod ? cumulative_prod(abs(x.cast(f64)), axis, std::nullopt, initial)
                          : cumulative_sum(abs(x.cast(f64)), axis, std::nullopt, initial);
  const auto g = got.to_vector<double>(), w = want.to_vector<double>(), s = mag.to_vector<double>();
  const int64_t n = x.shape()[static_cast<std::size_t>(axis < 0 ? axis + x.ndim() : axis)];
  const double levels = static_cast<double>(n + 8 + (n + 255) / 256 + 1);
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!std::isfinite(w[i])) {  // overflowed in the output type (the f64 running value did not)
      ASSERT_TRUE(std::isnan(w[i]) ? std::isnan(g[i]) : g[i] == w[i]) << what << " element " << i;
      continue;
    }
    const double tol = eps_of(want.dtype()) * std::fabs(w[i]) + levels * 0x1p-53 * s[i];
    ASSERT_LE(std::fabs(g[i] - w[i]), tol) << what << " element " << i << ": " << g[i] << " vs " << w[i];
  }
}

void check_scans(const Tensor& x, int64_t axis, const std::string& name) {
  const bool flt = is_floating(x.dtype());
  for (bool prod : {false, true}) {
    auto f = [&](const Tensor& v) { return prod ? cumulative_prod(v, axis) : cumulative_sum(v, axis); };
    const std::string what = name + (prod ? " cumulative_prod" : " cumulative_sum");
    const Tensor want = f(x).eval(), got = on_device(f, x);
    if (flt)
      expect_scan_close(got, want, x, axis, prod, what);
    else
      expect_identical(got, want, what);
  }
}

TEST(CudaKernels, ScansOfLongRowsMatchTheInterpreter) {
  REQUIRE_GPU();
  // Rows of 700 (three chunks of a 256-thread block, the last partial), along the last axis and
  // along a strided first axis; a row of 1 block exactly; short rows (a thread per row).
  struct Case {
    Shape shape;
    int64_t axis;
  };
  for (DType t : {f32, f64, f16, bf16, i32, i64, u8, i8, u64, b8}) {
    for (const Case& c : {Case{{3, 700}, 1}, Case{{700, 2}, 0}, Case{{2, 256}, -1}, Case{{40, 20}, 1}}) {
      // Factors near 1 keep the products finite; integer products wrap (exact in any order).
      const bool flt = is_floating(t);
      const std::string name = std::string(dtype_name(t)) + " " + std::to_string(c.shape[0]) + "x" +
                               std::to_string(c.shape[1]) + " axis " + std::to_string(c.axis);
      Tensor xs = values(t, c.shape, 11 + c.shape[0], -4, 4, true);
      Tensor xp = flt ? values(t, c.shape, 13, 0.95, 1.05) : xs;
      check_scans(xs, c.axis, name);
      if (flt) {
        auto f = [&](const Tensor& v) { return cumulative_prod(v, c.axis); };
        expect_scan_close(on_device(f, xp), f(xp).eval(), xp, c.axis, true, name + " cumulative_prod near 1");
      }
    }
  }
}

TEST(CudaKernels, ScansFuseTheirInputAndReadStridedViews) {
  REQUIRE_GPU();
  Tensor x = values(f32, {600, 5}, 3);
  // A transposed view (rows of stride 5), a stepped slice, and an element-wise input fused in.
  auto f = [](const Tensor& v) { return cumulative_sum(v.T() * 2.0f + 1.0f, 1); };
  reset_stats();
  Tensor got = on_device(f, x);
  EXPECT_EQ(stats().kernels_launched, 1u) << "the element-wise input fuses into the scan kernel";
  expect_scan_close(got, f(x).eval(), x.T() * 2.0f + 1.0f, 1, false, "fused transposed");
  auto g = [](const Tensor& v) { return cumulative_sum(v.slice(0, 1, 600, 2), 0, f64, true); };
  expect_scan_close(on_device(g, x), g(x).eval(), x.slice(0, 1, 600, 2).cast(f64), 0, false, "stepped, f64",
                    true);
  // Three scans of the same rows share one kernel (rule 10): each has its own block scan, one
  // after another through one shared buffer, sized for the widest (c128) accumulator.
  Tensor xd = x.to(Device::cuda());
  Tensor a = cumulative_sum(xd, 0), b = cumulative_prod(xd * 0.01f + 1.0f, 0);
  Tensor c = cumulative_sum(complex(xd, xd * 2.0f).cast(c128), 0);
  reset_stats();
  eval({a, b, c});
  EXPECT_EQ(stats().kernels_launched, 1u);
  expect_scan_close(real(c).to(Device::cpu()), cumulative_sum(x.cast(f64), 0).eval(), x, 0, false,
                    "three scans: c128 real part");
  expect_scan_close(imag(c).to(Device::cpu()), cumulative_sum(x.cast(f64) * 2.0, 0).eval(), x * 2.0f, 0,
                    false, "three scans: c128 imaginary part");
  expect_scan_close(a.to(Device::cpu()), cumulative_sum(x, 0).eval(), x, 0, false, "two scans: sum");
  expect_scan_close(b.to(Device::cpu()), cumulative_prod(x * 0.01f + 1.0f, 0).eval(), x * 0.01f + 1.0f, 0,
                    true, "two scans: prod");
}

// ---- sort and argsort ------------------------------------------------------------------------

// Values of dtype t with many ties; floats also NaN, -0, +0 and infinities among them.
Tensor sort_values(DType t, const Shape& shape, uint64_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  Lcg g{seed};
  if (!is_floating(t)) return values(t, shape, seed, 0, 0, g.next() % 2 == 0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const uint64_t r = g.next() % 23;
    v[i] = r == 0   ? std::nan("")
           : r == 1 ? -0.0
           : r == 2 ? 0.0
           : r == 3 ? HUGE_VAL
           : r == 4 ? -HUGE_VAL
                    : std::round(g.uniform(-6, 6)) * 0.5 + (r == 5 ? 1e-3 : 0);
  }
  return tensor(v, shape).cast(t).eval();
}

TEST(CudaKernels, SortAndArgsortAreBitIdenticalToTheInterpreter) {
  REQUIRE_GPU();
  struct Case {
    Shape shape;
    int64_t axis;
    bool transposed;
  };
  reset_stats();
  for (DType t : {f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, b8}) {
    // Rows of 520 (three elements per thread), strided rows along axis 0, rows of a block's
    // size and short ones (ranked, most threads idle), rows of a transposed view.
    for (const Case& c : {Case{{2, 520}, 1, false}, Case{{300, 2}, 0, false}, Case{{2, 256}, 1, false},
                          Case{{3, 9}, -1, false}, Case{{260, 2}, 1, true}}) {
      Tensor x = sort_values(t, c.shape, 5 + c.shape[0]);
      if (c.transposed) x = x.T();
      for (bool desc : {false, true}) {
        const std::string what = std::string(dtype_name(t)) + " " + std::to_string(c.shape[0]) + "x" +
                                 std::to_string(c.shape[1]) + (c.transposed ? " transposed" : "") + " axis " +
                                 std::to_string(c.axis) + (desc ? " descending" : "");
        auto s = [&](const Tensor& v) { return sort(v, c.axis, desc); };
        auto as = [&](const Tensor& v) { return argsort(v, c.axis, desc); };
        expect_identical(on_device(s, x), s(x).eval(), "sort " + what);
        expect_identical(on_device(as, x), as(x).eval(), "argsort " + what);
      }
    }
  }
  EXPECT_EQ(stats().host_kernels, 0u) << "every sort ran on the device, none on host copies";
}

TEST(CudaKernels, SortRunsOnTheDeviceAsOneKernel) {
  REQUIRE_GPU();
  Tensor x = sort_values(f32, {4, 300}, 2).to(Device::cuda());
  reset_stats();
  Tensor y = sort(x * 2.0f, 1).eval();
  // the element-wise producer, then the sort kernel; nothing comes back to the host
  EXPECT_EQ(stats().kernels_launched, 2u);
  EXPECT_EQ(stats().host_kernels, 0u);
  EXPECT_TRUE(y.device().is_cuda());
  // A view made on the device (a transpose: rows of stride 4, and a slice: an offset) reaches the
  // sort kernel as it is, not packed by an upload.
  Tensor xc = x.to(Device::cpu()).eval();
  reset_stats();
  Tensor t = sort(x.T().slice(0, 3, 300), 0, true).eval();
  EXPECT_EQ(stats().host_kernels, 0u);
  expect_identical(t.to(Device::cpu()), sort(xc.T().slice(0, 3, 300), 0, true).eval(),
                   "sort of a device view");
  // Rows of more than 16 other dims do not fit the kernel's arguments: they sort on host copies,
  // and the counter says so.
  Shape deep(18, 1);
  deep[0] = 4;
  deep[17] = 300;
  reset_stats();
  Tensor zd = sort(x.reshape(deep), -1).eval();
  EXPECT_EQ(stats().host_kernels, 1u);
  EXPECT_TRUE(zd.device().is_cuda());
  expect_identical(zd.to(Device::cpu()).reshape({4, 300}), sort(xc, 1).eval(), "sort of 18 dims");
}

// ---- scatter_add -----------------------------------------------------------------------------

// n indices in [-len - 5, len + 5): negative ones wrap, some stay outside and add nothing; many
// repeat (several values add into one element, in increasing position).
Tensor indices(int64_t n, int64_t len, uint64_t seed) {
  Lcg g{seed};
  std::vector<int64_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<int64_t>(g.next() % static_cast<uint64_t>(2 * len + 10)) - len - 5;
  return tensor(v, {n});
}

TEST(CudaKernels, ScatterAddIsBitIdenticalToTheInterpreter) {
  REQUIRE_GPU();
  reset_stats();
  for (DType t : {f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64}) {
    const std::string name = dtype_name(t);
    // Along the last axis: 300 values into rows of 40; along axis 0: 400 values into 50 rows
    // (each line strided), src a transposed view there.
    Tensor base1 = values(t, {5, 40}, 1), src1 = values(t, {5, 300}, 2), i1 = indices(300, 40, 3);
    auto f1 = [&](const Tensor& b) { return scatter_add(b, 1, i1.to(b.device()), src1.to(b.device())); };
    expect_identical(on_device(f1, base1), f1(base1).eval(), "scatter_add axis 1 " + name);
    Tensor base0 = values(t, {50, 3}, 4), src0 = values(t, {3, 400}, 5).T(), i0 = indices(400, 50, 6);
    auto f0 = [&](const Tensor& b) { return scatter_add(b, 0, i0.to(b.device()), src0.to(b.device())); };
    expect_identical(on_device(f0, base0), f0(base0).eval(), "scatter_add axis 0 transposed src " + name);
  }
  // take_along_axis's inverse (indices of base's rank, per line), and into zeros of a shape.
  Tensor base = values(f32, {6, 30}, 7), src = values(f32, {6, 80}, 8);
  Tensor idx = values(i64, {6, 80}, 9);  // in [-9, 9]: negative ones wrap
  auto g = [&](const Tensor& b) {
    return scatter_add_along_axis(b, 1, idx.to(b.device()), src.to(b.device()));
  };
  expect_identical(on_device(g, base), g(base).eval(), "scatter_add_along_axis");
  auto z = [&](const Tensor& v) { return scatter_add(Shape{4, 9}, 0, indices(64, 4, 10).to(v.device()), v); };
  Tensor zs = values(f64, {64, 9}, 11);
  expect_identical(on_device(z, zs), z(zs).eval(), "scatter_add into zeros");
  Tensor dz = z(zs.to(Device::cuda())).eval();
  EXPECT_TRUE(dz.device().is_cuda()) << "the result stays on the device";
  // src transposed on the device (not packed by an upload), with an offset.
  Tensor sd = values(f32, {5, 300}, 12).to(Device::cuda());
  const Tensor iv = indices(300, 40, 13);
  Tensor got = scatter_add(Shape{40, 4}, 0, iv.to(Device::cuda()), sd.T().slice(1, 1, 5)).eval();
  expect_identical(got.to(Device::cpu()),
                   scatter_add(Shape{40, 4}, 0, iv, values(f32, {5, 300}, 12).T().slice(1, 1, 5)).eval(),
                   "scatter_add of a device view");
  EXPECT_EQ(stats().host_kernels, 0u) << "every scatter ran on the device, none on host copies";
}

}  // namespace
