#!/usr/bin/env python3
"""Near-minimax polynomials for include/cgrad/scalar.hpp: the fits its comments name.

Usage: python3 tools/fit_poly.py atan|log1p|tanh|sinh|expm1|exppow|log64|atan64|asin64|erf64|erfcn|erfcf|erf32s|erf32b DEGREE

Needs mpmath and numpy (`pip install mpmath numpy`; a development tool, not a dependency of
the library or its tests). Prints the worst relative error of the fitted function, evaluated
in 40-digit arithmetic with the coefficients rounded to double, and the coefficients from the
constant term up, as scalar.hpp's Horner chains take them in reverse.

Method: Lawson's iteratively reweighted least squares on 4000 Chebyshev-distributed points
(it converges to the minimax polynomial of the weighted error); function values in mpmath,
the solves in numpy on the variable scaled to [0, 1].

Fits (z = u^2 or s^2; the relative error is that of the whole function):
  atan   atan(u) = u + u z P(z) for |u| <= 2 - sqrt(3): atan_ratio_f64 (degree 6: 2^-49.7)
  log1p  log(1 + f) = 2 atanh(s) = 2s + 2s z Q(z), s = f / (2 + f), |s| <= (sqrt 2 - 1) /
         (sqrt 2 + 1), f in [sqrt(1/2) - 1, sqrt(2) - 1]: log1p_reduced_f64 (degree 5: 2^-52.1),
         log_for_pow_f32 (degree 4: 2^-44.9)

Higher degrees, where the double-precision solves above lose digits to conditioning: mpmath's
chebyfit (Chebyshev interpolation in 50-digit arithmetic, near minimax), the same error measure:
  tanh   tanh(u) = u + u z P(z) for |u| <= 0.55: tanh_f64 (degree 10: 2^-57.4)
  sinh   sinh(u) = u + u z P(z) for |u| <= 1: sinh_f64 (degree 6: 2^-56.6)
  expm1  e^x - 1 = x + x^2 P(x) for |x| <= 0.7, P in x itself: expm1_wide_f64 (degree 12: 2^-57.9)
  exppow e^r = 1 + r + r^2 P(r) for |r| <= ln2/2, relative to e^r: exp_for_pow_f32 (degree 6: 2^-37.8)
  log64  log1p's series, 2 atanh(s) = 2s + 2s z Q(z), to the f64 functions' accuracy: log_tail_f64
         (degree 6: 2^-57.6)
  atan64 atan(u) = u + u z P(z) for |u| <= 7/16: atan_ratio_f64's f64 form (degree 11: 2^-57.9)
  asin64 asin(u) = u + u z P(z) for |u| <= 1/2: asin_poly_f64 (degree 12: 2^-57.4),
         asin_reflected_f32 (degree 8: 2^-42.0)
  erf64  erf(u) = u + u (E + z P(z)), E = 2/sqrt(pi) - 1, for |u| < 0.84375: erf_f64
  erfcn  erfc(x) e^(x^2) in t = x - 1.421875 for x in [0.84375, 2]: erfc_scaled_f64
  erfcf  x erfc(x) e^(x^2) in t = 1/x - 1/3 for x in [2, 6]: erfc_scaled_f64
  erf32s erf(u) = u + u (E + z P(z)) for |u| < 0.8125: erf_f32 (degree 5: 2^-31.5)
  erf32b R(s) = log erfc(1 + s) + (1 + s)^2 for 1 + s in [0.8125, 3.92], absolute error (relative
         to erfc): erf_f32 (degree 8: 2^-24.6)
"""
import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 40


def fit(g, w, zmax, deg, n=4000, iters=60):
    """Coefficients of P (degree deg, on [0, zmax]) minimizing max |(P - g) w|, and that max."""
    zs = [zmax * (1 - mp.cos(mp.pi * (i + 0.5) / n)) / 2 for i in range(n)]
    gv = np.array([float(g(z)) for z in zs])
    wv = np.array([float(w(z)) for z in zs])
    t = np.array([float(z / zmax) for z in zs])
    v = np.vstack([t**k for k in range(deg + 1)]).T
    lw = np.ones(n)
    for _ in range(iters):
        sw = np.sqrt(lw) * wv
        c, *_ = np.linalg.lstsq(v * sw[:, None], gv * sw, rcond=None)
        err = np.abs((v @ c - gv) * wv)
        lw = lw * err
        lw /= lw.sum()
    coef = [float(mp.mpf(float(c[k])) / mp.mpf(zmax) ** k) for k in range(deg + 1)]
    worst = mp.mpf(0)
    for i in range(20001):
        z = zmax * mp.mpf(i) / 20000
        p = mp.mpf(0)
        for cc in reversed(coef):
            p = p * z + cc
        worst = max(worst, abs((p - g(z)) * w(z)))
    return coef, worst


def fit_cheb(g, w, lo, hi, deg):
    """mpmath's chebyfit of g on [lo, hi] (degree deg), coefficients rounded to double, and the
    worst of |(P - g) w| on 20001 points."""
    mp.mp.dps = 50
    coef = [float(c) for c in reversed(mp.chebyfit(g, [lo, hi], deg + 1))]
    worst = mp.mpf(0)
    for i in range(20001):
        x = lo + (hi - lo) * mp.mpf(i) / 20000
        p = mp.mpf(0)
        for cc in reversed(coef):
            p = p * x + cc
        worst = max(worst, abs((p - g(x)) * w(x)))
    return coef, worst


