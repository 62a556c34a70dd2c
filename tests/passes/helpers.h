// Shared by the pass tests: the printed IR of tensors, a scoped CGRAD_OPTIMIZE switch, and a
// check that a graph evaluates to the same bits with the passes on and off.
#pragma once

#include "core/env.hpp"
#include "ir/printer.h"
#include "passes/pipeline.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace cgrad::passes_test {

inline std::vector<ir::NodePtr> nodes(const std::vector<Tensor>& ts) {
  std::vector<ir::NodePtr> ns;
  for (const Tensor& t : ts) ns.push_back(t.node());
  return ns;
}

/// The pending graph of `ts`, what a single pass takes.
inline passes::PendingGraph graph_of(const std::vector<Tensor>& ts) {
  return passes::PendingGraph(nodes(ts));
}

/// The printer's text of the graphs behind `ts` (what the tests compare before and after).
inline std::string ir_of(const std::vector<Tensor>& ts) {
  std::vector<ir::Node*> roots;
  for (const Tensor& t : ts) roots.push_back(t.node().get());
  return ir::to_string(roots);
}

/// Sets core::env_mut().optimize for the scope.
struct OptimizeSetting {
  bool saved;
  explicit OptimizeSetting(bool on) : saved(core::env().optimize) { core::env_mut().optimize = on; }
  ~OptimizeSetting() { core::env_mut().optimize = saved; }
};

/// Sets core::env_mut().backend for the scope.
struct BackendSetting {
  std::string saved;
  explicit BackendSetting(const char* name) : saved(core::env().backend) { core::env_mut().backend = name; }
  ~BackendSetting() { core::env_mut().backend = saved; }
};

/// Element bytes of `t` read as f64 (exact for every dtype but i64 beyond 2^53, unused here).
inline std::vector<double> values_of(const Tensor& t) { return t.to_vector<double>(); }

/// Builds the graph twice (same seed), evaluates it with the passes on and off on the
/// reference interpreter (the oracle), and expects the same bits (NaN == NaN, -0 != +0).
inline void expect_same_values(const std::function<Tensor()>& build) {
  BackendSetting oracle("interpreter");
  std::vector<double> on, off;
  {
    OptimizeSetting s(false);
    manual_seed(1234);
    off = values_of(build());
  }
  {
    OptimizeSetting s(true);
    manual_seed(1234);
    on = values_of(build());
  }
  ASSERT_EQ(on.size(), off.size());
  for (std::size_t i = 0; i < on.size(); ++i)
    EXPECT_EQ(std::memcmp(&on[i], &off[i], sizeof(double)), 0)
        << "element " << i << ": " << on[i] << " with passes, " << off[i] << " without";
}

}  // namespace cgrad::passes_test
