// The CUDA backend: the same schedule as the CPU JIT (one KernelSpec per fused kernel), rendered
// to CUDA (codegen/render_cuda), compiled by NVRTC for the device's own architecture and cached
// (module_cache), launched asynchronously on the device's one stream. GEMMs go to cuBLAS (f32,
// f64). The host waits only when it reads a value (download). Plans are replayed without
// passes, scheduling, codegen or compiles. docs/cuda.md has the whole story.
#pragma once

#include "runtime/backend.h"

#include <cstdint>
#include <string>

namespace cgrad::backends::cuda {

class CudaBackend final : public runtime::Backend {
 public:
  explicit CudaBackend(int index);
  const char* name() const override { return name_.c_str(); }
  std::shared_ptr<ir::Storage> allocate(std::size_t nbytes) override;
  void run(const runtime::Subgraph& g) override;
  std::shared_ptr<runtime::Plan> run_and_plan(const runtime::Subgraph& g, const std::vector<const ir::Node*>& leaves,
                                              const std::vector<ir::Node*>& roots) override;
  void replay(const runtime::Plan& plan, const std::vector<const ir::Node*>& leaves,
              const std::vector<ir::Node*>& roots) override;

  /// A contiguous device copy of a host value (queued on the stream).
  ir::View upload(const ir::View& host, const Shape& shape, DType t);
  /// A contiguous host copy of a device value: waits for the work that produces it.
  ir::View download(const ir::View& dev, const Shape& shape, DType t);

 private:
  int index_;
  std::string name_;
};

/// The backend of CUDA device `index` (one per device, created on first use).
CudaBackend& cuda_backend(int index);

/// CUDA graphs launched by plan replays so far (CGRAD_CUDA_GRAPHS=1), for tests.
uint64_t graph_launches();

}  // namespace cgrad::backends::cuda
