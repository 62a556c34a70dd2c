// Host matrix routines behind cgrad::linalg (include/cgrad/linalg.hpp): one row-major matrix at
// a time, in double or std::complex<double> (T), whatever the tensor's dtype. Textbook
// algorithms chosen for accuracy and brevity, not speed: LU with partial pivoting, Cholesky,
// Householder QR, cyclic Jacobi for Hermitian eigenproblems, the shifted QR algorithm for general
// ones and one-sided (Hestenes) Jacobi for the SVD, which gives singular values to high relative accuracy.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace cgrad::linalg::host {

using C = std::complex<double>;

/// a (n x n) := its LU factors (L unit lower, below the diagonal; U on and above it), rows
/// permuted: row i of P A is row perm[i] of A. sign is det(P). False when a pivot is exactly 0
/// (the matrix is singular); the factorization then still finishes, with that pivot 0.
template <class T>
bool lu_factor(T* a, int64_t n, std::vector<int64_t>& perm, int& sign);

/// b (n x k) := A^-1 b, from lu_factor's output (every pivot nonzero).
template <class T>
void lu_solve(const T* lu, const std::vector<int64_t>& perm, int64_t n, T* b, int64_t k);

/// a (n x n, Hermitian positive definite; only its lower triangle is read) := L, lower, with
/// a^H's part above the diagonal zeroed. False when a pivot is not positive (or NaN).
template <class T>
bool cholesky(T* a, int64_t n);

/// a (m x n) = Q R by Householder reflections. complete: q is m x m and r m x n; otherwise
/// q is m x k and r k x n, k = min(m, n).
template <class T>
void qr(const T* a, int64_t m, int64_t n, T* q, T* r, bool complete);

/// a (n x n Hermitian; destroyed) = V diag(w) V^H, w ascending, v (n x n) unitary.
template <class T>
void eigh(T* a, int64_t n, double* w, T* v);

/// The eigenvalues w (n) of a general matrix a (n x n), in no particular order, and where v is not
/// null its right eigenvectors (v's column j for w_j), each of unit 2-norm with its largest
/// component real (LAPACK's normalization): Hessenberg reduction, then the shifted QR algorithm
/// to the complex Schur form, whose eigenvectors come by back-substitution. False when the QR
/// algorithm does not converge (more than 30 steps for one eigenvalue, as LAPACK's bound).
template <class T>
bool eig(const T* a, int64_t n, C* w, C* v);

/// a (m x n) = U diag(s) Vh, s descending (k = min(m, n) of them). full: u is m x m and vh
/// n x n; otherwise u is m x k and vh k x n. u and vh may be null (singular values only).
template <class T>
void svd(const T* a, int64_t m, int64_t n, T* u, double* s, T* vh, bool full);

}  // namespace cgrad::linalg::host
