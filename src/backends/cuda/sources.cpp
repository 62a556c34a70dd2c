// CUDA source of schedules without running them (see sources.h): runtime::lower() for the CUDA
// target, the same function realize() lowers with, so these are the kernels the backend compiles.
#include "backends/cuda/sources.h"

#include "runtime/lower.h"

namespace cgrad::backends::cuda {

namespace {

const runtime::Target kCuda{runtime::Target::Kind::Cuda, "cuda"};

std::vector<codegen::CudaRendered> rendered(const runtime::Program& p) {
  std::vector<codegen::CudaRendered> out;
  for (const runtime::KernelCode& c : p.code)
    if (!c.symbol.empty()) out.push_back({c.source, c.symbol, c.has_reductions, c.acc_bytes, c.whole_rows});
  return out;
}

}  // namespace

std::vector<codegen::CudaRendered> render_subgraph(const ir::Subgraph& g) {
  std::vector<ir::Node*> roots;
  for (std::size_t i = 0; i < g.order.size(); ++i)
    if (g.is_output[i]) roots.push_back(g.order[i]);
  return rendered(runtime::lower(g, roots, kCuda));
}

std::vector<std::string> kernel_sources(const std::vector<ir::NodePtr>& outputs) {
  bool pending = false;
  for (const auto& o : outputs) pending = pending || !o->realized();
  if (!pending) return {};
  std::vector<std::string> out;
  for (const auto& r : rendered(runtime::lower(outputs, kCuda)))
    out.push_back(codegen::cuda_translation_unit({r}));
  return out;
}

}  // namespace cgrad::backends::cuda
