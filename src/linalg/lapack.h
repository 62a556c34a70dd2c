// LAPACK, where the machine has it, for the decompositions whose textbook routines (host.h) are
// slow on large matrices: LU (?getrf), Cholesky (?potrf), qr (?geqrf, then ?orgqr / ?ungqr),
// eigh (?syevd / ?heevd), eig (?geev) and svd (?gesdd). The library is loaded at run
// time (libopenblas.so.0, which bundles LAPACK, or liblapack.so.3), as the CPU backend loads
// OpenBLAS for GEMM; nothing is needed at build time. Each function returns false, having done
// nothing, when LAPACK is not there, when CGRAD_LINALG_LAPACK=0 (docs/env.md), when the matrix
// holds NaN or inf (some LAPACK builds loop on them), for small matrices, where the textbook
// routines are faster (lapack.cpp), or when LAPACK reports a failure: the caller then runs the
// textbook routine. Same layouts and results as host.h.
#pragma once

#include "linalg/host.h"

namespace cgrad::linalg::lapack {

/// As host::eigh (a is left as it was); v null: the eigenvalues only.
template <class T>
bool eigh(const T* a, int64_t n, double* w, T* v);

/// As host::eig (LAPACK's order of the eigenvalues; a real matrix's complex ones in conjugate pairs,
/// the one with the positive imaginary part first).
template <class T>
bool eig(const T* a, int64_t n, host::C* w, host::C* v);

/// As host::lu_factor, whose return value is `regular` here (the function returns whether it ran).
template <class T>
bool lu_factor(T* a, int64_t n, std::vector<int64_t>& perm, int& sign, bool& regular);

/// a (n x n) := its inverse; regular false (a then unspecified) when it is singular.
template <class T>
bool inv(T* a, int64_t n, bool& regular);

/// As host::cholesky, whose return value is `positive` here (a is left in an unspecified state
/// when it is false).
template <class T>
bool cholesky(T* a, int64_t n, bool& positive);

/// As host::qr.
template <class T>
bool qr(const T* a, int64_t m, int64_t n, T* q, T* r, bool complete);

/// As host::svd.
template <class T>
bool svd(const T* a, int64_t m, int64_t n, T* u, double* s, T* vh, bool full);

}  // namespace cgrad::linalg::lapack
