"""cgrad from Python beside NumPy, torch eager, torch.compile and jax.jit, in one process.

Three sections (docs/python.md, "Performance"; results in bench/RESULTS.md, written by
`BENCH_PYTHON=... bench/run.sh`):

- `import`: wall time of `python -c "import X"` in fresh processes (median of 10, alternating
  between the modules), beside a bare `python -c pass`, for cgrad, numpy, torch and jax.
- `overhead`: the host cost of one operation on 1-element arrays: building a lazy cgrad op
  (recording it; nothing runs), evaluating one, replaying a `cg.compile` plan; NumPy's ufunc
  call; a torch eager op; a call of a `torch.compile`d or `jax.jit`ted one-op function; a jax
  eager op. Process CPU time (as overhead.py: the shared machine's load does not count), median
  of 7 timeit repeats whose rows alternate, in ns per call.
- `wl`: the workloads of bench/bench_cgrad.cpp (docs/benchmarks.md) at the same sizes:
  W1 a*b+c, W2 1/(1+exp(-x)), W3 sum(a*b) (2^24 float32), W4 row softmax (4096 x 4096 float32:
  each library's softmax; NumPy composed), W5 one RK4 step of 2^20 Lorenz systems (float64, SoA
  X, Y, Z, the same textbook Python function for every library). Each call computes the result
  from realized inputs and returns it (cgrad: built and evaluated in the call; jax:
  `block_until_ready`); W5 advances its state one step per call, as bench_cgrad does. Every
  output is checked against NumPy's: the first call's (W5: the first step from the initial
  state) before timing, and one more call's after timing (W5: every implementation has then
  made the same number of steps). The first call of each implementation is timed
  alone (it compiles for cgrad, torch.compile and jax.jit; fresh cgrad and inductor caches) and
  reported in the `first call` column; one more warm-up call follows. Then `--reps` rounds, each
  timing one call of every implementation in a rotated order, so that the machine's slow and
  fast phases fall on all of them alike. Each ratio is the median over the rounds of
  time / time of the cgrad row of the same round; the spread is the 25th-75th percentile of
  those per-round ratios. Wall time (perf_counter): the libraries use threads.

- `mlp`: the MLP training step of bench/bench_mlp.cpp (784-512-512-10, batch 256, float32, ReLU,
  softmax cross-entropy on class labels, SGD with momentum 0.9, lr 0.01) in cgrad (autograd +
  optim.SGD, the step in one schedule), NumPy (the backward written out), torch eager,
  torch.compile (the whole step function) and jax.jit (value_and_grad and the update in one
  jitted function, parameters donated). Same weights and data for everyone; rounds alternate as
  in `wl`; the losses of the first step and of one step after timing are checked against NumPy's
  (every implementation has made the same number of steps). GEMM GFLOP/s = the FLOPs of the step's
  eight GEMMs (3 forward, 3 weight gradients, 2 input gradients: 0.822 GFLOP) / median time.

Threads: `--threads` (default 2) for cgrad (CGRAD_NUM_THREADS), torch (set_num_threads, also
used by torch.compile's generated C++), OpenMP and XLA's CPU client (its pool takes one thread
per core; the machine this was written for has 2). NumPy's ufuncs are single-threaded. With as
few cores as threads, the libraries in one process slow each other (their worker threads keep
running between calls): on the 2-vCPU VM the MLP step took cgrad 6.4 ms and jax.jit 5.4 in one
process, 2.4-2.6 ms each in processes of their own (bench/NOTES.md, 2026-12-02). `--mlp-procs N`
measures the `mlp` section that way: N rounds of one fresh process per implementation
(section_mlp_isolated); bench/run.sh passes 3.
cgrad's result cache is off (CGRAD_RESULT_CACHE_BYTES=0, as in bench_cgrad): every call
computes. Libraries that do not import are skipped with a note.

Usage: python bench/python/workloads.py [--sections import,overhead,wl,mlp] [--only W1,W5,MLP] [--reps 15]
"""
import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time


