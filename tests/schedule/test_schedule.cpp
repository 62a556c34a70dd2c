// The scheduler's decisions as text, before (the IR) and after (the schedule), one test per
// rule of docs/fusion.md, like tests/passes does for the passes. The schedule text is
// schedule::to_string with the IR printer's node numbers; a change to a rule shows up here as
// a readable diff. (Kernel counts on the JIT are also asserted end to end in tests/fusion.)
#include "ir/graph.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "schedule/print.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

namespace {

using namespace cgrad;

Tensor input(Shape shape, DType t = f32) {
  return arange(core::numel(shape), f64).cast(t).reshape(std::move(shape)).eval();
}

std::vector<ir::Node*> roots_of(const std::vector<Tensor>& ts) {
  std::vector<ir::Node*> r;
  for (const Tensor& t : ts) r.push_back(t.node().get());
  return r;
}

std::string ir_of(const std::vector<Tensor>& ts) { return ir::to_string(roots_of(ts)); }

// The schedule of the pending graph of `ts` (no passes run: the text follows the IR above it).
std::string schedule_of(const std::vector<Tensor>& ts, bool staged = false) {
  const std::vector<ir::Node*> roots = roots_of(ts);
  ir::Subgraph g = ir::make_subgraph(roots);
  ir::verify(g.order);
  const schedule::Options options{.staged_reductions = staged};
  return schedule::to_string(schedule::make_schedule(g, options), g, roots);
}

// Rules 1 and 2 (docs/fusion.md).
TEST(Schedule, ElementwiseWithBroadcastIsOneKernel) {
  Tensor a = input({2, 3}), b = input({3});
  Tensor y = exp(a * b + 1.0);
  const std::vector<Tensor> ts = {y};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(2, 3) [realized]\n"
            "%1 = cast() : f32(3,) [realized]\n"
            "%2 = reshape(%1) : f32(1, 3)\n"
            "%3 = expand(%2) : f32(2, 3)\n"
            "%4 = mul(%0, %3) : f32(2, 3)\n"
            "%5 = full() {value=1} : f32(2, 3)\n"
            "%6 = add(%4, %5) : f32(2, 3)\n"
            "%7 = exp(%6) : f32(2, 3)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 1 kernels, 3 slots\n"
            "  s0 leaf f32(2, 3) +0 [3, 1] L0 %0\n"
            "  s1 leaf f32(3,) +0 [1] L1 %1\n"
            "  s2 temp f32(2, 3) +0 [3, 1] %7\n"
            "  k0 loop outer=(2, 3) inner=()\n"
            "    a0 = s0 f32 +0 [3, 1]\n"
            "    a1 = s1 f32 +0 [0, 1]\n"
            "    a2 = s2 f32 +0 [3, 1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = load a1 : f32\n"
            "    v2 = mul v0, v1 : f32\n"
            "    v3 = const 1 : f32\n"
            "    v4 = add v2, v3 : f32\n"
            "    v5 = exp v4 : f32\n"
            "    store a2 = v5\n"
            "    why: kernel for exp#5: rule 1 (output): requested output\n"
            "  %2 reshape k0: rule 2 (fuse): fused into its consumer\n"
            "  %3 expand k0: rule 2 (fuse): fused into its consumer\n"
            "  %4 mul k0: rule 2 (fuse): fused into its consumer\n"
            "  %5 full k0: rule 2 (fuse): fused into its consumer\n"
            "  %6 add k0: rule 2 (fuse): fused into its consumer\n"
            "  %7 exp k0: rule 1 (output): requested output\n"
            "  out %7 = s2\n");
}

