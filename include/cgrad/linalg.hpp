/// Matrix decompositions and what is built on them: the Array API linalg extension's solve, inv,
/// det, slogdet, cholesky, qr, eigh, eigvalsh, svd and svdvals, and NumPy's eig and eigvals (docs/linalg.md).
/// Each takes a matrix or a stack of them (the last two dims; floating or complex dtypes) and returns tensors
/// of the input's dtype (eigenvalues, singular values and log|det| of its real dtype) on its
/// device. Unlike the rest of the API these are not lazy: each evaluates its input (a
/// synchronisation point, as unique_* and nonzero) and runs a host routine in double or
/// complex<double> (LU with partial pivoting, Cholesky, Householder QR, Jacobi), then hands
/// the result back to the graph. Gradients flow through all of them (qr's and svd's for losses
/// their conventions determine: docs/linalg.md); the backward graphs are lazy cgrad ops.
#pragma once

#include <cgrad/tensor.hpp>

namespace cgrad::linalg {

/// x with A x = b: a (..., n, n), b (..., n, k), or b (n,) for one right-hand side (then the
/// result is (..., n)); the batch dims broadcast. A singular matrix (an exact zero pivot)
/// raises InvalidArgument.
Tensor solve(const Tensor& a, const Tensor& b);
/// The inverse of each matrix; a singular one raises InvalidArgument.
Tensor inv(const Tensor& a);
/// The determinant of each matrix (0 for a singular one).
Tensor det(const Tensor& a);

struct Slogdet {
  Tensor sign;       ///< det / |det| (0 where det is 0, NaN where it is NaN), of a's dtype
  Tensor logabsdet;  ///< log |det| (-inf where det is 0), of a's real dtype
};
Slogdet slogdet(const Tensor& a);

/// The Cholesky factor L (lower, a = L L^H) of each Hermitian positive-definite matrix, read
/// from its lower triangle; upper gives L^H. A matrix that is not positive definite raises
/// InvalidArgument.
Tensor cholesky(const Tensor& a, bool upper = false);

struct QR {
  Tensor Q, R;
};
/// a (..., m, n) = Q R by Householder reflections: Q (..., m, k) with orthonormal columns and R
/// (..., k, n) upper triangular, k = min(m, n); complete: Q (..., m, m) and R (..., m, n).
QR qr(const Tensor& a, bool complete = false);

struct Eigh {
  Tensor eigenvalues;   ///< (..., n), ascending, of a's real dtype
  Tensor eigenvectors;  ///< (..., n, n), column j for eigenvalue j
};
/// The eigen-decomposition of each Hermitian matrix, read from its lower triangle.
Eigh eigh(const Tensor& a);
Tensor eigvalsh(const Tensor& a);

struct Eig {
  Tensor eigenvalues;   ///< (..., n), of a's complex dtype (c64 for f32 and c64, else c128), unordered
  Tensor eigenvectors;  ///< (..., n, n), column j for eigenvalue j: unit 2-norm, largest component real
};
/// The eigen-decomposition of each general square matrix, a V = V diag(eigenvalues), always complex
/// (as PyTorch's and JAX's; NumPy returns real arrays when every eigenvalue is real). LAPACK's ?geev
/// where the machine has it (its order of eigenvalues), else Hessenberg reduction and the shifted QR
/// algorithm. Differentiable (PyTorch's formulas; through the eigenvectors only for losses that do
/// not depend on their phases).
Eig eig(const Tensor& a);
Tensor eigvals(const Tensor& a);

struct SVD {
  Tensor U, S, Vh;
};
/// a (..., m, n) = U diag(S) Vh, S (..., k) descending, k = min(m, n); full_matrices: U (..., m,
/// m) and Vh (..., n, n), otherwise U (..., m, k) and Vh (..., k, n).
SVD svd(const Tensor& a, bool full_matrices = true);
Tensor svdvals(const Tensor& a);

// A NaN or an infinity among the entries eigh, eig and svd read (eigh: the lower triangle) makes
// every output of that matrix NaN, as JAX's (NumPy and PyTorch raise). The LU routines (solve, inv,
// det, slogdet) take every product, zeros too, so NaN and infinities spread as in LAPACK's.

}  // namespace cgrad::linalg
