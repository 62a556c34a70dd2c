// The main() of the `gpu` tests: a test suite (tests/ops, tests/fusion) runs as usual on the CPU,
// and every subgraph it realizes afresh is also cloned twice, onto the reference interpreter and
// onto CUDA device 0 (CPU leaves copied to the device), both are evaluated and their outputs
// compared: integers and bools exactly, floats within a small relative error (the device
// reassociates sums and contracts multiply-adds; libdevice's transcendentals differ from libm by
// an ulp or two). Without a GPU it prints one skip line and succeeds at once.
#include "core/env.hpp"
#include "ir/graph.h"
#include "runtime/realize.h"

#include <cgrad/cgrad.hpp>
#include <gtest/gtest.h>

#include <cmath>
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

bool close(double got, double want, DType t) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  const double tol = t == DType::f32 ? 2e-5 : 1e-12;
  return std::fabs(got - want) <= tol * std::fmax(1.0, std::fabs(want));
}

void mirror(const ir::Subgraph& g) {
  if (g_inside) return;
  g_inside = true;
  struct Reset {
    ~Reset() { g_inside = false; }
  } reset;
  auto& env = core::env_mut();
  const std::string saved = env.backend;
  env.backend = "interpreter";
  std::vector<ir::NodePtr> ref = clone(g, Device::cpu());
  runtime::realize(ref);
  env.backend = saved;
  std::vector<ir::NodePtr> dev;
  try {
    dev = clone(g, Device::cuda());
    runtime::realize(dev);
  } catch (const Error& e) {
    ADD_FAILURE() << "the device run failed: " << e.what();
    return;
  }
  ++g_graphs;
  for (std::size_t o = 0; o < ref.size(); ++o) {
    Tensor want(ref[o]), got(dev[o]);
    const DType t = want.dtype();
    if (is_floating(t)) {
      auto w = want.to_vector<double>(), v = got.to_vector<double>();
      for (std::size_t i = 0; i < w.size(); ++i)
        if (!close(v[i], w[i], t)) {
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
  runtime::set_subgraph_hook(mirror);
  const int rc = RUN_ALL_TESTS();
  runtime::set_subgraph_hook(nullptr);
  std::printf("[ GPU      ] %zu subgraphs, %zu values compared between cuda:0 and the interpreter\n", g_graphs, g_values);
  return rc;
}