// Rule 4 (docs/fusion.md).
TEST(Schedule, SumOfAnExpressionFusesItsPrologue) {
  Tensor a = input({4, 8}), b = input({4, 8}), c = input({8});
  Tensor y = sum(a * b + c, {1}) / 8.0;
  const std::vector<Tensor> ts = {y};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(4, 8) [realized]\n"
            "%1 = reshape() : f32(4, 8) [realized]\n"
            "%2 = mul(%0, %1) : f32(4, 8)\n"
            "%3 = cast() : f32(8,) [realized]\n"
            "%4 = reshape(%3) : f32(1, 8)\n"
            "%5 = expand(%4) : f32(4, 8)\n"
            "%6 = add(%2, %5) : f32(4, 8)\n"
            "%7 = sum(%6) {axes=[1]} : f32(4, 1)\n"
            "%8 = reshape(%7) : f32(4,)\n"
            "%9 = full() {value=8} : f32(4,)\n"
            "%10 = div(%8, %9) : f32(4,)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 1 kernels, 4 slots\n"
            "  s0 leaf f32(4, 8) +0 [8, 1] L0 %0\n"
            "  s1 leaf f32(4, 8) +0 [8, 1] L1 %1\n"
            "  s2 leaf f32(8,) +0 [1] L2 %3\n"
            "  s3 temp f32(4,) +0 [1] %10\n"
            "  k0 loop outer=(4,) inner=(8,)\n"
            "    a0 = s0 f32 +0 [8, 1]\n"
            "    a1 = s1 f32 +0 [8, 1]\n"
            "    a2 = s2 f32 +0 [0, 1]\n"
            "    a3 = s3 f32 +0 [1, 0]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = load a1 : f32\n"
            "    v2 = mul v0, v1 : f32\n"
            "    v3 = load a2 : f32\n"
            "    v4 = add v2, v3 : f32\n"
            "    v5 = acc r0 : f32\n"
            "    v6 = const 8 : f32\n"
            "    v7 = div v5, v6 : f32\n"
            "    r0 = sum v4 : f32 from f32\n"
            "    store a3 = v7\n"
            "    why: kernel for div#7: rule 1 (output): requested output\n"
            "  %2 mul k0: rule 2 (fuse): fused into its consumer\n"
            "  %4 reshape k0: rule 2 (fuse): fused into its consumer\n"
            "  %5 expand k0: rule 2 (fuse): fused into its consumer\n"
            "  %6 add k0: rule 2 (fuse): fused into its consumer\n"
            "  %7 sum k0: rule 2 (fuse): fused into its consumer\n"
            "  %8 reshape k0: rule 2 (fuse): fused into its consumer\n"
            "  %9 full k0: rule 2 (fuse): fused into its consumer\n"
            "  %10 div k0: rule 1 (output): requested output\n"
            "  out %10 = s3\n");
}

// Rules 5 and 6 (docs/fusion.md).
TEST(Schedule, SoftmaxIsTwoKernelsWithoutStaging) {
  Tensor x = input({8, 4});
  const std::vector<Tensor> ts = {softmax(x, -1)};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(8, 4) [realized]\n"
            "%1 = max(%0) {axes=[1]} : f32(8, 1)\n"
            "%2 = expand(%1) : f32(8, 4)\n"
            "%3 = sub(%0, %2) : f32(8, 4)\n"
            "%4 = exp(%3) : f32(8, 4)\n"
            "%5 = full() {value=1} : f32(8, 1)\n"
            "%6 = sum(%4) {axes=[1]} : f32(8, 1)\n"
            "%7 = div(%5, %6) : f32(8, 1)\n"
            "%8 = expand(%7) : f32(8, 4)\n"
            "%9 = mul(%4, %8) : f32(8, 4)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 2 kernels, 3 slots\n"
            "  s0 leaf f32(8, 4) +0 [4, 1] L0 %0\n"
            "  s1 temp f32(8, 1) +0 [1, 1] %1\n"
            "  s2 temp f32(8, 4) +0 [4, 1] %9\n"
            "  k0 loop outer=(8,) inner=(4,)\n"
            "    a0 = s0 f32 +0 [4, 1]\n"
            "    a1 = s1 f32 +0 [1, 0]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = acc r0 : f32\n"
            "    r0 = max v0 : f32 from f32\n"
            "    store a1 = v1\n"
            "    why: kernel for max#0: rule 6 (nested-reduction): reduction inside another reduction's inp"
            "ut\n"
            "  k1 loop outer=(8,) inner=(4,)\n"
            "    a0 = s0 f32 +0 [4, 1]\n"
            "    a1 = s1 f32 +0 [1, 0]\n"
            "    a2 = s2 f32 +0 [4, 1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = load a1 : f32\n"
            "    v2 = sub v0, v1 : f32\n"
            "    v3 = exp v2 : f32\n"
            "    v4 = const 1 : f32\n"
            "    v5 = acc r0 : f32\n"
            "    v6 = div v4, v5 : f32\n"
            "    v7 = mul v3, v6 : f32\n"
            "    r0 = sum v3 : f32 from f32\n"
            "    store a2 = v7 (per inner element)\n"
            "    why: kernel for mul#8: rule 1 (output): requested output\n"
            "  %1 max k0: rule 6 (nested-reduction): reduction inside another reduction's input\n"
            "  %2 expand k1: rule 2 (fuse): fused into its consumer\n"
            "  %3 sub k1: rule 2 (fuse): fused into its consumer\n"
            "  %4 exp k1: rule 2 (fuse): fused into its consumer\n"
            "  %5 full k1: rule 2 (fuse): fused into its consumer\n"
            "  %6 sum k1: rule 2 (fuse): fused into its consumer\n"
            "  %7 div k1: rule 2 (fuse): fused into its consumer\n"
            "  %8 expand k1: rule 2 (fuse): fused into its consumer\n"
            "  %9 mul k1: rule 1 (output): requested output\n"
            "  out %9 = s2\n");
}

