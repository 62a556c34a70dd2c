// In-place rewrites shared by the passes (see rewrite.h for the rules they keep).
#include "passes/rewrite.h"

#include <string>
#include <utility>

namespace cgrad::passes {

namespace {

// Depth as make_node computes it, so the pending-depth rule sees the shallower graph.
void refresh_depth(ir::Node& n) {
  int64_t d = 0;
  for (auto& in : n.inputs)
    if (!in->realized() && in->depth > d) d = in->depth;
  n.depth = d + 1;
}

void bury_inputs(ir::Node& n, Graveyard& g) {
  for (auto& in : n.inputs) g.push_back(std::move(in));
  n.inputs.clear();
}

}  // namespace

std::vector<ir::Node*> unrealized_roots(const std::vector<ir::NodePtr>& outputs) {
  std::vector<ir::Node*> roots;
  for (auto& o : outputs)
    if (o && !o->realized()) roots.push_back(o.get());
  return roots;
}

bool const_equals(const ir::Node& n, double v) {
  if (!is_const(n)) return false;
  return core::dispatch(n.dtype, [&](auto t) {
    using T = decltype(t);
    return const_value<T>(n) == static_cast<T>(v);
  });
}

bool is_noop_view(const ir::Node& n) {
  return !n.realized() && n.op == ir::Op::Reshape && n.inputs.size() == 1 && n.inputs[0]->shape == n.shape;
}

void to_full(ir::Node& n, ir::Attrs a, Graveyard& g) {
  if (n.realized() || a.shape != n.shape || a.dtype != n.dtype)
    core::fail(ErrorCode::Internal, "passes: bad constant rewrite of node " + std::to_string(n.id));
  bury_inputs(n, g);
  n.op = ir::Op::Full;
  n.attrs = std::move(a);
  refresh_depth(n);
}

void to_view(ir::Node& n, ir::NodePtr x, Graveyard& g) {
  if (n.realized() || !x || x.get() == &n || x->shape != n.shape || x->dtype != n.dtype || x->device != n.device)
    core::fail(ErrorCode::Internal, "passes: bad view rewrite of node " + std::to_string(n.id));
  if (n.op == ir::Op::Reshape && n.inputs.size() == 1 && n.inputs[0] == x) return;
  bury_inputs(n, g);
  n.op = ir::Op::Reshape;
  n.attrs = ir::Attrs{};
  n.attrs.shape = n.shape;
  n.inputs.push_back(std::move(x));
  refresh_depth(n);
}

void set_inputs(ir::Node& n, std::vector<ir::NodePtr> inputs, Graveyard& g) {
  bury_inputs(n, g);
  n.inputs = std::move(inputs);
  refresh_depth(n);
}

void skip_views(ir::Node& n, Graveyard& g) {
  for (auto& in : n.inputs) {
    while (is_noop_view(*in)) {
      ir::NodePtr viewed = in->inputs[0];
      g.push_back(std::move(in));
      in = std::move(viewed);
    }
  }
}

}  // namespace cgrad::passes
