// The CUDA backend on a device: transfers, the placement rule, the caching allocator, cuBLAS,
// the cubin cache and asynchronous execution. Each test skips (one line) without a GPU.
#include "backends/cuda/allocator.h"
#include "backends/cuda/loader.h"
#include "backends/cuda/sources.h"
#include "core/env.hpp"
#include "runtime/backend.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>
#include <cgrad/optim.hpp>

#include <cmath>
#include <functional>
#include <vector>

namespace {

using namespace cgrad;
namespace cu = cgrad::backends::cuda;

// The CUDA kernels realize() would compile for `outputs` (backends/cuda/sources.h takes nodes).
std::vector<std::string> kernel_sources(const std::vector<Tensor>& outputs) {
  std::vector<ir::NodePtr> nodes;
  for (const Tensor& t : outputs) nodes.push_back(t.node());
  return cu::kernel_sources(nodes);
}

#define REQUIRE_GPU() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: " << cu::driver_status()

std::vector<float> iota(std::size_t n, float scale = 1.0f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i % 97) - 40.0f;
  return v;
}

TEST(CudaDevice, ToAndBackKeepsValuesAndLayouts) {
  REQUIRE_GPU();
  Tensor h = tensor(iota(6 * 5), {6, 5});
  Tensor d = h.to(Device::cuda());
  EXPECT_TRUE(d.device().is_cuda());
  EXPECT_TRUE(d.is_evaluated());
  EXPECT_EQ(d.to_vector<float>(), h.to_vector<float>());
  EXPECT_EQ(d.T().to(Device::cpu()).to_vector<float>(), h.T().to_vector<float>())
      << "a view comes back contiguous";
  EXPECT_EQ(h.slice(0, 1, 5, 2).to(Device::cuda()).to_vector<float>(),
            h.slice(0, 1, 5, 2).to_vector<float>());
  EXPECT_EQ(tensor(std::vector<int64_t>{1, -2, 3}, {3}, Device::cuda()).to_vector<int64_t>(),
            (std::vector<int64_t>{1, -2, 3}));
}

TEST(CudaDevice, GradientsFlowThroughTransfers) {
  REQUIRE_GPU();
  Tensor x = tensor(std::vector<double>{0.5, -1, 2}, {3}).requires_grad(true);
  Tensor w = tensor(std::vector<double>{1, 2, 3}, {3}, Device::cuda());
  Tensor y = sum(exp(x.to(Device::cuda())) * w + x);  // explicit to() and an implicit copy of x
  y.backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_FALSE(x.grad().device().is_cuda());
  std::vector<double> g = x.grad().to_vector<double>();
  const double xv[] = {0.5, -1, 2}, wv[] = {1, 2, 3};
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(g[static_cast<std::size_t>(i)], std::exp(xv[i]) * wv[i] + 1, 1e-12);
}

TEST(CudaDevice, FusedGraphsMatchTheCpu) {
  REQUIRE_GPU();
  Tensor a = tensor(iota(4096), {64, 64}), b = tensor(iota(4096, 0.5f), {64, 64});
  Tensor da = a.to(Device::cuda()), db = b.to(Device::cuda());
  auto close = [](const std::vector<float>& x, const std::vector<float>& y) {
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], 1e-4 * (1 + std::fabs(y[i]))) << i;
  };
  reset_stats();
  Tensor y = da * db + 1.0f;
  y.eval();
  EXPECT_EQ(stats().kernels_launched, 1u);
  close(y.to_vector<float>(), (a * b + 1.0f).to_vector<float>());
  close(sum(da * db).to_vector<float>(), sum(a * b).to_vector<float>());
  close(softmax(da, -1).to_vector<float>(), softmax(a, -1).to_vector<float>());
  close(sum(da + db, {1}).to_vector<float>(), sum(a + b, {1}).to_vector<float>());
  close(matmul(da + db, da).to_vector<float>(), matmul(a + b, a).to_vector<float>());
}