// Rule 6, staged (docs/fusion.md).
TEST(Schedule, SoftmaxIsOneStagedRowKernel) {
  Tensor x = input({8, 4});
  const std::vector<Tensor> ts = {softmax(x, -1)};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(8, 4) [realized]\n"
            "%1 = max(%0) {axes=[1]} : f32(8, 1)\n"
            "%2 = expand(%1) : f32(8, 4)\n"
            "%3 = sub(%0, %2) : f32(8, 4)\n"
            "%4 = exp(%3) : f32(8, 4)\n"
            "%5 = full() {value=1} : f32(8, 1)\n"
            "%6 = sum(%4) {axes=[1]} : f32(8, 1)\n"
            "%7 = div(%5, %6) : f32(8, 1)\n"
            "%8 = expand(%7) : f32(8, 4)\n"
            "%9 = mul(%4, %8) : f32(8, 4)\n");
  EXPECT_EQ(schedule_of(ts, true),
            "schedule: 1 kernels, 2 slots\n"
            "  s0 leaf f32(8, 4) +0 [4, 1] L0 %0\n"
            "  s1 temp f32(8, 4) +0 [4, 1] %9\n"
            "  k0 loop outer=(8,) inner=(4,)\n"
            "    a0 = s0 f32 +0 [4, 1]\n"
            "    a1 = s1 f32 +0 [4, 1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = acc r0 : f32\n"
            "    v2 = sub v0, v1 : f32\n"
            "    v3 = exp v2 : f32\n"
            "    v4 = const 1 : f32\n"
            "    v5 = acc r1 : f32\n"
            "    v6 = div v4, v5 : f32\n"
            "    v7 = mul v3, v6 : f32\n"
            "    r0 = max v0 : f32 from f32\n"
            "    r1 = sum v3 : f32 from f32\n"
            "    store a1 = v7 (per inner element)\n"
            "    why: kernel for mul#8: rule 1 (output): requested output\n"
            "  %1 max k0: rule 2 (fuse): fused into its consumer\n"
            "  %2 expand k0: rule 2 (fuse): fused into its consumer\n"
            "  %3 sub k0: rule 2 (fuse): fused into its consumer\n"
            "  %4 exp k0: rule 2 (fuse): fused into its consumer\n"
            "  %5 full k0: rule 2 (fuse): fused into its consumer\n"
            "  %6 sum k0: rule 2 (fuse): fused into its consumer\n"
            "  %7 div k0: rule 2 (fuse): fused into its consumer\n"
            "  %8 expand k0: rule 2 (fuse): fused into its consumer\n"
            "  %9 mul k0: rule 1 (output): requested output\n"
            "  out %9 = s1\n");
}

