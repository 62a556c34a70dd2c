// cgrad._cgrad: the Python extension. Binds cgrad::Tensor as cgrad.Array with its operators,
// the functions of the C++ API from one table per arity (add a row to bind a new function),
// evaluation with the GIL released, compile(fn), autograd and the optimizers. The NumPy-like
// layer that is easier in Python (indexing, repr, the Array API signatures) is cgrad/*.py.
#include "bindings.h"

#include <cgrad/fft.hpp>
#include <cgrad/linalg.hpp>
#include <cgrad/optim.hpp>
#include <cgrad/scalar.hpp>

#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

namespace cgrad::py {

namespace {

// ---- operands: an Array or a Python bool/int/float ----
bool scalar_of(nb::handle h, Scalar& out) {
  PyObject* p = h.ptr();
  if (PyBool_Check(p)) {
    out = Scalar(p == Py_True);
    return true;
  }
  if (PyLong_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow) {  // the arrays that take one are served before (big_int_operand)
      PyErr_SetString(PyExc_OverflowError, "cgrad: Python int too large for int64");
      throw nb::python_error();
    }
    out = Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (PyFloat_Check(p)) {
    out = Scalar(PyFloat_AS_DOUBLE(p));
    return true;
  }
  return false;
}

using TT = Tensor (*)(const Tensor&, const Tensor&);
using TS = Tensor (*)(const Tensor&, Scalar);
using ST = Tensor (*)(Scalar, const Tensor&);
using U = Tensor (*)(const Tensor&);

// One row per binary function: its Array API name, the Python operator (or null), and the
// tensor-tensor, tensor-scalar and scalar-tensor forms.
struct Binary {
  const char* name;
  const char* dunder;
  TT tt;
  TS ts;
  ST st;
};
// clang-format off
const Binary kBinary[] = {
    {"add", "add", [](const Tensor& a, const Tensor& b) { return a + b; }, [](const Tensor& a, Scalar b) { return a + b; }, [](Scalar a, const Tensor& b) { return a + b; }},
    {"subtract", "sub", [](const Tensor& a, const Tensor& b) { return a - b; }, [](const Tensor& a, Scalar b) { return a - b; }, [](Scalar a, const Tensor& b) { return a - b; }},
    {"multiply", "mul", [](const Tensor& a, const Tensor& b) { return a * b; }, [](const Tensor& a, Scalar b) { return a * b; }, [](Scalar a, const Tensor& b) { return a * b; }},
    {"divide", "truediv", [](const Tensor& a, const Tensor& b) { return a / b; }, [](const Tensor& a, Scalar b) { return a / b; }, [](Scalar a, const Tensor& b) { return a / b; }},
    {"pow", "pow", [](const Tensor& a, const Tensor& b) { return cgrad::pow(a, b); }, [](const Tensor& a, Scalar b) { return cgrad::pow(a, b); }, [](Scalar a, const Tensor& b) { return cgrad::pow(a, b); }},
    {"maximum", nullptr, [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, [](const Tensor& a, Scalar b) { return maximum(a, b); }, [](Scalar a, const Tensor& b) { return maximum(b, a); }},
    {"minimum", nullptr, [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, [](const Tensor& a, Scalar b) { return minimum(a, b); }, [](Scalar a, const Tensor& b) { return minimum(b, a); }},
    {"less", "lt", [](const Tensor& a, const Tensor& b) { return a < b; }, [](const Tensor& a, Scalar b) { return a < b; }, [](Scalar a, const Tensor& b) { return b > a; }},
    {"less_equal", "le", [](const Tensor& a, const Tensor& b) { return a <= b; }, [](const Tensor& a, Scalar b) { return a <= b; }, [](Scalar a, const Tensor& b) { return b >= a; }},
    {"greater", "gt", [](const Tensor& a, const Tensor& b) { return a > b; }, [](const Tensor& a, Scalar b) { return a > b; }, [](Scalar a, const Tensor& b) { return b < a; }},
    {"greater_equal", "ge", [](const Tensor& a, const Tensor& b) { return a >= b; }, [](const Tensor& a, Scalar b) { return a >= b; }, [](Scalar a, const Tensor& b) { return b <= a; }},
    {"equal", "eq", [](const Tensor& a, const Tensor& b) { return a == b; }, [](const Tensor& a, Scalar b) { return a == b; }, [](Scalar a, const Tensor& b) { return b == a; }},
    {"not_equal", "ne", [](const Tensor& a, const Tensor& b) { return a != b; }, [](const Tensor& a, Scalar b) { return a != b; }, [](Scalar a, const Tensor& b) { return b != a; }},    {"floor_divide", "floordiv", [](const Tensor& a, const Tensor& b) { return floor_divide(a, b); }, [](const Tensor& a, Scalar b) { return floor_divide(a, b); }, [](Scalar a, const Tensor& b) { return floor_divide(a, b); }},
    {"remainder", "mod", [](const Tensor& a, const Tensor& b) { return remainder(a, b); }, [](const Tensor& a, Scalar b) { return remainder(a, b); }, [](Scalar a, const Tensor& b) { return remainder(a, b); }},
    {"bitwise_and", "and", [](const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }, [](const Tensor& a, Scalar b) { return bitwise_and(a, b); }, [](Scalar a, const Tensor& b) { return bitwise_and(a, b); }},
    {"bitwise_or", "or", [](const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }, [](const Tensor& a, Scalar b) { return bitwise_or(a, b); }, [](Scalar a, const Tensor& b) { return bitwise_or(a, b); }},
    {"bitwise_xor", "xor", [](const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }, [](const Tensor& a, Scalar b) { return bitwise_xor(a, b); }, [](Scalar a, const Tensor& b) { return bitwise_xor(a, b); }},
    {"bitwise_left_shift", "lshift", [](const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); }, [](const Tensor& a, Scalar b) { return bitwise_left_shift(a, b); }, [](Scalar a, const Tensor& b) { return bitwise_left_shift(a, b); }},
    {"bitwise_right_shift", "rshift", [](const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); }, [](const Tensor& a, Scalar b) { return bitwise_right_shift(a, b); }, [](Scalar a, const Tensor& b) { return bitwise_right_shift(a, b); }},
    {"atan2", nullptr, [](const Tensor& a, const Tensor& b) { return atan2(a, b); }, [](const Tensor& a, Scalar b) { return atan2(a, b); }, [](Scalar a, const Tensor& b) { return atan2(a, b); }},
    {"hypot", nullptr, [](const Tensor& a, const Tensor& b) { return hypot(a, b); }, [](const Tensor& a, Scalar b) { return hypot(a, b); }, [](Scalar a, const Tensor& b) { return hypot(a, b); }},
    {"copysign", nullptr, [](const Tensor& a, const Tensor& b) { return copysign(a, b); }, [](const Tensor& a, Scalar b) { return copysign(a, b); }, [](Scalar a, const Tensor& b) { return copysign(a, b); }},
    {"logaddexp", nullptr, [](const Tensor& a, const Tensor& b) { return logaddexp(a, b); }, [](const Tensor& a, Scalar b) { return logaddexp(a, b); }, [](Scalar a, const Tensor& b) { return logaddexp(a, b); }},
    {"nextafter", nullptr, [](const Tensor& a, const Tensor& b) { return nextafter(a, b); }, [](const Tensor& a, Scalar b) { return nextafter(a, b); }, [](Scalar a, const Tensor& b) { return nextafter(a, b); }},
    {"logical_and", nullptr, [](const Tensor& a, const Tensor& b) { return logical_and(a, b); }, [](const Tensor& a, Scalar b) { return logical_and(a, b); }, [](Scalar a, const Tensor& b) { return logical_and(a, b); }},
    {"logical_or", nullptr, [](const Tensor& a, const Tensor& b) { return logical_or(a, b); }, [](const Tensor& a, Scalar b) { return logical_or(a, b); }, [](Scalar a, const Tensor& b) { return logical_or(a, b); }},
    {"logical_xor", nullptr, [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); }, [](const Tensor& a, Scalar b) { return logical_xor(a, b); }, [](Scalar a, const Tensor& b) { return logical_xor(a, b); }},
};
// Comparisons have no reflected or in-place forms (Python swaps them itself).
bool is_comparison(const Binary& b) {
  for (const char* c : {"lt", "le", "gt", "ge", "eq", "ne"})
    if (b.dunder && std::string_view(b.dunder) == c) return true;
  return false;
}

struct Unary {
  const char* name;
  U fn;
};
const Unary kUnary[] = {
    {"exp", [](const Tensor& x) { return cgrad::exp(x); }},   {"log", [](const Tensor& x) { return cgrad::log(x); }},
    {"sqrt", [](const Tensor& x) { return cgrad::sqrt(x); }}, {"rsqrt", [](const Tensor& x) { return rsqrt(x); }},
    {"abs", [](const Tensor& x) { return cgrad::abs(x); }},   {"sin", [](const Tensor& x) { return cgrad::sin(x); }},
    {"cos", [](const Tensor& x) { return cgrad::cos(x); }},   {"tanh", [](const Tensor& x) { return cgrad::tanh(x); }},
    {"sigmoid", [](const Tensor& x) { return sigmoid(x); }},  {"relu", [](const Tensor& x) { return relu(x); }},
    {"negative", [](const Tensor& x) { return -x; }},
    // the Array API standard's other element-wise functions (docs/semantics.md)
    {"floor", [](const Tensor& x) { return cgrad::floor(x); }},
    {"ceil", [](const Tensor& x) { return cgrad::ceil(x); }},
    {"trunc", [](const Tensor& x) { return cgrad::trunc(x); }},
    {"round", [](const Tensor& x) { return cgrad::round(x); }},
    {"sign", [](const Tensor& x) { return cgrad::sign(x); }},
    {"signbit", [](const Tensor& x) { return cgrad::signbit(x); }},
    {"isnan", [](const Tensor& x) { return cgrad::isnan(x); }},
    {"isinf", [](const Tensor& x) { return cgrad::isinf(x); }},
    {"isfinite", [](const Tensor& x) { return cgrad::isfinite(x); }},
    {"log1p", [](const Tensor& x) { return cgrad::log1p(x); }},
    {"expm1", [](const Tensor& x) { return cgrad::expm1(x); }},
    {"log2", [](const Tensor& x) { return cgrad::log2(x); }},
    {"log10", [](const Tensor& x) { return cgrad::log10(x); }},
    {"tan", [](const Tensor& x) { return cgrad::tan(x); }},
    {"asin", [](const Tensor& x) { return cgrad::asin(x); }},
    {"acos", [](const Tensor& x) { return cgrad::acos(x); }},
    {"atan", [](const Tensor& x) { return cgrad::atan(x); }},
    {"sinh", [](const Tensor& x) { return cgrad::sinh(x); }},
    {"cosh", [](const Tensor& x) { return cgrad::cosh(x); }},
    {"asinh", [](const Tensor& x) { return cgrad::asinh(x); }},
    {"acosh", [](const Tensor& x) { return cgrad::acosh(x); }},
    {"atanh", [](const Tensor& x) { return cgrad::atanh(x); }},
    {"erf", [](const Tensor& x) { return cgrad::erf(x); }},
    {"bitwise_invert", [](const Tensor& x) { return cgrad::bitwise_invert(x); }},
    {"logical_not", [](const Tensor& x) { return cgrad::logical_not(x); }},
    {"positive", [](const Tensor& x) { return cgrad::positive(x); }},
    {"square", [](const Tensor& x) { return cgrad::square(x); }},
    {"reciprocal", [](const Tensor& x) { return cgrad::reciprocal(x); }},
    {"conj", [](const Tensor& x) { return cgrad::conj(x); }},
    {"real", [](const Tensor& x) { return cgrad::real(x); }},
    {"imag", [](const Tensor& x) { return cgrad::imag(x); }},
};
// clang-format on

// cplxfn: a Python complex operand beside an array `other` of dtype t, as a 0-d constant (two
// full() parts joined by complex(): no buffer, it fuses like a real scalar). The Array API
// standard (2024.12): with a complex array it takes the array's dtype, with a real floating one
// the array's complex counterpart (f16, bf16, f32 -> c64; f64 -> c128), so the array's precision
// decides, as for a Python float; with an integer or boolean array the standard leaves the result
// unspecified and cgrad raises TypeError, as array-api-strict does (docs/python.md).
std::optional<Tensor> complex_operand(nb::handle h, const Tensor& other, const char* fn) {
  if (!PyComplex_Check(h.ptr())) return std::nullopt;
  const DType t = other.dtype();
  if (!is_complex(t) && !is_floating(t))
    throw nb::type_error((std::string(fn) +
                          ": a Python complex scalar needs a floating-point or complex array, got " +
                          dtype_name(t) + " (cast the array first)")
                             .c_str());
  const DType r = real_dtype(is_complex(t) ? t : complex_dtype(t));
  const Py_complex z = PyComplex_AsCComplex(h.ptr());
  return cgrad::complex(full({}, z.real, r, other.device()), full({}, z.imag, r, other.device()));
}

// A NumPy array or scalar (anything with __array__ or __dlpack__ but a Python number), or a list or
// tuple (NumPy's array-likes), beside an Array: cgrad.asarray of it, on the Array's device, so the
// result is a cgrad Array whichever side NumPy is on (until 2026-12-05 `numpy_array + x` raised and
// `x + numpy_array` gave a NumPy array). It promotes as an array (a NumPy scalar as a 0-d array of
// its dtype: NumPy 2's rule; a list in the dtype NumPy reads it in, float64 for Python floats).
// Until 2026-12-07 a list was no operand: `x == [0, 1]` was Python's identity answer, False.
std::optional<Tensor> foreign_operand(nb::handle h, const Tensor& other) {
  PyObject* p = h.ptr();
  if (p == Py_None || PyLong_Check(p) || PyFloat_Check(p) || PyComplex_Check(p) || PyBool_Check(p))
    return std::nullopt;
  // an Array has __array__ too: the common case must stay a type check (x + y took 1.71 us per
  // call instead of 0.53 while it went through cgrad.asarray)
  const bool seq = PyList_Check(p) || PyTuple_Check(p);
  if (nb::isinstance<Tensor>(h) || (!seq && !nb::hasattr(h, "__array__") && !nb::hasattr(h, "__dlpack__")))
    return std::nullopt;
  nb::object as = seq ? nb::module_::import_("cgrad._api").attr("_as_numpy_reads")
                      : nb::module_::import_("cgrad").attr("asarray");
  return nb::cast<Tensor>(as(h, nb::arg("device") = other.device()));
}

// A Python int past the int64 range beside an array that can hold it, as the 0-d array of that
// array's dtype NumPy 2 converts it to: a float or complex array (rounded to the nearest float, inf
// past the dtype's range; OverflowError past f64's), or a u64 array (up to 2^64 - 1). Integer and
// boolean arrays are left to int_beyond_dtype and scalar_of.
std::optional<Tensor> big_int_operand(nb::handle h, const Tensor& other) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr())) return std::nullopt;
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  const DType t = other.dtype();
  if (!overflow) return std::nullopt;
  if (is_floating(t) || is_complex(t)) {
    const double v = PyLong_AsDouble(h.ptr());
    if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
    return full({}, v, t, other.device());
  }
  if (t != DType::u64 || overflow < 0) return std::nullopt;
  const unsigned long long u = PyLong_AsUnsignedLongLong(h.ptr());
  if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();  // past 2^64: int_beyond_dtype's rule
    return std::nullopt;
  }
  return tensor(std::vector<uint64_t>{u}, {}, other.device());
}

