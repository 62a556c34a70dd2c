"""`A @ v` and `v @ A` beside NumPy's (OpenBLAS gemv) in one process, float32 and float64, over
shapes in cache and past it. Each row prints the median times of 30 calls after a warm-up, the
two libraries in turn, and cgrad's time over NumPy's. docs/jit.md, "GEMM" ("Vectors").

Usage: OPENBLAS_NUM_THREADS=1 CGRAD_NUM_THREADS=1 CGRAD_RESULT_CACHE_BYTES=0 python bench/python/gemv.py
(the result cache off: a repeated product of unchanged inputs is otherwise answered from it)
"""

import cgrad as cg
import numpy as np
from timing import median_pair

SHAPES = [(4096, 4096), (1000, 300), (65536, 64), (64, 65536), (256, 256), (1000, 1000), (1024, 1024)]


def main():
    rng = np.random.default_rng(0)
    print(f"{'product':8s} {'dtype':8s} {'shape':>14s} {'cgrad ms':>9s} {'NumPy ms':>9s} {'ratio':>6s}")
    for dtype in (np.float32, np.float64):
        for m, k in SHAPES:
            a = rng.standard_normal((m, k)).astype(dtype)
            v, u = rng.standard_normal(k).astype(dtype), rng.standard_normal(m).astype(dtype)
            ca, cv, cu = cg.asarray(a), cg.asarray(v), cg.asarray(u)
            cg.eval(ca, cv, cu)
            for name, f, g in (("A @ v", lambda: cg.eval(ca @ cv), lambda: a @ v),
                               ("v @ A", lambda: cg.eval(cu @ ca), lambda: u @ a)):
                tc, tn = median_pair(f, g, 30)
                print(f"{name:8s} {np.dtype(dtype).name:8s} {str((m, k)):>14s} {tc:9.4f} {tn:9.4f} {tc / tn:6.2f}")


if __name__ == "__main__":
    main()