// Rule 6 (docs/fusion.md).
TEST(Schedule, ReductionReadAtAnotherIndexIsMat) {
  Tensor x = input({4, 3});
  Tensor m = sum(x, {0});  // (3,), read by every row of a transposed consumer
  Tensor y = x.T() + m.reshape({3, 1});
  const std::vector<Tensor> ts = {y};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(4, 3) [realized]\n"
            "%1 = permute(%0) {perm=[1, 0]} : f32(3, 4)\n"
            "%2 = sum(%0) {axes=[0]} : f32(1, 3)\n"
            "%3 = reshape(%2) : f32(3,)\n"
            "%4 = reshape(%3) : f32(3, 1)\n"
            "%5 = expand(%4) : f32(3, 4)\n"
            "%6 = add(%1, %5) : f32(3, 4)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 2 kernels, 3 slots\n"
            "  s0 leaf f32(4, 3) +0 [3, 1] L0 %0\n"
            "  s1 temp f32(1, 3) +0 [3, 1] %2\n"
            "  s2 temp f32(3, 4) +0 [4, 1] %6\n"
            "  k0 loop outer=(3,) inner=(4,)\n"
            "    a0 = s0 f32 +0 [1, 3]\n"
            "    a1 = s1 f32 +0 [1, 0]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = acc r0 : f32\n"
            "    r0 = sum v0 : f32 from f32\n"
            "    store a1 = v1\n"
            "    why: kernel for sum#1: rule 6 (reduction-reshaped): reduction whose result is read at anot"
            "her shape\n"
            "  k1 loop outer=(3, 4) inner=()\n"
            "    a0 = s0 f32 +0 [1, 3]\n"
            "    a1 = s1 f32 +0 [1, 0]\n"
            "    a2 = s2 f32 +0 [4, 1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = load a1 : f32\n"
            "    v2 = add v0, v1 : f32\n"
            "    store a2 = v2\n"
            "    why: kernel for add#5: rule 1 (output): requested output\n"
            "  %1 permute k1: rule 2 (fuse): fused into its consumer\n"
            "  %2 sum k0: rule 6 (reduction-reshaped): reduction whose result is read at another shape\n"
            "  %3 reshape k1: rule 2 (fuse): fused into its consumer\n"
            "  %4 reshape k1: rule 2 (fuse): fused into its consumer\n"
            "  %5 expand k1: rule 2 (fuse): fused into its consumer\n"
            "  %6 add k1: rule 1 (output): requested output\n"
            "  out %6 = s2\n");
}

// Rule 7 (docs/fusion.md).
TEST(Schedule, MatmulOperandsAreInMemory) {
  Tensor a = input({2, 3}), b = input({2, 3}), c = input({3, 2});
  const std::vector<Tensor> ts = {matmul(a + b, c)};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(2, 3) [realized]\n"
            "%1 = reshape() : f32(2, 3) [realized]\n"
            "%2 = add(%0, %1) : f32(2, 3)\n"
            "%3 = reshape() : f32(3, 2) [realized]\n"
            "%4 = matmul(%2, %3) : f32(2, 2)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 2 kernels, 5 slots\n"
            "  s0 leaf f32(2, 3) +0 [3, 1] L0 %0\n"
            "  s1 leaf f32(2, 3) +0 [3, 1] L1 %1\n"
            "  s2 temp f32(2, 3) +0 [3, 1] %2\n"
            "  s3 leaf f32(3, 2) +0 [2, 1] L2 %3\n"
            "  s4 temp f32(2, 2) +0 [2, 1] %4\n"
            "  k0 loop outer=(6,) inner=()\n"
            "    a0 = s0 f32 +0 [1]\n"
            "    a1 = s1 f32 +0 [1]\n"
            "    a2 = s2 f32 +0 [1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = load a1 : f32\n"
            "    v2 = add v0, v1 : f32\n"
            "    store a2 = v2\n"
            "    why: kernel for add#0: rule 7 (library-operand): operand of GEMM/cat must be in memory\n"
            "  k1 gemm [2, 3] -> s4 matmul {}\n"
            "    why: matmul#1: rule 1 (output): requested output\n"
            "  %2 add k0: rule 7 (library-operand): operand of GEMM/cat must be in memory\n"
            "  %4 matmul k1: rule 1 (output): requested output\n"
            "  out %4 = s4\n");
}