// The standard promotes a 0-d array like any other (float32 array // float64 0-d array ->
// float64); the C++ API ranks 0-d tensors below dimensioned ones (PyTorch's rule:
// docs/semantics.md). So a 0-d operand of another dtype beside a dimensioned one takes part as a
// one-element 1-D array: the same broadcast shape, the table's dtype.
std::pair<Tensor, Tensor> promoted_as_arrays(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() && a.ndim() == 0 && b.ndim() > 0) return {a.reshape({1}), b};
  if (a.dtype() != b.dtype() && b.ndim() == 0 && a.ndim() > 0) return {a, b.reshape({1})};
  return {a, b};
}

// The value of `x op= y`: the standard and NumPy keep x's dtype and shape. A result of x's kind or
// a lower one is cast back (int32 += int64 stays int32, float32 += float64 stays float32, as NumPy's
// same-kind casting and PyTorch do); one of a higher kind (int //= float, int /= int, a real array
// with a complex result) or of another shape (y broadcast x) raises, leaving x unchanged.
// An in-place operator's value for x: x's shape, and x's dtype where the result's kind is not
// higher (NumPy's same-kind rule: x_f32 += x_f64 casts, x_i32 += 0.5 raises).
Tensor in_place_result(const char* name, const Tensor& x, Tensor r) {
  auto kind = [](DType d) { return d == DType::b8 ? 0 : is_integer(d) ? 1 : is_floating(d) ? 2 : 3; };
  if (r.shape() != x.shape())
    throw nb::value_error((std::string(name) + ": in place, the result's shape " + shape_str(r.shape()) +
                           " is not the array's " + shape_str(x.shape()))
                              .c_str());
  if (r.dtype() == x.dtype()) return r;
  if (kind(r.dtype()) > kind(x.dtype()))
    throw nb::type_error((std::string(name) + ": in place, the result dtype " + dtype_name(r.dtype()) +
                          " cannot be stored in a " + dtype_name(x.dtype()) + " array")
                             .c_str());
  return r.cast(x.dtype());
}

