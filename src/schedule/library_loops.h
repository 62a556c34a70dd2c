// Target-specific lowering (see library_loops.cpp): library kernels that become loop kernels on
// a target that has no library routine for them (CUDA: cat, copies, GEMMs cuBLAS cannot take).
#pragma once

#include "schedule/schedule.h"

#include <cstdint>

namespace cgrad::schedule {

/// How a (rows x cols) matrix with strides (sr, sc) is passed to a BLAS: transposed or not, and
/// its leading dimension (row-major view); false when it needs a contiguous copy first. Shared
/// by the CPU BLAS and cuBLAS paths.
bool blas_layout(int64_t rows, int64_t cols, int64_t sr, int64_t sc, bool& transposed, int64_t& ld);

/// Replaces every Cat and Copy kernel of `s` by loop kernels (one per cat input) and every GEMM
/// that cuBLAS cannot take (blas_layout, floating dtypes) by one reduction loop kernel; keeps
/// `kernel_of` pointing at the kernel that computes each node.
void library_kernels_to_loops(Schedule& s);

}  // namespace cgrad::schedule
