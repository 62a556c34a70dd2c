// What every pass uses to change the graph safely. Nodes are shared (user handles hold them,
// graphs of other pending tensors reach them), so a pass changes a node only in ways that
// keep its value, shape, dtype and device: it turns the node into a constant (`to_full`),
// into a zero-cost view of an equal node (`to_view`: a reshape to its own shape, which the
// backends turn into a view, no kernel), or rewires its inputs to equal nodes (`skip_views`).
// Every rewrite points a node only at nodes before it in topological order, so the order a
// PendingGraph computed once stays valid for every pass of the pipeline.
#pragma once

#include "core/dtype.hpp"
#include "ir/node.h"

#include <vector>

namespace cgrad::passes {

/// An unrealized Full: a constant whose value the attributes hold. Realized nodes are never
/// read as constants: once realized, their storage is the value.
inline bool is_const(const ir::Node& n) { return !n.realized() && n.op == ir::Op::Full; }

/// The element value of a constant, converted exactly as the backends convert it (T must be
/// the C++ type of n.dtype).
template <class T>
T const_value(const ir::Node& n) {
  if constexpr (core::is_floating_v<T> || core::is_complex_v<T>)  // complex: the real part
    return static_cast<T>(n.attrs.fvalue);
  else
    return static_cast<T>(n.attrs.ivalue);
}

/// Attributes of a Full of `shape` and `dtype` holding `v` (T the C++ type of `dtype`).
template <class T>
ir::Attrs full_attrs(const Shape& shape, DType dtype, T v) {
  ir::Attrs a;
  a.shape = shape;
  a.dtype = dtype;
  if constexpr (core::is_complex_v<T>)
    a.fvalue = static_cast<double>(v.re);  // (callers check that v.im is 0: a Full is real)
  else if constexpr (core::is_floating_v<T>)
    a.fvalue = static_cast<double>(v);
  else
    a.ivalue = static_cast<int64_t>(v);
  return a;
}

/// True when `n` is a constant equal to `v` in its own dtype (NaN never equals).
bool const_equals(const ir::Node& n, double v);

/// An unrealized reshape to the shape of its input: a no-op view.
bool is_noop_view(const ir::Node& n);

/// Rewrites `n` in place into a Full with attributes `a` (its shape and dtype unchanged).
void to_full(ir::Node& n, ir::Attrs a);

/// Rewrites `n` in place into a same-shape reshape of `x`, an equal value of `n`'s shape,
/// dtype and device: `n` keeps its identity for the handles that hold it, at no cost.
void to_view(ir::Node& n, ir::NodePtr x);

/// Replaces the inputs of `n` (keeping their order), for in-place rewrites such as
/// reshape(reshape(x)) -> reshape(x).
void set_inputs(ir::Node& n, std::vector<ir::NodePtr> inputs);

/// Points each input of `n` that is a no-op view at the viewed node instead, so consumers
/// of a node a pass turned into a view see the equal node directly.
void skip_views(ir::Node& n);

}  // namespace cgrad::passes