// Python's in-place operators (`x += y`, `x @= w`): a stores r, computed from a, with its shape and
// dtype (in_place_result).
nb::object assign_in_place(nb::handle a, Tensor r, const char* name) {
  Tensor& self = nb::cast<Tensor&>(a);
  Tensor value = in_place_result(name, self, std::move(r));
  if (!(self.requires_grad() && self.is_leaf())) {
    // In place: every handle of this Array's tensor sees the new value, as in NumPy and
    // PyTorch (x.view(), an optimizer's params, a compiled function that captured x); arrays
    // derived from x before keep theirs. Until 2026-12-07 the Array was rebound to a new
    // tensor, so a compiled function that captured it kept reading the old value (`w += 1`,
    // then f(x) computed with the old w). Inside a compile trace, the function's arguments and
    // captured Arrays are assigned (the plan repeats those assigns: until 2026-12-07 `x -= y`
    // inside changed the caller's x at no call), and an Array built inside is rebound (an
    // assign there would be a side effect for the plan to repeat).
    if (!detail::tracing() || detail::traced_input(self))
      self.assign(value);
    else
      self = std::move(value);
    return nb::borrow(a);
  }
  // A leaf that requires a gradient (PyTorch's rules). Under no_grad, an update of the leaf
  // itself, as `w -= lr * w.grad` in a hand-written SGD step: it stays the leaf, marked, with
  // its grad (until 2026-12-07 w became a new tensor outside the graph, so the next
  // backward() raised). Recording, it would cut the leaf from what it means: it raises.
  if (is_grad_enabled())
    throw Error(ErrorCode::InvalidOperation,
                std::string(name) +
                    ": in place on a leaf that requires a gradient; update it under cgrad.no_grad() "
                    "(an optimizer's step), or write x = cgrad." +
                    name + "(x, y) for a new value computed from the leaf");
  self.assign(value);
  return nb::borrow(a);
}

// NumPy 2's rule (NEP 50) for a Python int that its integer array's dtype cannot hold (u8 + -1,
// i8 < 300): a comparison has one answer for every element, which the C++ core gives
// (docs/semantics.md; past the int64 range it is asked the same question of an i8 operand); any
// other function raises OverflowError, where the C++ API wraps the scalar. u64 values past
// INT64_MAX are big_int_operand's.
std::optional<Tensor> int_beyond_dtype(const Binary& b, nb::handle h, const Tensor& arr, bool scalar_left) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr()) || !is_integer(arr.dtype())) return std::nullopt;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  const IInfo r = iinfo(arr.dtype());
  const bool fits = !overflow && v >= r.min && (v < 0 || static_cast<uint64_t>(v) <= r.max);
  if (fits) return std::nullopt;
  if (!is_comparison(b)) {
    const std::string msg = std::string("Python integer ") + nb::str(h).c_str() + " out of bounds for " +
                            dtype_name(arr.dtype()) + " (" + b.name + ")";
    PyErr_SetString(PyExc_OverflowError, msg.c_str());
    throw nb::python_error();
  }
  if (!overflow) return std::nullopt;
  const Scalar beyond_i8(static_cast<int64_t>(overflow > 0 ? 1000 : -1000));
  const Tensor x = arr.cast(DType::i8);
  return scalar_left ? b.st(beyond_i8, x) : b.ts(x, beyond_i8);
}

// The Array `h` is, or null. (nb::try_cast<Tensor*> takes None as a null pointer: a compiled
// function given or returning None dereferenced it until 2026-12-07.)
Tensor* array_of(nb::handle h) {
  Tensor* t = nullptr;
  return !h.is_none() && nb::try_cast<Tensor*>(h, t, false) ? t : nullptr;
}

// What a Python callback (`what`) returned, which must be an Array (std::bad_cast until 2026-12-07).
Tensor returned_array(nb::handle r, const std::string& what) {
  if (Tensor* t = array_of(r)) return *t;
  throw nb::type_error((what + " must return a cgrad Array, got " + nb::type_name(r.type()).c_str()).c_str());
}

// Applies row `b` to (lhs, rhs) where either may be a scalar; null when neither is an Array or
// an operand is of another type (operators then return NotImplemented).
std::optional<Tensor> apply(const Binary& b, nb::handle lhs, nb::handle rhs) {
  if (lhs.is_none() || rhs.is_none()) return std::nullopt;
  // Each operand is cast once: two Arrays (the common case) go straight to the table's row.
  Tensor *a = array_of(lhs), *c = array_of(rhs);
  const bool la = a != nullptr, rc = c != nullptr;
  if (la && rc) {
    auto [x, y] = promoted_as_arrays(*a, *c);
    return b.tt(x, y);
  }
  if (la || rc) {  // one Array: the other may be a complex, a NumPy operand or an int past its dtype
    const Tensor& t = la ? *a : *c;
    nb::handle other = la ? rhs : lhs;
    auto both = [&](const Tensor& z) { return la ? b.tt(t, z) : b.tt(z, t); };
    if (auto z = complex_operand(other, t, b.name)) return both(*z);  // cplxfn: x op 1j
    if (auto z = foreign_operand(other, t)) {                         // x op numpy_array
      auto [x, y] = la ? promoted_as_arrays(t, *z) : promoted_as_arrays(*z, t);
      return b.tt(x, y);
    }
    if (auto z = big_int_operand(other, t)) return both(*z);
    if (auto z = int_beyond_dtype(b, other, t, !la)) return z;
  }
  Scalar sa{0.0}, sc{0.0};
  if (!la && !scalar_of(lhs, sa)) return std::nullopt;
  if (!rc && !scalar_of(rhs, sc)) return std::nullopt;
  if (la) return b.ts(*a, sc);
  if (rc) return b.st(sa, *c);
  return std::nullopt;
}

nb::object result(std::optional<Tensor> t) {
  if (!t) return nb::borrow(Py_NotImplemented);
  return nb::cast(std::move(*t));
}

// An axis: an int or anything with __index__ (NumPy's integers, 0-d integer arrays); TypeError
// otherwise (std::bad_cast, a RuntimeError, until 2026-12-07: `x.mean("a")`, `x.all(y)`).
int64_t axis_of(nb::handle a) {
  nb::object i = nb::steal(PyNumber_Index(a.ptr()));
  int overflow = 0;
  const long long v = i.is_valid() ? PyLong_AsLongLongAndOverflow(i.ptr(), &overflow) : 0;
  if (!i.is_valid() || overflow != 0) {
    PyErr_Clear();
    throw nb::type_error(("axis must be an int or a tuple of ints, got " +
                          std::string(i.is_valid() ? "an int out of range" : nb::type_name(a.type()).c_str()))
                             .c_str());
  }
  return v;
}

std::vector<int64_t> axes_of(nb::handle axis) {
  std::vector<int64_t> axes;
  if (axis.is_none()) return axes;
  if (!PyTuple_Check(axis.ptr()) && !PyList_Check(axis.ptr())) return {axis_of(axis)};
  for (nb::handle a : nb::iter(axis)) axes.push_back(axis_of(a));
  return axes;
}

// Reductions: an empty tuple of axes reduces nothing (Array API), unlike C++'s "empty = all".
using Red = Tensor (*)(const Tensor&, std::vector<int64_t>, bool);
struct Reduction {
  const char* name;
  Red fn;
};
const Reduction kReductions[] = {
    {"sum", [](const Tensor& x, std::vector<int64_t> a, bool k) { return cgrad::sum(x, std::move(a), k); }},
    {"mean", [](const Tensor& x, std::vector<int64_t> a, bool k) { return cgrad::mean(x, std::move(a), k); }},
    {"max", [](const Tensor& x, std::vector<int64_t> a, bool k) { return cgrad::max(x, std::move(a), k); }},
    {"min", [](const Tensor& x, std::vector<int64_t> a, bool k) { return cgrad::min(x, std::move(a), k); }},
    {"prod", [](const Tensor& x, std::vector<int64_t> a, bool k) { return cgrad::prod(x, std::move(a), k); }},
    {"any", [](const Tensor& x, std::vector<int64_t> a, bool k) { return cgrad::any(x, std::move(a), k); }},
    {"all", [](const Tensor& x, std::vector<int64_t> a, bool k) { return cgrad::all(x, std::move(a), k); }},
    {"count_nonzero", [](const Tensor& x, std::vector<int64_t> a,
                         bool k) { return cgrad::count_nonzero(x, std::move(a), k); }},
};