// Rule 7 (docs/fusion.md).
TEST(Schedule, CatIsStoredPartByPart) {
  Tensor x = input({1, 4}), y = input({1, 4}), z = input({1, 4}), s = input({3, 4});
  Tensor u = s + 0.5 * cat({exp(x), y * 2.0, z + 1.0}, 0);
  const std::vector<Tensor> ts = {u};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(3, 4) [realized]\n"
            "%1 = full() {value=0.5} : f32(3, 4)\n"
            "%2 = reshape() : f32(1, 4) [realized]\n"
            "%3 = exp(%2) : f32(1, 4)\n"
            "%4 = reshape() : f32(1, 4) [realized]\n"
            "%5 = full() {value=2} : f32(1, 4)\n"
            "%6 = mul(%4, %5) : f32(1, 4)\n"
            "%7 = reshape() : f32(1, 4) [realized]\n"
            "%8 = full() {value=1} : f32(1, 4)\n"
            "%9 = add(%7, %8) : f32(1, 4)\n"
            "%10 = cat(%3, %6, %9) {dim=0} : f32(3, 4)\n"
            "%11 = mul(%1, %10) : f32(3, 4)\n"
            "%12 = add(%0, %11) : f32(3, 4)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 1 kernels, 5 slots\n"
            "  s0 leaf f32(3, 4) +0 [4, 1] L0 %0\n"
            "  s1 leaf f32(1, 4) +0 [4, 1] L1 %2\n"
            "  s2 temp f32(3, 4) +0 [4, 1] %12\n"
            "  s3 leaf f32(1, 4) +0 [4, 1] L2 %4\n"
            "  s4 leaf f32(1, 4) +0 [4, 1] L3 %7\n"
            "  k0 loop outer=(4,) inner=()\n"
            "    a0 = s0 f32 +0 [1]\n"
            "    a1 = s1 f32 +0 [1]\n"
            "    a2 = s2 f32 +0 [1]\n"
            "    a3 = s0 f32 +4 [1]\n"
            "    a4 = s3 f32 +0 [1]\n"
            "    a5 = s2 f32 +4 [1]\n"
            "    a6 = s0 f32 +8 [1]\n"
            "    a7 = s4 f32 +0 [1]\n"
            "    a8 = s2 f32 +8 [1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = const 0.5 : f32\n"
            "    v2 = load a1 : f32\n"
            "    v3 = exp v2 : f32\n"
            "    v4 = mul v1, v3 : f32\n"
            "    v5 = add v0, v4 : f32\n"
            "    v6 = load a3 : f32\n"
            "    v7 = const 0.5 : f32\n"
            "    v8 = load a4 : f32\n"
            "    v9 = const 2 : f32\n"
            "    v10 = mul v8, v9 : f32\n"
            "    v11 = mul v7, v10 : f32\n"
            "    v12 = add v6, v11 : f32\n"
            "    v13 = load a6 : f32\n"
            "    v14 = const 0.5 : f32\n"
            "    v15 = load a7 : f32\n"
            "    v16 = const 1 : f32\n"
            "    v17 = add v15, v16 : f32\n"
            "    v18 = mul v14, v17 : f32\n"
            "    v19 = add v13, v18 : f32\n"
            "    store a2 = v5\n"
            "    store a5 = v12\n"
            "    store a8 = v19\n"
            "    why: kernel for add#8: rule 1 (output): requested output\n"
            "  %1 full k0: rule 2 (fuse): fused into its consumer\n"
            "  %3 exp k0: rule 2 (fuse): fused into its consumer\n"
            "  %5 full k0: rule 2 (fuse): fused into its consumer\n"
            "  %6 mul k0: rule 2 (fuse): fused into its consumer\n"
            "  %8 full k0: rule 2 (fuse): fused into its consumer\n"
            "  %9 add k0: rule 2 (fuse): fused into its consumer\n"
            "  %10 cat k0: rule 2 (fuse): fused into its consumer\n"
            "  %11 mul k0: rule 2 (fuse): fused into its consumer\n"
            "  %12 add k0: rule 1 (output): requested output\n"
            "  out %12 = s2\n");
}

