// Golden kernels: the generated CPU (JIT) and CUDA source of a dozen graphs, compared on every
// test run with the files next to this one (tests/golden/<graph>.cpu.txt, .cuda.txt). A change
// to the scheduler, codegen or templates that alters a kernel shows up as a failing test with
// the first differing line; when the change is intended, tools/refresh_golden.sh rewrites the
// files (CGRAD_GOLDEN_UPDATE=1) and the diff is reviewed with the commit. No compiler or GPU is
// needed: only the source text is compared. docs/fusion.md ("Changing the scheduler") describes
// the workflow.
#include "backends/cuda/sources.h"
#include "codegen/kernel_parts.h"
#include "codegen/render_cpu.h"
#include "ir/graph.h"
#include "ir/verify.h"
#include "passes/pipeline.h"
#include "schedule/schedule.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

namespace {

using namespace cgrad;

Tensor input(Shape shape, DType t = f32) {
  return (arange(core::numel(shape), f64) * 0.01).cast(t).reshape(std::move(shape)).eval();
}

// Both files of one graph: every kernel the backend would generate, in schedule order, each
// after a header line; library kernels (GEMM, copies) are named, having no source.
struct Sources {
  std::string cpu, cuda;
};

// Calls f(subgraph, schedule) with the schedule realize() would make for `outputs`.
template <class F>
void with_schedule(const std::vector<Tensor>& outputs, F f) {
  std::vector<ir::NodePtr> nodes;
  std::vector<ir::Node*> roots;
  for (const Tensor& t : outputs) {
    nodes.push_back(t.node());
    roots.push_back(t.node().get());
  }
  passes::optimize(nodes);  // as realize() does
  ir::Subgraph g = ir::make_subgraph(roots);
  ir::verify(g.order);
  schedule::Schedule s = schedule::make_schedule(g, schedule::Options{.staged_reductions = true});
  f(g, s);
}

Sources sources_of(ir::Subgraph& g, schedule::Schedule& s) {
  Sources out;
  std::ostringstream cpu;
  for (std::size_t i = 0; i < s.kernels.size(); ++i) {
    schedule::KernelSpec& k = s.kernels[i];
    if (k.kind != schedule::KernelSpec::Kind::Loop) {
      cpu << "// ---- kernel " << i << ": library routine ("
          << ir::op_name(k.proto ? k.proto->op : ir::Op::Reshape) << ")\n";
      continue;
    }
    codegen::normalize(k);
    codegen::Rendered r = codegen::render_cpu(k);
    cpu << "// ---- kernel " << i << ": " << r.symbol << "\n" << r.source;
  }
  out.cpu = cpu.str();
  std::ostringstream cuda;
  for (const auto& r : backends::cuda::render_subgraph(g))
    cuda << "// ---- kernel " << r.symbol << "\n" << r.source;
  out.cuda = cuda.str();
  return out;
}

Sources sources_of(const std::vector<Tensor>& outputs) {
  Sources out;
  with_schedule(outputs, [&](ir::Subgraph& g, schedule::Schedule& s) { out = sources_of(g, s); });
  return out;
}

// Compares `got` with the golden file, or rewrites the file under CGRAD_GOLDEN_UPDATE=1.
void check(const std::string& file, const std::string& got) {
  const std::string path = std::string(CGRAD_GOLDEN_DIR) + "/" + file;
  const char* update = std::getenv("CGRAD_GOLDEN_UPDATE");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << got;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing: run tools/refresh_golden.sh";
  std::stringstream want;
  want << in.rdbuf();
  if (want.str() == got) return;
  std::istringstream a(want.str()), b(got);
  std::string la, lb;
  int line = 1;
  while (true) {
    const bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) break;
    if (!ha || !hb || la != lb) {
      ADD_FAILURE() << path << " differs at line " << line << ":\n  golden: " << (ha ? la : "(end of file)")
                    << "\n  now:    " << (hb ? lb : "(end of output)")
                    << "\nIf the change is intended, run tools/refresh_golden.sh and review the diff.";
      return;
    }
    ++line;
  }
}

void golden(const std::string& name, const std::function<std::vector<Tensor>()>& build) {
  manual_seed(7);
  const Sources s = sources_of(build());
  EXPECT_FALSE(s.cpu.empty());
  check(name + ".cpu.txt", s.cpu);
  check(name + ".cuda.txt", s.cuda);
}