// Runs f (a realization) without the GIL, then the deferred Python work of user ops with it.
template <class F>
void released(F&& f) {
  {
    nb::gil_scoped_release release;
    f();
  }
  drain_deferred();
}

void eval_released(const std::vector<Tensor>& ts) {
  released([&] { eval(ts); });
}

nb::object item(const Tensor& t) {
  if (t.numel() != 1)
    throw nb::value_error(
        ("only one-element arrays convert to Python scalars, got shape " + shape_str(t.shape())).c_str());
  eval_released({t});
  if (is_complex(t.dtype())) {  // complex group: a Python complex
    const auto z = t.cast(DType::c128).item<complex128_t>();
    return nb::steal(PyComplex_FromDoubles(z.re, z.im));
  }
  if (is_floating(t.dtype())) return nb::float_(t.item<double>());
  if (t.dtype() == DType::b8) return nb::bool_(t.item<bool>());
  if (is_unsigned(t.dtype())) return nb::int_(t.item<uint64_t>());  // u64 beyond int64's range
  return nb::int_(t.item<int64_t>());
}

nb::list to_flat_list(const Tensor& t) {
  eval_released({t});
  nb::list out;
  if (is_complex(t.dtype())) {  // complex group
    for (const complex128_t z : t.cast(DType::c128).to_vector<complex128_t>())
      out.append(nb::steal(PyComplex_FromDoubles(z.re, z.im)));
  } else if (is_floating(t.dtype())) {
    for (double v : t.to_vector<double>()) out.append(v);
  } else if (t.dtype() == DType::b8) {
    for (bool v : t.to_vector<bool>()) out.append(v);
  } else if (is_unsigned(t.dtype())) {
    for (uint64_t v : t.to_vector<uint64_t>()) out.append(v);
  } else {
    for (int64_t v : t.to_vector<int64_t>()) out.append(v);
  }
  return out;
}

// Python ints convert exactly (a value out of the dtype's range is an error); Python floats
// round once to the dtype (f16 and bf16 from the double, not through f32).
Tensor from_flat_list(nb::sequence flat, Shape shape, DType dtype, Device device) {
  const std::size_t n = nb::len(flat);
  auto fill = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> v(n);
    std::size_t i = 0;
    for (nb::handle h : flat) v[i++] = nb::cast<T>(h);
    return tensor(std::move(v), shape, device);
  };
  auto fill_16 = [&](auto zero) {  // f16, bf16: the f32 tensor of their values, exact
    std::vector<float> v(n);
    std::size_t i = 0;
    for (nb::handle h : flat) v[i++] = static_cast<float>(decltype(zero)(nb::cast<double>(h)));
    return tensor(std::move(v), shape, device).cast(dtype);
  };
  switch (dtype) {
    case DType::f32: return fill(0.0f);
    case DType::f64: return fill(0.0);
    case DType::f16: return fill_16(float16_t{});
    case DType::bf16: return fill_16(bfloat16_t{});
    case DType::i8: return fill(int8_t{0});
    case DType::i16: return fill(int16_t{0});
    case DType::i32: return fill(int32_t{0});
    case DType::i64: return fill(int64_t{0});
    case DType::u8: return fill(uint8_t{0});
    case DType::u16: return fill(uint16_t{0});
    case DType::u32: return fill(uint32_t{0});
    case DType::u64: return fill(uint64_t{0});
    case DType::b8: {
      std::vector<bool> v;
      v.reserve(n);
      for (nb::handle h : flat) v.push_back(nb::cast<bool>(h));
      return tensor(std::move(v), shape, device);
    }
    case DType::c64:  // complex group: Python complex (or real) values, built in c128, rounded once
    case DType::c128: {
      std::vector<complex128_t> v;
      v.reserve(n);
      for (nb::handle h : flat) {
        const double re = PyComplex_RealAsDouble(h.ptr()), im = PyComplex_ImagAsDouble(h.ptr());
        if (PyErr_Occurred()) throw nb::python_error();
        v.emplace_back(re, im);
      }
      return tensor(std::move(v), shape, device).cast(dtype);
    }
  }
  throw nb::type_error("unknown dtype");
}

// compile(fn) over Python functions: the C++ CompiledCore with a trace that calls back into Python.
// Calls with Arrays by position take this path; any other call (keywords, numbers, strings,
// Arrays inside tuples, lists or dicts) goes to `general` (cgrad/_compile.py), which keys a
// PyCompiled of its own on the values that are not Arrays and passes it the Arrays alone.
struct PyCompiled {
  nb::object fn, general;
  detail::CompiledCore core;
  // What fn returned, per input signature (shapes, dtypes, devices): one Array, a tuple of
  // Arrays, or another structure (`tree`, from _compile.flatten_out). A function may return
  // other structures for other shapes: one flag for all signatures returned the last trace's.
  struct Form {
    std::vector<int64_t> sig;
    bool single = true;
    nb::object tree;  // None: an Array or a tuple of Arrays
  };
  std::vector<Form> forms;

  static std::vector<int64_t> signature(const std::vector<Tensor>& in) {
    std::vector<int64_t> sig;
    for (const Tensor& t : in) {
      sig.push_back(static_cast<int64_t>(t.shape().size()));
      sig.insert(sig.end(), t.shape().begin(), t.shape().end());
      sig.push_back(static_cast<int64_t>(t.dtype()) * 4096 + static_cast<int64_t>(t.device().kind) * 1024 +
                    t.device().index);
    }
    return sig;
  }
  // A copy: Python code (unflatten_out) may let another thread trace and grow `forms`.
  Form form_of(const std::vector<Tensor>& in) const {
    if (forms.size() == 1) return forms[0];
    const std::vector<int64_t> sig = signature(in);
    for (const Form& f : forms)
      if (f.sig == sig) return f;
    return forms.back();
  }
  void remember(const std::vector<Tensor>& in, Form f) {
    f.sig = signature(in);
    for (Form& g : forms)
      if (g.sig == f.sig) {
        g = std::move(f);
        return;
      }
    forms.push_back(std::move(f));
  }
  static nb::object trees() { return nb::module_::import_("cgrad._compile"); }

  nb::object call(nb::args args, nb::kwargs kwargs) {
    std::vector<Tensor> in;
    in.reserve(args.size());
    bool plain = kwargs.size() == 0;
    for (nb::handle a : args) {
      Tensor* t = plain ? array_of(a) : nullptr;
      if (!t) {
        plain = false;
        break;
      }
      in.push_back(*t);
    }
    if (!plain && general.is_none())
      throw nb::type_error("cgrad.compile: every argument of this function must be a cgrad.Array");
    if (!plain) return general(*args, **kwargs);
    // The GIL stays held: the trace calls Python while holding the realize lock. A thread that
    // must wait for that lock releases the GIL while it waits (the lock-wait hook, below).
    std::vector<Tensor> outs = core.call(in, [&]() -> std::vector<Tensor> {
      nb::list py_in;
      for (const Tensor& t : in) py_in.append(nb::cast(t));
      nb::object r = fn(*nb::tuple(py_in));
      if (Tensor* one = array_of(r)) {
        remember(in, Form{{}, true, nb::none()});
        return {*one};
      }
      std::vector<Tensor> v;
      if (PyTuple_CheckExact(r.ptr())) {  // (a named tuple keeps its type: flatten_out below)
        for (nb::handle h : nb::iter(r)) {
          Tensor* t = array_of(h);
          if (!t) break;
          v.push_back(*t);
        }
        if (v.size() == nb::len(r)) {
          remember(in, Form{{}, false, nb::none()});
          return v;
        }
      }
      // nested tuples, lists, dicts, None: flattened in Python, which raises TypeError for
      // anything else (std::bad_cast until 2026-12-07)
      nb::tuple flat = nb::borrow<nb::tuple>(trees().attr("flatten_out")(r));
      v = nb::cast<std::vector<Tensor>>(flat[0]);
      remember(in, Form{{}, false, nb::borrow(flat[1])});
      return v;
    });
    drain_deferred();
    const Form f = form_of(in);
    if (f.single && outs.size() == 1) return nb::cast(outs[0]);
    nb::list l;
    for (auto& t : outs) l.append(nb::cast(t));
    if (!f.tree.is_none()) return trees().attr("unflatten_out")(f.tree, l);
    return nb::tuple(l);
  }
  std::size_t signatures() const {
    return core.signatures() + (general.is_none() ? 0 : nb::cast<std::size_t>(general.attr("signatures")));
  }
};

struct NoGrad {
  std::unique_ptr<NoGradGuard> guard;
};

PyObject* g_errors[9] = {};

}  // namespace

}  // namespace cgrad::py