// Rule 3 (docs/fusion.md).
TEST(Schedule, ReshapeThatRegroupsIsAView) {
  Tensor a = input({2, 3}), b = input({2, 3});
  Tensor y = ((a + b).reshape({3, 2}) * 2.0);
  const std::vector<Tensor> ts = {y};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(2, 3) [realized]\n"
            "%1 = reshape() : f32(2, 3) [realized]\n"
            "%2 = add(%0, %1) : f32(2, 3)\n"
            "%3 = reshape(%2) : f32(3, 2)\n"
            "%4 = full() {value=2} : f32(3, 2)\n"
            "%5 = mul(%3, %4) : f32(3, 2)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 2 kernels, 5 slots\n"
            "  s0 leaf f32(2, 3) +0 [3, 1] L0 %0\n"
            "  s1 leaf f32(2, 3) +0 [3, 1] L1 %1\n"
            "  s2 temp f32(2, 3) +0 [3, 1] %2\n"
            "  s3 view f32(3, 2) +0 [2, 1] %3 of s2\n"
            "  s4 temp f32(3, 2) +0 [2, 1] %5\n"
            "  k0 loop outer=(6,) inner=()\n"
            "    a0 = s0 f32 +0 [1]\n"
            "    a1 = s1 f32 +0 [1]\n"
            "    a2 = s2 f32 +0 [1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = load a1 : f32\n"
            "    v2 = add v0, v1 : f32\n"
            "    store a2 = v2\n"
            "    why: kernel for add#0: rule 3 (view-input): input of a view must be in memory\n"
            "  k1 loop outer=(6,) inner=()\n"
            "    a0 = s3 f32 +0 [1]\n"
            "    a1 = s4 f32 +0 [1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = const 2 : f32\n"
            "    v2 = mul v0, v1 : f32\n"
            "    store a1 = v2\n"
            "    why: kernel for mul#3: rule 1 (output): requested output\n"
            "  %2 add k0: rule 3 (view-input): input of a view must be in memory\n"
            "  %3 reshape: rule 3 (unfoldable-reshape): reshape that index math cannot fold: a view of its "
            "materialized input\n"
            "  %4 full k1: rule 2 (fuse): fused into its consumer\n"
            "  %5 mul k1: rule 1 (output): requested output\n"
            "  out %5 = s4\n");
}

// Rule 8 (docs/fusion.md).
TEST(Schedule, SharedCheapValueIsRecomputed) {
  Tensor a = input({4, 8});
  Tensor t = a + 1.0;  // cost 1: computed again in each kernel
  const std::vector<Tensor> ts = {sum(t, {1}), t * 2.0};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(4, 8) [realized]\n"
            "%1 = full() {value=1} : f32(4, 8)\n"
            "%2 = add(%0, %1) : f32(4, 8)\n"
            "%3 = sum(%2) {axes=[1]} : f32(4, 1)\n"
            "%4 = reshape(%3) : f32(4,)\n"
            "%5 = full() {value=2} : f32(4, 8)\n"
            "%6 = mul(%2, %5) : f32(4, 8)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 2 kernels, 4 slots\n"
            "  s0 leaf f32(4, 8) +0 [8, 1] L0 %0\n"
            "  s1 temp f32(4, 1) +0 [1, 1] %3\n"
            "  s2 temp f32(4, 8) +0 [8, 1] %6\n"
            "  s3 view f32(4,) +0 [1] %4 of s1\n"
            "  k0 loop outer=(4,) inner=(8,)\n"
            "    a0 = s0 f32 +0 [8, 1]\n"
            "    a1 = s1 f32 +0 [1, 0]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = const 1 : f32\n"
            "    v2 = add v0, v1 : f32\n"
            "    v3 = acc r0 : f32\n"
            "    r0 = sum v2 : f32 from f32\n"
            "    store a1 = v3\n"
            "    why: kernel for sum#2: rule 3 (view-input): input of a view must be in memory\n"
            "  k1 loop outer=(32,) inner=()\n"
            "    a0 = s0 f32 +0 [1]\n"
            "    a1 = s2 f32 +0 [1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = const 1 : f32\n"
            "    v2 = add v0, v1 : f32\n"
            "    v3 = const 2 : f32\n"
            "    v4 = mul v2, v3 : f32\n"
            "    store a1 = v4\n"
            "    why: kernel for mul#5: rule 1 (output): requested output\n"
            "  %1 full k0: rule 2 (fuse): fused into its consumer\n"
            "  %2 add k0: rule 2 (fuse): fused into its consumer\n"
            "  %3 sum k0: rule 3 (view-input): input of a view must be in memory\n"
            "  %4 reshape: rule 1 (output): requested output\n"
            "  %5 full k1: rule 2 (fuse): fused into its consumer\n"
            "  %6 mul k1: rule 1 (output): requested output\n"
            "  out %4 = s3\n"
            "  out %6 = s2\n");
}