TEST(Golden, SumOfMulAdd) {
  golden("sum_mul_add", [] {
    Tensor a = input({64, 32}), b = input({64, 32}), c = input({64, 32});
    return std::vector<Tensor>{sum(a * b + c)};
  });
}

TEST(Golden, Softmax) {
  golden("softmax", [] { return std::vector<Tensor>{softmax(input({16, 64}), -1)}; });
}

TEST(Golden, LogSoftmaxF64) {
  golden("log_softmax_f64", [] { return std::vector<Tensor>{log_softmax(input({16, 64}, f64), -1)}; });
}

TEST(Golden, LayerNorm) {
  golden("layernorm", [] {
    Tensor x = input({16, 64}), w = input({64}), b = input({64});
    Tensor mu = mean(x, {1}, true);
    Tensor d = x - mu;
    Tensor var = mean(d * d, {1}, true);
    return std::vector<Tensor>{d * rsqrt(var + 1e-5) * w + b};
  });
}

TEST(Golden, FusedCat) {
  golden("fused_cat", [] {
    Tensor x = input({1, 256}), y = input({1, 256}), z = input({1, 256}), s = input({3, 256});
    Tensor u = s + 0.1 * cat({y - x, x * (2.0 - z), x * y - z}, 0);
    return std::vector<Tensor>{u, u.slice(0, 0, 1)};
  });
}

TEST(Golden, AdamStep) {
  golden("adam_step", [] {
    Tensor p = input({256}), g = input({256}), m = input({256}), v = input({256});
    const double b1 = 0.9, b2 = 0.999, lr = 1e-3, eps = 1e-8, t = 3;
    Tensor m2 = b1 * m + (1 - b1) * g;
    Tensor v2 = b2 * v + (1 - b2) * g * g;
    Tensor mhat = m2 / (1 - std::pow(b1, t)), vhat = v2 / (1 - std::pow(b2, t));
    return std::vector<Tensor>{p - lr * mhat / (sqrt(vhat) + eps), m2, v2};
  });
}

TEST(Golden, BroadcastChain) {
  golden("broadcast_chain", [] {
    Tensor a = input({8, 1}), b = input({1, 16}), c = input({16}), d = input({8, 16});
    return std::vector<Tensor>{tanh((a + b) * c - d) + exp(-a)};
  });
}

TEST(Golden, TransposedOperand) {
  golden("transposed_operand", [] {
    Tensor x = input({32, 16}), y = input({16, 32});
    return std::vector<Tensor>{x.T() * 2.0 + y};
  });
}

TEST(Golden, ColumnMean) {
  golden("column_mean", [] { return std::vector<Tensor>{mean(input({64, 16}), {0})}; });
}

TEST(Golden, MatmulBiasRelu) {
  golden("matmul_bias_relu", [] {
    Tensor a = input({8, 16}), w = input({16, 4}), bias = input({4});
    return std::vector<Tensor>{relu(matmul(a, w) + bias)};
  });
}

TEST(Golden, WhereAndCasts) {
  golden("where_casts", [] {
    Tensor x = input({128}), k = arange(128, i32);
    return std::vector<Tensor>{where(x > 0.5, x, 0.1 * x) + (k > 64).cast(f32) * k.cast(f32)};
  });
}

TEST(Golden, RandomAndArange) {
  golden("rand_arange", [] { return std::vector<Tensor>{rand({1024}) * arange(1024, f32) + randn({1024})}; });
}

TEST(Golden, MaxAbsDifference) {
  golden("max_abs_diff", [] {
    Tensor a = input({32, 32}, f64), b = input({32, 32}, f64).T();
    return std::vector<Tensor>{max(abs(a - b)), min(a, {1})};
  });
}

// A scan fused with its producer (render_cpu_scan; CUDA: one thread per row).
TEST(Golden, CumulativeSumOfAffine) {
  golden("cumsum_affine", [] { return std::vector<Tensor>{cumulative_sum(input({16, 64}) * 2.0 + 1.0, 1)}; });
}

// An element-wise kernel with a short dim 0 that most values ignore (the lead-dim form).
TEST(Golden, LeadDim) {
  golden("lead_dim", [] {
    Tensor w = input({256}), x = input({3, 256});
    return std::vector<Tensor>{x * exp(w) + sin(w) * cos(w)};
  });
}

