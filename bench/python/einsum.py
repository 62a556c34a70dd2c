"""cgrad.einsum beside NumPy's (optimize=False, its default, and optimize=True) in one process:
an attention score (bhqd,bhkd->bhqk), a batched matrix-vector product, a bilinear form, a trace
and a three-operand chain; float32. Each row prints the median times (after a warm-up, one
function after the other) and cgrad's time over NumPy's best. docs/semantics.md, "einsum".

Usage: OPENBLAS_NUM_THREADS=1 CGRAD_NUM_THREADS=1 CGRAD_RESULT_CACHE_BYTES=0 python bench/python/einsum.py
(the result cache off: a repeated einsum of unchanged inputs is otherwise answered from it)
"""

import cgrad as cg
import numpy as np
from timing import median


def main():
    rng = np.random.default_rng(0)
    cases = [
        ("bhqd,bhkd->bhqk", [(8, 8, 128, 64), (8, 8, 128, 64)]),
        ("bij,bj->bi", [(64, 256, 256), (64, 256)]),
        ("i,ij,j->", [(1024,), (1024, 1024), (1024,)]),
        ("ii->", [(2048, 2048)]),
        ("ij,jk,kl->il", [(256, 512), (512, 32), (32, 256)]),
    ]
    print(f"{'subscripts':18s} {'cgrad ms':>9s} {'NumPy ms':>9s} {'NumPy opt ms':>12s} {'ratio':>6s}")
    for subscripts, shapes in cases:
        ops = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        xs = [cg.asarray(o) for o in ops]
        cg.eval(*xs)
        reps = 7
        tc = median(lambda: cg.eval(cg.einsum(subscripts, *xs)), reps)
        tn = median(lambda: np.einsum(subscripts, *ops), reps)
        to = median(lambda: np.einsum(subscripts, *ops, optimize=True), reps)
        print(f"{subscripts:18s} {tc:9.3f} {tn:9.3f} {to:12.3f} {tc / min(tn, to):6.2f}")


if __name__ == "__main__":
    main()