// Staged row reductions (docs/fusion.md rule 6), as on the CPU: softmax, log_softmax and a
// layer norm are one row kernel each, with a block per row (long rows) or a thread per row
// (rows of at most 32); fewer than 8 rows keep the inner reduction apart (2 kernels).
TEST(CudaDevice, RowKernelsWithStagedReductionsAreOneKernel) {
  REQUIRE_GPU();
  auto layer_norm = [](const Tensor& x) {
    Tensor c = x - mean(x, {-1}, true);
    return c * rsqrt(mean(c * c, {-1}, true) + 1e-5);
  };
  for (Shape shape : {Shape{16, 300}, Shape{40, 20}, Shape{3, 700}}) {
    for (DType t : {f32, f64}) {
      manual_seed(9);
      Tensor x = (randn(shape, t) * 3.0).eval();
      Tensor dx = x.to(Device::cuda()).eval();
      const uint64_t want_kernels = shape[0] >= 8 ? 1u : 2u;
      const double tol = t == f32 ? 2e-5 : 1e-12;
      struct Case {
        const char* name;
        std::function<Tensor(const Tensor&)> f;
      };
      for (const Case& c : {Case{"softmax", [](const Tensor& v) { return softmax(v, -1); }},
                            Case{"log_softmax", [](const Tensor& v) { return log_softmax(v, -1); }},
                            Case{"layer norm", layer_norm}}) {
        reset_stats();
        Tensor y = c.f(dx).eval();
        EXPECT_EQ(stats().kernels_launched, want_kernels) << c.name << " " << shape[0] << "x" << shape[1];
        auto got = y.to_vector<double>(), want = c.f(x).to_vector<double>();
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i)
          ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << c.name << " element " << i;
      }
    }
  }
}

TEST(CudaDevice, PlacementRunsWhereTheCudaInputLivesAndCopiesCpuLeavesOnce) {
  REQUIRE_GPU();
  Tensor w = tensor(iota(256), {256});          // a CPU leaf
  Tensor x = rand({256}, f32, Device::cuda());  // on the GPU
  Tensor y = w * x;
  EXPECT_TRUE(y.device().is_cuda());
  ir::NodePtr c1 = runtime::cached_copy(w.node(), Device::cuda());
  ir::NodePtr c2 = runtime::cached_copy(w.node(), Device::cuda());
  EXPECT_EQ(c1.get(), c2.get()) << "the copy of a CPU leaf is made once and reused";
  Tensor pending = w + 1.0f;  // a pending CPU graph: evaluated on the CPU, then copied
  Tensor z = x + pending;
  EXPECT_TRUE(z.device().is_cuda());
  EXPECT_TRUE(pending.is_evaluated());
  auto xv = x.to_vector<float>(), zv = z.to_vector<float>(), wv = w.to_vector<float>();
  for (std::size_t i = 0; i < xv.size(); ++i) EXPECT_FLOAT_EQ(zv[i], xv[i] + wv[i] + 1.0f);
}

// Sets a knob of core::env for one scope.
template <class T>
struct EnvScope {
  T& knob;
  T saved;
  EnvScope(T& k, T v) : knob(k), saved(k) { knob = v; }
  ~EnvScope() { knob = saved; }
  EnvScope(const EnvScope&) = delete;
  EnvScope& operator=(const EnvScope&) = delete;
};

TEST(CudaDevice, AllocatorReusesFreedBlocksAndReportsOutOfMemory) {
  REQUIRE_GPU();
  // The result cache would keep the first value (and so its block) alive: off for this test.
  EnvScope<int64_t> no_results(core::env_mut().result_cache_bytes, 0);
  cu::device_pool_trim();
  { Tensor t = rand({1 << 20}, f32, Device::cuda()).eval(); }
  const std::size_t cached = cu::device_pool_cached_bytes();
  EXPECT_GE(cached, std::size_t(4) << 20) << "a freed block stays in the pool";
  { Tensor t = rand({1 << 20}, f32, Device::cuda()).eval(); }
  EXPECT_EQ(cu::device_pool_cached_bytes(), cached) << "the same size class is reused, not allocated again";
  try {
    cu::allocate_device(0, std::size_t(1) << 50);
    ADD_FAILURE() << "a petabyte fit";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
  }
  EXPECT_EQ(cu::device_pool_cached_bytes(), 0u) << "an out-of-memory gives the pool back first";
}

