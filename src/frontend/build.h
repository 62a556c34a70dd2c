// Frontend plumbing shared by every op builder: the handle/variable pair behind Tensor, the
// promotion and broadcasting helpers that insert explicit casts and expands, and make(), which
// builds a node through the op table and applies the pending-depth auto-realize rule.
#pragma once

#include <cgrad/tensor.hpp>

#include "core/dtype.hpp"
#include "ir/node.h"

#include <initializer_list>

namespace cgrad {
namespace detail {
/// What copies of a Tensor share: assign() changes `node` for all of them.
struct Var {
  ir::NodePtr node;
};
}  // namespace detail

namespace frontend {

using ir::NodePtr;
using ir::Op;

/// The node behind `t`; throws InvalidArgument naming `op` for an undefined handle.
const NodePtr& node_of(const Tensor& t, const char* op);
/// Builds a node (op table checks) and realizes it at once when its pending depth reaches
/// CGRAD_MAX_PENDING_DEPTH (docs/semantics.md, "Bounded graphs").
NodePtr make(Op op, std::vector<NodePtr> inputs, ir::Attrs attrs, Device device);
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
Device place(std::vector<NodePtr*> nodes, const char* name);

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
