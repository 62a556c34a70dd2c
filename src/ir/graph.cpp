// Iterative post-order depth-first walk.
#include "ir/graph.h"

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

}  // namespace cgrad::ir
