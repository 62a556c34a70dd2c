"""What cgrad.ufunc adds to a call (docs/python.md, "ufuncs"): `cgrad.add` (a ufunc since
2026-12-08) against `cgrad._cgrad.add`, the nanobind function that `cgrad.add` was before and
that the ufunc's `__call__` is; likewise `exp`, `maximum` with a Python scalar and a call with a
keyword. Both are called through a name bound to them (`f(x, y)`): a lookup in the module, which
costs more in `cgrad`'s large namespace than in `_cgrad`'s (0.03 us), is not the ufunc's. 1-element
float32 arrays, nothing evaluated; each row is the minimum of 5 timeit repeats of 200000 calls,
before and after interleaved, in us per call. Then the methods beside the functions they map to
(`add.reduce` and `sum`).
Usage: python bench/python/ufunc_call.py
"""
import timeit

import cgrad as cg
from cgrad import _cgrad


def us(stmt, names, number=200000):
    return timeit.timeit(stmt, globals=names, number=number) / number * 1e6


def main():
    x, y = cg.asarray([1.0]), cg.asarray([2.0])
    names = {"x": x, "y": y}
    for f in ("add", "exp", "maximum"):
        names["c_" + f], names["u_" + f] = getattr(_cgrad, f), getattr(cg, f)
    rows = [("add(x, y)", "c_add(x, y)", "u_add(x, y)"), ("exp(x)", "c_exp(x)", "u_exp(x)"),
            ("maximum(x, 2.0)", "c_maximum(x, 2.0)", "u_maximum(x, 2.0)"),
            ("add(x, y, out=None)", "c_add(x, y, out=None)", "u_add(x, y, out=None)")]
    best = {label: [float("inf"), float("inf")] for label, _, _ in rows}
    for _ in range(5):
        for label, before, after in rows:
            best[label][0] = min(best[label][0], us(before, names))
            best[label][1] = min(best[label][1], us(after, names))
    print(f"{'call':24s} {'function':>9s} {'ufunc':>9s} {'added':>9s}")
    for label, (b, a) in best.items():
        print(f"{label:24s} {b:9.3f} {a:9.3f} {a - b:+9.3f}")
    m = cg.ones((4, 3))
    for label, stmt in (("cg.sum(m, axis=0)", "cg.sum(m, axis=0)"), ("cg.add.reduce(m)", "cg.add.reduce(m)"),
                        ("cg.maximum.accumulate(m)", "cg.maximum.accumulate(m)"),
                        ("cg.add.outer(x, y)", "cg.add.outer(x, y)")):
        t = min(timeit.repeat(stmt, globals={"cg": cg, "m": m, "x": x, "y": y}, number=20000, repeat=5))
        print(f"{label:24s} {t / 20000 * 1e6:9.3f} us")


if __name__ == "__main__":
    main()
