"""A sweep for performance cliffs in manipulation, broadcasting, gathers, sorts and products along
each axis of 2-D and 3-D float32 arrays (4096 x 4096, 2^20 x 16, 256^3, a batch of 8 x 8 matrices),
cgrad beside NumPy in one process. Each row prints both median times (5 calls after a warm-up) and
flags with `<<<` the rows where cgrad takes more than twice NumPy's time. Not a benchmark of record:
run it after a change to the GEMM, the layouts or the gathers (bench/NOTES.md, "Cliffs"). It found
the matrix-vector and batched small products of 2026-12-04 (bench/RESULTS.md).

Usage: CGRAD_RESULT_CACHE_BYTES=0 CGRAD_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
       python bench/python/survey_axes.py [name filter]
"""

import os
import sys

import cgrad as cg
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from survey import median_ms  # noqa: E402  (the reductions' survey: one timing rule for all three)


def inputs():
    """The NumPy arrays every row draws from, by name."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4096, 4096)).astype(np.float32)
    S = rng.standard_normal((1 << 20, 16)).astype(np.float32)
    T3 = rng.standard_normal((256, 256, 256)).astype(np.float32)
    B = rng.standard_normal((1 << 16, 8, 8)).astype(np.float32)
    v = rng.standard_normal((4096,)).astype(np.float32)
    idx0 = rng.integers(0, 4096, 4096)
    sv = np.sort(rng.standard_normal(1 << 20).astype(np.float32))
    q = rng.standard_normal(1 << 20).astype(np.float32)
    return {"X": X, "S": S, "T3": T3, "B": B, "v": v, "idx0": idx0, "sv": sv, "q": q}


# (name, f(module, arrays)): f builds the result with NumPy or cgrad
ROWS = [
    ("flip X ax0", lambda m, a: m.flip(a["X"], axis=0)),
    ("flip X ax1", lambda m, a: m.flip(a["X"], axis=1)),
    ("roll X ax0", lambda m, a: m.roll(a["X"], 7, axis=0)),
    ("roll X ax1", lambda m, a: m.roll(a["X"], 7, axis=1)),
    ("concat X ax0", lambda m, a: (m.concat if m is cg else m.concatenate)([a["X"], a["X"]], axis=0)),
    ("concat X ax1", lambda m, a: (m.concat if m is cg else m.concatenate)([a["X"], a["X"]], axis=1)),
    ("stack S ax1", lambda m, a: m.stack([a["S"], a["S"]], axis=1)),
    ("repeat X ax0", lambda m, a: m.repeat(a["X"], 2, axis=0)),
    ("repeat X ax1", lambda m, a: m.repeat(a["X"], 2, axis=1)),
    ("tile X (1,2)", lambda m, a: m.tile(a["X"], (1, 2))),
    ("permute T3 021", lambda m, a: (m.permute_dims if m is cg else m.transpose)(a["T3"], (0, 2, 1)) + 0),
    ("permute T3 210", lambda m, a: (m.permute_dims if m is cg else m.transpose)(a["T3"], (2, 1, 0)) + 0),
    ("permute T3 102", lambda m, a: (m.permute_dims if m is cg else m.transpose)(a["T3"], (1, 0, 2)) + 0),
    ("X + v[:,None]", lambda m, a: a["X"] + m.reshape(a["v"], (4096, 1))),
    ("X + v", lambda m, a: a["X"] + a["v"]),
    ("X + X.T", lambda m, a: a["X"] + a["X"].T),
    ("where bcast", lambda m, a: m.where(a["X"] > 0, a["X"], m.reshape(a["v"], (4096, 1)))),
    ("take X ax0", lambda m, a: m.take(a["X"], a["idx0"], axis=0)),
    ("take X ax1", lambda m, a: m.take(a["X"], a["idx0"], axis=1)),
    ("take_along ax1", lambda m, a: m.take_along_axis(a["X"], (m.argsort(a["X"], axis=1)), axis=1)),
    ("argsort X ax1", lambda m, a: m.argsort(a["X"], axis=1)),
    ("argsort X ax0", lambda m, a: m.argsort(a["X"], axis=0)),
    ("searchsorted", lambda m, a: m.searchsorted(a["sv"], a["q"])),
    ("matmul B 8x8", lambda m, a: m.matmul(a["B"], a["B"])),
    ("matvec X@v", lambda m, a: m.matmul(a["X"], a["v"])),
    ("vecmat v@X", lambda m, a: m.matmul(a["v"], a["X"])),
    ("X.T@X 1024", lambda m, a: m.matmul(a["X"][:1024, :1024].T, a["X"][:1024, :1024])),
    ("mean T3 ax01", lambda m, a: m.mean(a["T3"], axis=(0, 1))),
    ("sum X.T", lambda m, a: m.sum(a["X"].T)),
    ("max X.T", lambda m, a: m.max(a["X"].T)),
    ("sum T3 210 ax12", lambda m, a: m.sum((m.permute_dims if m is cg else m.transpose)(a["T3"], (2, 1, 0)),
                                           axis=(1, 2))),
    ("std X ax0", lambda m, a: m.std(a["X"], axis=0)),
    ("diff X ax0", lambda m, a: m.diff(a["X"], axis=0)),
    ("tril X", lambda m, a: m.tril(a["X"])),
    ("count_nonzero ax0", lambda m, a: m.count_nonzero(a["X"] > 0, axis=0)),
    ("logaddexp", lambda m, a: m.logaddexp(a["X"], a["X"].T)),
    ("sort S ax1", lambda m, a: m.sort(a["S"], axis=1)),
    ("unstack S ax1", lambda m, a: m.unstack(a["S"], axis=1)[3] + 0),
    ("moveaxis T3", lambda m, a: m.moveaxis(a["T3"], 0, 2) + 0),
    ("vecdot X ax0", lambda m, a: m.vecdot(a["X"], a["X"], axis=0)),
    ("tensordot", lambda m, a: m.tensordot(a["X"][:1024,:1024], a["X"][:1024,:1024], axes=([0],[0]))),
]


def main():
    np_in = inputs()
    cg_in = {k: cg.asarray(val) for k, val in np_in.items()}
    for t in cg_in.values():
        t.eval()
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    for name, f in ROWS:
        if only not in name:
            continue
        try:
            tn = median_ms(lambda: f(np, np_in))
            tc = median_ms(lambda: f(cg, cg_in).eval())
        except Exception as e:  # noqa: BLE001 (a row that fails is reported, the sweep goes on)
            print(f"{name:18s} ERROR {type(e).__name__}: {str(e)[:150]}", flush=True)
            continue
        flag = "  <<<" if tc > 2 * tn else ""
        print(f"{name:18s} numpy {tn:8.2f} ms  cgrad {tc:8.2f} ms  numpy/cgrad {tn / tc:6.2f}{flag}", flush=True)


if __name__ == "__main__":
    main()
