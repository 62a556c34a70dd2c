// Frontend plumbing shared by every op builder: the handle/variable pair behind Tensor, the
// promotion and broadcasting helpers that insert explicit casts and expands, and make(), which
// builds a node through the op table and applies the pending-depth auto-realize rule.
#pragma once

#include <cgrad/tensor.hpp>

#include "core/dtype.hpp"
#include "ir/node.h"

#include <initializer_list>
#include <span>

namespace cgrad {
namespace detail {
/// What copies of a Tensor share: assign() changes `node` for all of them. A variable that
/// requires a gradient keeps the flag across assign() (its new node becomes a leaf again)
/// and accumulates backward()'s result in `grad`.
struct Var {
  ir::NodePtr node;
  bool requires_grad = false;
  Tensor grad;
};
}  // namespace detail

namespace frontend {

using ir::NodePtr;
using ir::Op;

/// Gives the runtime the backends layer's device table (runtime::install_devices), once: at static
/// initialization of the frontend, and again (a no-op then) before every device check, so a tensor
/// built during another file's static initialization finds the backends too.
void install_devices();

/// The node behind `t`; throws InvalidArgument naming `op` for an undefined handle.
const NodePtr& node_of(const Tensor& t, const char* op);
/// A new handle on `x`'s value, for an op that leaves it as it is (`flip` of a length-1 axis,
/// `permute` by the identity, a full slice, `roll` by 0). Returning `x` would return a copy of its
/// handle, and an assign to the result would change `x` too (docs/semantics.md, "Value semantics
/// and assign"). Where `x` records a gradient the handle is on a view node of `x` (a reshape to
/// its own shape), a value computed from `x` as any op's result is: not a second handle on `x`'s
/// leaf, whose grad() would stay empty.
Tensor same_value(const Tensor& x, const char* op);
/// Builds a node (op table checks) and realizes it at once when its pending depth reaches
/// CGRAD_MAX_PENDING_DEPTH (docs/semantics.md, "Bounded graphs").
/// When an input requires a gradient and grad mode is on, the node gets a GradRecord.
NodePtr make(Op op, ir::NodeList inputs, ir::Attrs attrs, Device device);
/// The same with default attributes (element-wise ops).
NodePtr make(Op op, ir::NodeList inputs, Device device);
/// True while no NoGradGuard is alive on this thread.
bool grad_mode();
/// Makes the node of `v` a gradient leaf of `v` (requires_grad(true), assign() to such a
/// variable): a fresh identity view when the node already has a history or belongs to another
/// variable, so other handles' graphs never change.
void make_leaf(const std::shared_ptr<detail::Var>& v);
/// Gives `out` (built under NoGradGuard) the simplified backward of a composite op when one of
/// `inputs` requires a gradient and grad mode is on.
void attach_composite(const Tensor& out, ir::Composite kind, std::vector<NodePtr> inputs, ir::Attrs attrs);
/// True when `n` takes part in differentiation (it has a gradient record).
inline bool requires_grad(const ir::Node& n) { return n.grad != nullptr; }
NodePtr cast_to(const NodePtr& n, DType t);
/// Reshape (prepending ones) and expand to `shape`; no nodes when already there.
NodePtr broadcast_to(const NodePtr& n, const Shape& shape);
NodePtr reshape_node(const NodePtr& n, const Shape& shape);
/// A constant of `shape` (one element of storage once realized).
NodePtr full_node(const Shape& shape, Scalar value, DType t, Device device);
core::PromoOperand promo(const NodePtr& n);
/// The device where an op on `nodes` (null entries are scalars) runs, with every operand moved
/// there: the CUDA device if an operand lives on one; CPU operands are realized and copied once
/// (runtime::cached_copy). Operands on two different CUDA devices raise DeviceError. Call after
/// the op's arguments are validated: placing may evaluate CPU operands.
Device place(std::span<NodePtr* const> nodes, const char* name);

/// Element-wise op on tensors and scalars with broadcasting and promotion.
struct Operand {
  const Tensor* tensor = nullptr;
  Scalar scalar{0.0};
  Operand(const Tensor& t) : tensor(&t) {}
  Operand(Scalar s) : scalar(s) {}
};
Tensor elementwise(Op op, std::initializer_list<Operand> operands);

}  // namespace frontend
}  // namespace cgrad
