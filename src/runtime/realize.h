// realize(): the entry point of the pipeline. Collects the unrealized subgraph of the requested
// outputs (nodes no output depends on never enter), verifies it, and hands it to the backend of
// its device. After it returns every output is a realized leaf.
#pragma once

#include "ir/graph.h"
#include "ir/node.h"

#include <vector>

namespace cgrad::runtime {

void realize(const std::vector<ir::NodePtr>& outputs);

/// Called with every subgraph realize() plans afresh (a plan-cache miss), after the passes and
/// the verifier and before the backend runs it; nullptr (the default) for none. For tools and
/// tests: the cuda-compile tests collect the CUDA source of every schedule of a suite with it.
using SubgraphHook = void (*)(const ir::Subgraph& g);
void set_subgraph_hook(SubgraphHook hook);

}  // namespace cgrad::runtime
