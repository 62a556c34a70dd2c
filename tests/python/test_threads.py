"""Threads: evaluation releases the GIL, and several Python threads evaluating independent
graphs at once get the right answers (no deadlock, no crash)."""
import threading

import numpy as np

import cgrad as cg


def test_threads_evaluate_concurrently_and_correctly():
    results = {}
    errors = []

    def work(i):
        try:
            a = np.full((64, 64), float(i), np.float32)
            x = cg.from_dlpack(a)
            for _ in range(20):
                x = x * 1.0 + 1.0
            results[i] = float(cg.sum(x @ cg.ones((64, 1))))
        except Exception as e:  # pragma: no cover (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    for i in range(8):
        assert results[i] == (i + 20.0) * 64 * 64


def test_python_runs_while_another_thread_evaluates():
    # The worker's evaluation is long enough that the main thread is scheduled during it; with
    # the GIL held for the whole evaluation the main thread could only run before or after.
    started = threading.Event()
    done = threading.Event()
    ticks_during = []

    def worker():
        x = cg.randn((400, 400), dtype=cg.float64)
        y = x
        for _ in range(30):
            y = y @ x * 1e-3
        started.set()
        cg.eval(y)
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    started.wait()
    n = 0
    while not done.is_set():
        n += 1
    ticks_during.append(n)
    t.join()
    assert ticks_during[0] > 0


_TRACE_WAIT = """
import threading, time, numpy as np, cgrad as cg
started = threading.Event()
def slow(x):
    started.set()
    time.sleep(0.2)  # releases the GIL: the other thread runs while this trace holds the realize lock
    return x + 1
f, g = cg.compile(slow), cg.compile(lambda x: x * 2)
x = cg.asarray(np.ones(4, np.float32))
cg.eval(x)
out = {}
def other():
    started.wait()
    out["g"] = np.asarray(g(x)).tolist()
t = threading.Thread(target=other, daemon=True)
t.start()
out["f"] = np.asarray(f(x)).tolist()
t.join(timeout=30)
assert not t.is_alive() and out == {"f": [2.0] * 4, "g": [2.0] * 4}, out
"""


def test_a_thread_waiting_for_a_trace_lets_it_take_the_gil():
    # A compiled call waited for the realize lock holding the GIL while the thread holding that
    # lock (tracing, in Python) waited for the GIL: both hung (a subprocess, so a hang fails)
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _TRACE_WAIT], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
