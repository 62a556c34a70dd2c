// The CUDA source of a schedule, without running it: what the CUDA backend would compile for a
// subgraph, and an internal entry point that gives the kernels of some output tensors exactly as
// realize() would schedule them. The cuda-compile tests NVRTC-compile these on machines without
// a GPU.
#pragma once

#include "codegen/render_cuda.h"
#include "ir/graph.h"
#include "schedule/schedule.h"

#include <cgrad/tensor.hpp>

#include <string>
#include <vector>

namespace cgrad::backends::cuda {

/// Lowers `cat`, contiguous copies and GEMMs cuBLAS cannot take to loop kernels, normalizes the loop
/// kernels of `s` (in place) and renders each; cuBLAS GEMMs get an empty entry.
std::vector<codegen::CudaRendered> render_schedule(schedule::Schedule& s);

/// The CUDA kernels of a verified subgraph, scheduled as the CUDA backend would.
std::vector<codegen::CudaRendered> render_subgraph(const ir::Subgraph& g);

/// For tests and tools: runs the passes and the scheduler on the pending graph of `outputs`
/// exactly as realize() would (evaluating nothing) and returns one complete CUDA translation
/// unit (prelude and kernels) per generated kernel. Evaluated outputs contribute nothing.
std::vector<std::string> kernel_sources(const std::vector<Tensor>& outputs);

}  // namespace cgrad::backends::cuda
