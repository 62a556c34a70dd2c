// The CPU JIT backend: schedule the subgraph into fused kernels, render each to C++, compile it
// once (kernel cache in memory and on disk) and run it over the thread pool. Without a compiler
// it hands everything to the interpreter, after one warning.
#pragma once

#include "runtime/backend.h"
#include "schedule/schedule.h"

namespace cgrad::backends::cpu {

class JitBackend final : public runtime::Backend {
 public:
  const char* name() const override { return "jit"; }
  std::shared_ptr<ir::Storage> allocate(std::size_t nbytes) override;
  void run(const runtime::Subgraph& g) override;
  std::shared_ptr<runtime::Plan> run_and_plan(const runtime::Subgraph& g, const std::vector<const ir::Node*>& leaves,
                                              const std::vector<ir::Node*>& roots) override;
  void replay(const runtime::Plan& plan, const std::vector<const ir::Node*>& leaves,
              const std::vector<ir::Node*>& roots) override;
};

}  // namespace cgrad::backends::cpu
