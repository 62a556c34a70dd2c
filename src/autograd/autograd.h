// Reverse-mode differentiation over the lazy graph (docs/autograd.md).
//
// The forward pass leaves a GradRecord on every floating node built from a node that requires
// a gradient (frontend::make). The engine walks those records from the output back to the
// leaves, calling each op's derivative rule from its op-table row (ir/derivatives.h), or the
// simplified rule of a composite (softmax, log_softmax, cross_entropy). The rules build the
// backward graph with the ordinary lazy ops, so it goes through the same passes and fusion.
#pragma once

#include <cgrad/tensor.hpp>

#include "ir/node.h"

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
};

/// The derivative rule of a composite op (the table in derivatives.cpp).
void composite_vjp(VjpCall& c);

}  // namespace cgrad::autograd
