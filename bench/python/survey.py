"""A sweep for performance cliffs: reductions, scans and sorts along each axis of a square
(4096 x 4096), a tall (2^20 x 16), a wide (16 x 2^20) and a 3-D float32 array, any/all/max of
bools, and sums and |z| reductions of a 2048 x 2048 complex64 array, cgrad beside NumPy
in one process. Each row prints both median times (5 calls after a warm-up) and flags with `<<<`
the rows where cgrad takes more than twice NumPy's time. Not a benchmark of record (no rounds, no
other peers): run it after a change to the scheduler, the reductions or the sorts to see that no
shape fell off a cliff (bench/NOTES.md, "Cliffs").

Usage: CGRAD_RESULT_CACHE_BYTES=0 CGRAD_NUM_THREADS=1 python bench/python/survey.py [name filter]
"""

import sys

import cgrad as cg
import numpy as np
from timing import median


def median_ms(f, reps=5):
    """Median time in ms of `reps` calls of f after a warm-up (timing.median)."""
    return median(f, reps)


def _softmax(m, a, axis):
    keep = {"axis": axis, "keepdims": True}
    e = m.exp(a - m.max(a, **keep))
    return e / m.sum(e, **keep)


def cases():
    """(name, NumPy function, cgrad function, input) for every row."""
    rng = np.random.default_rng(0)
    two_d = {
        "X": rng.standard_normal((4096, 4096)).astype(np.float32),
        "S": rng.standard_normal((1 << 20, 16)).astype(np.float32),  # many short rows
        "W": rng.standard_normal((16, 1 << 20)).astype(np.float32),  # few long rows
    }
    rows = []
    for name, arr in two_d.items():
        for ax in (0, 1):
            rows += [
                (f"sum {name} ax{ax}", lambda a, ax=ax: np.sum(a, axis=ax), lambda a, ax=ax: cg.sum(a, axis=ax), arr),
                (f"max {name} ax{ax}", lambda a, ax=ax: np.max(a, axis=ax), lambda a, ax=ax: cg.max(a, axis=ax), arr),
                (f"argmax {name} ax{ax}", lambda a, ax=ax: np.argmax(a, axis=ax),
                 lambda a, ax=ax: cg.argmax(a, axis=ax), arr),
                (f"std {name} ax{ax}", lambda a, ax=ax: np.std(a, axis=ax), lambda a, ax=ax: cg.std(a, axis=ax), arr),
                (f"cumsum {name} ax{ax}", lambda a, ax=ax: np.cumsum(a, axis=ax),
                 lambda a, ax=ax: cg.cumulative_sum(a, axis=ax), arr),
                (f"sort {name} ax{ax}", lambda a, ax=ax: np.sort(a, axis=ax), lambda a, ax=ax: cg.sort(a, axis=ax), arr),
                (f"ptp {name} ax{ax}", lambda a, ax=ax: np.ptp(a, axis=ax),
                 lambda a, ax=ax: cg.max(a, axis=ax) - cg.min(a, axis=ax), arr),
                (f"l2norm {name} ax{ax}", lambda a, ax=ax: np.sqrt(np.sum(a * a, axis=ax)),
                 lambda a, ax=ax: cg.sqrt(cg.sum(a * a, axis=ax)), arr),
                (f"softmax {name} ax{ax}", lambda a, ax=ax: _softmax(np, a, ax), lambda a, ax=ax: _softmax(cg, a, ax), arr),
            ]
    x = two_d["X"]
    for ax in (0, 1, None):  # bool reductions (any/all in 32-bit lanes since 2026-12-08)
        rows += [
            (f"any X>3 ax{ax}", lambda a, ax=ax: np.any(a > 3, axis=ax), lambda a, ax=ax: cg.any(a > 3, axis=ax), x),
            (f"all X>-5 ax{ax}", lambda a, ax=ax: np.all(a > -5, axis=ax), lambda a, ax=ax: cg.all(a > -5, axis=ax), x),
            (f"max X>0 ax{ax}", lambda a, ax=ax: np.max(a > 0, axis=ax), lambda a, ax=ax: cg.max(a > 0, axis=ax), x),
        ]
    z = (rng.standard_normal((2048, 2048)) + 1j * rng.standard_normal((2048, 2048))).astype(np.complex64)
    for ax in (0, 1, None):  # complex values in reductions (staged loops, column mode: 2026-12-08)
        rows += [
            (f"sum Z ax{ax}", lambda a, ax=ax: np.sum(a, axis=ax), lambda a, ax=ax: cg.sum(a, axis=ax), z),
            (f"sum abs Z ax{ax}", lambda a, ax=ax: np.sum(np.abs(a), axis=ax),
             lambda a, ax=ax: cg.sum(cg.abs(a), axis=ax), z),
            (f"max abs Z ax{ax}", lambda a, ax=ax: np.max(np.abs(a), axis=ax),
             lambda a, ax=ax: cg.max(cg.abs(a), axis=ax), z),
        ]
    t3 = rng.standard_normal((64, 256, 1024)).astype(np.float32)
    for ax in (0, 1, 2, (0, 2)):
        label = "".join(map(str, ax)) if isinstance(ax, tuple) else str(ax)
        rows += [
            (f"sum T3 ax{label}", lambda a, ax=ax: np.sum(a, axis=ax), lambda a, ax=ax: cg.sum(a, axis=ax), t3),
            (f"var T3 ax{label}", lambda a, ax=ax: np.var(a, axis=ax), lambda a, ax=ax: cg.var(a, axis=ax), t3),
        ]
    return rows


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    for name, np_f, cg_f, arr in cases():
        if only not in name:
            continue
        a = cg.asarray(arr)
        a.eval()
        t_np = median_ms(lambda: np_f(arr))
        t_cg = median_ms(lambda: cg_f(a).eval())
        flag = "  <<<" if t_cg > 2 * t_np else ""
        print(f"{name:18s} numpy {t_np:8.2f} ms  cgrad {t_cg:8.2f} ms  numpy/cgrad {t_np / t_cg:6.2f}{flag}", flush=True)


if __name__ == "__main__":
    main()
