// The CUDA renderer on the fused forms of API.md's fusion guarantees, through the internal entry
// point kernel_sources() (passes and scheduler exactly as realize runs them, nothing evaluated):
// how many kernels, of which kind, generic over sizes, and (where NVRTC loads) that each compiles.
#include "backends/cuda/device_kernels.h"
#include "backends/cuda/loader.h"
#include "backends/cuda/nvrtc_compile.h"
#include "backends/cuda/sources.h"
#include "codegen/render_cuda.h"
#include "core/env.hpp"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <string>
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

Tensor data(Shape s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
  return tensor(std::move(v), std::move(s));
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// Compiles `src` to PTX when NVRTC is there; says so once when it is not.
void expect_compiles(const std::string& src) {
  if (!cu::nvrtc()) {
    static bool said = false;
    if (!said)
      std::printf("[  SKIPPED ] NVRTC not available (%s): sources checked, not compiled\n",
                  cu::nvrtc_status().c_str());
    said = true;
    return;
  }
  EXPECT_NO_THROW(cu::nvrtc_compile(src, "test.cu", "compute_90")) << src;
}

TEST(RenderCuda, ElementwiseGraphIsOneGridStrideKernel) {
  Tensor a = data({64, 33}), b = data({64, 33}), c = data({33});
  auto src = kernel_sources({a * b + c, exp(a) - 1.0f});
  ASSERT_EQ(src.size(), 1u) << "one element-wise graph, two same-shaped outputs: one kernel";
  EXPECT_EQ(count(src[0], "extern \"C\" __global__"), 1);
  EXPECT_NE(src[0].find("gridDim.x"), std::string::npos) << "grid-stride loop";
  EXPECT_NE(src[0].find("cgrad::scalar::mul"), std::string::npos) << "arithmetic comes from scalar.hpp";
  expect_compiles(src[0]);
}

// Index group (issue #15): take(exp(x), i) * 2 is one kernel with an indirect load (exp computed
// at the gathered position); take of 16-bit floats and b8, and searchsorted's gathers, compile.
TEST(RenderCuda, TakeIsAnIndirectLoadInItsConsumer) {
  Tensor x = data({8, 33});
  Tensor i = tensor(std::vector<int64_t>{3, -1, 40, 0}, {4});
  auto src = kernel_sources({take(exp(x), i, 1) * 2.0f});
  ASSERT_EQ(src.size(), 1u);
  EXPECT_NE(src[0].find("cgrad::scalar::take"), std::string::npos);
  expect_compiles(src[0]);
  for (DType t : {DType::f16, DType::bf16, DType::b8, DType::u8, DType::f64}) {
    auto s2 =
        kernel_sources({take_along_axis(x.cast(t).T(), tensor(std::vector<int64_t>(16, -2), {2, 8}), 0)});
    ASSERT_EQ(s2.size(), 1u) << dtype_name(t);
    expect_compiles(s2[0]);
  }
  auto s3 = kernel_sources({searchsorted(data({9}), data({4, 5}), "right")});
  for (const auto& k : s3) expect_compiles(k);
}

// Scatter group (issue #15): scatter_add is a library routine (run on the host for now, like sort):
// the kernels around it (its values' producer, its consumer) render and compile, and none of them
// is the scatter itself (no atomics: the routine's order is deterministic, docs/semantics.md).
TEST(RenderCuda, ScatterAddKernelsAroundTheRoutineCompile) {
  Tensor x = data({6, 33});
  Tensor i = tensor(std::vector<int64_t>{3, -1, 40, 3, 0, 2}, {6});
  auto src = kernel_sources({scatter_add(Shape{5, 33}, 0, i, exp(x)) * 2.0f});
  ASSERT_FALSE(src.empty());
  for (const auto& k : src) {
    EXPECT_EQ(k.find("atomicAdd"), std::string::npos);
    expect_compiles(k);
  }
}

// Requested scans of one loop structure fuse into one kernel (rule 10), and their block scans share
// one shared-memory buffer: 30 of them (c128 and f32 accumulators) stay under the 48 KiB that a
// buffer each would pass (30 x 256 x 16 bytes).
TEST(RenderCuda, FusedScansShareOneSharedBuffer) {
  Tensor x = data({4, 100});
  std::vector<Tensor> outs;
  for (int i = 0; i < 30; ++i)
    outs.push_back(i % 2 ? cumulative_sum(x * static_cast<double>(i), 1)
                         : cumulative_sum(complex(x, x * static_cast<double>(i)), 1));
  auto src = kernel_sources(outs);
  ASSERT_EQ(src.size(), 1u) << "the scans of one row structure are one kernel";
  EXPECT_EQ(count(src[0], "__shared__"), 1) << src[0];
  EXPECT_NE(src[0].find("_scan_s_[4096]"), std::string::npos) << "256 c128 accumulators";
  expect_compiles(src[0]);
  if (cu::nvrtc()) {  // the cubin: ptxas checks the 48 KiB of static shared memory a block may use
    cu::NvrtcOutput out;
    EXPECT_NO_THROW(out = cu::nvrtc_compile(src[0], "test.cu", "sm_90"));
    EXPECT_FALSE(out.cubin.empty());
  }
}

// devkern group: the device kernels of sort/argsort and scatter_add (not generated from the SSA)
// compile for every dtype they take, with their entry points.
TEST(RenderCuda, SortAndScatterRowKernelsCompileForEveryDtype) {
  for (DType t : {f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, b8}) {
    const std::string sort_src = cu::row_kernel_source("sort", t);
    EXPECT_NE(sort_src.find(std::string("cg_sort_") + dtype_name(t) + "("), std::string::npos);
    EXPECT_NE(sort_src.find("cgrad::scalar::order_key"), std::string::npos) << "the interpreter's key";
    expect_compiles(sort_src);
    if (t == b8) continue;  // scatter_add takes numeric dtypes
    const std::string scatter_src = cu::row_kernel_source("scatter", t);
    EXPECT_NE(scatter_src.find(std::string("cg_scatter_") + dtype_name(t) + "_add("), std::string::npos);
    EXPECT_EQ(scatter_src.find("atomicAdd"), std::string::npos);
    expect_compiles(scatter_src);
  }
}

// Issue 17 item 10: NVRTC contracts `a * b + c` into one fma (--fmad=true, the default, as the CPU
// kernels do); with CGRAD_FP_CONTRACT=0 each product is rounded first, as in the interpreter.
TEST(RenderCuda, MultiplyAddsFollowFpContract) {
  Tensor a = data({64, 33}), b = data({64, 33}), c = data({33});
  auto src = kernel_sources({a * b + c});
  ASSERT_EQ(src.size(), 1u);
  if (!cu::nvrtc()) {
    std::printf("[  SKIPPED ] NVRTC not available (%s)\n", cu::nvrtc_status().c_str());
    return;
  }
  // CGRAD_FP_CONTRACT (docs/semantics.md): contracted by default, each product rounded when off.
  auto ptx_with = [&](bool contract) {
    core::Env& e = core::env_mut();
    const bool saved = e.fp_contract;
    e.fp_contract = contract;
    std::string ptx = cu::nvrtc_compile(src[0], "fma.cu", "compute_90").ptx;
    e.fp_contract = saved;
    return ptx;
  };
  const std::string off = ptx_with(false), on = ptx_with(true);
  EXPECT_EQ(count(off, "fma.rn.f32"), 0) << "a multiply-add was contracted";
  EXPECT_GE(count(off, "mul.rn.f32"), 1) << "the product is rounded on its own";
  EXPECT_GE(count(on, "fma.rn.f32"), 1) << "CGRAD_FP_CONTRACT=1 contracts";
}

TEST(RenderCuda, UserFunctionIsRenderedFromItsTree) {
  // issue #23: the body is re-emitted as cgrad::scalar calls inside the fused kernel, and a new
  // parameter value is a kernel argument (the same source).
  auto elu = elementwise("elu", "x > 0 ? x : a * (exp(x) - 1)", {"x"}, {"a"});
  Tensor a = data({64, 33}), b = data({64, 33}), c = data({33});
  auto src = kernel_sources({sum(elu(a * b, {1.0}) + c)});
  ASSERT_EQ(src.size(), 1u) << "sum(elu(a*b) + c): one kernel";
  EXPECT_NE(src[0].find("cgrad::scalar::exp("), std::string::npos);
  EXPECT_NE(src[0].find("cgrad::scalar::gt("), std::string::npos);
  EXPECT_EQ(src[0].find("x > 0"), std::string::npos) << "no text of the body is copied";
  EXPECT_EQ(kernel_sources({sum(elu(a * b, {0.25}) + c)}), src);
  expect_compiles(src[0]);
  auto polar = elementwise(ElementwiseDef{"polar", {"r", "t"}, {}, {"r * cos(t)", "r * sin(t)"}, {}});
  auto xy = polar.outputs({a, b});
  auto src2 = kernel_sources({xy[0], xy[1]});
  ASSERT_EQ(src2.size(), 1u) << "two outputs of one user function: one kernel";
  expect_compiles(src2[0]);
}

TEST(RenderCuda, SourceIsGenericOverSizes) {
  auto small = kernel_sources({data({8}) * data({8}) + 2.0f});
  auto large = kernel_sources({data({1000}) * data({1000}) + 3.0f});
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small, large) << "sizes and constants are kernel arguments";
}