TEST(CudaDevice, KernelsCompileOncePerProcessAndAreReplayed) {
  REQUIRE_GPU();
  // New input buffers each time: the plan is replayed (the same buffers would be answered by
  // the result cache, below).
  std::vector<Tensor> xs;
  for (int i = 0; i < 6; ++i) xs.push_back(rand({1000}, f32, Device::cuda()).eval());
  (xs[0] * 3.0f - 1.0f).eval();
  reset_stats();
  std::vector<Tensor> ys;
  for (int i = 1; i < 6; ++i) ys.push_back((xs[static_cast<std::size_t>(i)] * 3.0f - 1.0f).eval());
  EXPECT_EQ(stats().kernels_compiled, 0u);
  EXPECT_EQ(stats().plan_cache_hits, 5u);
  EXPECT_EQ(stats().kernels_launched, 5u);
  for (std::size_t i = 0; i < ys.size(); ++i) {
    auto x = xs[i + 1].to_vector<float>(), y = ys[i].to_vector<float>();
    // The kernel may contract the multiply-add (docs/cuda.md: --fmad=true, as the CPU kernels):
    // either rounding is right, and near x = 1/3 they differ by many ulps of the result.
    for (std::size_t j = 0; j < x.size(); ++j) {
      const float separate = x[j] * 3.0f - 1.0f, fused = std::fma(x[j], 3.0f, -1.0f);
      ASSERT_TRUE(y[j] == separate || y[j] == fused) << y[j] << " for x = " << x[j];
    }
  }
  reset_stats();
  Tensor again = (xs[1] * 3.0f - 1.0f).eval();
  EXPECT_EQ(stats().result_cache_hits, 1u) << "the same graph on the same device buffers";
  EXPECT_EQ(stats().kernels_launched, 0u);
  EXPECT_EQ(again.to_vector<float>(), ys[0].to_vector<float>());
}

TEST(CudaDevice, MatmulF64AndBatched) {
  REQUIRE_GPU();
  std::vector<double> av(2 * 3 * 4), bv(2 * 4 * 5);
  for (std::size_t i = 0; i < av.size(); ++i) av[i] = static_cast<double>(i) * 0.25 - 3;
  for (std::size_t i = 0; i < bv.size(); ++i) bv[i] = 1.5 - static_cast<double>(i) * 0.125;
  Tensor a = tensor(av, {2, 3, 4}), b = tensor(bv, {2, 4, 5});
  auto want = matmul(a, b).to_vector<double>();
  auto got =
      matmul(a.to(Device::cuda()), b.to(Device::cuda()).transpose(1, 2).transpose(1, 2)).to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12 * (1 + std::fabs(want[i])));
}

TEST(CudaDevice, FieldMinimizersMatchTheHost) {
  // The phi^4 field of examples/field_minimize (small grid) minimized on the device by CG,
  // truncated Newton and L-BFGS: the same minimum as on the host (docs/optim.md).
  REQUIRE_GPU();
  constexpr int64_t n = 16;
  auto energy = [](const Tensor& f) {
    Tensor dx = f.slice(0, 1, n) - f.slice(0, 0, n - 1);
    Tensor dy = f.slice(1, 1, n) - f.slice(1, 0, n - 1);
    Tensor w = f * f - 1.0;
    return 0.5 * (sum(dx * dx) + sum(dy * dy)) + 0.25 * sum(w * w) - 0.01 * sum(f);
  };
  manual_seed(4);
  const Tensor start = (rand({n, n}, f64) * 0.8 + 0.1).eval();
  for (int method = 0; method < 3; ++method) {
    Tensor host = (start * 1.0).eval(), dev = start.to(Device::cuda()).eval();
    auto run = [&](Tensor& x) {
      if (method == 0)
        return optim::minimize_cg(energy, x, {.gradient_tolerance = 1e-7, .relative_energy_tolerance = 0});
      if (method == 1)
        return optim::minimize_tn(energy, x, {.gradient_tolerance = 1e-7, .relative_energy_tolerance = 0});
      return optim::minimize_lbfgs(energy, x, {.gradient_tolerance = 1e-7, .relative_energy_tolerance = 0});
    };
    optim::CGResult rh = run(host), rd = run(dev);
    EXPECT_TRUE(rd.converged) << method;
    EXPECT_TRUE(dev.device().is_cuda());
    EXPECT_NEAR(rd.energy, rh.energy, 1e-9) << method;
    std::vector<double> a = host.to_vector<double>(), b = dev.to(Device::cpu()).to_vector<double>();
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6) << method;
  }
}

