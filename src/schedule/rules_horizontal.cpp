// Rule 10 of docs/fusion.md: requested outputs that share one kernel.
//
// > 10. **Horizontal fusion:** requested outputs that nothing else in the graph reads and that
// >     have the same loop structure are computed by one kernel (`eval({a + b, a * b, exp(a)})` is
// >     one launch reading `a` and `b` once).
//
// And its extension, join_consumed_outputs: an output read only by one element-wise kernel is
// stored by that kernel.
#include "schedule/builder.h"

#include "ir/op_table.h"

namespace cgrad::schedule::detail {

// Horizontal fusion: outputs that nothing else reads, with the same loop structure, share one
// kernel that runs at the position of the last of them. Every other loop root is a group of one.
// A node "nothing else reads" may also be read only by views that are such outputs themselves:
// `eval({M.T + 1, N.T * 2})` stores `M + 1` and `N * 2` (docs/semantics.md, "The layout of a
// result"), and `eval({x.sum(1), x.max(1)})` stores two rows of accumulators, each read only by
// its output's view (the reshape that drops the reduced dim).
void Builder::group_outputs(const std::vector<Mode>& modes, std::vector<int>& group_of,
                            std::vector<std::vector<int>>& groups) {
  const std::size_t n = g.order.size();
  std::vector<int> view_outputs(n, 0);  // uses that are views requested and read by nothing
  for (std::size_t j = 0; j < n; ++j)
    if (state[j] == State::View && g.is_output[j] && g.uses[j] == 0)
      for (int p : g.in_pos[j])
        if (p >= 0) ++view_outputs[static_cast<std::size_t>(p)];
  auto loose = [&](std::size_t i) {
    return (g.is_output[i] && g.uses[i] == 0) || (view_outputs[i] > 0 && g.uses[i] == view_outputs[i]);
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (state[i] != State::Mat || library(g.order[i])) continue;
    int target = -1;
    if (loose(i))
      for (std::size_t gi = 0; gi < groups.size() && target < 0; ++gi) {
        auto first = static_cast<std::size_t>(groups[gi][0]);
        if (loose(first) && modes[first] == modes[i]) target = static_cast<int>(gi);
      }
    if (target < 0) {
      groups.push_back({static_cast<int>(i)});
      target = static_cast<int>(groups.size()) - 1;
    } else {
      groups[static_cast<std::size_t>(target)].push_back(static_cast<int>(i));
      why[i] =
          "rule 10 (horizontal): requested output, launched together with the other outputs of its loop "
          "shape";
    }
    group_of[i] = target;
  }
}

// An output that only element-wise ops of one kernel group read (an optimizer's new moment,
// read by its new parameter) joins that group: the kernel stores it and keeps using the value
// in registers, instead of a kernel of its own whose result is loaded again.
void Builder::join_consumed_outputs(const std::vector<Mode>& modes, std::vector<int>& group_of,
                                    std::vector<std::vector<int>>& groups) {
  const std::size_t n = g.order.size();
  std::vector<std::vector<int>> users(n);
  for (std::size_t j = 0; j < n; ++j)
    for (int p : g.in_pos[j])
      if (p >= 0) users[static_cast<std::size_t>(p)].push_back(static_cast<int>(j));
  auto elementwise = [&](std::size_t j) { return ir::is_elementwise(ir::info(g.order[j]->op).kind); };
  for (std::size_t i = 0; i < n; ++i) {
    if (state[i] != State::Mat || !g.is_output[i] || g.uses[i] == 0 || modes[i].kind != Mode::Elementwise ||
        !elementwise(i) || group_of[i] < 0 || groups[static_cast<std::size_t>(group_of[i])].size() != 1)
      continue;
    int target = -1;
    bool ok = true;
    std::vector<int> stack = users[i];
    std::vector<char> seen(n, 0);
    while (ok && !stack.empty()) {
      auto j = static_cast<std::size_t>(stack.back());
      stack.pop_back();
      if (seen[j]) continue;
      seen[j] = 1;
      if (!elementwise(j))
        ok = false;
      else if (state[j] == State::Mat) {
        ok = group_of[j] >= 0 && (target < 0 || target == group_of[j]);
        target = group_of[j];
      } else if (state[j] == State::Fused) {
        for (int u : users[j]) stack.push_back(u);
      } else {
        ok = false;
      }
    }
    if (!ok || target < 0) continue;
    auto& grp = groups[static_cast<std::size_t>(target)];
    if (!(modes[static_cast<std::size_t>(grp[0])] == modes[i])) continue;
    groups[static_cast<std::size_t>(group_of[i])].clear();
    grp.insert(grp.begin(), static_cast<int>(i));
    group_of[i] = target;
    why[i] = "requested output read only by the element-wise kernel it joins: stored from registers there";
  }
}

}  // namespace cgrad::schedule::detail
