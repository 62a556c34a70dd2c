// In-place rewrites shared by the passes (see rewrite.h for the rules they keep).
#include "passes/rewrite.h"

#include <algorithm>
#include <string>
#include <utility>

namespace cgrad::passes {

namespace {

// Depth as make_node computes it, so the pending-depth rule sees the shallower graph.
void refresh_depth(ir::Node& n) {
  int64_t d = 0;
  for (auto& in : n.inputs) d = std::max(d, in->pending_depth());
  n.set_depth(d + 1);
}

}  // namespace

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

void to_full(ir::Node& n, ir::Attrs a) {
  if (n.realized() || a.shape != n.shape || a.dtype != n.dtype)
    core::fail(ErrorCode::Internal, "passes: bad constant rewrite of node " + std::to_string(n.id));
  n.inputs.clear();
  n.op = ir::Op::Full;
  n.attrs = std::move(a);
  refresh_depth(n);
}

void to_view(ir::Node& n, ir::NodePtr x) {
  if (n.realized() || !x || x.get() == &n || x->shape != n.shape || x->dtype != n.dtype ||
      x->device != n.device)
    core::fail(ErrorCode::Internal, "passes: bad view rewrite of node " + std::to_string(n.id));
  if (n.op == ir::Op::Reshape && n.inputs.size() == 1 && n.inputs[0] == x) return;
  n.inputs.clear();
  n.op = ir::Op::Reshape;
  n.attrs = ir::Attrs{};
  n.attrs.shape = n.shape;
  n.inputs.push_back(std::move(x));
  refresh_depth(n);
}

void set_inputs(ir::Node& n, std::vector<ir::NodePtr> inputs) {
  n.inputs.clear();
  n.inputs = std::move(inputs);
  refresh_depth(n);
}

void skip_views(ir::Node& n) {
  for (auto& in : n.inputs) {
    while (is_noop_view(*in)) {
      ir::NodePtr viewed = in->inputs[0];
      in = std::move(viewed);
    }
  }
}

}  // namespace cgrad::passes
