"""Functions of the Array API standard (2024.12) that cgrad does not have yet, with why. Kept
in sync with the conformance run's xfails file (python/conformance/xfails.txt). Today every
function of the main namespace and of the linalg and fft extensions exists."""

MISSING: dict[str, str] = {}