TEST(RenderCuda, ReductionWithPrologueIsOneKernel) {
  Tensor a = data({4096}), b = data({4096});
  for (auto graph : {sum(a * b), max(a - b), sum(data({16, 300}) + data({16, 300}), {1})}) {
    auto src = kernel_sources({graph});
    ASSERT_EQ(src.size(), 1u);
    EXPECT_NE(src[0].find("_block_reduce"), std::string::npos) << "block-level combination";
    EXPECT_NE(src[0].find("__shfl_down_sync"), std::string::npos) << "warp-level combination";
    EXPECT_NE(src[0].find("partials"), std::string::npos) << "the two-stage form for few long rows";
    expect_compiles(src[0]);
  }
}

// True when `s` contains `p<digits>[x<digits>] = v<digits>;` (a store at an inner offset).
// Hand-written: std::regex trips GCC 12's -Wmaybe-uninitialized in the sanitizer build.
bool has_inner_store(const std::string& s) {
  auto digits = [&](std::size_t& i) {
    const std::size_t b = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > b;
  };
  auto lit = [&](std::size_t& i, const char* t) {
    for (; *t; ++t, ++i)
      if (i >= s.size() || s[i] != *t) return false;
    return true;
  };
  for (std::size_t p = s.find('p'); p != std::string::npos; p = s.find('p', p + 1)) {
    std::size_t i = p + 1;
    if (digits(i) && lit(i, "[x") && digits(i) && lit(i, "] = v") && digits(i) && lit(i, ";")) return true;
  }
  return false;
}

