"""The functions issue #15 added (sort, scans, gathers, arg-reductions, var) and reductions over a leading axis
(column sums, var, softmax, a batch norm), from Python, beside
NumPy, torch eager, torch.compile and jax.jit, in one process.

Each row is one call computing the result from realized inputs and returning it (cgrad: built and
evaluated in the call; jax: `block_until_ready`). The outputs are checked against NumPy's before
timing (sorts and arg-reductions exactly, the rest to rtol 1e-4 after float64 conversion). Rounds
rotate the order of the implementations as workloads.py does; each ratio is the median over
rounds of time / cgrad's time in the same round, with the 25th-75th percentile band. The first
call of each implementation is timed alone (cgrad, torch.compile and jax.jit compile there).

Usage: python bench/python/breadth.py [--only B1,B3] [--reps 15] [--threads 2]
(`BENCH_PYTHON=... BENCH_PROCS=breadth bench/run.sh` writes it into bench/RESULTS.md.)
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as wl  # noqa: E402  (the shared environment, libraries and statistics)

# name -> (description, input maker, per-library function builders)
N1 = 1 << 22


def _inputs(np, name):
    rng = np.random.default_rng(2)
    if name == "B1":  # sort of a 1-D array
        return [rng.standard_normal(N1).astype(np.float32)]
    if name == "B2":  # running sum of an affine map
        return [rng.standard_normal(1 << 24).astype(np.float32)]
    if name == "B3":  # embedding lookup: rows of a table, scaled
        return [rng.standard_normal((50000, 64)).astype(np.float32), rng.integers(0, 50000, 8192).astype(np.int64)]
    if name == "B4":  # row argmax
        return [rng.standard_normal((4096, 4096)).astype(np.float32)]
    if name == "B8":  # the MLP step's bias gradient: a column sum of the batch
        return [rng.standard_normal((256, 512)).astype(np.float32)]
    return [rng.standard_normal((4096, 4096)).astype(np.float32)]  # B5, B6, B7


SIZES = {
    "B1": "sort(x), 2^22 f32",
    "B2": "cumulative_sum(2*x + 1), 2^24 f32",
    "B3": "take(W, idx, axis=0) * 2, W 50000x64 f32, 8192 indices",
    "B4": "argmax(x, axis=1), 4096x4096 f32",
    "B5": "var(x, axis=1), 4096x4096 f32",
    "B6": "argmax(x) (all axes: the flat index), 4096x4096 f32",
    "B7": "sum(x, axis=0) (a column sum: the reduced axis leads), 4096x4096 f32",
    "B8": "sum(x, axis=0), 256x512 f32 (a bias gradient of the MLP step)",
    "B9": "var(x, axis=0) (reductions over the leading axis, one reading the other), 4096x4096 f32",
    "B10": "softmax over axis 0 (max, sum of exp, stores), 4096x4096 f32",
    "B11": "batch norm: (x - mean(x, 0)) / sqrt(var(x, 0) + 1e-5), 4096x4096 f32",
}
EXACT = {"B1", "B4", "B6"}


def _functions(name, m):
    """The workload written against array namespace `m` (cgrad, numpy, torch or jax.numpy)."""
    torch_like = getattr(m, "__name__", "") == "torch"
    if name == "B1":
        return (lambda x: m.sort(x).values) if torch_like else (lambda x: m.sort(x))
    if name == "B2":
        if torch_like:
            return lambda x: m.cumsum(2.0 * x + 1.0, 0)
        if m.__name__.startswith("numpy") or m.__name__.startswith("jax"):
            return lambda x: m.cumsum(2.0 * x + 1.0)
        return lambda x: m.cumulative_sum(2.0 * x + 1.0)
    if name == "B3":
        if torch_like:
            return lambda w, i: m.index_select(w, 0, i) * 2.0
        return lambda w, i: m.take(w, i, axis=0) * 2.0
    if name == "B4":
        return lambda x: m.argmax(x, axis=1) if not torch_like else m.argmax(x, 1)
    if name == "B6":
        return lambda x: m.argmax(x)
    if name in ("B7", "B8"):
        return (lambda x: m.sum(x, 0)) if torch_like else (lambda x: m.sum(x, axis=0))
    kw = (lambda keep: {"dim": 0, "keepdim": keep}) if torch_like else (lambda keep: {"axis": 0, "keepdims": keep})
    if name == "B9":
        return (lambda x: m.var(x, 0, correction=0)) if torch_like else (lambda x: m.var(x, axis=0))
    if name == "B10":  # written out: NumPy has no softmax
        def softmax0(x):
            mx = m.max(x, **kw(True))
            mx = mx.values if torch_like else mx
            e = m.exp(x - mx)
            return e / m.sum(e, **kw(True))
        return softmax0
    if name == "B11":
        def batch_norm(x):
            mu = m.mean(x, **kw(True))
            d = x - mu
            return d / m.sqrt(m.mean(d * d, **kw(True)) + 1e-5)
        return batch_norm
    if torch_like:
        return lambda x: m.var(x, 1, correction=0)
    return lambda x: m.var(x, axis=1)


def implementations(libs, name, arrs):
    np, cg = libs["np"], libs["cg"]
    impls = {}
    A = [cg.asarray(a) for a in arrs]
    cg.eval(*A)
    f = _functions(name, cg)
    fc = cg.compile(f)
    impls["cgrad"] = lambda: f(*A).eval()
    impls["cgrad compile"] = lambda: fc(*A).eval()
    impls["numpy"] = lambda: _functions(name, np)(*arrs)
    if "torch" in libs:
        torch = libs["torch"]
        T = [torch.from_numpy(a) for a in arrs]
        fe = _functions(name, torch)
        ft = torch.compile(fe)
        impls["torch eager"] = lambda: fe(*T)
        impls["torch.compile"] = lambda: ft(*T)
    if "jax" in libs:
        jax, jnp = libs["jax"], libs["jnp"]
        J = [jax.device_put(a) for a in arrs]
        fj = jax.jit(_functions(name, jnp))
        impls["jax.jit"] = lambda: jax.block_until_ready(fj(*J))
    return impls


def run(libs, name, reps):
    np = libs["np"]
    arrs = _inputs(np, name)
    impls = implementations(libs, name, arrs)
    names = list(impls)
    first, outs = wl.first_calls(impls)
    rtol = 0 if name in EXACT else 1e-4  # sorts and arg-reductions: exactly
    check = {n: "ok" if wl.matches(np, outs[n], outs["numpy"], rtol) else "DIFF" for n in names}
    del outs
    times = wl.rounds(impls, reps)
    base = times["cgrad"]
    print(f"#### {name}: {SIZES[name]} ({reps} rounds)\n")
    print("| implementation | median ms | min ms | x cgrad [p25, p75] | first call ms | check vs numpy |")
    print("|---|---:|---:|---|---:|---|")
    for n in names:
        ratios = [t / b for t, b in zip(times[n], base)]
        print(f"| {n} | {wl.pct(times[n], 0.5) * 1e3:.2f} | {min(times[n]) * 1e3:.2f} | "
              f"{wl.pct(ratios, 0.5):.2f} [{wl.pct(ratios, 0.25):.2f}, {wl.pct(ratios, 0.75):.2f}] | "
              f"{first[n] * 1e3:.1f} | {check[n]} |")
    print(flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    wl._env(args.threads)
    libs = wl._libs(args.threads)
    la = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {wl._cpu_model()}, "
          f"{os.cpu_count()} CPUs; threads {args.threads}; load average at the start: {la}")
    print("\n### Functions of issue #15: median ms per call; ratio = time / cgrad time of the same round "
          "(median, [p25, p75] over rounds); first call alone in ms\n")
    only = [w for w in args.only.split(",") if w]
    for name in SIZES:
        if not only or name in only:
            run(libs, name, args.reps)
    print(f"- load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