// Rule 8 (docs/fusion.md).
TEST(Schedule, SharedCostlyValueIsMat) {
  Tensor a = input({4, 8});
  Tensor t = exp(exp(exp(a)));  // cost 12: computed once
  const std::vector<Tensor> ts = {sum(t, {1}), t * 2.0};
  EXPECT_EQ(ir_of(ts),
            "%0 = reshape() : f32(4, 8) [realized]\n"
            "%1 = exp(%0) : f32(4, 8)\n"
            "%2 = exp(%1) : f32(4, 8)\n"
            "%3 = exp(%2) : f32(4, 8)\n"
            "%4 = sum(%3) {axes=[1]} : f32(4, 1)\n"
            "%5 = reshape(%4) : f32(4,)\n"
            "%6 = full() {value=2} : f32(4, 8)\n"
            "%7 = mul(%3, %6) : f32(4, 8)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 3 kernels, 5 slots\n"
            "  s0 leaf f32(4, 8) +0 [8, 1] L0 %0\n"
            "  s1 temp f32(4, 8) +0 [8, 1] %3\n"
            "  s2 temp f32(4, 1) +0 [1, 1] %4\n"
            "  s3 temp f32(4, 8) +0 [8, 1] %7\n"
            "  s4 view f32(4,) +0 [1] %5 of s2\n"
            "  k0 loop outer=(32,) inner=()\n"
            "    a0 = s0 f32 +0 [1]\n"
            "    a1 = s1 f32 +0 [1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = exp v0 : f32\n"
            "    v2 = exp v1 : f32\n"
            "    v3 = exp v2 : f32\n"
            "    store a1 = v3\n"
            "    why: kernel for exp#2: rule 8 (shared-costly): shared value costing more than 8 ops: compu"
            "ted once rather than per consumer kernel\n"
            "  k1 loop outer=(4,) inner=(8,)\n"
            "    a0 = s1 f32 +0 [8, 1]\n"
            "    a1 = s2 f32 +0 [1, 0]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = acc r0 : f32\n"
            "    r0 = sum v0 : f32 from f32\n"
            "    store a1 = v1\n"
            "    why: kernel for sum#3: rule 3 (view-input): input of a view must be in memory\n"
            "  k2 loop outer=(32,) inner=()\n"
            "    a0 = s1 f32 +0 [1]\n"
            "    a1 = s3 f32 +0 [1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = const 2 : f32\n"
            "    v2 = mul v0, v1 : f32\n"
            "    store a1 = v2\n"
            "    why: kernel for mul#6: rule 1 (output): requested output\n"
            "  %1 exp k0: rule 2 (fuse): fused into its consumer\n"
            "  %2 exp k0: rule 2 (fuse): fused into its consumer\n"
            "  %3 exp k0: rule 8 (shared-costly): shared value costing more than 8 ops: computed once rathe"
            "r than per consumer kernel\n"
            "  %4 sum k1: rule 3 (view-input): input of a view must be in memory\n"
            "  %5 reshape: rule 1 (output): requested output\n"
            "  %6 full k2: rule 2 (fuse): fused into its consumer\n"
            "  %7 mul k2: rule 1 (output): requested output\n"
            "  out %5 = s4\n"
            "  out %7 = s3\n");
}

