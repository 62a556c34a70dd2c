"""A sweep for performance cliffs in element-wise functions and array manipulation: about 50 rows on
2^22-element arrays (f32 unless named), cgrad beside NumPy in one process. Each row prints both
median times (7 calls after a warm-up) and flags with `<<<` the rows where cgrad takes more than
twice NumPy's time. Not a benchmark of record (no rounds, no other peers): run it after a change
to include/cgrad/scalar.hpp or to the structural ops (bench/NOTES.md, "Cliffs of element-wise
functions").

Usage: CGRAD_RESULT_CACHE_BYTES=0 CGRAD_NUM_THREADS=1 OMP_NUM_THREADS=1 \
       python bench/python/survey_elementwise.py [name filter]
"""

import os
import sys

import cgrad as cg
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from survey import median_ms  # noqa: E402  (the reductions' survey: one timing rule for both)


def inputs():
    """The NumPy arrays every row draws from, by name."""
    rng = np.random.default_rng(0)
    n = 1 << 22
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    i32 = rng.integers(-1000, 1000, n).astype(np.int32)
    j32 = rng.integers(1, 100, n).astype(np.int32)
    return {
        "x": x,
        "y": y,
        "xp": np.abs(x) + 0.1,  # positive: log, pow
        "xbig": x * np.float32(1e7),  # sin, cos, tan: mostly past the short reduction's 2^20
        "u": rng.uniform(-1, 1, n).astype(np.float32),  # asin, acos, atanh
        "xd": x.astype(np.float64),
        "xdp": (np.abs(x) + 0.1).astype(np.float64),
        "xbigd": (x * np.float32(1e7)).astype(np.float64),  # f64 sin, cos, tan past 2^20: the C library's
        "ud": rng.uniform(-1, 1, n),  # f64: asin, acos, atanh
        "i32": i32,
        "j32": j32,
        "i64": i32.astype(np.int64),
        "j64": j32.astype(np.int64),
        "u8": rng.integers(0, 255, n).astype(np.uint8),
        "h": x.astype(np.float16),
        "h2": y.astype(np.float16),
        "M": rng.standard_normal((2048, 2048)).astype(np.float32),
        "idx": rng.integers(0, n, n // 4).astype(np.int64),
        "c64": (x + 1j * y).astype(np.complex64),
    }


def _scipy_erf():
    from scipy.special import erf  # (the erf rows only: an ImportError reports those rows)

    return erf


def named(m, cg_name, np_name):
    return getattr(m, cg_name if m is cg else np_name)


def astype(m, a, dtype):
    return cg.astype(a, getattr(cg, dtype)) if m is cg else a.astype(getattr(np, dtype))


# (name, f(module, arrays)): f builds the result with NumPy or cgrad
ROWS = [
    ("exp f32", lambda m, a: m.exp(a["x"])),
    ("log f32", lambda m, a: m.log(a["xp"])),
    ("sin f32", lambda m, a: m.sin(a["x"])),
    ("cos f32", lambda m, a: m.cos(a["x"])),
    ("tan f32", lambda m, a: m.tan(a["x"])),
    ("sin f32 |x|>2^20", lambda m, a: m.sin(a["xbig"])),
    ("tanh f32", lambda m, a: m.tanh(a["x"])),
    ("atan2 f32", lambda m, a: named(m, "atan2", "arctan2")(a["x"], a["y"])),
    ("asinh f32", lambda m, a: named(m, "asinh", "arcsinh")(a["x"])),
    ("atan f32", lambda m, a: named(m, "atan", "arctan")(a["x"])),
    ("asin f32", lambda m, a: named(m, "asin", "arcsin")(a["u"])),
    ("acos f32", lambda m, a: named(m, "acos", "arccos")(a["u"])),
    ("acosh f32", lambda m, a: named(m, "acosh", "arccosh")(a["xp"] + 1)),
    ("atanh f32", lambda m, a: named(m, "atanh", "arctanh")(a["u"])),
    ("expm1 f32", lambda m, a: m.expm1(a["x"])),
    ("log1p f32", lambda m, a: m.log1p(a["xp"])),
    ("hypot f32", lambda m, a: m.hypot(a["x"], a["y"])),
    ("logaddexp f32", lambda m, a: m.logaddexp(a["x"], a["y"])),
    ("pow f32", lambda m, a: named(m, "pow", "power")(a["xp"], a["y"])),
    ("pow f32 ^2.5", lambda m, a: named(m, "pow", "power")(a["xp"], 2.5)),
    ("sinh f32", lambda m, a: m.sinh(a["x"])),
    ("cosh f32", lambda m, a: m.cosh(a["x"])),
    ("log2 f32", lambda m, a: m.log2(a["xp"])),
    ("log10 f32", lambda m, a: m.log10(a["xp"])),
    # f64, NumPy's default dtype: its AVX-512 builds call SVML-derived loops for most of these
    ("tanh f64", lambda m, a: m.tanh(a["xd"])),
    ("expm1 f64", lambda m, a: m.expm1(a["xd"])),
    ("sinh f64", lambda m, a: m.sinh(a["xd"])),
    ("cosh f64", lambda m, a: m.cosh(a["xd"])),
    ("log f64", lambda m, a: m.log(a["xdp"])),
    ("log1p f64", lambda m, a: m.log1p(a["xdp"])),
    ("log2 f64", lambda m, a: m.log2(a["xdp"])),
    ("log10 f64", lambda m, a: m.log10(a["xdp"])),
    ("sin f64", lambda m, a: m.sin(a["xd"])),
    ("cos f64", lambda m, a: m.cos(a["xd"])),
    ("tan f64", lambda m, a: m.tan(a["xd"])),
    ("sin f64 |x|>2^20", lambda m, a: m.sin(a["xbigd"])),
    ("atan f64", lambda m, a: named(m, "atan", "arctan")(a["xd"])),
    ("asin f64", lambda m, a: named(m, "asin", "arcsin")(a["ud"])),
    ("acos f64", lambda m, a: named(m, "acos", "arccos")(a["ud"])),
    ("atan2 f64", lambda m, a: named(m, "atan2", "arctan2")(a["xd"], a["xdp"])),
    ("asinh f64", lambda m, a: named(m, "asinh", "arcsinh")(a["xd"])),
    ("acosh f64", lambda m, a: named(m, "acosh", "arccosh")(a["xdp"] + 1)),
    ("atanh f64", lambda m, a: named(m, "atanh", "arctanh")(a["ud"])),
    ("pow f64", lambda m, a: named(m, "pow", "power")(a["xdp"], a["xd"])),
    ("sqrt f64", lambda m, a: m.sqrt(m.abs(a["xd"]))),
    ("exp f64", lambda m, a: m.exp(a["xd"])),
    # NumPy has no erf: SciPy's (scipy.special.erf, a scalar loop over the Cephes function) stands in
    ("erf f64", lambda m, a: m.erf(a["xd"]) if m is cg else _scipy_erf()(a["xd"])),
    ("erf f32", lambda m, a: m.erf(a["x"]) if m is cg else _scipy_erf()(a["x"])),
    ("round f32", lambda m, a: m.round(a["x"])),
    ("remainder f32", lambda m, a: m.remainder(a["x"], a["y"])),
    ("remainder f64", lambda m, a: m.remainder(a["xd"], a["xdp"])),
    ("floor_divide i32", lambda m, a: m.floor_divide(a["i32"], a["j32"])),
    ("remainder i64", lambda m, a: m.remainder(a["i64"], a["j64"])),
    ("mul i64", lambda m, a: m.multiply(a["i64"], a["j64"])),
    ("shift i32", lambda m, a: named(m, "bitwise_left_shift", "left_shift")(a["i32"], 3)),
    ("abs i32", lambda m, a: m.abs(a["i32"])),
    ("add u8", lambda m, a: m.add(a["u8"], a["u8"])),
    ("add f16", lambda m, a: m.add(a["h"], a["h2"])),
    ("exp f16", lambda m, a: m.exp(a["h"])),
    ("cast f32->i32", lambda m, a: astype(m, a["x"], "int32")),
    ("cast f32->f16", lambda m, a: astype(m, a["x"], "float16")),
    ("cast i32->f64", lambda m, a: astype(m, a["i32"], "float64")),
    ("isnan f32", lambda m, a: m.isnan(a["x"])),
    ("where f32", lambda m, a: m.where(a["x"] > 0, a["x"], a["y"])),
    ("clip f32", lambda m, a: m.clip(a["x"], -0.5, 0.5)),
    ("sign f32", lambda m, a: m.sign(a["x"])),
    ("nextafter f32", lambda m, a: m.nextafter(a["x"], a["y"])),
    ("copysign f32", lambda m, a: m.copysign(a["x"], a["y"])),
    ("roll", lambda m, a: m.roll(a["x"], 1000)),
    ("concat", lambda m, a: named(m, "concat", "concatenate")([a["x"], a["y"]])),
    ("take 1M", lambda m, a: m.take(a["x"], a["idx"])),
    ("tile 2x", lambda m, a: m.tile(a["x"], (2,))),
    ("repeat 2", lambda m, a: m.repeat(a["x"], 2)),
    ("tril 2048", lambda m, a: m.tril(a["M"])),
    # a transposed copy into row order (a flattening reshape copies in both); the element-wise
    # ops of M.T keep its column order in both (docs/semantics.md, "The layout of a result")
    ("copy of M.T 2048", lambda m, a: m.reshape(a["M"].T, (-1,))),
    ("M.T + 1 2048", lambda m, a: a["M"].T + 1),
    ("cumprod", lambda m, a: cg.cumulative_prod(a["xp"]) if m is cg else np.cumprod(a["xp"])),
    ("diff", lambda m, a: m.diff(a["x"])),
    ("nonzero", lambda m, a: m.nonzero(a["x"] > 1.0)),
    ("unique i32", lambda m, a: cg.unique_values(a["j32"]) if m is cg else np.unique(a["j32"])),
    ("unique_all i32", lambda m, a: cg.unique_all(a["j32"]) if m is cg else
     np.unique(a["j32"], return_index=True, return_inverse=True, return_counts=True)),
    ("unique f32", lambda m, a: cg.unique_values(a["x"]) if m is cg else np.unique(a["x"])),
    ("mul c64", lambda m, a: m.multiply(a["c64"], a["c64"])),
    ("abs c64", lambda m, a: m.abs(a["c64"])),
    ("exp c64", lambda m, a: m.exp(a["c64"])),
    ("matmul 512", lambda m, a: m.matmul(a["M"][:512, :512], a["M"][512:1024, :512])),
]


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    arrays = inputs()
    tensors = {k: cg.asarray(v) for k, v in arrays.items()}
    for name, f in ROWS:
        if only not in name:
            continue

        def run_cgrad():
            r = f(cg, tensors)
            for t in r if isinstance(r, (list, tuple)) else [r]:
                t.eval()

        try:
            tn, tc = median_ms(lambda: f(np, arrays), 7), median_ms(run_cgrad, 7)
        except Exception as e:  # a row cgrad cannot run is reported, not fatal
            print(f"{name:18s} ERROR {type(e).__name__}: {str(e)[:150]}", flush=True)
            continue
        flag = "  <<<" if tn / tc < 0.5 else ""
        print(f"{name:18s} numpy {tn:8.2f} ms  cgrad {tc:8.2f} ms  numpy/cgrad {tn / tc:6.2f}{flag}", flush=True)


if __name__ == "__main__":
    main()