// The CPU kernels of the schedule realize() would make for `outputs`.
std::vector<codegen::Rendered> cpu_kernels(const std::vector<Tensor>& outputs) {
  std::vector<codegen::Rendered> kernels;
  with_schedule(outputs, [&](ir::Subgraph&, schedule::Schedule& s) {
    for (schedule::KernelSpec& k : s.kernels)
      if (k.kind == schedule::KernelSpec::Kind::Loop) {
        codegen::normalize(k);
        kernels.push_back(codegen::render_cpu(k));
      }
  });
  EXPECT_FALSE(kernels.empty());
  return kernels;
}

// The CPU unit of a graph includes scalar.hpp's lean part (CGRAD_SCALAR_LEAN) when its kernels
// call only the helpers the header lists for it and hold no complex value (render_cpu.cpp); the op
// sweeps compile every op and dtype through both kinds of unit.
bool lean_unit(const std::vector<Tensor>& outputs) {
  return codegen::translation_unit(cpu_kernels(outputs)).find("#define CGRAD_SCALAR_LEAN 1\n") !=
         std::string::npos;
}

TEST(Golden, LeanUnits) {
  Tensor a = input({64, 32}), b = input({64, 32});
  EXPECT_TRUE(lean_unit({a * b + 1.0}));
  EXPECT_TRUE(lean_unit({sum(exp(a) - b, {1}), max(abs(a.cast(f64)), {0})}));
  EXPECT_TRUE(lean_unit({where(a > b, a.cast(f16), b.cast(f16))}));
  EXPECT_TRUE(lean_unit({cumulative_sum(a * 2.0, 1)}));
  EXPECT_FALSE(lean_unit({sin(a) * b}));
  EXPECT_FALSE(lean_unit({exp(a) + pow(a, b)}));
  EXPECT_FALSE(lean_unit({a.cast(f64) * 2.0, atan2(a, b)}));
  EXPECT_FALSE(lean_unit({a.cast(c64) * b.cast(c64)}));
}

// An element-wise loop over an access whose stride is known only at run time (a column of a
// matrix) is vectorized only while the stride is under 32 bytes (render_cpu_elementwise.cpp); a
// contiguous one, and the bands of a transposed operand, always.
TEST(Golden, StridedLoopsVectorizeOnlyForShortStrides) {
  Tensor x = input({64, 16});
  const std::vector<codegen::Rendered> column = cpu_kernels({x.slice(1, 3, 4) + 1.0});
  EXPECT_NE(column.front().source.find("#pragma omp simd if(simd: s0 > -8 && s0 < 8)"), std::string::npos)
      << column.front().source;
  const std::vector<codegen::Rendered> dense = cpu_kernels({x + 1.0});
  EXPECT_EQ(dense.front().source.find("if(simd:"), std::string::npos);
  EXPECT_NE(dense.front().source.find("#pragma omp simd\n"), std::string::npos);
}

// A reduction whose rows are shorter than codegen::kCpuSplitRowsFrom never has a row split into
// chunks, so its chunk functions stay static (compiled only into the entry, if used there); rows
// from that length on export them for the thread pool (render_cpu_reduce.cpp).
TEST(Golden, ChunkFunctionsOnlyForRowsThatSplit) {
  auto chunked = [](const Shape& shape) {
    const std::vector<codegen::Rendered> ks = cpu_kernels({sum(input(shape) * 2.0, {1})});
    EXPECT_EQ(ks.size(), 1u);
    const codegen::Rendered& k = ks.front();
    const bool exported = k.source.find("CGRAD_EXPORT void " + k.symbol + "_part(") != std::string::npos;
    EXPECT_EQ(exported, !k.whole_rows) << k.source;
    EXPECT_EQ(k.source.find("CGRAD_KERNEL_HELPER void " + k.symbol + "_part(") != std::string::npos,
              k.whole_rows);
    return exported;
  };
  EXPECT_FALSE(chunked({4, 1000}));
  EXPECT_FALSE(chunked({2, codegen::kCpuSplitRowsFrom - 1}));
  EXPECT_TRUE(chunked({2, codegen::kCpuSplitRowsFrom}));
}

}  // namespace
