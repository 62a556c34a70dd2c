"""cgrad.linalg's decompositions beside NumPy's (OpenBLAS's LAPACK from PyPI), in one process:
a stack of 64 8 x 8 matrices, one 64 x 64 and one 256 x 256, float64. Each row prints both
median times (calls after a warm-up, interleaved: cgrad, NumPy, cgrad, ...) and the ratio; the
qr, eigh and svd rows run twice for cgrad, on LAPACK (where found) and on the built-in
Householder and Jacobi routines (CGRAD_LINALG_LAPACK=0). cgrad's times include evaluating the input's graph (already
evaluated here) and the copy of the result into a new tensor. docs/linalg.md, "Speed".

Usage: OPENBLAS_NUM_THREADS=1 CGRAD_NUM_THREADS=1 python bench/python/linalg.py
"""

import os

import cgrad as cg
import numpy as np
from timing import median_pair


def rows(x, xh, a, h):
    return [
        ("inv", lambda: cg.eval(cg.linalg.inv(x)), lambda: np.linalg.inv(a), False),
        ("det", lambda: cg.eval(cg.linalg.det(x)), lambda: np.linalg.det(a), False),
        ("solve", lambda: cg.eval(cg.linalg.solve(x, x)), lambda: np.linalg.solve(a, a), False),
        ("cholesky", lambda: cg.eval(cg.linalg.cholesky(xh)), lambda: np.linalg.cholesky(h), False),
        ("qr", lambda: cg.eval(*cg.linalg.qr(x)), lambda: np.linalg.qr(a), True),
        ("eigh", lambda: cg.eval(*cg.linalg.eigh(xh)), lambda: np.linalg.eigh(h), True),
        ("eigvalsh", lambda: cg.eval(cg.linalg.eigvalsh(xh)), lambda: np.linalg.eigvalsh(h), True),
        ("svd", lambda: cg.eval(*cg.linalg.svd(x)), lambda: np.linalg.svd(a), True),
        ("svdvals", lambda: cg.eval(cg.linalg.svdvals(x)), lambda: np.linalg.svd(a, compute_uv=False), True),
    ]


def main():
    rng = np.random.default_rng(0)
    print(f"{'shape':>14s} {'function':9s} {'routine':8s} {'cgrad ms':>10s} {'NumPy ms':>10s} {'ratio':>7s}")
    for batch, n, reps in ((64, 8, 21), (1, 64, 15), (1, 256, 5)):
        a = rng.standard_normal((batch, n, n))
        h = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
        x, xh = cg.asarray(a), cg.asarray(h)
        cg.eval(x, xh)
        for name, f, g, both in rows(x, xh, a, h):
            for routine in ("lapack", "builtin") if both else ("own",):
                if routine == "builtin":
                    os.environ["CGRAD_LINALG_LAPACK"] = "0"
                tc, tn = median_pair(f, g, reps)
                os.environ.pop("CGRAD_LINALG_LAPACK", None)
                print(f"{batch:3d} x {n:3d}^2 {name:9s} {routine:8s} {tc:10.3f} {tn:10.3f} {tc / tn:7.2f}")


if __name__ == "__main__":
    main()