def odd_ratio(f, c3):
    """g(z) = (f(u) / u - 1) / z and the weight z / (f(u) / u), z = u^2: f(u) = u + u z P(z)."""
    return ((lambda z: (f(mp.sqrt(z)) / mp.sqrt(z) - 1) / z if z > 0 else c3),
            (lambda z: z / (f(mp.sqrt(z)) / mp.sqrt(z)) if z > 0 else mp.mpf(0)))


def main():
    which, deg = sys.argv[1], int(sys.argv[2])
    cheb = None
    if which == "tanh":
        cheb = (*odd_ratio(mp.tanh, mp.mpf(-1) / 3), mp.mpf(0), mp.mpf("0.55") ** 2)
    elif which == "sinh":
        cheb = (*odd_ratio(mp.sinh, mp.mpf(1) / 6), mp.mpf(0), mp.mpf(1))
    elif which == "log64":
        cheb = (*odd_ratio(mp.atanh, mp.mpf(1) / 3), mp.mpf(0), ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)) ** 2)
    elif which == "atan64":
        cheb = (*odd_ratio(mp.atan, mp.mpf(-1) / 3), mp.mpf(0), (mp.mpf(7) / 16) ** 2)
    elif which == "asin64":
        cheb = (*odd_ratio(mp.asin, mp.mpf(1) / 6), mp.mpf(0), mp.mpf(1) / 4)
    elif which in ("erf64", "erf32s"):
        e = 2 / mp.sqrt(mp.pi) - 1
        ratio = (lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z) if z > 0 else 1 + e)
        top = mp.mpf("0.84375") if which == "erf64" else mp.mpf("0.8125")
        cheb = ((lambda z: (ratio(z) - 1 - e) / z if z > 0 else -2 / (3 * mp.sqrt(mp.pi))),
                (lambda z: z / ratio(z)), mp.mpf(0), top**2)
    elif which == "erf32b":
        cheb = ((lambda s: mp.log(mp.erfc(1 + s)) + (1 + s) ** 2), (lambda s: mp.mpf(1)),
                mp.mpf("0.8125") - 1, mp.mpf("3.92") - 1)
    elif which == "erfcn":
        r = (lambda t: mp.erfc(t + mp.mpf("1.421875")) * mp.exp((t + mp.mpf("1.421875")) ** 2))
        cheb = (r, (lambda t: 1 / r(t)), mp.mpf("0.84375") - mp.mpf("1.421875"), 2 - mp.mpf("1.421875"))
    elif which == "erfcf":
        third = mp.mpf(1.0 / 3.0)  # the shift as the code rounds it
        r = (lambda t: mp.erfc(1 / (t + third)) * mp.exp(1 / (t + third) ** 2) / (t + third))
        cheb = (r, (lambda t: 1 / r(t)), mp.mpf(1) / 6 - third, mp.mpf(1) / 2 - third)
    elif which == "expm1":
        cheb = ((lambda x: (mp.expm1(x) - x) / x**2 if x != 0 else mp.mpf(1) / 2),
                (lambda x: x**2 / mp.expm1(x) if x != 0 else mp.mpf(0)), -mp.mpf("0.7"), mp.mpf("0.7"))
    elif which == "exppow":
        h = mp.log(2) / 2
        cheb = ((lambda x: (mp.expm1(x) - x) / x**2 if x != 0 else mp.mpf(1) / 2),
                (lambda x: x**2 / mp.exp(x)), -h, h)
    if cheb:
        coef, worst = fit_cheb(*cheb, deg)
        print(f"{which} degree {deg}: worst relative error {float(worst):.3e} = 2^{float(mp.log(worst, 2)):.1f}")
        for c in coef:
            print(f"  {c:.17g}")
        return
    if which == "atan":
        zmax = (2 - mp.sqrt(3)) ** 2
        ratio = mp.atan  # f(u) / u = 1 + z P(z)
        p0 = mp.mpf(-1) / 3
    elif which == "log1p":
        zmax = ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)) ** 2
        ratio = mp.atanh
        p0 = mp.mpf(1) / 3
    else:
        sys.exit("usage: fit_poly.py atan|log1p|tanh|sinh|expm1|exppow|log64|atan64|asin64|erf64|erfcn|erfcf|erf32s|erf32b DEGREE")

    def g(z):
        return (ratio(mp.sqrt(z)) / mp.sqrt(z) - 1) / z if z > 0 else p0

    def w(z):  # the error of P, times z, relative to f(u) / u
        return z / (ratio(mp.sqrt(z)) / mp.sqrt(z)) if z > 0 else mp.mpf(0)

    coef, worst = fit(g, w, zmax, deg)
    print(f"{which} degree {deg}: worst relative error {float(worst):.3e} = 2^{float(mp.log(worst, 2)):.1f}")
    for c in coef:
        print(f"  {c:.17g}")


if __name__ == "__main__":
    main()
