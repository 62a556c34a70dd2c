// The IR verifier: re-derives every node's dtype and shape from the op table and checks the
// structural invariants of node.h. Run on every realize (cheap: linear in the graph).
#pragma once

#include "ir/node.h"

#include <vector>

namespace cgrad::ir {

/// Throws cgrad::Error(Internal) naming the first node that breaks an invariant.
void verify(const std::vector<Node*>& topo);

}  // namespace cgrad::ir
