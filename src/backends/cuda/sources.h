// The CUDA source of a schedule, without running it: what the CUDA backend would compile for a
// subgraph, and an internal entry point that gives the kernels of some outputs exactly as
// realize() would lower them (runtime::lower for the CUDA target). The cuda-compile tests
// NVRTC-compile these on machines without a GPU.
#pragma once

#include "codegen/render_cuda.h"
#include "ir/graph.h"

#include <string>
#include <vector>

namespace cgrad::backends::cuda {

/// The CUDA kernels of a verified subgraph (after the passes), lowered as the CUDA backend would:
/// cat, copies and GEMMs cuBLAS cannot take are loop kernels; cuBLAS GEMMs have no source.
std::vector<codegen::CudaRendered> render_subgraph(const ir::Subgraph& g);

/// For tests and tools: runs the passes and the scheduler on the pending graph of `outputs`
/// exactly as realize() would (evaluating nothing) and returns one complete CUDA translation
/// unit (prelude and kernels) per generated kernel. Evaluated outputs contribute nothing.
std::vector<std::string> kernel_sources(const std::vector<ir::NodePtr>& outputs);

}  // namespace cgrad::backends::cuda
