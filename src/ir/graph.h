// Graph walks. All iterative (a million-node chain must not overflow the stack) and
// deterministic (order follows input order, never pointer values).
#pragma once

#include "ir/node.h"

#include <functional>
#include <vector>

namespace cgrad::ir {

/// Nodes reachable from `roots`, inputs before users (post-order DFS). With
/// `unrealized_only`, realized nodes are neither returned nor walked through.
std::vector<Node*> topo_order(const std::vector<Node*>& roots, bool unrealized_only);

}  // namespace cgrad::ir
