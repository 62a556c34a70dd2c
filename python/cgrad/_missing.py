"""Functions of the Array API standard (2024.12) that cgrad does not have yet, with why. Kept
in sync with the conformance run's xfails file (python/conformance/xfails.txt)."""

_NO_PRIMITIVE = "the C++ core has no such op yet (issue #15 adds element-wise functions)"
_NO_GATHER = "needs a gather/scatter or sort primitive the C++ core does not have"
_NO_DYN = "has a data-dependent output shape, which a lazy graph cannot build"

MISSING = {
    **{n: _NO_PRIMITIVE for n in (
        "acos acosh asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert bitwise_or "
        "bitwise_right_shift bitwise_xor ceil conj copysign cosh expm1 floor floor_divide hypot imag "
        "log1p log2 log10 logaddexp nextafter real remainder round sign signbit sinh "
        "tan trunc cumulative_sum cumulative_prod prod std var diff flip roll tile repeat moveaxis tril triu "
        "meshgrid count_nonzero"
    ).split()},
    **{n: _NO_GATHER for n in "argmax argmin argsort sort take take_along_axis searchsorted".split()},
    **{n: _NO_DYN for n in "nonzero unique_all unique_counts unique_inverse unique_values".split()},
}
