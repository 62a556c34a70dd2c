// PendingGraph: what the passes rewrite. The walk is ir::topo_order_marked (iterative, in
// input order, no hash sets); the handles come from the consumers' input lists, found through
// the walk's marks, so the graph keeps every listed node alive while passes rewire it.
#include "ir/graph.h"
#include "passes/pipeline.h"

namespace cgrad::passes {

PendingGraph::PendingGraph(const std::vector<ir::NodePtr>& outs) {
  for (auto& o : outs)
    if (o && !o->realized()) outputs.push_back(o);
  uint64_t epoch = 0;
  const std::vector<ir::Node*> walk = ir::topo_order_marked(roots(), &epoch);
  order.resize(walk.size());
  auto keep = [&](const ir::NodePtr& n) {
    if (n->realized() || n->walk_epoch != epoch) return;
    ir::NodePtr& slot = order[static_cast<std::size_t>(n->walk_index)];
    if (!slot) slot = n;
  };
  for (auto& o : outputs) keep(o);
  for (ir::Node* n : walk)
    for (auto& in : n->inputs) keep(in);
}

std::vector<ir::Node*> PendingGraph::roots() const {
  std::vector<ir::Node*> r;
  for (auto& o : outputs) r.push_back(o.get());
  return r;
}

}  // namespace cgrad::passes
