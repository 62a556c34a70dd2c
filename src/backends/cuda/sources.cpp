// CUDA source of schedules without running them (see sources.h).
#include "backends/cuda/sources.h"

#include "ir/verify.h"
#include "passes/pipeline.h"

namespace cgrad::backends::cuda {

std::vector<codegen::CudaRendered> render_schedule(schedule::Schedule& s) {
  std::vector<codegen::CudaRendered> out(s.kernels.size());
  for (std::size_t i = 0; i < s.kernels.size(); ++i) {
    if (s.kernels[i].kind != schedule::KernelSpec::Kind::Loop) continue;
    codegen::normalize(s.kernels[i]);
    out[i] = codegen::render_cuda(s.kernels[i]);
  }
  return out;
}

std::vector<codegen::CudaRendered> render_subgraph(const ir::Subgraph& g) {
  schedule::Schedule s = schedule::make_schedule(g);
  if (s.interpret) return {};
  std::vector<codegen::CudaRendered> out;
  for (auto& r : render_schedule(s))
    if (!r.symbol.empty()) out.push_back(std::move(r));
  return out;
}

std::vector<std::string> kernel_sources(const std::vector<Tensor>& outputs) {
  std::vector<ir::NodePtr> nodes;
  std::vector<ir::Node*> roots;
  for (const Tensor& t : outputs) {
    nodes.push_back(t.node());
    if (!t.node()->realized()) roots.push_back(t.node().get());
  }
  if (roots.empty()) return {};
  passes::optimize(nodes);
  ir::Subgraph g = ir::make_subgraph(roots);
  ir::verify(g.order);
  std::vector<std::string> out;
  for (const auto& r : render_subgraph(g)) out.push_back(codegen::cuda_translation_unit({r}));
  return out;
}

}  // namespace cgrad::backends::cuda
