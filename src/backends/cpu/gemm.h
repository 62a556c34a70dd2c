// GEMM for the CPU backends: f32/f64 on cgrad's own kernels where the CPU has AVX2+FMA or
// AVX-512F (gemm_kernel.h), else and for c64/c128 through a BLAS found at run time (OpenBLAS from
// Debian: libopenblas.so.0, dlopen'ed, so the library needs no BLAS to build or load; c64/c128
// where it has cblas_cgemm/cblas_zgemm). The caller falls back to the interpreter's exact loops
// for integer dtypes or when neither is there.
#pragma once

#include "ir/node.h"

namespace cgrad::backends::cpu {

/// The (m, k, n) of a Matmul node; false unless its dtype is f32/f64/c64/c128 and the dims fit a BLAS int.
bool gemm_dims(const ir::Node& n, int64_t& m, int64_t& k, int64_t& nn);
/// True when a CBLAS with sgemm/dgemm was loaded.
bool blas_available();
/// out = a @ b for a Matmul node (batched, strided operands); false when neither cgrad's kernels
/// nor a BLAS can do it.
/// Writes into `out` when it already holds a contiguous buffer of the result's shape, else allocates it.
bool fast_matmul(const ir::Node& n, const ir::View& a, const ir::View& b, ir::View& out);

}  // namespace cgrad::backends::cpu
