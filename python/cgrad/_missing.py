"""Functions of the Array API standard (2025.12) that cgrad does not have yet, with why. Kept
in sync with the conformance run's xfails file (python/conformance/xfails.txt). Today every
function of the main namespace and of the linalg and fft extensions exists."""

MISSING: dict[str, str] = {}

# NumPy's names that cgrad leaves out on purpose, with what to use instead: the AttributeError of
# `cgrad.<name>` says so (docs/python.md, "NumPy's scalar type names, index tricks and vectorize").
_NO_EXTENDED = "cgrad has no extended precision: float64 and complex128 are its widest"
_NO_DATETIME = "cgrad has no datetime dtypes (keep times as int64 counts or float64 seconds)"
_NO_STRINGS = "cgrad arrays hold bool, integers, floats and complex numbers, not strings (use NumPy)"
_NO_OBJECTS = "cgrad has no object or structured dtypes (use NumPy)"
NUMPY_ABSENT: dict[str, str] = {
    **dict.fromkeys(("longdouble", "clongdouble", "float128", "complex256", "float96", "complex192"), _NO_EXTENDED),
    **dict.fromkeys(("datetime64", "timedelta64", "datetime_as_string", "datetime_data", "busday_count",
                     "busday_offset", "busdaycalendar", "is_busday", "isnat"), _NO_DATETIME),
    **dict.fromkeys(("str_", "bytes_", "character", "flexible", "char", "strings"), _NO_STRINGS),
    **dict.fromkeys(("object_", "void", "record", "recarray", "rec"), _NO_OBJECTS),
    "matrix": "NumPy's matrix class is deprecated there; use 2-D arrays and @",
    "asmatrix": "NumPy's matrix class is deprecated there; use 2-D arrays and @",
    "bmat": "NumPy's matrix class is deprecated there; cgrad.block joins 2-D arrays",
    "ma": "cgrad has no masked arrays: use where=, cgrad.where or the nan* functions",
    "memmap": "cgrad arrays live in cgrad's memory: cgrad.asarray(np.memmap(...)) reads a mapped file",
    "nditer": "cgrad has no NumPy iterator objects: ndindex, ndenumerate and broadcast iterate in Python",
    "nested_iters": "cgrad has no NumPy iterator objects: ndindex, ndenumerate and broadcast iterate in Python",
}