// Integer matmuls run as one generated kernel on the device (int64 products and sums with
// wrap-around, cast to the result type, as the interpreter's loop), any operand layout.
TEST(CudaDevice, IntegerMatmulIsOneDeviceKernel) {
  REQUIRE_GPU();
  for (DType t : {i32, i64}) {
    std::vector<int64_t> av(2 * 3 * 5), bv(2 * 5 * 4);
    for (std::size_t i = 0; i < av.size(); ++i) av[i] = static_cast<int64_t>(i * 7919 % 23) - 11;
    for (std::size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<int64_t>(i * 104729 % 19) - 9;
    av[0] = 2000000000;  // products past 32 bits: int64 products, then the i32 cast wraps
    Tensor a = tensor(av, {2, 3, 5}).cast(t).eval(), b = tensor(bv, {2, 5, 4}).cast(t).eval();
    Tensor da = a.to(Device::cuda()).eval(), db = b.to(Device::cuda()).eval();
    EXPECT_EQ(kernel_sources({matmul(da, db)}).size(), 1u) << "a generated kernel, not the host path";
    reset_stats();
    Tensor y = matmul(da, db).eval();
    EXPECT_EQ(stats().kernels_launched, 1u);
    EXPECT_EQ(y.dtype(), t);
    EXPECT_EQ(y.to_vector<int64_t>(), matmul(a, b).to_vector<int64_t>()) << dtype_name(t);
    // transposed and sliced operands, a broadcast batch
    Tensor bt = db.transpose(1, 2).eval().transpose(1, 2), a1 = da.slice(0, 1, 2);
    EXPECT_EQ(matmul(a1, bt).to_vector<int64_t>(), matmul(a.slice(0, 1, 2), b).to_vector<int64_t>());
    EXPECT_EQ(matmul(da.slice(2, 1, 4), db.slice(1, 1, 4)).to_vector<int64_t>(),
              matmul(a.slice(2, 1, 4), b.slice(1, 1, 4)).to_vector<int64_t>());
  }
}

// GEMM operands cuBLAS cannot address (rows broadcast, or columns taken with a step) are a
// generated kernel on the device, not a round trip through the host; the sum is taken in
// double, as the interpreter's loop does.
TEST(CudaDevice, MatmulOfBroadcastOrSteppedOperandsStaysOnTheDevice) {
  REQUIRE_GPU();
  for (DType t : {f32, f64}) {
    manual_seed(5);
    Tensor a = randn({3, 6, 8}, t).eval(), b = randn({3, 8, 10}, t).eval(), row = randn({1, 8}, t).eval();
    Tensor da = a.to(Device::cuda()).eval(), db = b.to(Device::cuda()).eval(),
           drow = row.to(Device::cuda()).eval();
    struct Case {
      const char* name;
      Tensor dev, cpu;
    };
    for (const Case& c :
         {Case{"broadcast rows", matmul(drow.expand({6, 8}), db), matmul(row.expand({6, 8}), b)},
          Case{"stepped columns", matmul(da, db.slice(2, 0, 10, 2)), matmul(a, b.slice(2, 0, 10, 2))},
          Case{"stepped inner", matmul(da.slice(2, 0, 8, 2), db.slice(1, 1, 8, 2)),
               matmul(a.slice(2, 0, 8, 2), b.slice(1, 1, 8, 2))}}) {
      EXPECT_EQ(kernel_sources({c.dev}).size(), 1u) << c.name << ": a generated kernel, not the host path";
      reset_stats();
      auto got = c.dev.to_vector<double>();
      EXPECT_EQ(stats().kernels_launched, 1u) << c.name;
      auto want = c.cpu.to_vector<double>();
      ASSERT_EQ(got.size(), want.size());
      const double tol = t == f32 ? 1e-5 : 1e-12;
      for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << c.name << " element " << i;
    }
  }
}

}  // namespace