def _env(threads):
    # Before any library loads: every one reads these once.
    t = str(threads)
    os.environ["CGRAD_NUM_THREADS"] = t
    os.environ["OMP_NUM_THREADS"] = t
    os.environ["MKL_NUM_THREADS"] = t
    os.environ["OPENBLAS_NUM_THREADS"] = t
    os.environ.setdefault("CGRAD_RESULT_CACHE_BYTES", "0")
    os.environ.setdefault("CGRAD_CACHE_DIR", tempfile.mkdtemp(prefix="cgrad-pybench-"))
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor-pybench-"))
    os.environ.setdefault("XLA_FLAGS", f"--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads={t}")


def _libs(threads):
    libs = {}
    import numpy as np

    import cgrad as cg

    libs["np"], libs["cg"] = np, cg
    try:
        import torch

        torch.set_num_threads(threads)
        libs["torch"] = torch
    except Exception as e:  # noqa: BLE001  (any import failure: report and go on)
        print(f"# torch not available: {e!r}")
    try:
        import jax

        jax.config.update("jax_enable_x64", True)  # W5 is float64; arrays are made with explicit dtypes
        import jax.numpy as jnp

        libs["jax"], libs["jnp"] = jax, jnp
    except Exception as e:  # noqa: BLE001
        print(f"# jax not available: {e!r}")
    return libs


# ---------------------------------------------------------------- the workloads, library-generic
SIGMA, RHO, BETA, DT = 10.0, 28.0, 8.0 / 3.0, 0.001


def lorenz(x, y, z):
    return SIGMA * (y - x), RHO * x - y - x * z, x * y - BETA * z


def rk4(X, Y, Z):
    h, h2, h6 = DT, DT / 2, DT / 6
    k1x, k1y, k1z = lorenz(X, Y, Z)
    k2x, k2y, k2z = lorenz(X + h2 * k1x, Y + h2 * k1y, Z + h2 * k1z)
    k3x, k3y, k3z = lorenz(X + h2 * k2x, Y + h2 * k2y, Z + h2 * k2z)
    k4x, k4y, k4z = lorenz(X + h * k3x, Y + h * k3y, Z + h * k3z)
    return (X + h6 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
            Y + h6 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y),
            Z + h6 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z))


def inputs(np, wl, log2n=24):
    """The workload's inputs; W1-W3 have 2^log2n elements (first_call.py also runs 2^27)."""
    rng = np.random.default_rng(1)
    if wl in ("W1", "W2", "W3"):
        n = 1 << log2n
        return [rng.uniform(-1, 1, n).astype(np.float32) for _ in range(3 if wl == "W1" else (1 if wl == "W2" else 2))]
    if wl == "W4":
        return [rng.uniform(-4, 4, (4096, 4096)).astype(np.float32)]
    n = 1 << 20
    return [rng.uniform(-10, 10, n), rng.uniform(-10, 10, n), rng.uniform(10, 40, n)]


def _stepper(state, finish, step):
    """W5 as bench_cgrad runs it: each call advances the state by one step (the old state is
    dropped, so its buffers can be reused) and returns the new one."""

    def call():
        state[:] = finish(*step(*state))
        return tuple(state)

    return call


