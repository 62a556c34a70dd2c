// Text and Graphviz renderings of graphs. Nodes are numbered %0, %1, ... in topological
// order, so dumps of the same program diff cleanly whatever the global node ids are.
#pragma once

#include "ir/node.h"

#include <ostream>
#include <string>
#include <vector>

namespace cgrad::ir {

/// One line per node: `%2 = add(%0, %1) : f32(2, 3)`; realized nodes are marked.
void print(const std::vector<Node*>& roots, std::ostream& os);
std::string to_string(const std::vector<Node*>& roots);
/// Attributes of a node as `axes=[0, 1]` style text (empty when it has none).
std::string attrs_str(const Node& n);
/// Graphviz DOT. `cluster_of[i]` (optional, parallel to the topological order) groups nodes
/// into `subgraph cluster_k` boxes: the kernels a schedule fused them into.
std::string to_dot(const std::vector<Node*>& roots, const std::vector<int>* cluster_of = nullptr);

}  // namespace cgrad::ir
