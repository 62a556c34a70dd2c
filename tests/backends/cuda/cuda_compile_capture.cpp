// Linked into a copy of a test suite (tests/ops, tests/fusion) to make it a cuda-compile test:
// every subgraph the suite realizes afresh is also scheduled and rendered for CUDA (the realize
// hook), and when the suite ends every distinct kernel is compiled with NVRTC for compute_90
// (PTX) and a share of them for sm_90 (cubin, through ptxas). No GPU is needed. Without NVRTC the
// suite still runs and the compile prints one skip line.
#include "backends/cuda/loader.h"
#include "backends/cuda/nvrtc_compile.h"
#include "backends/cuda/sources.h"
#include "runtime/realize.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace {

namespace cu = cgrad::backends::cuda;

std::mutex g_mutex;
std::map<std::string, cgrad::codegen::CudaRendered> g_kernels;  // by symbol: deterministic order
std::size_t g_schedules = 0;

void capture(const cgrad::ir::Subgraph& g) {
  auto kernels = cu::render_subgraph(g);
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_schedules;
  for (auto& k : kernels) g_kernels.emplace(k.symbol, std::move(k));
}

// Kernels per NVRTC program: one program per kernel would spend most of the time parsing the
// scalar header again; very large programs make a failure hard to read.
constexpr std::size_t kBatch = 64;
// Every kth batch also goes through ptxas (sm_90 cubin): PTX for all, machine code for a sample.
constexpr std::size_t kCubinEvery = 4;

class CudaCompileEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { cgrad::runtime::set_subgraph_hook(capture); }
  void TearDown() override {
    cgrad::runtime::set_subgraph_hook(nullptr);
    if (!cu::nvrtc()) {
      std::printf("[  SKIPPED ] cuda-compile: %zu kernels rendered, not compiled: %s\n", g_kernels.size(),
                  cu::nvrtc_status().c_str());
      return;
    }
    EXPECT_GT(g_kernels.size(), 0u) << "the suite realized nothing: the capture hook is not called";
    auto t0 = std::chrono::steady_clock::now();
    std::vector<cgrad::codegen::CudaRendered> batch;
    std::size_t programs = 0, failures = 0, cubins = 0;
    auto flush = [&] {
      if (batch.empty()) return;
      const std::string tu = cgrad::codegen::cuda_translation_unit(batch);
      const bool cubin = programs % kCubinEvery == 0;
      try {
        auto out = cu::nvrtc_compile(tu, "cuda_compile_" + std::to_string(programs) + ".cu",
                                     cubin ? "sm_90" : "compute_90");
        EXPECT_FALSE(out.ptx.empty());
        for (const auto& k : batch)
          EXPECT_NE(out.ptx.find(k.symbol), std::string::npos) << k.symbol << " missing from the PTX";
        if (cubin) {
          EXPECT_FALSE(out.cubin.empty());
          cubins += batch.size();
        }
      } catch (const cgrad::Error& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
      ++programs;
      batch.clear();
    };
    for (auto& [symbol, k] : g_kernels) {
      batch.push_back(k);
      if (batch.size() == kBatch) flush();
    }
    flush();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "[ CUDA     ] %zu distinct kernels from %zu schedules compiled by %s in %zu programs "
        "(%zu also to sm_90 cubin), %zu failed, %.1f s\n",
        g_kernels.size(), g_schedules, cu::nvrtc_version_string().c_str(), programs, cubins, failures, s);
  }
};

const auto* const g_env = ::testing::AddGlobalTestEnvironment(new CudaCompileEnvironment);

}  // namespace
