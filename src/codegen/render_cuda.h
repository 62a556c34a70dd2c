// KernelSpec -> CUDA C++ for NVRTC, from the templates in templates/cuda_*.inc. The same
// KernelSpec, scalar renderer and kernel split as the CPU (kernel_parts.h); only the loops differ:
// element-wise kernels are grid-stride loops, reductions run a block (or a thread, or a split
// two-stage grid) per outer element with warp and block combination of the accumulators. Like
// the CPU source, the CUDA source depends only on ranks, dtypes, stride classes and the SSA.
#pragma once

#include "codegen/kernel_parts.h"
#include "schedule/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cgrad::codegen {

struct CudaRendered {
  std::string source;           ///< the kernel's definitions, without the prelude
  std::string symbol;           ///< the __global__ entry point (extern "C")
  bool has_reductions = false;  ///< then the entry takes (args, partials, chunks, mode)
  std::size_t acc_bytes = 0;    ///< sizeof the accumulator struct (the partials of a split reduction)
  bool whole_rows = false;      ///< staged reductions (a row kernel): rows are never split into chunks
};

/// Renders a normalized Loop kernel (see normalize()).
CudaRendered render_cuda(const schedule::KernelSpec& k);
/// One NVRTC program: the CUDA prelude, then each distinct kernel once.
std::string cuda_translation_unit(const std::vector<CudaRendered>& kernels);

/// The kernel's by-value argument block (the `<name>_args` struct) as 8-byte words, for the
/// buffers' device addresses `bufs` (one per access; 0 for element-index accesses).
std::vector<uint64_t> cuda_kernel_args(const schedule::KernelSpec& k, const std::vector<uint64_t>& bufs);

}  // namespace cgrad::codegen
