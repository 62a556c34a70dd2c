"""Functions of the Array API standard (2024.12) that cgrad does not have yet, with why. Kept
in sync with the conformance run's xfails file (python/conformance/xfails.txt). Today every
function of the main namespace exists; what is still missing is in the optional extensions'
namespaces: the decompositions of linalg (cgrad/linalg.py names them) and all of fft."""

MISSING: dict[str, str] = {}