def implementations(libs, wl, arrs):
    """name -> zero-argument callable computing the workload and returning its output(s)."""
    np, cg = libs["np"], libs.get("cg")
    impls = {}
    # cgrad: the way a user writes it (build + eval per call), and a cg.compile plan replayed.
    # (Left out when `libs` has no cgrad: first_call.py times each peer alone in its process.)
    if cg:
        A = [cg.asarray(a) for a in arrs]
        cg.eval(*A)
        if wl == "W1":
            f = cg.compile(lambda a, b, c: a * b + c)
            impls["cgrad"] = lambda: (A[0] * A[1] + A[2]).eval()
            impls["cgrad compile"] = lambda: f(*A).eval()
        elif wl == "W2":
            f = cg.compile(lambda a: 1.0 / (1.0 + cg.exp(-a)))
            impls["cgrad"] = lambda: (1.0 / (1.0 + cg.exp(-A[0]))).eval()
            impls["cgrad compile"] = lambda: f(*A).eval()
        elif wl == "W3":
            f = cg.compile(lambda a, b: cg.sum(a * b))
            impls["cgrad"] = lambda: float(cg.sum(A[0] * A[1]))
            impls["cgrad compile"] = lambda: float(f(*A))
        elif wl == "W4":
            f = cg.compile(lambda x: cg.softmax(x, 1))
            impls["cgrad"] = lambda: cg.softmax(A[0], 1).eval()
            impls["cgrad compile"] = lambda: f(*A).eval()
        else:
            f = cg.compile(lambda x, y, z: rk4(x, y, z))
            impls["cgrad"] = _stepper(list(A), lambda *s: cg.eval(*s) or s, rk4)
            impls["cgrad compile"] = _stepper(list(A), lambda *s: cg.eval(*s) or s, f)
    # NumPy
    if wl == "W1":
        impls["numpy"] = lambda: arrs[0] * arrs[1] + arrs[2]
    elif wl == "W2":
        impls["numpy"] = lambda: 1.0 / (1.0 + np.exp(-arrs[0]))
    elif wl == "W3":
        impls["numpy"] = lambda: float((arrs[0] * arrs[1]).sum())
    elif wl == "W4":
        def np_softmax():
            x = arrs[0]
            e = np.exp(x - x.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        impls["numpy"] = np_softmax
    else:
        impls["numpy"] = _stepper(list(arrs), lambda *s: s, rk4)
    if "torch" in libs:
        torch = libs["torch"]
        T = [torch.from_numpy(a) for a in arrs]
        fns = {
            "W1": lambda a, b, c: a * b + c,
            "W2": lambda a: 1.0 / (1.0 + torch.exp(-a)),
            "W3": lambda a, b: (a * b).sum(),
            "W4": lambda x: torch.softmax(x, 1),
            "W5": lambda x, y, z: rk4(x, y, z),
        }
        fe = fns[wl]
        fc = torch.compile(fns[wl])
        if wl == "W5":
            impls["torch eager"] = _stepper(list(T), lambda *s: s, fe)
            impls["torch.compile"] = _stepper(list(T), lambda *s: s, fc)
        elif wl == "W3":
            impls["torch eager"] = lambda: float(fe(*T))
            impls["torch.compile"] = lambda: float(fc(*T))
        else:
            impls["torch eager"] = lambda: fe(*T)
            impls["torch.compile"] = lambda: fc(*T)
    if "jax" in libs:
        jax, jnp = libs["jax"], libs["jnp"]
        J = [jax.device_put(a) for a in arrs]
        fns = {
            "W1": lambda a, b, c: a * b + c,
            "W2": lambda a: 1.0 / (1.0 + jnp.exp(-a)),
            "W3": lambda a, b: jnp.sum(a * b),
            "W4": lambda x: jax.nn.softmax(x, axis=1),
            "W5": lambda x, y, z: rk4(x, y, z),
        }
        fj = jax.jit(fns[wl])
        if wl == "W5":
            impls["jax.jit"] = _stepper(list(J), lambda *s: jax.block_until_ready(s), fj)
        elif wl == "W3":
            impls["jax.jit"] = lambda: float(fj(*J))
        else:
            impls["jax.jit"] = lambda: jax.block_until_ready(fj(*J))
    return impls


def as_numpy(np, out):
    if isinstance(out, float):
        return np.asarray([out])
    if isinstance(out, (tuple, list)):
        return np.concatenate([as_numpy(np, o) for o in out])
    if hasattr(out, "detach"):  # torch
        return out.detach().numpy().ravel()
    return np.asarray(out).ravel()


def pct(v, q):
    s = sorted(v)
    i = (len(s) - 1) * q
    lo = int(i)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (i - lo)


def first_calls(impls):
    """Each implementation's first call timed alone (it compiles where the library compiles), then
    one more warm-up call (torch.compile may recompile once on a second call): (name -> seconds,
    name -> the first call's output)."""
    first, outs = {}, {}
    for name in impls:
        t0 = time.perf_counter()
        outs[name] = impls[name]()
        first[name] = time.perf_counter() - t0
        impls[name]()
    return first, outs


def rounds(impls, reps):
    """name -> `reps` wall times of one call, the order of the implementations rotating from one
    round to the next so that the machine's slow and fast phases fall on all of them alike."""
    names = list(impls)
    times = {n: [] for n in names}
    for r in range(reps):
        for name in names[r % len(names):] + names[: r % len(names)]:
            t0 = time.perf_counter()
            out = impls[name]()
            times[name].append(time.perf_counter() - t0)
            del out
    return times


def matches(np, got, ref, rtol):
    """Whether output `got` equals NumPy's `ref` (any library's array or float) in shape and, after
    conversion to float64, within rtol (absolute and relative; rtol 0: exactly)."""
    got, ref = as_numpy(np, got).astype(np.float64), as_numpy(np, ref).astype(np.float64)
    return got.shape == ref.shape and bool(np.allclose(got, ref, rtol=rtol, atol=rtol))


def run_workload(libs, wl, reps):
    np = libs["np"]
    arrs = inputs(np, wl)
    impls = implementations(libs, wl, arrs)
    names = list(impls)
    first, outs = first_calls(impls)
    rtol = 1e-9 if wl == "W5" else 1e-4
    ref = as_numpy(np, outs["numpy"]).astype(np.float64)
    check = {}
    for name in names:
        got = as_numpy(np, outs[name]).astype(np.float64)
        check[name] = "ok" if matches(np, got, ref, rtol) else f"DIFF {np.max(np.abs(got - ref)):.3g}"
    del outs
    times = rounds(impls, reps)
    after = {name: impls[name]() for name in names}  # one more call each, checked like the first
    ref = as_numpy(np, after["numpy"]).astype(np.float64)
    for name in names:
        got = as_numpy(np, after[name]).astype(np.float64)
        if not matches(np, got, ref, rtol):
            check[name] += f"; after timing DIFF {np.max(np.abs(got - ref)):.3g}"
        elif check[name] == "ok":
            check[name] = "ok, ok"
    del after
    base = times["cgrad"]
    rows = []
    for name in names:
        ratios = [t / b for t, b in zip(times[name], base)]
        rows.append((name, pct(times[name], 0.5) * 1e3, min(times[name]) * 1e3, pct(ratios, 0.5), pct(ratios, 0.25),
                     pct(ratios, 0.75), first[name] * 1e3, check[name]))
    return rows


def section_wl(libs, only, reps):
    print("\n### Workloads: median ms per call; ratio = time / cgrad time of the same round "
          "(median, [p25, p75] over rounds); first call alone in ms\n")
    sizes = {"W1": "a*b+c, 2^24 f32", "W2": "1/(1+exp(-x)), 2^24 f32", "W3": "sum(a*b), 2^24 f32",
             "W4": "softmax(x, 1), 4096x4096 f32", "W5": "RK4 Lorenz step, 3 x 2^20 f64"}
    for wl in ["W1", "W2", "W3", "W4", "W5"]:
        if only and wl not in only:
            continue
        rows = run_workload(libs, wl, reps)
        print(f"#### {wl}: {sizes[wl]} ({reps} rounds)\n")
        print("| implementation | median ms | min ms | x cgrad [p25, p75] | first call ms "
              "| check vs numpy (before, after) |")
        print("|---|---:|---:|---|---:|---|")
        for name, ms, mn, r, lo, hi, fms, chk in rows:
            print(f"| {name} | {ms:.2f} | {mn:.2f} | {r:.2f} [{lo:.2f}, {hi:.2f}] | {fms:.1f} | {chk} |")
        print(flush=True)


# ---------------------------------------------------------------- the MLP training step
MLP_B, MLP_IN, MLP_H, MLP_OUT, MLP_LR, MLP_MU = 256, 784, 512, 10, 0.01, 0.9


def mlp_data(np):
    """Inputs, labels and the initial weights (784-512-512-10, biases zero), the same for everyone."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((MLP_B, MLP_IN)).astype(np.float32)
    y = (np.arange(MLP_B) * 7 % MLP_OUT).astype(np.int64)
    ws = [(0.05 * rng.standard_normal(s)).astype(np.float32) for s in ((MLP_IN, MLP_H), (MLP_H, MLP_H), (MLP_H, MLP_OUT))]
    bs = [np.zeros(n, np.float32) for n in (MLP_H, MLP_H, MLP_OUT)]
    return x, y, [ws[0], bs[0], ws[1], bs[1], ws[2], bs[2]]


def mlp_implementations(libs):
    """name -> zero-argument callable: one SGD-momentum step (forward, backward, update) on the
    implementation's own copy of the weights, returning the step's loss (before the update)."""
    np, cg = libs["np"], libs.get("cg")
    x, y, params = mlp_data(np)
    impls = {}

    # cgrad: as a user writes it; the plan cache replays the step's schedule.
    if cg:
        cx, cy = cg.asarray(x), cg.asarray(y)
        cp = [cg.asarray(p.copy()) for p in params]
        cg.eval(cx, cy, *cp)
        for p in cp:
            p.requires_grad_()
        copt = cg.optim.SGD(cp, MLP_LR, momentum=MLP_MU)

        def cg_step():
            w1, b1, w2, b2, w3, b3 = cp
            copt.zero_grad()
            h1 = cg.relu(cg.matmul(cx, w1) + b1)
            h2 = cg.relu(cg.matmul(h1, w2) + b2)
            loss = cg.cross_entropy(cg.matmul(h2, w3) + b3, cy)
            loss.backward()
            copt.step(with_=[loss])  # forward, backward and update in one schedule
            return float(loss)

        impls["cgrad"] = cg_step

    # NumPy: the backward pass written out (the oracle of the check column).
    npp = [p.copy() for p in params]
    npv = [np.zeros_like(p) for p in params]

    def np_step():
        w1, b1, w2, b2, w3, b3 = npp
        z1 = x @ w1 + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2 + b2
        h2 = np.maximum(z2, 0)
        z3 = h2 @ w3 + b3
        z3 = z3 - z3.max(axis=1, keepdims=True)
        e = np.exp(z3)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(s[:, 0]) - z3[np.arange(MLP_B), y]))
        d3 = e / s
        d3[np.arange(MLP_B), y] -= 1
        d3 /= MLP_B
        d2 = (d3 @ w3.T) * (z2 > 0)
        d1 = (d2 @ w2.T) * (z1 > 0)
        grads = [x.T @ d1, d1.sum(0), h1.T @ d2, d2.sum(0), h2.T @ d3, d3.sum(0)]
        for p, v, g in zip(npp, npv, grads):
            v *= MLP_MU
            v += g
            p -= MLP_LR * v
        return loss

    impls["numpy"] = np_step
    if "torch" in libs:
        torch = libs["torch"]
        F = torch.nn.functional
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)

        def torch_model():
            tp = [torch.from_numpy(p.copy()).requires_grad_() for p in params]
            return tp, torch.optim.SGD(tp, lr=MLP_LR, momentum=MLP_MU)

        def torch_step_fn(tp, opt):
            def step():
                w1, b1, w2, b2, w3, b3 = tp
                opt.zero_grad(set_to_none=True)
                h1 = torch.relu(tx @ w1 + b1)
                h2 = torch.relu(h1 @ w2 + b2)
                loss = F.cross_entropy(h2 @ w3 + b3, ty)
                loss.backward()
                opt.step()
                return loss.detach()

            return step

        te = torch_step_fn(*torch_model())
        impls["torch eager"] = lambda: float(te())
        # The whole step compiled: Dynamo compiles the forward (AOTAutograd its backward) and,
        # after the graph break at backward(), the optimizer update.
        tc = torch.compile(torch_step_fn(*torch_model()))
        impls["torch.compile"] = lambda: float(tc())
    if "jax" in libs:
        jax, jnp = libs["jax"], libs["jnp"]
        jx, jy = jax.device_put(x), jax.device_put(y)

        def loss_fn(p, xb, yb):
            w1, b1, w2, b2, w3, b3 = p
            h1 = jax.nn.relu(xb @ w1 + b1)
            h2 = jax.nn.relu(h1 @ w2 + b2)
            logp = jax.nn.log_softmax(h2 @ w3 + b3, axis=1)
            return -jnp.mean(jnp.take_along_axis(logp, yb[:, None], axis=1))

        def step(p, v, xb, yb):
            loss, g = jax.value_and_grad(loss_fn)(p, xb, yb)
            v = [MLP_MU * vi + gi for vi, gi in zip(v, g)]
            p = [pi - MLP_LR * vi for pi, vi in zip(p, v)]
            return p, v, loss

        jstep = jax.jit(step, donate_argnums=(0, 1))  # the update in place, as the others do
        jstate = [[jax.device_put(p.copy()) for p in params], [jnp.zeros_like(jnp.asarray(p)) for p in params]]

        def jax_step():
            jstate[0], jstate[1], loss = jstep(jstate[0], jstate[1], jx, jy)
            return float(loss)

        impls["jax.jit"] = jax_step
    return impls


def mlp_measure(libs, reps, only_impls=()):
    """Every implementation makes the same number of steps from the same weights, so the losses
    of the first step and of the step after timing are compared with NumPy's. `only_impls`
    (--impls): time only these (NumPy still runs, untimed, for the check). Returns, per timed
    implementation: its step times, its first call, its two losses and whether they match."""
    np = libs["np"]
    impls = mlp_implementations(libs)
    names = [n for n in impls if not only_impls or n in only_impls]
    timed = list(names)
    first, loss0 = {}, {}

    def first_two(name):  # the first call timed alone, and one more
        t0 = time.perf_counter()
        loss0[name] = impls[name]()
        first[name] = time.perf_counter() - t0
        impls[name]()

    for name in timed:
        first_two(name)
    times = {n: [] for n in timed}
    for r in range(reps):
        order = timed[r % len(timed):] + timed[: r % len(timed)]
        for name in order:
            t0 = time.perf_counter()
            impls[name]()
            times[name].append(time.perf_counter() - t0)
    if "numpy" not in timed:  # NumPy's steps for the check, after the timed ones: its BLAS threads
        names.append("numpy")  # keep spinning for a while after a call, through what runs next
        first_two("numpy")
        for _ in range(reps):
            impls["numpy"]()  # the same number of steps as the others
    loss1 = {name: impls[name]() for name in names}
    return {
        name: {
            "times": times[name],
            "first": first[name],
            "losses": [loss0[name], loss1[name]],
            "ok": bool(all(np.isclose(d[name], d["numpy"], rtol=2e-3, atol=1e-4) for d in (loss0, loss1))),
        }
        for name in timed
    }


def mlp_table(res, ratios, rounds):
    """Prints the MLP table: `res` as mlp_measure returns it, `ratios[name]` the per-round ratios
    to the base implementation (cgrad when timed), `rounds` how the rows were taken."""
    flops = 2 * MLP_B * (2 * MLP_IN * MLP_H + 3 * MLP_H * MLP_H + 3 * MLP_H * MLP_OUT)
    print(f"\n### MLP training step: 784-512-512-10, batch {MLP_B}, f32, ReLU, softmax cross-entropy, "
          f"SGD momentum {MLP_MU} ({rounds}; {flops / 1e9:.3f} GFLOP of GEMM per step)\n")
    base = "cgrad" if "cgrad" in res else next(iter(res))
    print(f"| implementation | median ms | min ms | x {base} [p25, p75] | GEMM GFLOP/s at median | first call ms "
          "| loss step 1, after timing (numpy) |")
    print("|---|---:|---:|---|---:|---:|---|")
    for name, r in res.items():
        med = pct(r["times"], 0.5)
        q = ratios[name]
        print(f"| {name} | {med * 1e3:.2f} | {min(r['times']) * 1e3:.2f} | {pct(q, 0.5):.2f} "
              f"[{pct(q, 0.25):.2f}, {pct(q, 0.75):.2f}] | {flops / med / 1e9:.0f} | {r['first'] * 1e3:.0f} "
              f"| {r['losses'][0]:.5f}, {r['losses'][1]:.5f} ({'ok' if r['ok'] else 'DIFF'}) |")
    print(flush=True)


def section_mlp(libs, reps, only_impls=()):
    """All implementations in this process, their calls in rotated order: each ratio is the median
    over the rounds of time / time of the base's call in the same round."""
    res = mlp_measure(libs, reps, only_impls)
    base = res["cgrad" if "cgrad" in res else next(iter(res))]["times"]
    ratios = {name: [t / b for t, b in zip(r["times"], base)] for name, r in res.items()}
    mlp_table(res, ratios, f"{reps} rounds")


def section_mlp_isolated(libs, reps, procs, threads, only_impls=()):
    """Each implementation in processes of its own (--mlp-procs), so that no other library's worker
    threads run beside it: `procs` rounds, each one fresh process per implementation in rotated
    order, each process timing `reps` steps (fresh cgrad and inductor caches: its first call
    compiles). Times: all processes' steps; first call: the median over the processes; each ratio:
    the median over the rounds of (median step in that round) / (the base's in that round)."""
    import json
    import shutil

    names = ["cgrad", "numpy"] + [n for n, lib in (("torch eager", "torch"), ("torch.compile", "torch"),
                                                   ("jax.jit", "jax")) if lib in libs]
    names = [n for n in names if not only_impls or n in only_impls]
    runs = {n: [] for n in names}
    for k in range(procs):
        for name in names[k % len(names):] + names[: k % len(names)]:
            caches = [tempfile.mkdtemp(prefix="cgrad-pybench-"), tempfile.mkdtemp(prefix="inductor-pybench-")]
            env = dict(os.environ, CGRAD_CACHE_DIR=caches[0], TORCHINDUCTOR_CACHE_DIR=caches[1])
            cmd = [sys.executable, os.path.abspath(__file__), "--sections", "mlp", "--impls", name,
                   "--reps", str(reps), "--threads", str(threads), "--mlp-json"]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
            runs[name].append(json.loads(out.strip().splitlines()[-1])[name])
            for c in caches:
                shutil.rmtree(c, ignore_errors=True)
    base = "cgrad" if "cgrad" in runs else names[0]
    res, ratios = {}, {}
    for name, rs in runs.items():
        res[name] = {
            "times": [t for r in rs for t in r["times"]],
            "first": pct([r["first"] for r in rs], 0.5),
            "losses": rs[-1]["losses"],
            "ok": all(r["ok"] for r in rs),
        }
        ratios[name] = [pct(r["times"], 0.5) / pct(b["times"], 0.5) for r, b in zip(rs, runs[base])]
    mlp_table(res, ratios, f"{procs} processes per implementation, {reps} steps each")


# ---------------------------------------------------------------- import time
def section_import(libs, runs=10):
    import statistics

    mods = ["cgrad", "numpy"] + [m for m in ("torch", "jax") if m in libs]
    stmts = [("python -c pass", "pass")] + [(f"import {m}", f"import {m}") for m in mods]
    env = dict(os.environ)
    times = {name: [] for name, _ in stmts}
    for _ in range(runs):  # alternating, so that the machine's phases fall on every module alike
        for name, stmt in stmts:
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", stmt], check=True, env=env)
            times[name].append(time.perf_counter() - t0)
    print(f"\n### Import: wall ms of a fresh `python -c ...` process (median and min of {runs}, alternating)\n")
    print("| statement | median ms | min ms | median - bare python ms |")
    print("|---|---:|---:|---:|")
    bare = statistics.median(times["python -c pass"])
    for name, _ in stmts:
        med = statistics.median(times[name])
        print(f"| {name} | {med * 1e3:.0f} | {min(times[name]) * 1e3:.0f} | {(med - bare) * 1e3:.0f} |")
    print(flush=True)


# ---------------------------------------------------------------- per-op overhead
def section_overhead(libs):
    import statistics
    import timeit

    np, cg = libs["np"], libs["cg"]
    x, y = cg.ones((1,)), cg.ones((1,))
    cg.eval(x, y)
    add = cg.compile(lambda p, q: p + q)
    a, b = np.ones(1, np.float32), np.ones(1, np.float32)
    n_lazy, n_eval = 20000, 2000
    rows = [  # (name, stmt, globals, number per repeat)
        ("cgrad x + y (lazy: recorded, not run)", "x + y", dict(x=x, y=y), n_lazy),
        ("cgrad x * 2.0 (lazy, Python scalar)", "x * 2.0", dict(x=x), n_lazy),
        ("cgrad cg.exp(x) (lazy)", "cg.exp(x)", dict(cg=cg, x=x), n_lazy),
        ("cgrad (x + y).eval()", "(x + y).eval()", dict(x=x, y=y), n_eval),
        ("cgrad compiled add(x, y).eval()", "add(x, y).eval()", dict(add=add, x=x, y=y), n_eval),
        ("cgrad float(x + y)", "float(x + y)", dict(x=x, y=y), n_eval),
        ("numpy a + b", "a + b", dict(a=a, b=b), n_lazy),
        ("numpy a * 2.0", "a * 2.0", dict(a=a), n_lazy),
        ("numpy np.exp(a)", "np.exp(a)", dict(np=np, a=a), n_lazy),
        ("numpy float(a + b)", "float((a + b)[0])", dict(a=a, b=b), n_lazy),
    ]
    if "torch" in libs:
        torch = libs["torch"]
        ta, tb = torch.ones(1), torch.ones(1)
        tadd = torch.compile(lambda p, q: p + q)
        tadd(ta, tb)
        tadd(ta, tb)
        rows += [("torch eager a + b", "a + b", dict(a=ta, b=tb), n_lazy),
                 ("torch eager a * 2.0", "a * 2.0", dict(a=ta), n_lazy),
                 ("torch eager torch.exp(a)", "torch.exp(a)", dict(torch=torch, a=ta), n_lazy),
                 ("torch eager float(a + b)", "float(a + b)", dict(a=ta, b=tb), n_lazy),
                 ("torch.compile add(a, b)", "add(a, b)", dict(add=tadd, a=ta, b=tb), n_eval)]
    if "jax" in libs:
        jax, jnp = libs["jax"], libs["jnp"]
        ja, jb = jnp.ones(1, jnp.float32), jnp.ones(1, jnp.float32)
        jadd = jax.jit(lambda p, q: p + q)
        jax.block_until_ready(jadd(ja, jb))
        jax.block_until_ready(ja + jb)
        rows += [("jax eager (a + b).block_until_ready()", "(a + b).block_until_ready()", dict(a=ja, b=jb), n_eval),
                 ("jax.jit add(a, b).block_until_ready()", "add(a, b).block_until_ready()",
                  dict(add=jadd, a=ja, b=jb), n_eval)]
    runs = {r[0]: [] for r in rows}
    for _ in range(7):  # the repeats alternate between rows
        for name, stmt, g, number in rows:
            runs[name].append(timeit.timeit(stmt, globals=g, number=number, timer=time.process_time) / number)
    print("\n### Per-op overhead, 1-element float32 arrays: process CPU ns per call (median of 7)\n")
    print("| operation | ns |")
    print("|---|---:|")
    for name, *_ in rows:
        print(f"| {name} | {statistics.median(runs[name]) * 1e9:.0f} |")
    print(flush=True)


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sections", default="import,overhead,wl,mlp")
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--impls", default="", help="mlp section: time only these, e.g. 'jax.jit' or 'cgrad,torch.compile'")
    ap.add_argument("--mlp-procs", type=int, default=0,
                    help="mlp section: this many rounds of one process per implementation (0: all in this one)")
    ap.add_argument("--mlp-json", action="store_true", help=argparse.SUPPRESS)  # a child of --mlp-procs
    args = ap.parse_args()
    _env(args.threads)
    libs = _libs(args.threads)
    impls = [n for n in args.impls.split(",") if n]
    if args.mlp_json:
        import json

        print(json.dumps(mlp_measure(libs, args.reps, impls)))
        return
    vers = [f"python {sys.version.split()[0]}", f"numpy {libs['np'].__version__}"]
    if "torch" in libs:
        vers.append(f"torch {libs['torch'].__version__}")
    if "jax" in libs:
        import jaxlib

        vers.append(f"jax {libs['jax'].__version__} (jaxlib {jaxlib.__version__})")
    la = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {_cpu_model()}, {os.cpu_count()} CPUs "
          f"({platform.system()} {platform.release()})")
    print(f"- {', '.join(vers)}; threads {args.threads}")
    print(f"- load average (1, 5, 15 min) at the start: {la}", flush=True)
    sections = args.sections.split(",")
    if "import" in sections:
        section_import(libs)
    if "overhead" in sections:
        section_overhead(libs)
    only = [w for w in args.only.split(",") if w]
    if "wl" in sections and (not only or any(w != "MLP" for w in only)):
        section_wl(libs, only, args.reps)
    if "mlp" in sections and (not only or "MLP" in only):
        if args.mlp_procs > 0:
            section_mlp_isolated(libs, args.reps, args.mlp_procs, args.threads, impls)
        else:
            section_mlp(libs, args.reps, impls)
    print(f"- load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
