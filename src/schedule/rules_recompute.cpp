// Rule 8 of docs/fusion.md: values several kernels use.
//
// > 8. **A value used by several kernels is recomputed in each when cheap, else Mat.** The cost is
// >    the number of ops of its fused subtree (transcendentals and random numbers count 4); above
// >    8 it is computed once. A shared value that contains a reduction is always Mat.
//
// The cost of an op is the `cost` column of the op table (src/ir/op_table.h); a user element-wise
// function (issue #23) costs what its body calls (ir::user_fn_cost), at least its row's cost.
#include "schedule/builder.h"

#include "ir/op_table.h"
#include "ir/user_fn.h"

#include <algorithm>
#include <string>

namespace cgrad::schedule::detail {

namespace {
int node_cost(const Node& n) {
  if (n.op == ir::Op::User && n.attrs.fn)
    return ir::user_fn_cost(*n.attrs.fn, static_cast<int>(n.attrs.axis));
  return ir::info(n.op).cost;
}
}  // namespace

// Fused nodes computed in several kernels: recompute when cheap, else materialize.
bool Builder::check_recompute(const std::vector<std::vector<const Node*>>& members) {
  std::unordered_map<const Node*, int> count;
  for (auto& ms : members) {
    std::vector<const Node*> uniq(ms);
    std::sort(uniq.begin(), uniq.end(), [&](const Node* a, const Node* b) { return index(a) < index(b); });
    uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
    for (const Node* n : uniq) ++count[n];
  }
  bool changed = false;
  for (std::size_t i = 0; i < g.order.size(); ++i) {
    const Node* n = g.order[i];
    auto it = count.find(n);
    if (it == count.end() || it->second < 2 || !fused(n)) continue;
    // cost of the fused subtree under n
    int cost = 0;
    bool has_reduce = false;
    std::vector<const Node*> stack{n};
    std::unordered_map<const Node*, bool> seen{{n, true}};
    while (!stack.empty() && cost <= kRecomputeCost) {
      const Node* x = stack.back();
      stack.pop_back();
      OpKind k = ir::info(x->op).kind;
      if (k == OpKind::Reduce) has_reduce = true;
      if (k != OpKind::Movement) cost += node_cost(*x);
      for (auto& in : x->inputs)
        if (fused(in.get()) && !seen[in.get()]) {
          seen[in.get()] = true;
          stack.push_back(in.get());
        }
    }
    if (has_reduce || cost > kRecomputeCost) {
      changed |= set(n, State::Mat,
                     has_reduce ? "rule 8 (shared-reduction): shared value holding a reduction: computed once"
                                : "rule 8 (shared-costly): shared value costing more than " +
                                      std::to_string(kRecomputeCost) +
                                      " ops: computed once rather than per consumer kernel");
    }
  }
  return !changed;
}

}  // namespace cgrad::schedule::detail
