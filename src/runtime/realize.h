// realize(): the entry point of the pipeline. Collects the unrealized subgraph of the requested
// outputs (nodes no output depends on never enter), verifies it, and hands it to the backend of
// its device. After it returns every output is a realized leaf.
#pragma once

#include "ir/node.h"

#include <vector>

namespace cgrad::runtime {

void realize(const std::vector<ir::NodePtr>& outputs);

}  // namespace cgrad::runtime
