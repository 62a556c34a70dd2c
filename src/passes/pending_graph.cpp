// PendingGraph: the walk that collects what the passes rewrite. Iterative post-order DFS in
// input order, like ir::topo_order (a million-node chain must not overflow the stack, and the
// order never depends on pointer values), but it keeps a handle to each node it lists.
#include "passes/flat_table.h"
#include "passes/pipeline.h"

namespace cgrad::passes {

PendingGraph::PendingGraph(const std::vector<ir::NodePtr>& outs) {
  for (auto& o : outs)
    if (o && !o->realized()) outputs.push_back(o);
  FlatTable seen(1024);  // membership only: never iterated
  auto first_visit = [&](const ir::Node* n) {
    bool inserted = false;
    seen.find_or_insert(reinterpret_cast<uintptr_t>(n), 0, inserted);
    return inserted;
  };
  struct Frame {
    ir::NodePtr node;
    std::size_t next;
  };
  std::vector<Frame> stack;
  for (auto& r : outputs) {
    if (!first_visit(r.get())) continue;
    stack.push_back({r, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.node->inputs.size()) {
        const ir::NodePtr& in = f.node->inputs[f.next++];
        if (in->realized() || !first_visit(in.get())) continue;
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
