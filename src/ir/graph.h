// Graph walks. All iterative (a million-node chain must not overflow the stack) and
// deterministic (order follows input order, never pointer values).
#pragma once

#include "ir/node.h"

#include <functional>
#include <vector>

namespace cgrad::ir {

/// What realize() asks a backend to compute.
/// An unrealized subgraph handed to a backend.
struct Subgraph {
  std::vector<ir::Node*> order;  ///< unrealized nodes, inputs before users
  std::vector<char> is_output;   ///< parallel to order: must be realized (kept) after run
  std::vector<int32_t> uses;     ///< parallel to order: consumers inside the subgraph
  /// parallel to order: for each input, its index in `order`, or -1 for a realized input
  std::vector<std::vector<int32_t>> in_pos;
};

/// Nodes reachable from `roots`, inputs before users (post-order DFS). With
/// `unrealized_only`, realized nodes are neither returned nor walked through.
std::vector<Node*> topo_order(const std::vector<Node*>& roots, bool unrealized_only);

/// topo_order(roots, true) without hash sets: marks nodes with a fresh epoch and stores each
/// node's position in `walk_index`. Only under the realize lock (one walk at a time).
std::vector<Node*> topo_order_marked(const std::vector<Node*>& roots, uint64_t* epoch_out);

/// The unrealized subgraph of `roots` with uses and input positions filled in.
Subgraph make_subgraph(const std::vector<Node*>& roots);

}  // namespace cgrad::ir
