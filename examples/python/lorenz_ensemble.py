"""Integrates N independent Lorenz systems (rho from 10 to 28 across the ensemble) with the
classical Runge-Kutta method, the state as three cgrad arrays. The step is a compiled function:
traced once, then each call replays one fused plan. Prints the time per step and checks one
system against a plain-Python integration of the same equations.

usage: python examples/python/lorenz_ensemble.py [N] [steps]
"""
import sys
import time

import cgrad as cg

SIGMA, BETA, DT = 10.0, 8.0 / 3.0, 0.001


def rhs(x, y, z, rho):
    return SIGMA * (y - x), x * (rho - z) - y, x * y - BETA * z


@cg.compile
def rk4(x, y, z, rho):
    k1 = rhs(x, y, z, rho)
    k2 = rhs(*(s + 0.5 * DT * k for s, k in zip((x, y, z), k1)), rho)
    k3 = rhs(*(s + 0.5 * DT * k for s, k in zip((x, y, z), k2)), rho)
    k4 = rhs(*(s + DT * k for s, k in zip((x, y, z), k3)), rho)
    return tuple(s + DT / 6 * (a + 2 * b + 2 * c + d) for s, a, b, c, d in zip((x, y, z), k1, k2, k3, k4))


def reference(rho, steps):
    s = [10.0, 10.0, 10.0]
    f = lambda s: (SIGMA * (s[1] - s[0]), s[0] * (rho - s[2]) - s[1], s[0] * s[1] - BETA * s[2])  # noqa: E731
    for _ in range(steps):
        k1 = f(s)
        k2 = f([a + 0.5 * DT * k for a, k in zip(s, k1)])
        k3 = f([a + 0.5 * DT * k for a, k in zip(s, k2)])
        k4 = f([a + DT * k for a, k in zip(s, k3)])
        s = [a + DT / 6 * (p + 2 * q + 2 * r + w) for a, p, q, r, w in zip(s, k1, k2, k3, k4)]
    return s


def main(n=65536, steps=200):
    rho = cg.arange(n, dtype=cg.float64) * (18.0 / n) + 10.0
    x, y, z = (cg.full((n,), 10.0, dtype=cg.float64) for _ in range(3))  # three buffers: one signature
    cg.eval(rho, x, y, z)
    x, y, z = rk4(x, y, z, rho)  # the first call traces and plans
    cg.eval(x, y, z)
    cg.reset_stats()
    t0 = time.perf_counter()
    for _ in range(steps - 1):
        x, y, z = rk4(x, y, z, rho)
    cg.eval(x, y, z)
    dt = (time.perf_counter() - t0) / (steps - 1)
    s = cg.stats()
    print(f"N={n}: {dt * 1e3:.3f} ms per step, {s['kernels_launched'] / (steps - 1):.1f} kernels per step, "
          f"{s['traces']} traces after the first call")
    i = n // 3
    want = reference(10.0 + 18.0 * i / n, steps)
    got = [float(x[i]), float(y[i]), float(z[i])]
    err = max(abs(a - b) for a, b in zip(got, want))
    print(f"system {i}: {got} vs plain Python {want}: max difference {err:.2e}")
    assert err < 1e-6


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*args)
