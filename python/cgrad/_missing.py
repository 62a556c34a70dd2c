"""Functions of the Array API standard (2024.12) that cgrad does not have yet, with why. Kept
in sync with the conformance run's xfails file (python/conformance/xfails.txt). Today every
function of the main namespace exists; what is still missing are the complex dtypes and the
optional linalg and fft extensions (their own namespaces, listed in the xfails file)."""

MISSING: dict[str, str] = {}
