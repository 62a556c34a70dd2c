// Graph-level optimizations, run by realize() on the unrealized subgraph of the requested
// outputs before it is scheduled. Each pass is one free function over the PendingGraph of the
// outputs (realized nodes are leaves: never walked through, never rewritten); every
// rewrite keeps each node's value, shape, dtype and device, because user handles and other
// pending graphs share the nodes. docs/passes.md lists the rules of each pass.
#pragma once

#include "ir/node.h"

#include <functional>
#include <string>
#include <vector>

namespace cgrad::passes {

/// The pending (unrealized) subgraph of some outputs: what the passes rewrite. Computed once
/// per optimize() by an iterative walk; it holds a handle to every node, so nodes a rewrite
/// unlinks stay alive (and the order valid) until the pipeline ends. The walk uses the nodes'
/// walk marks: build one under the realize lock (or in a single-threaded test).
struct PendingGraph {
  explicit PendingGraph(const std::vector<ir::NodePtr>& outputs);
  std::vector<ir::NodePtr> outputs;  ///< the unrealized outputs, in the order given
  std::vector<ir::NodePtr> order;    ///< every unrealized node reachable from them, inputs first
  /// The outputs as the printer and ir::topo_order take them.
  std::vector<ir::Node*> roots() const;
};

/// Called after each pass with its name and the graph (runtime::lower dumps it there).
using AfterPass = std::function<void(const char* pass, const PendingGraph& g)>;
/// Runs every pass in order (pipeline.cpp lists them), then `after` (when given). Does nothing
/// when CGRAD_OPTIMIZE=0.
void optimize(const std::vector<ir::NodePtr>& outputs, const AfterPass& after = {});

/// The names of the passes optimize() runs, in order.
std::vector<std::string> pass_names();

// ---- the passes, one file each ----

/// Views of constants and element-wise ops of constants become constants (fold_constants.cpp).
void fold_constants(const PendingGraph& g);
/// Exact algebraic identities: x*1, x+(-0.), -(-x), reshape(reshape(x)), ... (simplify.cpp).
void simplify(const PendingGraph& g);
/// Hash-consing: equal nodes over equal inputs become one (eliminate_common_subexpressions.cpp).
void eliminate_common_subexpressions(const PendingGraph& g);

}  // namespace cgrad::passes