NB_MODULE(_cgrad, m) {
  using namespace cgrad;
  using namespace cgrad::py;
  m.doc() = "cgrad: a lazy tensor engine (C++ core); see the cgrad package for the Python API";
  // Module-level Python objects (dtypes, the default Device) still hold instances when the
  // interpreter tears the extension down; that is not a leak worth a warning at every exit.
  nb::set_leak_warnings(false);
  // A thread waiting for the realize lock releases the GIL meanwhile, if it holds it: the holder
  // may be tracing a compiled function, which runs Python (docs/python.md, "Threads and the GIL").
  detail::set_lock_wait_hook(
      {[]() -> void* { return PyGILState_Check() ? static_cast<void*>(PyEval_SaveThread()) : nullptr; },
       [](void* state) {
         if (state) PyEval_RestoreThread(static_cast<PyThreadState*>(state));
       }});

  // ---- errors: cgrad::Error -> cgrad.Error subclasses that are also the matching builtins ----
  PyObject* base = PyErr_NewException("cgrad.Error", PyExc_Exception, nullptr);
  m.attr("Error") = nb::handle(base);
  struct Row {
    ErrorCode code;
    const char* name;
    PyObject* builtin;
  };
  const Row rows[] = {{ErrorCode::ShapeMismatch, "ShapeError", PyExc_ValueError},
                      {ErrorCode::InvalidArgument, "InvalidArgumentError", PyExc_ValueError},
                      {ErrorCode::InvalidOperation, "InvalidOperationError", PyExc_RuntimeError},
                      {ErrorCode::DTypeMismatch, "DTypeError", PyExc_TypeError},
                      {ErrorCode::DeviceError, "DeviceError", PyExc_RuntimeError},
                      {ErrorCode::OutOfMemory, "OutOfMemoryError", PyExc_MemoryError},
                      {ErrorCode::CompileError, "CompileError", PyExc_RuntimeError},
                      {ErrorCode::ExecutionFailed, "ExecutionError", PyExc_RuntimeError},
                      {ErrorCode::Internal, "InternalError", PyExc_RuntimeError}};
  for (const Row& r : rows) {
    std::string full = std::string("cgrad.") + r.name;
    PyObject* bases = PyTuple_Pack(2, base, r.builtin);
    PyObject* e = PyErr_NewException(full.c_str(), bases, nullptr);
    Py_DECREF(bases);
    g_errors[static_cast<int>(r.code)] = e;
    m.attr(r.name) = nb::handle(e);
  }
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const cgrad::Error& e) {
      PyErr_SetString(g_errors[static_cast<int>(e.code())], e.what());
    }
  });

  nb::enum_<DType>(m, "_DType")
      .value("f32", DType::f32)
      .value("f64", DType::f64)
      .value("i32", DType::i32)
      .value("i64", DType::i64)
      .value("b8", DType::b8)
      .value("i8", DType::i8)
      .value("i16", DType::i16)
      .value("u8", DType::u8)
      .value("u16", DType::u16)
      .value("u32", DType::u32)
      .value("u64", DType::u64)
      .value("f16", DType::f16)
      .value("bf16", DType::bf16)
      .value("c64", DType::c64)  // complex group
      .value("c128", DType::c128);

  nb::class_<Device>(m, "Device")
      .def_static("cpu", &Device::cpu)
      .def_static("cuda", &Device::cuda, nb::arg("index") = 0)
      .def_prop_ro("is_cuda", &Device::is_cuda)
      .def_prop_ro("index", [](const Device& d) { return d.index; })
      .def(
          "__eq__",
          [](const Device& a, nb::handle b) {  // False for other values, None too (it raised TypeError)
            Device* d = nullptr;
            return !b.is_none() && nb::try_cast<Device*>(b, d, false) && a == *d;
          },
          nb::arg("other").none())
      .def("__hash__", [](const Device& d) { return (d.is_cuda() ? 1000 : 0) + d.index; })
      .def("__repr__", [](const Device& d) { return "cgrad.Device('" + d.str() + "')"; })
      .def("__str__", &Device::str);
  m.def("cuda_available", &cuda_available);
  m.def("_config", [] {
    const Config c = config();
    nb::dict d;
    d["backend"] = c.backend;
    d["compiler"] = c.compiler;
    d["compiler_identity"] = c.compiler_identity;
    d["kernel_cache_dir"] = c.kernel_cache_dir;
    d["prebuilt_kernels_dir"] = c.prebuilt_kernels_dir;
    d["threads"] = c.threads;
    return d;
  });

  auto A = nb::class_<Tensor>(m, "Array", "A lazy n-dimensional array (a cgrad::Tensor handle).");
  A.def_prop_ro("shape",
                [](const Tensor& t) {
                  const Shape& s = t.shape();
                  nb::list l;
                  for (int64_t d : s) l.append(d);
                  return nb::tuple(l);
                })
      .def_prop_ro("_dtype", &Tensor::dtype)
      .def_prop_ro("ndim", &Tensor::ndim)
      .def_prop_ro("size", &Tensor::numel)
      .def_prop_ro("device", &Tensor::device)
      .def("is_evaluated", &Tensor::is_evaluated)
      .def("eval",
           [](const Tensor& t) {
             eval_released({t});
             return t;
           })
      .def(
          "to_device",
          [](const Tensor& t, Device d, nb::handle stream) {
            (void)stream;
            return t.to(d);
          },
          nb::arg("device"), nb::kw_only(), nb::arg("stream").none() = nb::none())
      .def("_clone",
           [](const Tensor& t) {
             eval_released({t});  // (user ops' deferred Python work drained with the GIL held)
             nb::gil_scoped_release release;
             return t.clone();
           })
      .def("_cast", &Tensor::cast)
      .def("_reshape", &Tensor::reshape)
      .def("_permute", &Tensor::permute)
      .def("_transpose", &Tensor::transpose)
      .def_prop_ro("mT", [](const Tensor& t) { return t.T(); })
      .def("_expand", &Tensor::expand)
      .def("_slice", &Tensor::slice)
      // These two return the same Python object (not a new one borrowing its Tensor).
      .def("assign",
           [](nb::handle self, const Tensor& e) {
             nb::cast<Tensor&>(self).assign(e);
             return nb::borrow(self);
           })
      .def("item", &item)
      .def("_flat_list", &to_flat_list)
      .def("__str__",
           [](const Tensor& t) {
             eval_released({t});
             std::ostringstream os;
             os << t;
             return os.str();
           })
      // autograd
      .def(
          "requires_grad_",
          [](nb::handle self, bool on) {
            nb::cast<Tensor&>(self).requires_grad(on);
            return nb::borrow(self);
          },
          nb::arg("requires_grad") = true)
      .def_prop_rw(
          "requires_grad", [](const Tensor& t) { return t.requires_grad(); },
          [](Tensor& t, bool on) { t.requires_grad(on); })
      .def_prop_ro("is_leaf", [](const Tensor& t) { return t.is_leaf(); })
      .def_prop_rw(
          "grad",
          [](const Tensor& t) -> std::optional<Tensor> {
            Tensor g = t.grad();
            if (!g.defined()) return std::nullopt;
            return g;
          },
          [](Tensor& t, nb::handle v) {  // PyTorch's `w.grad = None` (clear_grad); no other value
            if (!v.is_none())
              throw nb::type_error("grad: only None can be assigned (it clears the gradient)");
            t.clear_grad();
          },
          nb::arg("value").none())
      .def("clear_grad", &Tensor::clear_grad)
      .def("backward", &Tensor::backward)
      .def("detach", &Tensor::detach)
      .def("__len__", [](const Tensor& t) {
        if (t.ndim() == 0) throw nb::type_error("len() of a 0-d array");
        return t.shape()[0];
      });
  A.attr("__hash__") = nb::none();  // == builds an array, so arrays are not hashable

  // Operators from the table: __op__, __rop__ and __iop__ (assigns this Array: below).
  for (const Binary& b : kBinary) {
    if (!b.dunder) continue;
    const Binary* row = &b;
    std::string d = b.dunder;
    A.def(("__" + d + "__").c_str(), [row](nb::handle a, nb::handle c) { return result(apply(*row, a, c)); },
          nb::arg("other").none());  // x == None: NotImplemented, then Python's False
    if (is_comparison(b)) continue;
    A.def(("__r" + d + "__").c_str(), [row](nb::handle a, nb::handle c) { return result(apply(*row, c, a)); },
          nb::arg("other").none());
    A.def(("__i" + d + "__").c_str(), [row](nb::handle a, nb::handle c) -> nb::object {
      // cplxfn: an in-place operation keeps its array's dtype (the standard), so x *= 1j needs a
      // complex x
      if (PyComplex_Check(c.ptr()) && !is_complex(nb::cast<Tensor&>(a).dtype()))
        throw nb::type_error(
            (std::string(row->name) + ": in place, a Python complex scalar needs a complex array").c_str());
      auto r = apply(*row, a, c);
      if (!r) return nb::borrow(Py_NotImplemented);
      return assign_in_place(a, std::move(*r), row->name);
    });
  }
  A.def("__neg__", [](const Tensor& x) { return -x; })
      .def("__pos__", [](const Tensor& x) { return positive(x); })
      .def("__abs__", [](const Tensor& x) { return cgrad::abs(x); })
      .def("__invert__", [](const Tensor& x) { return bitwise_invert(x); })
      .def(  // (None: NotImplemented, so Python's TypeError, as for the other operators)
          "__matmul__",
          [](const Tensor& a, nb::handle b) -> nb::object {
            if (Tensor* t = array_of(b)) return nb::cast(matmul(a, *t));
            if (auto z = foreign_operand(b, a)) return nb::cast(matmul(a, *z));
            return nb::borrow(Py_NotImplemented);
          },
          nb::arg("other").none())
      .def(
          "__rmatmul__",
          [](const Tensor& a, nb::handle b) -> nb::object {
            if (Tensor* t = array_of(b)) return nb::cast(matmul(*t, a));
            if (auto z = foreign_operand(b, a)) return nb::cast(matmul(*z, a));
            return nb::borrow(Py_NotImplemented);
          },
          nb::arg("other").none())
      .def(  // `x @= w`: in place as the other operators, where the product keeps x's shape (NumPy's)
          "__imatmul__",
          [](nb::handle a, nb::handle b) -> nb::object {
            const Tensor& x = nb::cast<Tensor&>(a);
            if (Tensor* t = array_of(b)) return assign_in_place(a, matmul(x, *t), "matmul");
            if (auto z = foreign_operand(b, x)) return assign_in_place(a, matmul(x, *z), "matmul");
            return nb::borrow(Py_NotImplemented);
          },
          nb::arg("other").none());

  // The element-wise functions take NumPy's `out=` (keyword only; written by Python's
  // _array._to_out under the ufuncs' rules); without it they cost what they did before.
  auto with_out = [](const char* name, Tensor r, nb::handle out) -> nb::object {
    if (out.is_none()) return nb::cast(std::move(r));
    return nb::module_::import_("cgrad._array").attr("_to_out")(out, nb::cast(std::move(r)), name, true);
  };
  for (const Binary& b : kBinary) {
    const Binary* row = &b;
    m.def(
        b.name,
        [row, with_out](nb::handle a, nb::handle c, nb::handle out) {
          auto r = apply(*row, a, c);
          if (!r)
            throw nb::type_error(
                (std::string(row->name) + ": operands must be cgrad arrays or Python scalars").c_str());
          return with_out(row->name, std::move(*r), out);
        },
        nb::arg("x1"), nb::arg("x2"), nb::kw_only(), nb::arg("out") = nb::none());
  }
  for (const Unary& u : kUnary) {
    const Unary* row = &u;
    m.def(
        u.name,
        [row, with_out](const Tensor& x, nb::handle out) { return with_out(row->name, row->fn(x), out); },
        nb::arg("x"), nb::kw_only(), nb::arg("out") = nb::none());
  }
  for (const Reduction& r : kReductions) {
    const Reduction* row = &r;
    m.def(("_" + std::string(r.name)).c_str(),
          [row](const Tensor& x, nb::handle axis, bool keepdims) {
            std::vector<int64_t> axes = axes_of(axis);
            if (!axis.is_none() && axes.empty()) {
              // axis=(): nothing reduced, but the result has the reduction's dtype (sum of int32
              // is int64): reduce over a new trailing axis of size 1 (same values, fused)
              Shape s = x.shape();
              s.push_back(1);
              return row->fn(x.reshape(s), {static_cast<int64_t>(s.size()) - 1}, false);
            }
            return row->fn(x, std::move(axes), keepdims);
          },
          nb::arg("x"), nb::arg("axis").none(), nb::arg("keepdims"));
  }
  m.def("_where", [](const Tensor& c, nb::handle a, nb::handle b) {
    Tensor *ta = array_of(a), *tb = array_of(b);
    Scalar sa{0.0}, sb{0.0};
    bool ia = ta != nullptr, ib = tb != nullptr;
    // cplxfn: a Python complex beside an array (the rules of the binary operators)
    if (ia && !ib)
      if (auto z = complex_operand(b, *ta, "where")) return where(c, *ta, *z);
    if (ib && !ia)
      if (auto z = complex_operand(a, *tb, "where")) return where(c, *z, *tb);
    std::optional<Tensor> fa = ia ? std::nullopt : foreign_operand(a, c);  // NumPy arrays and scalars
    std::optional<Tensor> fb = ib ? std::nullopt : foreign_operand(b, c);
    if (fa) ta = &*fa, ia = true;
    if (fb) tb = &*fb, ib = true;
    if (ia && !ib)
      if (auto z = big_int_operand(b, *ta)) return where(c, *ta, *z);
    if (ib && !ia)
      if (auto z = big_int_operand(a, *tb)) return where(c, *z, *tb);
    if ((!ia && !scalar_of(a, sa)) || (!ib && !scalar_of(b, sb)))
      throw nb::type_error("where: operands must be arrays or scalars");
    if (ia && ib) {
      auto [x, y] = promoted_as_arrays(*ta, *tb);
      return where(c, x, y);
    }
    if (ia) return where(c, *ta, sb);
    if (ib) return where(c, sa, *tb);
    return where(c, sa, sb);
  });
  // var/std: axis=() reduces nothing, so every element is its own mean (variance 0, or NaN
  // where correction >= 1). C++'s empty axes mean all axes, so that case is computed here as
  // (x - x)^2 / max(1 - correction, 0).
  for (const char* name : {"var", "std"}) {
    const bool is_std = name[0] == 's';
    m.def(("_" + std::string(name)).c_str(),
          [is_std](const Tensor& x, nb::handle axis, double correction, bool keepdims) {
            std::vector<int64_t> axes = axes_of(axis);
            if (!axis.is_none() && axes.empty()) {
              if (!is_floating(x.dtype())) return var(x, {}, correction, keepdims);  // its error
              Tensor d = x - x, v = d * d / std::max(1.0 - correction, 0.0);
              return is_std ? sqrt(v) : v;
            }
            return is_std ? cgrad::std(x, std::move(axes), correction, keepdims)
                          : var(x, std::move(axes), correction, keepdims);
          },
          nb::arg("x"), nb::arg("axis").none(), nb::arg("correction"), nb::arg("keepdims"));
  }
  // scans (scan group)
  m.def("_cumulative_sum",
        [](const Tensor& x, std::optional<int64_t> axis, std::optional<DType> dtype, bool include_initial) {
          return cumulative_sum(x, axis, dtype, include_initial);
        });
  m.def("_cumulative_prod",
        [](const Tensor& x, std::optional<int64_t> axis, std::optional<DType> dtype, bool include_initial) {
          return cumulative_prod(x, axis, dtype, include_initial);
        });
  m.def("_argmax", [](const Tensor& x, std::optional<int64_t> axis, bool keepdims) {
    return argmax(x, axis, keepdims);
  });
  m.def("_argmin", [](const Tensor& x, std::optional<int64_t> axis, bool keepdims) {
    return argmin(x, axis, keepdims);
  });
  m.def("_flip", [](const Tensor& x, std::vector<int64_t> axes) { return flip(x, std::move(axes)); });
  // group sort: sort, argsort and the set functions (the Python side builds the namedtuples)
  m.def("_sort", [](const Tensor& x, int64_t axis, bool descending, bool stable) {
    return cgrad::sort(x, axis, descending, stable);
  });
  m.def("_argsort", [](const Tensor& x, int64_t axis, bool descending, bool stable) {
    return cgrad::argsort(x, axis, descending, stable);
  });
  m.def("_unique_all", [](const Tensor& x) {
    cgrad::UniqueAll u = cgrad::unique_all(x);
    return std::vector<Tensor>{u.values, u.indices, u.inverse_indices, u.counts};
  });
  // (each computes only what it returns: no positions for values and counts)
  m.def("_unique_counts", [](const Tensor& x) {
    cgrad::UniqueCounts u = cgrad::unique_counts(x);
    return std::vector<Tensor>{u.values, u.counts};
  });
  m.def("_unique_inverse", [](const Tensor& x) {
    cgrad::UniqueInverse u = cgrad::unique_inverse(x);
    return std::vector<Tensor>{u.values, u.inverse_indices};
  });
  m.def("_unique_values", [](const Tensor& x) { return cgrad::unique_values(x); });
  // linalg decompositions (docs/linalg.md): each evaluates its input and runs a host routine
  m.def("_linalg_solve", [](const Tensor& a, const Tensor& b) { return cgrad::linalg::solve(a, b); });
  m.def("_linalg_inv", [](const Tensor& a) { return cgrad::linalg::inv(a); });
  m.def("_linalg_det", [](const Tensor& a) { return cgrad::linalg::det(a); });
  m.def("_linalg_slogdet", [](const Tensor& a) {
    cgrad::linalg::Slogdet r = cgrad::linalg::slogdet(a);
    return std::vector<Tensor>{r.sign, r.logabsdet};
  });
  m.def("_linalg_cholesky", [](const Tensor& a, bool upper) { return cgrad::linalg::cholesky(a, upper); });
  m.def("_linalg_qr", [](const Tensor& a, bool complete) {
    cgrad::linalg::QR r = cgrad::linalg::qr(a, complete);
    return std::vector<Tensor>{r.Q, r.R};
  });
  m.def("_linalg_eigh", [](const Tensor& a) {
    cgrad::linalg::Eigh r = cgrad::linalg::eigh(a);
    return std::vector<Tensor>{r.eigenvalues, r.eigenvectors};
  });
  m.def("_linalg_eigvalsh", [](const Tensor& a) { return cgrad::linalg::eigvalsh(a); });
  m.def("_linalg_eig", [](const Tensor& a) {
    cgrad::linalg::Eig r = cgrad::linalg::eig(a);
    return std::vector<Tensor>{r.eigenvalues, r.eigenvectors};
  });
  m.def("_linalg_eigvals", [](const Tensor& a) { return cgrad::linalg::eigvals(a); });
  m.def("_linalg_svd", [](const Tensor& a, bool full_matrices) {
    cgrad::linalg::SVD r = cgrad::linalg::svd(a, full_matrices);
    return std::vector<Tensor>{r.U, r.S, r.Vh};
  });
  m.def("_linalg_svdvals", [](const Tensor& a) { return cgrad::linalg::svdvals(a); });
  // fft extension (docs/fft.md): one host transform behind lazy ops; python/cgrad/fft.py
  using Sizes = cgrad::fft::Sizes;
  using Len = std::optional<int64_t>;
  m.def("_fft_fft", [](const Tensor& x, Len n, int64_t a, const std::string& nm) {
    return cgrad::fft::fft(x, n, a, nm);
  });
  m.def("_fft_ifft", [](const Tensor& x, Len n, int64_t a, const std::string& nm) {
    return cgrad::fft::ifft(x, n, a, nm);
  });
  m.def("_fft_rfft", [](const Tensor& x, Len n, int64_t a, const std::string& nm) {
    return cgrad::fft::rfft(x, n, a, nm);
  });
  m.def("_fft_irfft", [](const Tensor& x, Len n, int64_t a, const std::string& nm) {
    return cgrad::fft::irfft(x, n, a, nm);
  });
  m.def("_fft_hfft", [](const Tensor& x, Len n, int64_t a, const std::string& nm) {
    return cgrad::fft::hfft(x, n, a, nm);
  });
  m.def("_fft_ihfft", [](const Tensor& x, Len n, int64_t a, const std::string& nm) {
    return cgrad::fft::ihfft(x, n, a, nm);
  });
  m.def("_fft_fftn", [](const Tensor& x, Sizes s, Sizes a, const std::string& nm) {
    return cgrad::fft::fftn(x, s, a, nm);
  });
  m.def("_fft_ifftn", [](const Tensor& x, Sizes s, Sizes a, const std::string& nm) {
    return cgrad::fft::ifftn(x, s, a, nm);
  });
  m.def("_fft_rfftn", [](const Tensor& x, Sizes s, Sizes a, const std::string& nm) {
    return cgrad::fft::rfftn(x, s, a, nm);
  });
  m.def("_fft_irfftn", [](const Tensor& x, Sizes s, Sizes a, const std::string& nm) {
    return cgrad::fft::irfftn(x, s, a, nm);
  });
  m.def("_fft_fftfreq",
        [](int64_t n, double d, DType t, Device dev) { return cgrad::fft::fftfreq(n, d, t, dev); });
  m.def("_fft_rfftfreq",
        [](int64_t n, double d, DType t, Device dev) { return cgrad::fft::rfftfreq(n, d, t, dev); });
  m.def("_fft_fftshift", [](const Tensor& x, Sizes a) { return cgrad::fft::fftshift(x, a); });
  m.def("_fft_ifftshift", [](const Tensor& x, Sizes a) { return cgrad::fft::ifftshift(x, a); });
  // index group (issue #15): gathers, binary search, nonzero (evaluates: a data-dependent shape)
  m.def("_take",
        [](const Tensor& x, const Tensor& i, std::optional<int64_t> axis) { return take(x, i, axis); });
  m.def("_take_along_axis",
        [](const Tensor& x, const Tensor& i, int64_t axis) { return take_along_axis(x, i, axis); });
  m.def("_searchsorted", [](const Tensor& x1, const Tensor& x2, const std::string& side) {
    return searchsorted(x1, x2, side);
  });
  m.def("_nonzero", [](const Tensor& x) { return nonzero(x); });
  // scatter group (issue #15): take's and take_along_axis's inverses (docs/semantics.md, "scatter_add")
  m.def("_scatter_add", [](const Tensor& x, const Tensor& i, const Tensor& v, int64_t axis) {
    return scatter_add(x, axis, i, v);
  });
  m.def("_scatter_add_along_axis", [](const Tensor& x, const Tensor& i, const Tensor& v, int64_t axis) {
    return scatter_add_along_axis(x, axis, i, v);
  });
  m.def(
      "isclose",
      [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
        return isclose(a, b, rtol, atol, equal_nan);
      },
      nb::arg("a"), nb::arg("b"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
      nb::arg("equal_nan") = false);
  m.def(
      "allclose",
      [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
        return allclose(a, b, rtol, atol, equal_nan);
      },
      nb::arg("a"), nb::arg("b"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
      nb::arg("equal_nan") = false);
  m.def("_clamp", [](const Tensor& x, const Tensor& lo, const Tensor& hi) { return clamp(x, lo, hi); });
  m.def("_clamp_scalar", [](const Tensor& x, double lo, double hi) { return clamp(x, lo, hi); });
  m.def("matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); });
  m.def("_cat", [](const std::vector<Tensor>& xs, int64_t dim) { return cat(xs, dim); });
  // manip group (issue #15): the manipulation composites; cgrad/_api.py gives them the
  // standard's signatures.
  m.def("_einsum", [](const std::string& subscripts, const std::vector<Tensor>& operands) {
    return einsum(subscripts, operands);
  });
  m.def("_moveaxis",
        [](const Tensor& x, std::vector<int64_t> s, std::vector<int64_t> d) { return moveaxis(x, s, d); });
  m.def("_roll", [](const Tensor& x, std::vector<int64_t> shifts, std::vector<int64_t> axes) {
    return roll(x, shifts, axes);
  });
  m.def("_tile", [](const Tensor& x, std::vector<int64_t> reps) { return tile(x, std::move(reps)); });
  m.def("_repeat",
        [](const Tensor& x, int64_t r, std::optional<int64_t> axis) { return repeat(x, r, axis); });
  m.def("_repeat_counts",
        [](const Tensor& x, const Tensor& r, std::optional<int64_t> axis) { return repeat(x, r, axis); });
  m.def("_unstack", [](const Tensor& x, int64_t axis) { return unstack(x, axis); });
  m.def("_meshgrid",
        [](const std::vector<Tensor>& xs, const std::string& indexing) { return meshgrid(xs, indexing); });
  m.def("_tril", [](const Tensor& x, int64_t k) { return tril(x, k); });
  m.def("_triu", [](const Tensor& x, int64_t k) { return triu(x, k); });
  m.def("_diff", [](const Tensor& x, int64_t axis, int64_t n, std::optional<Tensor> prepend,
                    std::optional<Tensor> append) {
    return diff(x, axis, n, prepend.value_or(Tensor()), append.value_or(Tensor()));
  });
  m.def(
      "softmax", [](const Tensor& x, int64_t axis) { return softmax(x, axis); }, nb::arg("x"),
      nb::arg("axis") = -1);
  m.def(
      "log_softmax", [](const Tensor& x, int64_t axis) { return log_softmax(x, axis); }, nb::arg("x"),
      nb::arg("axis") = -1);
  m.def("cross_entropy", &cross_entropy);

  // ---- factories ----
  m.def("_from_flat_list", &from_flat_list);
  // The dtype tables of the C++ core (cgrad/_dtypes.py builds iinfo/finfo from them).
  m.def("_iinfo", [](DType t) {
    const IInfo i = iinfo(t);
    return nb::make_tuple(i.bits, i.min, i.max);
  });
  m.def("_finfo", [](DType t) {
    const FInfo f = finfo(t);
    return nb::make_tuple(f.bits, f.eps, f.max, f.min, f.smallest_normal);
  });
  m.def("_full", [](Shape s, double v, DType t, Device d) { return full(std::move(s), v, t, d); });
  m.def("_complex", [](const Tensor& re, const Tensor& im) { return cgrad::complex(re, im); });  // cplxfn
  m.def("_arange", [](int64_t n, DType t, Device d) { return arange(n, t, d); });
  m.def("_rand", [](Shape s, DType t, Device d) { return rand(std::move(s), t, d); });
  m.def("_randn", [](Shape s, DType t, Device d) { return randn(std::move(s), t, d); });
  m.def("manual_seed", &manual_seed);
  m.def("_default_generator", &default_generator, nb::rv_policy::reference);  // the global stream
  // A stream of its own (cgrad.random.Generator wraps it); copy.copy snapshots (seed, counter).
  nb::class_<Generator>(m, "_Generator", "cgrad::Generator: a counter-based random stream of its own.")
      .def(nb::init<uint64_t>(), nb::arg("seed"))
      .def("manual_seed", &Generator::manual_seed)
      .def("set_state", &Generator::set_state, nb::arg("seed"), nb::arg("counter"))
      .def_prop_ro("seed", &Generator::seed)
      .def_prop_ro("counter", &Generator::counter)
      .def("__copy__", [](const Generator& g) { return Generator(g); });
  m.def("_rand_gen", [](Shape s, DType t, Device d, Generator& g) { return rand(std::move(s), t, d, g); });
  m.def("_randn_gen", [](Shape s, DType t, Device d, Generator& g) { return randn(std::move(s), t, d, g); });

  // ---- evaluation, introspection ----
  m.def(
      "eval",
      [](nb::args xs) {
        std::vector<Tensor> ts;
        for (nb::handle h : xs) {
          Tensor* t = array_of(h);
          if (!t)  // (std::bad_cast until 2026-12-07)
            throw nb::type_error(
                ("eval: arguments must be cgrad arrays, got " + std::string(nb::type_name(h.type()).c_str()))
                    .c_str());
          ts.push_back(*t);
        }
        eval_released(ts);
      },
      "Evaluates every given array in one schedule (with the GIL released).");
  m.def("stats", []() {
    Stats s = cgrad::stats();
    nb::dict d;
    d["kernels_launched"] = s.kernels_launched;
    d["kernels_compiled"] = s.kernels_compiled;
    d["kernel_cache_hits"] = s.kernel_cache_hits;
    d["disk_cache_hits"] = s.disk_cache_hits;
    d["plans_built"] = s.plans_built;
    d["plan_cache_hits"] = s.plan_cache_hits;
    d["bytes_allocated"] = s.bytes_allocated;
    d["auto_realizes"] = s.auto_realizes;
    d["bytes_in_use"] = s.bytes_in_use;
    d["peak_bytes_in_use"] = s.peak_bytes_in_use;
    d["traces"] = s.traces;
    d["result_cache_hits"] = s.result_cache_hits;
    d["buffers_reused"] = s.buffers_reused;
    d["host_kernels"] = s.host_kernels;
    return d;
  });
  m.def("reset_stats", &reset_stats);
  m.def("to_dot", [](const std::vector<Tensor>& outs) { return to_dot_string(outs); });

  // ---- autograd, compile, optimizers ----
  m.def(
      "grad",
      [](const Tensor& y, const std::vector<Tensor>& xs, bool create_graph) {
        return grad(y, xs, create_graph);
      },
      nb::arg("y"), nb::arg("xs"), nb::arg("create_graph") = true);
  m.def("is_grad_enabled", &is_grad_enabled);
  nb::class_<NoGrad>(m, "no_grad", "Context manager: ops on this thread record no gradient history.")
      .def(nb::init<>())
      .def("__enter__", [](NoGrad& g) { g.guard = std::make_unique<NoGradGuard>(); })
      .def("__exit__", [](NoGrad& g, nb::args) { g.guard.reset(); });
  nb::class_<PyCompiled>(m, "CompiledFunction")
      .def("__call__", &PyCompiled::call)
      .def_prop_ro("signatures", &PyCompiled::signatures)
      .def_prop_ro("__wrapped__", [](const PyCompiled& c) { return c.fn; })
      .def(  // a method: `@cgrad.compile` in a class binds self, as a function does (it did not
             // until 2026-12-07: "missing 1 required positional argument"); self is a static value
          "__get__",
          [](nb::handle self, nb::handle obj, nb::handle) -> nb::object {
            if (obj.is_none()) return nb::borrow(self);
            return nb::module_::import_("types").attr("MethodType")(self, obj);
          },
          nb::arg("obj").none(), nb::arg("type").none() = nb::none());
  m.def(
      "_compile",
      [](nb::object fn, nb::object general) {
        auto c = std::make_unique<PyCompiled>();
        c->fn = std::move(fn);
        c->general = std::move(general);
        return c.release();
      },
      nb::arg("fn"), nb::arg("general") = nb::none(), nb::rv_policy::take_ownership);

  nb::module_ optim = m.def_submodule("optim", "Optimizers (docs/optim.md).");
  auto step = [](optim::Optimizer& o, const std::vector<Tensor>& with) { released([&] { o.step(with); }); };
  nb::class_<optim::Optimizer>(optim, "Optimizer")
      .def(  // one array, `opt.step(loss)` (until 2026-12-07 a 0-d loss iterated as no arrays)
          "step", [step](optim::Optimizer& o, const Tensor& with) { step(o, {with}); }, nb::arg("with_"))
      .def("step", step, nb::arg("with_") = std::vector<Tensor>{})
      .def("zero_grad", &optim::Optimizer::zero_grad)
      .def_prop_ro("params", &optim::Optimizer::params)
      .def_prop_rw("lr", &optim::Optimizer::lr, &optim::Optimizer::set_lr)
      .def_prop_ro("steps", &optim::Optimizer::steps)
      .def("state", &optim::Optimizer::state, nb::arg("i"))
      .def("set_state", &optim::Optimizer::set_state, nb::arg("steps"), nb::arg("i"), nb::arg("buffers"))
      .def_static(
          "step_all",
          [](const std::vector<optim::Optimizer*>& opts, const std::vector<Tensor>& with) {
            released([&] { optim::Optimizer::step_all(opts, with); });
          },
          nb::arg("optimizers"), nb::arg("with_") = std::vector<Tensor>{});
  nb::class_<optim::SGD, optim::Optimizer>(optim, "SGD")
      .def(nb::init<std::vector<Tensor>, double, double, double, double, bool>(), nb::arg("params"),
           nb::arg("lr"), nb::arg("momentum") = 0.0, nb::arg("dampening") = 0.0,
           nb::arg("weight_decay") = 0.0, nb::arg("nesterov") = false);
  nb::class_<optim::Adam, optim::Optimizer>(optim, "Adam")
      .def(nb::init<std::vector<Tensor>, double, double, double, double, double>(), nb::arg("params"),
           nb::arg("lr"), nb::arg("beta1") = 0.9, nb::arg("beta2") = 0.999, nb::arg("eps") = 1e-8,
           nb::arg("weight_decay") = 0.0);
  nb::class_<optim::AdamW, optim::Adam>(optim, "AdamW")
      .def(nb::init<std::vector<Tensor>, double, double, double, double, double>(), nb::arg("params"),
           nb::arg("lr"), nb::arg("beta1") = 0.9, nb::arg("beta2") = 0.999, nb::arg("eps") = 1e-8,
           nb::arg("weight_decay") = 0.01);
  optim.def(
      "minimize_cg",
      [](nb::object energy, Tensor& x, int max_iterations, double gradient_tolerance) {
        optim::CGOptions o;
        o.max_iterations = max_iterations;
        o.gradient_tolerance = gradient_tolerance;
        optim::CGResult r = optim::minimize_cg(
            [&](const Tensor& t) { return returned_array(energy(t), "minimize_cg: the energy"); }, x, o);
        nb::dict d;
        d["iterations"] = r.iterations;
        d["energy_evaluations"] = r.energy_evaluations;
        d["energy"] = r.energy;
        d["gradient_inf_norm"] = r.gradient_inf_norm;
        d["converged"] = r.converged;
        return d;
      },
      nb::arg("energy"), nb::arg("x"), nb::arg("max_iterations") = 1000,
      nb::arg("gradient_tolerance") = 1e-6);

  bind_dlpack(m);
}
