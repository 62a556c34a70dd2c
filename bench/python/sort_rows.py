"""Sort and argsort by row length and dtype, cgrad beside NumPy in one process: rows of 100, 256,
4096 and 65536 elements and one row of 2^22, f32, i32 and f64; then rows along axis 0 (each row's
elements a row of the array apart: 4096 x 4096, 2^20 x 16, 1024 x 65536). Each row prints both medians (7
calls after a warm-up) and checks that cgrad's result equals NumPy's stable one. Argsort is
compared with NumPy's `kind="stable"` (cgrad's sorts are always stable; NumPy's default
quicksort is not). Not a benchmark of record: run it after a change to the sort
(backends/cpu/interp_sort.cpp, sort_keys_avx512.cpp).

Usage: CGRAD_RESULT_CACHE_BYTES=0 CGRAD_NUM_THREADS=1 OMP_NUM_THREADS=1 \
       python bench/python/sort_rows.py [sort|argsort ...]
"""

import os
import sys

import cgrad as cg
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from survey import median_ms  # noqa: E402  (one timing rule for the surveys)


def main():
    ops = sys.argv[1:] or ["sort", "argsort"]
    rng = np.random.default_rng(0)
    for op in ops:
        cases = [(s, -1) for s in [(1 << 16, 100), (1 << 14, 256), (4096, 4096), (256, 1 << 16), (1 << 22,)]]
        cases += [((4096, 4096), 0), ((1 << 20, 16), 0), ((1024, 1 << 16), 0)]
        for shape, ax in cases:
            for dt in [np.float32, np.int32, np.float64]:
                x = (rng.standard_normal(shape) * 1000).astype(dt)
                c = cg.asarray(x)
                c.eval()
                cg_f, np_f = getattr(cg, op), getattr(np, op)
                t_cg = median_ms(lambda: cg_f(c, axis=ax).eval(), reps=7)
                t_np = median_ms(lambda: np_f(x, axis=ax, **({"kind": "stable"} if op == "argsort" else {})), reps=7)
                same = np.array_equal(np.asarray(cg_f(c, axis=ax)), np_f(x, axis=ax, kind="stable"))
                print(
                    f"{op:8s} {str(shape):14s} ax{ax:<2d} {np.dtype(dt).name:8s} numpy {t_np:8.2f} ms  cgrad {t_cg:8.2f} ms"
                    f"  numpy/cgrad {t_np / t_cg:6.2f}  same {same}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