TEST(RenderCuda, SoftmaxIsOneKernelOfTwoReductionStages) {
  for (bool log : {false, true}) {
    Tensor x = data({32, 100});
    auto src = kernel_sources({log ? log_softmax(x, -1) : softmax(x, -1)});
    // One row kernel: the max stage, then the sum stage reading the max (combined over the block
    // in between), then the normalized row stored inside the inner loop (an `x<a>` offset).
    ASSERT_EQ(src.size(), 1u);
    const std::string& s = src[0];
    EXPECT_NE(s.find("_block_reduce"), std::string::npos);
    EXPECT_NE(s.find("_accumulate0("), std::string::npos);
    EXPECT_NE(s.find("_accumulate1("), std::string::npos);
    EXPECT_NE(s.find("_stages("), std::string::npos);
    EXPECT_TRUE(has_inner_store(s));
    expect_compiles(s);
  }
}

TEST(RenderCuda, MatmulOperandIsTheOnlyGeneratedKernel) {
  auto src = kernel_sources({matmul(data({8, 5}) + data({8, 5}), data({5, 3}))});
  EXPECT_EQ(src.size(), 1u) << "the element-wise operand; the GEMM is a cuBLAS call";
}

TEST(RenderCuda, CatAndCopiesAreDeviceKernels) {
  Tensor a = data({4, 6}), b = data({3, 6});
  auto fused_src = kernel_sources({cat({a, b * 2.0f}, 0)});
  ASSERT_EQ(fused_src.size(), 1u)
      << "a cat of 7 rows fuses: one kernel storing each row (docs/fusion.md rule 7)";
  expect_compiles(fused_src[0]);
  Tensor c = data({6, 6}), d = data({5, 6});
  auto cat_src = kernel_sources({cat({c, d * 2.0f}, 0)});
  EXPECT_EQ(cat_src.size(), 3u) << "d * 2, then one copy kernel per cat input (11 rows: too long to fuse)";
  for (const auto& s : cat_src) expect_compiles(s);
  auto copy_src = kernel_sources({a.T().reshape({24})});
  ASSERT_EQ(copy_src.size(), 1u) << "the transposed layout cannot be reshaped as a view: one copy";
  EXPECT_NE(copy_src[0].find("E_r2_"), std::string::npos) << "a 2-D strided read into a flat write";
  expect_compiles(copy_src[0]);
}

TEST(RenderCuda, EvaluatedTensorsGiveNoKernels) {
  Tensor t = (data({10}) * 2.0f).eval();
  EXPECT_TRUE(kernel_sources({t}).empty());
  EXPECT_TRUE(kernel_sources({t.slice(0, 2, 8)}).empty()) << "a view of an evaluated tensor";
}

TEST(RenderCuda, ArgumentBlockMatchesTheStructLayout) {
  schedule::KernelSpec k;
  k.outer = {3, 4};
  k.accesses.resize(2);
  for (auto& a : k.accesses) a.strides = {4, 1};
  k.accesses[0].offset = 7;
  k.fconsts = {0.5};
  auto w = codegen::cuda_kernel_args(k, {0x1000, 0x2000});
  // bufs[2], off[2], st[2][2], outer[2], inner[1], fc[1], ic[1]
  ASSERT_EQ(w.size(), 2u + 2 + 4 + 2 + 1 + 1 + 1);
  EXPECT_EQ(w[0], 0x1000u);
  EXPECT_EQ(w[2], 7u);
  EXPECT_EQ(w[8], 3u);
  EXPECT_EQ(w[10], 1u) << "no inner dims: one inner size of 1";
}

}  // namespace
