"""Gram products (`X.T @ X`, `X @ X.T`), products with a transposed right operand (`x @ W.T`), a
few columns (a classifier's last layer `h @ W` and its weights' gradient `h.T @ dY`) and a few rows
(`x @ W.T`, `x @ W` for a small batch) beside NumPy's in one process, float32 and float64. Each row prints the median times of 15 calls
after a warm-up, the two libraries in turn, and cgrad's time over NumPy's; the `copy` rows give
cgrad the same product with a copy of X on one side (the full product, not the triangle), and `x @
W` rows the untransposed operand of the same shape. docs/jit.md, "GEMM" ("Gram products", "A few
columns", "A few rows", and "Speed" for the transposed B).

Usage: OPENBLAS_NUM_THREADS=1 CGRAD_NUM_THREADS=1 CGRAD_RESULT_CACHE_BYTES=0 python bench/python/products.py
[gram] [linear] [narrow] [few]   (the sections to run; all without arguments)
(with more threads, run NumPy's rows apart: OpenBLAS's workers keep spinning after its calls and
slow whatever runs next in the process)
"""

import sys

import cgrad as cg
import numpy as np
from timing import median_pair

GRAM = [(1024, 1024), (4096, 256), (256, 2048), (1000, 100)]  # X's (rows, columns)
LINEAR = [(8, 4096, 1024), (32, 512, 512), (256, 512, 512), (64, 1024, 1024)]  # x (m x k) @ W.T (n x k)
NARROW = [(256, 10, 512), (4096, 10, 512), (256, 4, 512), (256, 16, 784)]  # h (m x k) @ W (k x n)
FEW = [(m, n, k) for m in (2, 3, 4, 8, 12, 16) for n, k in ((1024, 1024), (512, 512))]  # x (m x k) @ W


def main():
    rng = np.random.default_rng(0)
    print(f"{'product':14s} {'dtype':8s} {'shape':>18s} {'cgrad ms':>9s} {'NumPy ms':>9s} {'ratio':>6s}")

    def row(name, dtype, shape, f, g):
        tc, tn = median_pair(f, g, 15)
        print(f"{name:14s} {np.dtype(dtype).name:8s} {str(shape):>18s} {tc:9.3f} {tn:9.3f} {tc / tn:6.2f}")

    sections = set(sys.argv[1:]) or {"gram", "linear", "narrow", "few"}
    for dtype in (np.float32, np.float64):
        for k, n in GRAM if "gram" in sections else []:
            x = rng.standard_normal((k, n)).astype(dtype)
            cx, cy = cg.asarray(x), cg.asarray(x.copy())
            cg.eval(cx, cy)
            row("X.T @ X", dtype, (k, n), lambda: cg.eval(cx.T @ cx), lambda: x.T @ x)
            row("X.T @ X copy", dtype, (k, n), lambda: cg.eval(cx.T @ cy), lambda: x.T @ x)
            row("X @ X.T", dtype, (k, n), lambda: cg.eval(cx @ cx.T), lambda: x @ x.T)
        linear = (LINEAR if "linear" in sections else []) + (FEW if "few" in sections else [])
        for m, n, k in linear:
            x, w = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((n, k)).astype(dtype)
            wt = np.ascontiguousarray(w.T)
            cx, cw, cwt = cg.asarray(x), cg.asarray(w), cg.asarray(wt)
            cg.eval(cx, cw, cwt)
            row("x @ W.T", dtype, (m, n, k), lambda: cg.eval(cx @ cw.T), lambda: x @ w.T)
            row("x @ W", dtype, (m, n, k), lambda: cg.eval(cx @ cwt), lambda: x @ wt)
        for m, n, k in NARROW if "narrow" in sections else []:
            h, w = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
            dy = rng.standard_normal((m, n)).astype(dtype)
            ch, cw, cdy = cg.asarray(h), cg.asarray(w), cg.asarray(dy)
            cg.eval(ch, cw, cdy)
            row("h @ W", dtype, (m, n, k), lambda: cg.eval(ch @ cw), lambda: h @ w)
            row("h.T @ dY", dtype, (m, n, k), lambda: cg.eval(ch.T @ cdy), lambda: h.T @ dy)


if __name__ == "__main__":
    main()