// Rule 10 (docs/fusion.md).
TEST(Schedule, LooseOutputsShareOneKernel) {
  Tensor a = input({5}), b = input({5});
  const std::vector<Tensor> ts = {a + b, a * b, exp(a)};
  EXPECT_EQ(ir_of(ts),
            "%0 = cast() : f32(5,) [realized]\n"
            "%1 = cast() : f32(5,) [realized]\n"
            "%2 = add(%0, %1) : f32(5,)\n"
            "%3 = mul(%0, %1) : f32(5,)\n"
            "%4 = exp(%0) : f32(5,)\n");
  EXPECT_EQ(schedule_of(ts),
            "schedule: 1 kernels, 5 slots\n"
            "  s0 leaf f32(5,) +0 [1] L0 %0\n"
            "  s1 leaf f32(5,) +0 [1] L1 %1\n"
            "  s2 temp f32(5,) +0 [1] %2\n"
            "  s3 temp f32(5,) +0 [1] %3\n"
            "  s4 temp f32(5,) +0 [1] %4\n"
            "  k0 loop outer=(5,) inner=()\n"
            "    a0 = s0 f32 +0 [1]\n"
            "    a1 = s1 f32 +0 [1]\n"
            "    a2 = s2 f32 +0 [1]\n"
            "    a3 = s3 f32 +0 [1]\n"
            "    a4 = s4 f32 +0 [1]\n"
            "    v0 = load a0 : f32\n"
            "    v1 = load a1 : f32\n"
            "    v2 = add v0, v1 : f32\n"
            "    v3 = mul v0, v1 : f32\n"
            "    v4 = exp v0 : f32\n"
            "    store a2 = v2\n"
            "    store a3 = v3\n"
            "    store a4 = v4\n"
            "    why: kernel for add#0, mul#1, exp#2: rule 1 (output): requested output\n"
            "  %2 add k0: rule 1 (output): requested output\n"
            "  %3 mul k0: rule 10 (horizontal): requested output, launched together with the other outputs "
            "of its loop shape\n"
            "  %4 exp k0: rule 10 (horizontal): requested output, launched together with the other outputs "
            "of its loop shape\n"
            "  out %2 = s2\n"
            "  out %3 = s3\n"
            "  out %4 = s4\n");
}

// Rule 9 (docs/fusion.md): a chain of 200 element-wise ops is cut after 128 fused ops.
TEST(Schedule, LongChainsAreCut) {
  Tensor y = input({4});
  for (int i = 0; i < 200; ++i) y = i % 2 ? y * 0.5 : y + 1.0;
  const std::string text = schedule_of({y});
  EXPECT_EQ(text.substr(0, text.find('\n')), "schedule: 2 kernels, 3 slots");
  EXPECT_NE(text.find("rule 9 (max-depth): fused chain longer than 128 ops is cut"), std::string::npos);
}

}  // namespace

// A reduction walks memory in order: the full sum of a transposed view reduces its dims in the
// buffer's order, collapsed into one contiguous loop (it walked the columns, inner=(8, 4) with
// strides [1, 8]: 20x slower than sum(x) at 4096 x 4096).
TEST(Schedule, AFullReductionOfATransposeWalksTheBufferInOrder) {
  Tensor x = input({4, 8});
  const std::string s = schedule_of({sum(x.permute({1, 0})), max(x.permute({1, 0}))});
  EXPECT_NE(s.find("k0 loop outer=() inner=(32,)"), std::string::npos) << s;
  EXPECT_NE(s.find("a0 = s0 f32 +0 [1]"), std::string::npos) << s;
}
