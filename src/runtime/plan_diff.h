// Why a graph was planned again (CGRAD_DEBUG=2): each new plan's key is compared with the
// keys planned before, and the component in which it differs from the nearest one is named:
// structure (node count, an op, how nodes connect, which are outputs), a shape, a dtype, a
// device, a leaf's stride class or layout, a constant, or another attribute.
// Only kept while CGRAD_DEBUG >= 2, for the last kHistory keys; never on the replay path.
#pragma once

#include "ir/node.h"

#include <string>
#include <vector>

namespace cgrad::runtime {

/// Records the key of a graph about to be planned and returns why it differs from the nearest
/// earlier one ("first plan" when there is none). `order`: the pending graph, inputs first;
/// `leaves`: its realized inputs in first-use order; `roots`: the requested outputs.
std::string why_new_plan(const std::vector<ir::Node*>& order, const std::vector<const ir::Node*>& leaves,
                         const std::vector<ir::Node*>& roots, const char* backend);

}  // namespace cgrad::runtime
