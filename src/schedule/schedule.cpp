// The fusing scheduler's driver (see schedule.h for the states, docs/fusion.md for the rules and
// builder.h for the file of each rule and why the loop below always ends).
//
// Invariants of the result: every Mat node is the store of exactly one kernel; kernels are in
// an order where each reads only slots written by earlier kernels or leaves; a Fused node never
// holds a reduction that runs once per element of its consumer (such a reduction is either an
// inner reduction of the kernel, run once per outer element, or Mat).
#include "schedule/builder.h"

#include "ir/op_table.h"

namespace cgrad::schedule {

namespace detail {

bool Builder::set(const Node* n, State s, const std::string& reason) {
  int i = index(n);
  if (i < 0) return false;
  State& now = state[static_cast<std::size_t>(i)];
  // Only steps up: Fused -> anything, Mat -> View (a movement op whose input is in memory).
  // Const is already in memory. So no state is ever visited twice.
  if (now == s || !(now == State::Fused || (now == State::Mat && s == State::View))) return false;
  now = s;
  why[static_cast<std::size_t>(i)] = reason;
  return true;
}

std::shared_ptr<Node> proto_of(const Node& n) {
  auto p = std::make_shared<Node>();
  p->op = n.op;
  p->dtype = n.dtype;
  p->device = n.device;
  p->shape = n.shape;
  p->attrs = n.attrs;
  for (auto& in : n.inputs) {
    auto ph = std::make_shared<Node>();
    ph->dtype = in->dtype;
    ph->device = in->device;
    ph->shape = in->shape;
    p->inputs.push_back(std::move(ph));
  }
  return p;
}

// One try at building every kernel from the current states. False when a rule moved a node
// (the caller tries again); the order of the steps is the order the rules apply in.
bool Builder::attempt() {
  out = Schedule{};
  slot_of.clear();
  const std::size_t n = g.order.size();
  // Rules 4-6 (and 7 for cats): the loop structure of each kernel root.
  std::vector<Mode> modes(n);
  bool changed = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (state[i] != State::Mat || library(g.order[i])) continue;
    if (!mode_of(g.order[i], modes[i])) return false;
    changed |= demote_unstorable_cat(i, modes[i]);
  }
  if (changed) return false;
  // Rule 10: which roots share a kernel.
  std::vector<int> group_of(n, -1);
  std::vector<std::vector<int>> groups;
  group_outputs(modes, group_of, groups);
  join_consumed_outputs(modes, group_of, groups);
  // Lower each group at the position of its last root; library nodes at their own (rule 7).
  std::vector<std::vector<const Node*>> members;
  out.kernel_of.assign(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    if (state[i] != State::Mat) continue;
    if (library(g.order[i])) {
      library_kernel(i, members);
      continue;
    }
    const auto& grp = groups[static_cast<std::size_t>(group_of[i])];
    if (grp.back() != static_cast<int>(i)) continue;  // the group runs at its last member
    std::vector<const Node*> roots;
    for (int r : grp) roots.push_back(g.order[static_cast<std::size_t>(r)]);
    if (!lower(roots, modes[i], members)) return false;
    for (const Node* m : members.back()) {
      int p = index(m);
      if (p >= 0 && out.kernel_of[static_cast<std::size_t>(p)] < 0)
        out.kernel_of[static_cast<std::size_t>(p)] = static_cast<int>(out.kernels.size()) - 1;
    }
    for (int r : grp) out.kernel_of[static_cast<std::size_t>(r)] = static_cast<int>(out.kernels.size()) - 1;
  }
  // Rule 8: values computed by several kernels.
  if (!check_recompute(members)) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (g.is_output[i]) out.outputs.emplace_back(g.order[i], slot(g.order[i]));
  out.reasons = why;
  return true;
}

}  // namespace detail

Schedule make_schedule(const ir::Subgraph& g, const Options& options) {
  detail::Builder b(g, options);
  b.initial_states();  // rules 1, 2, 3, 7 (library ops), 9
  // Every failed attempt moved a node one step up (builder.h): at most 2n of them fail.
  while (!b.attempt()) b.propagate_views();
  for (auto& k : b.out.kernels)
    if (k.kind == KernelSpec::Kind::Loop) {
      detail::order_reduced(k);
      detail::collapse(k);
    }
  return std::move(b.out);
}

}  // namespace cgrad::schedule
