// Reverse-mode differentiation over the lazy graph (docs/autograd.md).
//
// The forward pass leaves a GradRecord on every floating node built from a node that requires
// a gradient (frontend::make). The engine walks those records from the output back to the
// leaves, calling each op's derivative rule from its op-table row (ir/derivatives.h), or the
// simplified rule of a composite (softmax, log_softmax, cross_entropy). The rules build the
// backward graph with the ordinary lazy ops, so it goes through the same passes and fusion.
#pragma once

#include <cgrad/extend.hpp>
#include <cgrad/tensor.hpp>

#include "ir/node.h"

#include <mutex>
#include <vector>

namespace cgrad::autograd {

/// One application of a derivative rule: the record of the op, its output value, the output's
/// gradient, and a slot per recorded input for that input's gradient (left undefined where no
/// gradient flows or `needs[i]` is false).
struct VjpCall {
  const ir::GradRecord& rec;
  Tensor out;
  Tensor g;
  std::vector<Tensor> in;
  std::vector<char> needs;
  std::vector<Tensor> gin;
  /// Composite::Custom: the gradient of each output of the operator (undefined: none reached it).
  std::vector<Tensor> group;
};

/// The derivative rule of a composite op (the table in derivatives.cpp).
void composite_vjp(VjpCall& c);

/// Applies the derivative rule of an op-table row, conjugating the inputs and the output of a
/// holomorphic row that sees complex values (derivatives.cpp: complex_grad).
void differentiate(VjpCall& c);

/// A custom operator's backward (issue #23, custom.cpp): the user's function, the context its
/// forward filled, and the operator's output nodes (weak: their records hold this).
struct CustomGradImpl final : ir::CustomGrad {
  std::string name;
  std::shared_ptr<const CustomOp::Backward> backward;
  CustomContext ctx;
  /// The outputs' views (weak: they hold this). One the caller dropped is made again, and put
  /// here, when create_graph hands it to backward (custom_vjp): the engine groups an operator's
  /// outputs by these.
  mutable std::vector<std::weak_ptr<ir::Node>> outputs;
  mutable std::mutex outputs_mutex;
};

/// Calls the user's backward with `c.group` and checks what it returns (custom.cpp).
void custom_vjp(VjpCall& c);

}  // namespace cgrad::autograd
