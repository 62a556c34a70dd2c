// The CPU JIT backend: compiles the C++ of a lowered Program (runtime/lower.h: fused kernels from
// the scheduler and codegen) once (kernel cache in memory and on disk) and runs it over the
// thread pool. Without a compiler it asks lower() for the interpreter's target, after one warning.
#pragma once

#include "runtime/backend.h"

namespace cgrad::backends::cpu {

class JitBackend final : public runtime::Backend {
 public:
  const char* name() const override { return "jit"; }
  std::shared_ptr<ir::Storage> allocate(std::size_t nbytes) override;
  runtime::Target target() const override;
  std::shared_ptr<runtime::Plan> run(runtime::Program& p) override;
  void replay(const runtime::Plan& plan, const std::vector<const ir::Node*>& leaves,
              const std::vector<ir::Node*>& roots) override;
};

}  // namespace cgrad::backends::cpu
