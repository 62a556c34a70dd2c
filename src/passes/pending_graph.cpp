// PendingGraph: the walk that collects what the passes rewrite. Iterative post-order DFS in
// input order, like ir::topo_order (a million-node chain must not overflow the stack, and the
// order never depends on pointer values), but it keeps a handle to each node it lists.
#include "passes/pipeline.h"

#include <unordered_set>

namespace cgrad::passes {

PendingGraph::PendingGraph(const std::vector<ir::NodePtr>& outs) {
  for (auto& o : outs)
    if (o && !o->realized()) outputs.push_back(o);
  std::unordered_set<const ir::Node*> seen;
  struct Frame {
    ir::NodePtr node;
    std::size_t next;
  };
  std::vector<Frame> stack;
  for (auto& r : outputs) {
    if (!seen.insert(r.get()).second) continue;
    stack.push_back({r, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.node->inputs.size()) {
        const ir::NodePtr& in = f.node->inputs[f.next++];
        if (in->realized() || !seen.insert(in.get()).second) continue;
        stack.push_back({in, 0});  // may reallocate: `f` is not used after this
      } else {
        order.push_back(std::move(f.node));
        stack.pop_back();
      }
    }
  }
}

std::vector<ir::Node*> PendingGraph::roots() const {
  std::vector<ir::Node*> r;
  for (auto& o : outputs) r.push_back(o.get());
  return r;
}

}  // namespace cgrad::passes
