"""Timing for the Python benchmarks (linalg.py, fft.py, einsum.py): medians of repeated calls, and two
callables run in turn so both see the same machine state."""
import time


def median_pair(f, g, reps):
    """Median times in ms of f and g over `reps` interleaved calls, after one warm-up call each."""
    f(), g()
    tf, tg = [], []
    for _ in range(reps):
        for fn, acc in ((f, tf), (g, tg)):
            t0 = time.perf_counter()
            fn()
            acc.append(time.perf_counter() - t0)
    return sorted(tf)[reps // 2] * 1e3, sorted(tg)[reps // 2] * 1e3


def median(f, reps):
    """Median time in ms of `reps` calls of f, after one warm-up call."""
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return sorted(ts)[reps // 2] * 1e3
