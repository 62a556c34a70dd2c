#!/usr/bin/env python3
"""Field minimizers, cgrad against SciPy, side by side in one run (issue #22, docs/optim.md).

The Ginzburg-Landau (phi^4) energy of examples/field_minimize on an N x N grid, from one random
start (NumPy, seed 7, uniform in [-1, 1]) given to both sides, minimized to max |gradient| < TOL:
  cgrad: build/release/bench/bench_optim (gradient descent, minimize_cg, minimize_tn,
         minimize_lbfgs; gradients and Hessian-vector products from cgrad's autograd)
  SciPy: scipy.optimize.minimize CG, Newton-CG (hessp) and L-BFGS-B (m = 10) on the same energy,
         its gradient and its Hessian-vector product written in NumPy by hand.
SciPy and NumPy come from PyPI into a virtual environment this script creates (build/optim-venv).

Two starts: "domains" (uniform in [-1, 1], the start of examples/field_minimize: the field
coarsens into +-1 domains, a long non-convex relaxation) and "relax" (uniform in [0, 1]: the field
relaxes to the uniform minimum phi* ~ 1.005, a well-conditioned problem).

usage: bench/optim/run.py [--cases domains:256,relax:256,relax:1024] [--tol 1e-5] [--append]
       (--append: add the tables to bench/RESULTS.md as a new dated section; nothing else in that
       file is touched)
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import time

# NumPy's BLAS (OpenBLAS) on one thread unless told otherwise: on a loaded machine its worker threads
# spin against the load and a 65k-element dot product took ~5 ms instead of ~10 us (measured on the
# shared 2-core machine of 2026-11-24), which would time the scheduler, not SciPy. Set before NumPy
# is first imported (this process and the venv's, which inherits the environment).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, "build", "optim-venv")
BIN = os.path.join(ROOT, "build", "release", "bench", "bench_optim")


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.prefix) == os.path.abspath(VENV):
        return
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([py, "-m", "pip", "install", "-q", "numpy", "scipy"])
    os.execv(py, [py] + sys.argv)


KAPPA, H = 1.0, 0.01


def make_problem(n):
    import numpy as np

    def energy_grad(x):
        phi = x.reshape(n, n)
        dx = phi[1:, :] - phi[:-1, :]
        dy = phi[:, 1:] - phi[:, :-1]
        w = phi * phi - 1.0
        e = 0.5 * KAPPA * (np.sum(dx * dx) + np.sum(dy * dy)) + 0.25 * np.sum(w * w) - H * np.sum(phi)
        g = phi * w - H
        g[1:, :] += KAPPA * dx
        g[:-1, :] -= KAPPA * dx
        g[:, 1:] += KAPPA * dy
        g[:, :-1] -= KAPPA * dy
        return e, g.ravel()

    def hessp(x, p):
        phi = x.reshape(n, n)
        q = p.reshape(n, n)
        dx = q[1:, :] - q[:-1, :]
        dy = q[:, 1:] - q[:, :-1]
        hp = (3.0 * phi * phi - 1.0) * q
        hp[1:, :] += KAPPA * dx
        hp[:-1, :] -= KAPPA * dx
        hp[:, 1:] += KAPPA * dy
        hp[:, :-1] -= KAPPA * dy
        return hp.ravel()

    return energy_grad, hessp


def scipy_runs(n, start, tol):
    import numpy as np
    from scipy.optimize import minimize

    energy_grad, hessp = make_problem(n)
    rows = []
    for method in ("CG", "Newton-CG", "L-BFGS-B"):
        counts = {"f": 0, "hvp": 0}

        def fg(x):
            counts["f"] += 1
            return energy_grad(x)

        def hp(x, p):
            counts["hvp"] += 1
            return hessp(x, p)

        state = {"gnorm": None}

        def callback(xk, *args):
            # Newton-CG has no gradient tolerance: stop it on the same test as the others (this
            # gradient is not counted; it is not part of the method).
            g = energy_grad(xk)[1]
            state["gnorm"] = float(np.max(np.abs(g)))
            if state["gnorm"] < tol:
                raise StopIteration

        x0 = start.ravel().copy()
        t0 = time.perf_counter()
        if method == "CG":
            r = minimize(fg, x0, jac=True, method="CG", options={"gtol": tol, "norm": np.inf, "maxiter": 100000})
        elif method == "Newton-CG":
            r = minimize(fg, x0, jac=True, hessp=hp, method="Newton-CG", callback=callback,
                         options={"xtol": 1e-300, "maxiter": 100000})
        else:
            r = minimize(fg, x0, jac=True, method="L-BFGS-B",
                         options={"gtol": tol, "ftol": 0.0, "maxcor": 10, "maxiter": 100000, "maxfun": 1000000})
        t = time.perf_counter() - t0
        g = energy_grad(r.x)[1]
        rows.append({"method": "scipy " + method, "iterations": int(r.nit), "f_evals": counts["f"], "g_evals": counts["f"],
                     "hvps": counts["hvp"], "time_s": t, "energy": float(r.fun), "gnorm": float(np.max(np.abs(g))),
                     "reason": "gradient" if np.max(np.abs(g)) < tol else str(r.message)[:40]})
    return rows


def cgrad_runs(n, path, tol):
    out = subprocess.run([BIN, str(n), path, str(tol)], check=True, capture_output=True, text=True).stdout
    rows, hvp = [], None
    for line in out.splitlines():
        kv = dict(re.findall(r"(\w+)=(\S+)", line))
        if line.startswith("method="):
            names = {"gd": "cgrad gradient descent", "cg": "cgrad minimize_cg", "tn": "cgrad minimize_tn",
                     "lbfgs": "cgrad minimize_lbfgs"}
            rows.append({"method": names[kv["method"]], "iterations": int(kv["iterations"]), "f_evals": int(kv["f_evals"]),
                         "g_evals": int(kv["g_evals"]), "hvps": int(kv["hvps"]), "time_s": float(kv["time_s"]),
                         "energy": float(kv["energy"]), "gnorm": float(kv["gnorm"]), "reason": kv["reason"]})
        elif line.startswith("hvp "):
            hvp = kv
    return rows, hvp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="domains:256,relax:256,relax:1024")
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--append", action="store_true")
    args = ap.parse_args()
    ensure_venv()
    import numpy as np
    import scipy

    if not os.path.exists(BIN):
        sys.exit("build bench_optim first: cmake --preset release && cmake --build build/release --target bench_optim")
    lines = []
    hvps = []
    for case in args.cases.split(","):
        kind, n = case.split(":")
        n = int(n)
        lo = {"domains": -1.0, "relax": 0.0}[kind]
        start = np.random.default_rng(7).uniform(lo, 1.0, size=(n, n))
        path = os.path.join(ROOT, "build", f"optim_start_{kind}_{n}.f64")
        start.astype("<f8").tofile(path)
        rows, hvp = cgrad_runs(n, path, args.tol)
        rows += scipy_runs(n, start, args.tol)
        for r in rows:
            lines.append(f"| {kind} {n}^2 | {r['method']} | {r['iterations']} | {r['f_evals']} | {r['g_evals']} | {r['hvps']} | "
                         f"{r['time_s']:.3f} | {r['energy']:.10g} | {r['gnorm']:.2g} | {r['reason']} |")
            print(lines[-1], flush=True)
        if hvp:
            hvps.append(f"| {kind} {n}^2 | {hvp['grad_kernels']} | {hvp['hvp_kernels']} | {hvp['grad_ms']} | {hvp['hvp_ms']} | "
                        f"{hvp['ratio']} |")
            print(hvps[-1], flush=True)
    cpu = "?"
    try:
        for l in open("/proc/cpuinfo"):
            if l.startswith("model name"):
                cpu = l.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    text = [
        "",
        f"## Field minimizers against SciPy (bench/optim/run.py, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        f"Machine: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; NumPy {np.__version__}, "
        f"SciPy {scipy.__version__}, Python {platform.python_version()}. Ginzburg-Landau energy of "
        f"examples/field_minimize (kappa 1, h 0.01, f64) from one random start (NumPy seed 7) per case, uniform in "
        f"[-1, 1] (domains: coarsening into +-1 domains) or [0, 1] (relax: to the uniform minimum), to max |g| < "
        f"{args.tol:g}. Wall time of one run each (cgrad: after a 3-iteration warm-up run that JIT-compiles the kernels), "
        f"cgrad and SciPy one after the other in this run; load average at the start {os.getloadavg()[0]:.1f} "
        f"(a shared machine: compare ratios within a row group). NumPy's OpenBLAS on "
        f"{os.environ.get('OPENBLAS_NUM_THREADS')} thread(s); cgrad's CPU pool at its default (CGRAD_NUM_THREADS="
        f"{os.environ.get('CGRAD_NUM_THREADS', 'unset')}: one thread per core). Gradient descent: SGD, fixed step 0.15, at most "
        f"3000 iterations.",
        "f/g evals: energy and gradient evaluations (the minimizers evaluate both together); HVPs: Hessian-vector products.",
        "",
        "| grid | method | iterations | f evals | g evals | HVPs | time (s) | final energy | max abs g | stop |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ] + lines + [
        "",
        "One Hessian-vector product against one gradient (both compile(fn), replayed; kernels per call from",
        "stats().kernels_launched; time: median of 15 alternated replays):",
        "",
        "| grid | kernels per gradient | kernels per HVP | gradient (ms) | HVP (ms) | HVP / gradient |",
        "|---|---|---|---|---|---|",
    ] + hvps
    print("\n".join(text))
    if args.append:
        with open(os.path.join(ROOT, "bench", "RESULTS.md"), "a") as f:
            f.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
