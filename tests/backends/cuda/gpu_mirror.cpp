// The main() of the `gpu` suites: a test suite (tests/ops, tests/fusion, ...) runs as usual on the CPU,
// and every subgraph it realizes afresh is also cloned twice, onto the reference interpreter and
// onto CUDA device 0 (CPU leaves copied to the device), both are evaluated and their outputs
// compared: integers and bools exactly, floats within a small relative error that follows the
// least precise float type of the subgraph (the device reassociates sums and contracts
// multiply-adds; libdevice's transcendentals differ from libm by an ulp or two). The mirror's
// runs leave stats() and the result cache as the suite left them. Without a GPU it prints one
// skip line and succeeds at once. Built with CGRAD_GPU_GRADCHECK (gpu.gradcheck), it runs the
// finite-difference suite with its inputs on the device instead of mirroring.
#include "core/env.hpp"
#include "ir/graph.h"
#include "runtime/realize.h"
#include "runtime/stats.h"

#include <cgrad/cgrad.hpp>
#include <gtest/gtest.h>
#ifdef CGRAD_GPU_GRADCHECK
#include "gradcheck.h"
#endif

#include <atomic>
#include <cmath>
#include <iterator>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace cgrad;

thread_local bool g_inside = false;
std::size_t g_graphs = 0, g_values = 0;

// The subgraph rebuilt from its leaves on `device`: leaves are shared (CPU) or copied once
// (device); returns the clones of its outputs.
std::vector<ir::NodePtr> clone(const ir::Subgraph& g, Device device) {
  std::vector<ir::NodePtr> made(g.order.size());
  std::vector<ir::NodePtr> outs;
  for (std::size_t i = 0; i < g.order.size(); ++i) {
    const ir::Node& n = *g.order[i];
    std::vector<ir::NodePtr> ins;
    for (std::size_t j = 0; j < n.inputs.size(); ++j) {
      const int32_t pos = g.in_pos[i][j];
      if (pos >= 0) {
        ins.push_back(made[static_cast<std::size_t>(pos)]);
        continue;
      }
      const ir::NodePtr& leaf = n.inputs[j];
      ins.push_back(device.is_cuda() ? Tensor(ir::make_buffer(leaf->shape, leaf->dtype, leaf->device, leaf->value))
                                           .to(device)
                                           .node()
                                     : ir::make_buffer(leaf->shape, leaf->dtype, leaf->device, leaf->value));
    }
    made[i] = ir::make_node(n.op, std::move(ins), n.attrs, device);
    if (g.is_output[i]) outs.push_back(made[i]);
  }
  return outs;
}

// The tolerance follows the least precise float type anywhere in the subgraph, not the output's
// type: an f64 result computed from an f32 `tanhf` (libdevice: 2 ulp) carries f32 error.
double tolerance(const ir::Subgraph& g) {
  bool f32_seen = false;
  for (const ir::Node* n : g.order) {
    f32_seen = f32_seen || n->dtype == DType::f32;
    for (const ir::NodePtr& in : n->inputs) f32_seen = f32_seen || in->dtype == DType::f32;
  }
  return f32_seen ? 2e-5 : 1e-12;
}

bool close(double got, double want, double tol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol * std::fmax(1.0, std::fabs(want));
}

// The suite asserts on stats() (kernel, plan and byte counts): the mirror's own runs must not
// show there. Saved before and put back after.
struct CountersGuard {
  using Member = std::atomic<uint64_t> runtime::Counters::*;
  static constexpr Member kAll[] = {
      &runtime::Counters::kernels_launched,  &runtime::Counters::kernels_compiled, &runtime::Counters::kernel_cache_hits,
      &runtime::Counters::disk_cache_hits,   &runtime::Counters::plans_built,      &runtime::Counters::plan_cache_hits,
      &runtime::Counters::bytes_allocated,   &runtime::Counters::auto_realizes,    &runtime::Counters::bytes_in_use,
      &runtime::Counters::peak_bytes_in_use, &runtime::Counters::traces,           &runtime::Counters::result_cache_hits,
      &runtime::Counters::buffers_reused};
  uint64_t saved[std::size(kAll)];
  CountersGuard() {
    for (std::size_t i = 0; i < std::size(kAll); ++i) saved[i] = (runtime::counters().*kAll[i]).load();
  }
  ~CountersGuard() {
    for (std::size_t i = 0; i < std::size(kAll); ++i) (runtime::counters().*kAll[i]).store(saved[i]);
  }
  CountersGuard(const CountersGuard&) = delete;
  CountersGuard& operator=(const CountersGuard&) = delete;
};

void mirror(const ir::Subgraph& g) {
  if (g_inside) return;
  g_inside = true;
  struct Reset {
    ~Reset() { g_inside = false; }
  } reset;
  CountersGuard counters;
  auto& env = core::env_mut();
  // The mirror's results stay out of the result cache: they would evict the suite's entries.
  struct Knobs {
    core::Env& env;
    std::string backend = env.backend;
    int64_t result_cache_bytes = env.result_cache_bytes;
    ~Knobs() {
      env.backend = backend;
      env.result_cache_bytes = result_cache_bytes;
    }
  } knobs{env};
  env.result_cache_bytes = 0;
  env.backend = "interpreter";
  std::vector<ir::NodePtr> ref = clone(g, Device::cpu());
  runtime::realize(ref);
  env.backend = knobs.backend;
  std::vector<ir::NodePtr> dev;
  try {
    dev = clone(g, Device::cuda());
    runtime::realize(dev);
  } catch (const Error& e) {
    ADD_FAILURE() << "the device run failed: " << e.what();
    return;
  }
  ++g_graphs;
  const double tol = tolerance(g);
  for (std::size_t o = 0; o < ref.size(); ++o) {
    Tensor want(ref[o]), got(dev[o]);
    const DType t = want.dtype();
    if (is_floating(t)) {
      auto w = want.to_vector<double>(), v = got.to_vector<double>();
      for (std::size_t i = 0; i < w.size(); ++i)
        if (!close(v[i], w[i], tol)) {
          ADD_FAILURE() << "output " << o << " element " << i << " (" << dtype_name(t) << "): device " << v[i]
                        << ", interpreter " << w[i];
          break;
        }
      g_values += w.size();
    } else {
      auto w = want.to_vector<int64_t>(), v = got.to_vector<int64_t>();
      EXPECT_EQ(v, w) << "output " << o << " (" << dtype_name(t) << ")";
      g_values += w.size();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!cuda_available()) {
    std::printf("[  SKIPPED ] gpu: no usable CUDA device, the device comparison did not run\n");
    return 0;
  }
  ::testing::InitGoogleTest(&argc, argv);
#ifdef CGRAD_GPU_GRADCHECK
  // The finite-difference suite runs on the device itself: gradients and differences both.
  test::gradcheck_device() = Device::cuda();
  const int checked = RUN_ALL_TESTS();
  std::printf("[ GPU      ] the finite-difference checks ran on cuda:0\n");
  return checked;
#endif
  runtime::set_subgraph_hook(mirror);
  const int rc = RUN_ALL_TESTS();
  runtime::set_subgraph_hook(nullptr);
  std::printf("[ GPU      ] %zu subgraphs, %zu values compared between cuda:0 and the interpreter\n", g_graphs, g_values);
  return rc;
}
