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
