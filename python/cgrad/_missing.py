"""Functions of the Array API standard (2024.12) that cgrad does not have yet, with why. Kept
in sync with the conformance run's xfails file (python/conformance/xfails.txt)."""

_NO_PRIMITIVE = "the C++ core has no such op yet (issue #15)"
_NO_GATHER = "needs a gather/scatter or sort primitive the C++ core does not have"
_NO_DYN = "has a data-dependent output shape, which a lazy graph cannot build"

MISSING = {
    **{n: _NO_PRIMITIVE for n in (
        "cumulative_sum cumulative_prod std var diff roll tile repeat moveaxis tril triu meshgrid"
    ).split()},
    **{n: _NO_GATHER for n in "argsort sort".split()},
    **{n: _NO_DYN for n in "unique_all unique_counts unique_inverse unique_values".split()},
}
