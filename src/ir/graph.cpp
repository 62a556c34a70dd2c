// Iterative post-order depth-first walk.
#include "ir/graph.h"

#include <unordered_map>
#include <unordered_set>

namespace cgrad::ir {

std::vector<Node*> topo_order(const std::vector<Node*>& roots, bool unrealized_only) {
  std::vector<Node*> order;
  std::unordered_set<const Node*> seen;
  struct Frame {
    Node* node;
    std::size_t next;
  };
  std::vector<Frame> stack;
  for (Node* r : roots) {
    if (!r || (unrealized_only && r->realized()) || !seen.insert(r).second) continue;
    stack.push_back({r, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.node->inputs.size()) {
        Node* in = f.node->inputs[f.next++].get();
        if ((unrealized_only && in->realized()) || !seen.insert(in).second) continue;
        stack.push_back({in, 0});
      } else {
        order.push_back(f.node);
        stack.pop_back();
      }
    }
  }
  return order;
}

std::vector<Node*> topo_order_marked(const std::vector<Node*>& roots, uint64_t* epoch_out) {
  static uint64_t epoch = 0;
  const uint64_t e = ++epoch;
  std::vector<Node*> order;
  struct Frame {
    Node* node;
    std::size_t next;
  };
  std::vector<Frame> stack;
  auto visit = [&](Node* n) {
    if (n->realized() || n->walk_epoch == e) return false;
    n->walk_epoch = e;
    return true;
  };
  for (Node* r : roots) {
    if (!r || !visit(r)) continue;
    stack.push_back({r, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.node->inputs.size()) {
        Node* in = f.node->inputs[f.next++].get();
        if (visit(in)) stack.push_back({in, 0});
      } else {
        f.node->walk_index = static_cast<int64_t>(order.size());
        order.push_back(f.node);
        stack.pop_back();
      }
    }
  }
  if (epoch_out) *epoch_out = e;
  return order;
}

Subgraph make_subgraph(const std::vector<Node*>& roots) {
  Subgraph g;
  g.order = topo_order(roots, true);
  std::unordered_map<const Node*, std::size_t> pos;
  pos.reserve(g.order.size());
  for (std::size_t i = 0; i < g.order.size(); ++i) pos[g.order[i]] = i;
  g.is_output.assign(g.order.size(), 0);
  g.uses.assign(g.order.size(), 0);
  for (Node* r : roots)
    if (auto it = pos.find(r); it != pos.end()) g.is_output[it->second] = 1;
  g.in_pos.resize(g.order.size());
  for (std::size_t i = 0; i < g.order.size(); ++i) {
    for (auto& in : g.order[i]->inputs) {
      auto it = pos.find(in.get());
      int32_t p = it == pos.end() ? -1 : static_cast<int32_t>(it->second);
      g.in_pos[i].push_back(p);
      if (p >= 0) ++g.uses[static_cast<std::size_t>(p)];
    }
  }
  return g;
}

}  // namespace cgrad::ir
