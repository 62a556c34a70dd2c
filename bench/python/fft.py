"""cgrad.fft beside NumPy's (pocketfft, from PyPI) in one process: complex and real transforms
of powers of two (single lines of 1024, 4096 and 2^20 points, and batches of rows), of 3 x 2^18
points, of a length with large prime factors (Bluestein's path here, pocketfft's too), a leading
axis and 2-D transforms, complex128 / float64 and complex64 / float32. Each row prints
both median times (after a warm-up, interleaved: cgrad, NumPy, cgrad, ...) and the ratio
cgrad / NumPy. cgrad's times include the copies around the host transform (the input read as
complex double, the result written into a new tensor). docs/fft.md, "Speed".

Usage: CGRAD_NUM_THREADS=1 python bench/python/fft.py
"""


import cgrad as cg
import numpy as np
from timing import median_pair


def main():
    rng = np.random.default_rng(0)
    cases = [  # name, shape, cgrad call, NumPy call, real input
        ("fft", (1024,), cg.fft.fft, np.fft.fft, False),
        ("fft", (256, 1024), cg.fft.fft, np.fft.fft, False),
        ("ifft", (256, 1024), cg.fft.ifft, np.fft.ifft, False),
        ("fft", (4096,), cg.fft.fft, np.fft.fft, False),
        ("fft", (1 << 20,), cg.fft.fft, np.fft.fft, False),
        ("fft", (3 << 18,), cg.fft.fft, np.fft.fft, False),
        ("fft", (1000003,), cg.fft.fft, np.fft.fft, False),
        ("fft", (1 << 10, 1 << 10), lambda x: cg.fft.fft(x, axis=0), lambda a: np.fft.fft(a, axis=0), False),
        ("fftn", (512, 512), cg.fft.fftn, np.fft.fftn, False),
        ("rfft", (256, 1024), cg.fft.rfft, np.fft.rfft, True),
        ("rfft", (1 << 20,), cg.fft.rfft, np.fft.rfft, True),
        ("irfft", (256, 513), lambda x: cg.fft.irfft(x), lambda a: np.fft.irfft(a), False),
        ("irfft", ((1 << 19) + 1,), lambda x: cg.fft.irfft(x), lambda a: np.fft.irfft(a), False),
        ("rfftn", (512, 512), cg.fft.rfftn, np.fft.rfftn, True),
    ]
    print(f"{'function':8s} {'shape':>14s} {'dtype':10s} {'cgrad ms':>10s} {'NumPy ms':>10s} {'ratio':>7s}")
    for name, shape, f, g, real in cases:
        for dtype in (np.float64, np.float32):
            a = rng.standard_normal(shape)
            if not real:
                a = a + 1j * rng.standard_normal(shape)
            a = a.astype(dtype if real else (np.complex128 if dtype == np.float64 else np.complex64))
            x = cg.asarray(a)
            cg.eval(x)
            reps = 5 if a.size >= 1 << 18 else 21
            tc, tn = median_pair(lambda: cg.eval(f(x)), lambda: g(a), reps)
            shape_s = "x".join(str(d) for d in shape)
            print(f"{name:8s} {shape_s:>14s} {str(a.dtype):10s} {tc:10.3f} {tn:10.3f} {tc / tn:7.2f}")


if __name__ == "__main__":
    main()
