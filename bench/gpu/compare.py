#!/usr/bin/env python3
"""The GPU workloads of bench_gpu.cpp in PyTorch eager, torch.compile and CuPy, on the same GPU.

W1 a*b+c, W2 1/(1+exp(-x)), W3 sum(a*b) at 2^28 f32; W4 row softmax 4096x4096 f32; W5 one RK4
step of the Lorenz system at 2^26 f32 systems; plus torch's device-to-device copy. Bytes counted
as in bench_gpu (ideal traffic: each input read once, each output written once), so the GB/s
columns compare directly. Frameworks that are not installed are skipped with a note.

usage: compare.py [--log2n 28] [--reps 20]
"""
import argparse
import time


def timed(fn, sync, reps):
    fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    sync()
    return (time.perf_counter() - t0) / reps


def lorenz_rk4(xp, X, Y, Z, h=0.01):
    def f(x, y, z):
        return 10.0 * (y - x), 28.0 * x - y - x * z, x * y - (8.0 / 3.0) * z
    h2, h6 = h / 2, h / 6
    k1 = f(X, Y, Z)
    k2 = f(X + h2 * k1[0], Y + h2 * k1[1], Z + h2 * k1[2])
    k3 = f(X + h2 * k2[0], Y + h2 * k2[1], Z + h2 * k2[2])
    k4 = f(X + h * k3[0], Y + h * k3[1], Z + h * k3[2])
    return tuple(s + h6 * (a + 2.0 * b + 2.0 * c + d) for s, a, b, c, d in zip((X, Y, Z), k1, k2, k3, k4))


def workloads(n):
    fb = 4.0 * n
    return [
        ("W1 a*b+c", 4 * fb), ("W2 1/(1+exp(-x))", 2 * fb), ("W3 sum(a*b)", 2 * fb),
        ("W4 softmax 4096x4096", 2 * 4096 * 4096 * 4.0), ("W5 RK4 Lorenz step", 6 * 4.0 * (n // 4)),
    ]


def torch_fns(torch, n, compiled):
    dev = "cuda"
    a, b, c = (torch.rand(n, device=dev) for _ in range(3))
    x = torch.randn(4096, 4096, device=dev)
    X, Y, Z = (torch.rand(n // 4, device=dev) for _ in range(3))
    fns = [
        lambda a, b, c: a * b + c,
        lambda a: 1.0 / (1.0 + torch.exp(-a)),
        lambda a, b: torch.sum(a * b),
        lambda x: torch.softmax(x, -1),
        lambda X, Y, Z: lorenz_rk4(torch, X, Y, Z),
    ]
    if compiled:
        fns = [torch.compile(f) for f in fns]
    args = [(a, b, c), (a,), (a, b), (x,), (X, Y, Z)]
    return [(lambda f=f, ar=ar: f(*ar)) for f, ar in zip(fns, args)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log2n", type=int, default=28)
    p.add_argument("--reps", type=int, default=20)
    o = p.parse_args()
    n = 1 << o.log2n
    rows = []
    try:
        import torch
        sync = torch.cuda.synchronize
        src = torch.rand(n, device="cuda")
        dst = torch.empty_like(src)
        s = timed(lambda: dst.copy_(src), sync, o.reps)
        copy = 2 * 4.0 * n / s / 1e9
        print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; D2D copy {copy:.1f} GB/s\n")
        for compiled, name in ((False, "torch eager"), (True, "torch.compile")):
            for (w, bytes_), fn in zip(workloads(n), torch_fns(torch, n, compiled)):
                t = timed(fn, sync, o.reps)
                rows.append((w, name, t, bytes_ / t / 1e9, copy))
    except ImportError as e:
        print(f"torch not available: {e}")
        copy = 0
    try:
        import cupy as cp
        sync = cp.cuda.Device().synchronize
        a, b, c = (cp.random.rand(n, dtype=cp.float32) for _ in range(3))
        x = cp.random.randn(4096, 4096, dtype=cp.float32)
        X, Y, Z = (cp.random.rand(n // 4, dtype=cp.float32) for _ in range(3))

        def softmax(x):
            e = cp.exp(x - x.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)
        fns = [lambda: a * b + c, lambda: 1.0 / (1.0 + cp.exp(-a)), lambda: cp.sum(a * b), lambda: softmax(x),
               lambda: lorenz_rk4(cp, X, Y, Z)]
        for (w, bytes_), fn in zip(workloads(n), fns):
            t = timed(fn, sync, o.reps)
            rows.append((w, "CuPy", t, bytes_ / t / 1e9, copy))
    except ImportError as e:
        print(f"cupy not available: {e}")
    print("| workload | framework | ms | GB/s | of copy |\n|---|---|---|---|---|")
    for w, name, t, gbs, cp_ in rows:
        print(f"| {w} | {name} | {t * 1e3:.3f} | {gbs:.1f} | {100 * gbs / cp_ if cp_ else 0:.1f}% |")


if __name__ == "__main__":
    main()
