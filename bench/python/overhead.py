"""Per-op overhead of cgrad from Python, side by side with NumPy in one process.

Building a lazy op (`x + y`: argument conversion, node creation, a new Python object) is what
a Python program pays per operation before any evaluation; `eval` rows add a realize of a tiny
graph (plan cache hit with the JIT). Each row is the median of 7 timeit repeats of process CPU
time (not wall time: evaluation threads would count, but the machine's load does not), in ns per op.
Usage: python bench/python/overhead.py
"""
import statistics
import time
import timeit

import numpy as np

import cgrad as cg


def ns(stmt, number=20000, **names):
    # CPU time of this process: the shared machine's load inflates wall time at random.
    runs = timeit.repeat(stmt, globals=names, number=number, repeat=7, timer=time.process_time)
    return statistics.median(runs) / number * 1e9


def main():
    x = cg.ones((4,))
    y = cg.ones((4,))
    cg.eval(x, y)
    a = np.ones(4, np.float32)
    b = np.ones(4, np.float32)
    rows = [
        ("cgrad x + y (lazy, no eval)", ns("x + y", x=x, y=y)),
        ("cgrad x + 1.0 (lazy)", ns("x + 1.0", x=x)),
        ("cgrad cg.exp(x) (lazy)", ns("cg.exp(x)", x=x, cg=cg)),
        ("cgrad x[1:3] (lazy)", ns("x[1:3]", x=x)),
        ("cgrad (x + y).eval()", ns("(x + y).eval()", number=2000, x=x, y=y)),
        ("cgrad float(cg.sum(x * y))", ns("float(cg.sum(x * y))", number=2000, x=x, y=y, cg=cg)),
        ("numpy a + b (4 elements)", ns("a + b", a=a, b=b)),
        ("numpy np.exp(a)", ns("np.exp(a)", a=a, np=np)),
        ("numpy a[1:3]", ns("a[1:3]", a=a)),
        ("numpy float((a * b).sum())", ns("float((a * b).sum())", a=a, b=b)),
    ]
    w = max(len(r[0]) for r in rows)
    for name, v in rows:
        print(f"{name:<{w}}  {v:10.0f} ns")


if __name__ == "__main__":
    main()
