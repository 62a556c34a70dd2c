// The special cases the Array API standard (revision 2024.12) writes for its real-valued
// element-wise functions, as a table: one rule of the standard per entry (a rule such as "x1 is
// either +0 or -0" expands to one row per sign, marked as the same rule), checked in f32, f64,
// f16 and bf16 on the backend under test (the interpreter, the CPU JIT, and NVRTC in the
// cuda-compile build).
// Representative operands stand for a rule's conditions ("greater than 0" is 2.5, "a finite
// number" 1.5, "an odd integer value" 3). Expected values compare bit for bit (so the sign of a
// zero counts); "an approximation to pi/2" compares within 2 ulp; "NaN with a sign bit of 1"
// checks the sign bit; "a positive mathematical sign" checks the sign bit of a non-NaN result.
// The standard's functions map to C++ names and operators as docs/semantics.md lists.
#include "util.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace opt {
namespace {

const double I = std::numeric_limits<double>::infinity();
const double N = std::numeric_limits<double>::quiet_NaN();
const double NN = -std::numeric_limits<double>::quiet_NaN();  // a NaN with the sign bit set
const double P0 = 0.0, N0 = -0.0;
const double PI = 3.14159265358979323846;

enum class How {
  Exact,     // same value, same sign of zero
  Approx,    // within 2 ulp (results the standard calls "an approximation to")
  Nan,       // any NaN
  NanPlus,   // NaN with a sign bit of 0
  NanMinus,  // NaN with a sign bit of 1
  Positive,  // a non-NaN result with a sign bit of 0
  Negative,  // a non-NaN result with a sign bit of 1
  Zero,      // +0 or -0 ("the result is 0")
  True,
  False
};

struct Row {
  const char* fn;
  double x1, x2;
  How how;
  double want = 0;
  bool same_rule = false;  // another instance of the previous row's rule
  double x3 = 0;           // clip's max
};

// Shorthands: E(value) exact, A(value) approximate.
constexpr How E = How::Exact, A = How::Approx;
#define R(fn, x1, x2, how, ...) \
  Row { fn, x1, x2, how, __VA_ARGS__ }
constexpr double want_or_zero(double w = 0) { return w; }
#define MORE(fn, x1, x2, how, ...) \
  Row { fn, x1, x2, how, want_or_zero(__VA_ARGS__), true }

const Row kRows[] = {
    // abs
    R("abs", N, 0, How::Nan),
    R("abs", N0, 0, E, P0),
    R("abs", -I, 0, E, I),
    // acos
    R("acos", N, 0, How::Nan),
    R("acos", 2.5, 0, How::Nan),
    R("acos", -2.5, 0, How::Nan),
    R("acos", 1, 0, E, P0),
    // acosh
    R("acosh", N, 0, How::Nan),
    R("acosh", 0.5, 0, How::Nan),
    R("acosh", 1, 0, E, P0),
    R("acosh", I, 0, E, I),
    // add
    R("add", N, 1.5, How::Nan),
    MORE("add", 1.5, N, How::Nan),
    R("add", I, -I, How::Nan),
    R("add", -I, I, How::Nan),
    R("add", I, I, E, I),
    R("add", -I, -I, E, -I),
    R("add", I, 1.5, E, I),
    R("add", -I, 1.5, E, -I),
    R("add", 1.5, I, E, I),
    R("add", 1.5, -I, E, -I),
    R("add", N0, N0, E, N0),
    R("add", N0, P0, E, P0),
    R("add", P0, N0, E, P0),
    R("add", P0, P0, E, P0),
    R("add", P0, -2.5, E, -2.5),
    MORE("add", N0, 2.5, E, 2.5),
    R("add", -2.5, P0, E, -2.5),
    MORE("add", 2.5, N0, E, 2.5),
    R("add", 2.5, -2.5, E, P0),
    MORE("add", -2.5, 2.5, E, P0),
    // asin
    R("asin", N, 0, How::Nan),
    R("asin", 2.5, 0, How::Nan),
    R("asin", -2.5, 0, How::Nan),
    R("asin", P0, 0, E, P0),
    R("asin", N0, 0, E, N0),
    // asinh
    R("asinh", N, 0, How::Nan),
    R("asinh", P0, 0, E, P0),
    R("asinh", N0, 0, E, N0),
    R("asinh", I, 0, E, I),
    R("asinh", -I, 0, E, -I),
    // atan
    R("atan", N, 0, How::Nan),
    R("atan", P0, 0, E, P0),
    R("atan", N0, 0, E, N0),
    R("atan", I, 0, A, PI / 2),
    R("atan", -I, 0, A, -PI / 2),
    // atan2
    R("atan2", N, 1.5, How::Nan),
    MORE("atan2", 1.5, N, How::Nan),
    R("atan2", 2.5, P0, A, PI / 2),
    R("atan2", 2.5, N0, A, PI / 2),
    R("atan2", P0, 2.5, E, P0),
    R("atan2", P0, P0, E, P0),
    R("atan2", P0, N0, A, PI),
    R("atan2", P0, -2.5, A, PI),
    R("atan2", N0, 2.5, E, N0),
    R("atan2", N0, P0, E, N0),
    R("atan2", N0, N0, A, -PI),
    R("atan2", N0, -2.5, A, -PI),
    R("atan2", -2.5, P0, A, -PI / 2),
    R("atan2", -2.5, N0, A, -PI / 2),
    R("atan2", 2.5, I, E, P0),
    R("atan2", 2.5, -I, A, PI),
    R("atan2", -2.5, I, E, N0),
    R("atan2", -2.5, -I, A, -PI),
    R("atan2", I, 1.5, A, PI / 2),
    MORE("atan2", I, -1.5, A, PI / 2),
    R("atan2", -I, 1.5, A, -PI / 2),
    MORE("atan2", -I, -1.5, A, -PI / 2),
    R("atan2", I, I, A, PI / 4),
    R("atan2", I, -I, A, 3 * PI / 4),
    R("atan2", -I, I, A, -PI / 4),
    R("atan2", -I, -I, A, -3 * PI / 4),
    // atanh
    R("atanh", N, 0, How::Nan),
    R("atanh", -2.5, 0, How::Nan),
    R("atanh", 2.5, 0, How::Nan),
    R("atanh", -1, 0, E, -I),
    R("atanh", 1, 0, E, I),
    R("atanh", P0, 0, E, P0),
    R("atanh", N0, 0, E, N0),
    // ceil, floor, trunc: the same six rules each
    R("ceil", 3, 0, E, 3),
    MORE("ceil", -4, 0, E, -4),
    R("ceil", I, 0, E, I),
    R("ceil", -I, 0, E, -I),
    R("ceil", P0, 0, E, P0),
    R("ceil", N0, 0, E, N0),
    R("ceil", N, 0, How::Nan),
    R("floor", 3, 0, E, 3),
    MORE("floor", -4, 0, E, -4),
    R("floor", I, 0, E, I),
    R("floor", -I, 0, E, -I),
    R("floor", P0, 0, E, P0),
    R("floor", N0, 0, E, N0),
    R("floor", N, 0, How::Nan),
    R("trunc", 3, 0, E, 3),
    MORE("trunc", -4, 0, E, -4),
    R("trunc", I, 0, E, I),
    R("trunc", -I, 0, E, -I),
    R("trunc", P0, 0, E, P0),
    R("trunc", N0, 0, E, N0),
    R("trunc", N, 0, How::Nan),
    // clip(x, min, max): x2 is min, x3 max
    Row{"clip", N, -1, How::Nan, 0, false, 1},
    Row{"clip", 0.5, N, How::Nan, 0, false, 1},
    Row{"clip", 0.5, -1, How::Nan, 0, false, N},
    // copysign
    R("copysign", 1.5, -2.5, E, -1.5),
    MORE("copysign", -1.5, -2.5, E, -1.5),
    R("copysign", 1.5, N0, E, -1.5),
    R("copysign", -1.5, P0, E, 1.5),
    R("copysign", -1.5, 2.5, E, 1.5),
    R("copysign", 1.5, NN, E, -1.5),
    R("copysign", -1.5, N, E, 1.5),
    R("copysign", N, -2.5, How::NanMinus),
    R("copysign", N, N0, How::NanMinus),
    R("copysign", NN, P0, How::NanPlus),
    R("copysign", NN, 2.5, How::NanPlus),
    R("copysign", N, NN, How::NanMinus),
    R("copysign", NN, N, How::NanPlus),
    // cos, cosh
    R("cos", N, 0, How::Nan),
    R("cos", P0, 0, E, 1),
    R("cos", N0, 0, E, 1),
    R("cos", I, 0, How::Nan),
    R("cos", -I, 0, How::Nan),
    R("cosh", N, 0, How::Nan),
    R("cosh", P0, 0, E, 1),
    R("cosh", N0, 0, E, 1),
    R("cosh", I, 0, E, I),
    R("cosh", -I, 0, E, I),
// divide and floor_divide share the first sixteen rules; their last two differ.
#define CGRAD_DIVISION_RULES(fn)                                                                          \
  R(fn, N, 1.5, How::Nan), MORE(fn, 1.5, N, How::Nan), R(fn, I, -I, How::Nan), MORE(fn, -I, I, How::Nan), \
      MORE(fn, I, I, How::Nan), R(fn, P0, N0, How::Nan), MORE(fn, N0, P0, How::Nan),                      \
      MORE(fn, P0, P0, How::Nan), R(fn, P0, 2.5, E, P0), R(fn, N0, 2.5, E, N0), R(fn, P0, -2.5, E, N0),   \
      R(fn, N0, -2.5, E, P0), R(fn, 2.5, P0, E, I), R(fn, 2.5, N0, E, -I), R(fn, -2.5, P0, E, -I),        \
      R(fn, -2.5, N0, E, I), R(fn, I, 2.5, E, I), R(fn, I, -2.5, E, -I), R(fn, -I, 2.5, E, -I),           \
      R(fn, -I, -2.5, E, I), R(fn, 2.5, I, E, P0), R(fn, 2.5, -I, E, N0), R(fn, -2.5, I, E, N0),          \
      R(fn, -2.5, -I, E, P0)
    CGRAD_DIVISION_RULES("divide"),
    R("divide", 2.5, 1.5, How::Positive),
    MORE("divide", -2.5, -1.5, How::Positive),
    R("divide", -2.5, 1.5, How::Negative),
    MORE("divide", 2.5, -1.5, How::Negative),
    CGRAD_DIVISION_RULES("floor_divide"),
    R("floor_divide", 7.5, 2.5, How::Positive),
    MORE("floor_divide", -7.5, -2.5, How::Positive),
    R("floor_divide", -2.5, 1.5, How::Negative),
    MORE("floor_divide", 2.5, -1.5, How::Negative),
#undef CGRAD_DIVISION_RULES
    // equal, not_equal
    R("equal", N, 1.5, How::False),
    MORE("equal", 1.5, N, How::False),
    MORE("equal", N, N, How::False),
    R("equal", I, I, How::True),
    R("equal", -I, -I, How::True),
    R("equal", N0, P0, How::True),
    MORE("equal", N0, N0, How::True),
    R("equal", P0, P0, How::True),
    MORE("equal", P0, N0, How::True),
    R("equal", 1.5, 1.5, How::True),
    R("not_equal", N, 1.5, How::True),
    MORE("not_equal", 1.5, N, How::True),
    MORE("not_equal", N, N, How::True),
    R("not_equal", I, -I, How::True),
    R("not_equal", -I, I, How::True),
    R("not_equal", 1.5, 2.5, How::True),
    // exp, expm1
    R("exp", N, 0, How::Nan),
    R("exp", P0, 0, E, 1),
    R("exp", N0, 0, E, 1),
    R("exp", I, 0, E, I),
    R("exp", -I, 0, E, P0),
    R("expm1", N, 0, How::Nan),
    R("expm1", P0, 0, E, P0),
    R("expm1", N0, 0, E, N0),
    R("expm1", I, 0, E, I),
    R("expm1", -I, 0, E, -1),
    // hypot
    R("hypot", I, N, E, I),
    MORE("hypot", -I, 1.5, E, I),
    R("hypot", N, -I, E, I),
    MORE("hypot", 1.5, I, E, I),
    R("hypot", P0, -2.5, E, 2.5),
    MORE("hypot", N0, 2.5, E, 2.5),
    R("hypot", -2.5, N0, E, 2.5),
    MORE("hypot", 2.5, P0, E, 2.5),
    R("hypot", 1.5, N, How::Nan),
    MORE("hypot", N, N, How::Nan),
    R("hypot", N, 1.5, How::Nan),
    // isfinite, isinf, isnan
    R("isfinite", I, 0, How::False),
    MORE("isfinite", -I, 0, How::False),
    R("isfinite", N, 0, How::False),
    R("isfinite", 1.5, 0, How::True),
    MORE("isfinite", N0, 0, How::True),
    R("isinf", I, 0, How::True),
    MORE("isinf", -I, 0, How::True),
    R("isnan", N, 0, How::True),
// log, log2, log10 (the same five rules), log1p
#define CGRAD_LOG_RULES(fn)                                                                     \
  R(fn, N, 0, How::Nan), R(fn, -2.5, 0, How::Nan), R(fn, P0, 0, E, -I), MORE(fn, N0, 0, E, -I), \
      R(fn, 1, 0, E, P0), R(fn, I, 0, E, I)
    CGRAD_LOG_RULES("log"),
    CGRAD_LOG_RULES("log2"),
    CGRAD_LOG_RULES("log10"),
#undef CGRAD_LOG_RULES
    R("log1p", N, 0, How::Nan),
    R("log1p", -2.5, 0, How::Nan),
    R("log1p", -1, 0, E, -I),
    R("log1p", N0, 0, E, N0),
    R("log1p", P0, 0, E, P0),
    R("log1p", I, 0, E, I),
    // logaddexp
    R("logaddexp", N, 1.5, How::Nan),
    MORE("logaddexp", 1.5, N, How::Nan),
    MORE("logaddexp", N, I, How::Nan),
    R("logaddexp", I, 1.5, E, I),
    MORE("logaddexp", I, -I, E, I),
    R("logaddexp", 1.5, I, E, I),
    MORE("logaddexp", -I, I, E, I),
    // multiply
    R("multiply", N, 1.5, How::Nan),
    MORE("multiply", 1.5, N, How::Nan),
    R("multiply", I, P0, How::Nan),
    MORE("multiply", -I, N0, How::Nan),
    R("multiply", P0, -I, How::Nan),
    MORE("multiply", N0, I, How::Nan),
    R("multiply", 2.5, 1.5, How::Positive),
    MORE("multiply", -2.5, -1.5, How::Positive),
    MORE("multiply", N0, N0, How::Positive),
    R("multiply", -2.5, 1.5, How::Negative),
    MORE("multiply", P0, -1.5, How::Negative),
    R("multiply", I, -I, E, -I),
    MORE("multiply", -I, -I, E, I),
    R("multiply", -I, 2.5, E, -I),
    MORE("multiply", I, 2.5, E, I),
    R("multiply", -2.5, -I, E, I),
    MORE("multiply", 2.5, -I, E, -I),
    // nextafter
    R("nextafter", N, 1.5, How::Nan),
    MORE("nextafter", 1.5, N, How::Nan),
    R("nextafter", N0, P0, E, P0),
    R("nextafter", P0, N0, E, N0),
    // pow
    R("pow", 2.5, N, How::Nan),
    MORE("pow", -1, N, How::Nan),
    R("pow", N, P0, E, 1),
    MORE("pow", 2.5, P0, E, 1),
    R("pow", N, N0, E, 1),
    MORE("pow", -I, N0, E, 1),
    R("pow", N, 2.5, How::Nan),
    R("pow", 2.5, I, E, I),
    MORE("pow", -2.5, I, E, I),
    R("pow", 2.5, -I, E, P0),
    MORE("pow", -2.5, -I, E, P0),
    R("pow", 1, I, E, 1),
    MORE("pow", -1, I, E, 1),
    R("pow", 1, -I, E, 1),
    MORE("pow", -1, -I, E, 1),
    R("pow", 1, N, E, 1),
    MORE("pow", 1, 2.5, E, 1),
    R("pow", 0.5, I, E, P0),
    MORE("pow", -0.5, I, E, P0),
    R("pow", 0.5, -I, E, I),
    MORE("pow", -0.5, -I, E, I),
    R("pow", I, 2.5, E, I),
    R("pow", I, -2.5, E, P0),
    R("pow", -I, 3, E, -I),
    R("pow", -I, 2, E, I),
    MORE("pow", -I, 2.5, E, I),
    R("pow", -I, -3, E, N0),
    R("pow", -I, -2, E, P0),
    MORE("pow", -I, -2.5, E, P0),
    R("pow", P0, 2.5, E, P0),
    R("pow", P0, -2.5, E, I),
    R("pow", N0, 3, E, N0),
    R("pow", N0, 2, E, P0),
    MORE("pow", N0, 2.5, E, P0),
    R("pow", N0, -3, E, -I),
    R("pow", N0, -2, E, I),
    MORE("pow", N0, -2.5, E, I),
    R("pow", -2.5, 1.5, How::Nan),
    // remainder
    R("remainder", N, 1.5, How::Nan),
    MORE("remainder", 1.5, N, How::Nan),
    R("remainder", I, -I, How::Nan),
    MORE("remainder", -I, I, How::Nan),
    R("remainder", P0, N0, How::Nan),
    MORE("remainder", N0, N0, How::Nan),
    R("remainder", P0, 2.5, E, P0),
    R("remainder", N0, 2.5, E, P0),
    R("remainder", P0, -2.5, E, N0),
    R("remainder", N0, -2.5, E, N0),
    R("remainder", 2.5, P0, How::Nan),
    R("remainder", 2.5, N0, How::Nan),
    R("remainder", -2.5, P0, How::Nan),
    R("remainder", -2.5, N0, How::Nan),
    R("remainder", I, 2.5, How::Nan),
    R("remainder", I, -2.5, How::Nan),
    R("remainder", -I, 2.5, How::Nan),
    R("remainder", -I, -2.5, How::Nan),
    R("remainder", 2.5, I, E, 2.5),
    R("remainder", 2.5, -I, E, -I),
    R("remainder", -2.5, I, E, I),
    R("remainder", -2.5, -I, E, -2.5),
    // round
    R("round", 3, 0, E, 3),
    MORE("round", -4, 0, E, -4),
    R("round", I, 0, E, I),
    R("round", -I, 0, E, -I),
    R("round", P0, 0, E, P0),
    R("round", N0, 0, E, N0),
    R("round", N, 0, How::Nan),
    R("round", 2.5, 0, E, 2),
    MORE("round", 3.5, 0, E, 4),
    MORE("round", -2.5, 0, E, -2),
    MORE("round", 0.5, 0, E, P0),
    MORE("round", -0.5, 0, E, N0),
    // sign
    R("sign", -2.5, 0, E, -1),
    R("sign", N0, 0, E, P0),
    MORE("sign", P0, 0, E, P0),  // "0": +0, as the standard's test suite reads it
    R("sign", 2.5, 0, E, 1),
    R("sign", N, 0, How::Nan),
    // signbit
    R("signbit", P0, 0, How::False),
    R("signbit", N0, 0, How::True),
    R("signbit", I, 0, How::False),
    R("signbit", -I, 0, How::True),
    R("signbit", 2.5, 0, How::False),
    R("signbit", -2.5, 0, How::True),
    R("signbit", N, 0, How::False),
    R("signbit", NN, 0, How::True),
    // sin, sinh
    R("sin", N, 0, How::Nan),
    R("sin", P0, 0, E, P0),
    R("sin", N0, 0, E, N0),
    R("sin", I, 0, How::Nan),
    MORE("sin", -I, 0, How::Nan),
    R("sinh", N, 0, How::Nan),
    R("sinh", P0, 0, E, P0),
    R("sinh", N0, 0, E, N0),
    R("sinh", I, 0, E, I),
    R("sinh", -I, 0, E, -I),
    // sqrt
    R("sqrt", N, 0, How::Nan),
    R("sqrt", -2.5, 0, How::Nan),
    R("sqrt", P0, 0, E, P0),
    R("sqrt", N0, 0, E, N0),
    R("sqrt", I, 0, E, I),
    // tan, tanh
    R("tan", N, 0, How::Nan),
    R("tan", P0, 0, E, P0),
    R("tan", N0, 0, E, N0),
    R("tan", I, 0, How::Nan),
    MORE("tan", -I, 0, How::Nan),
    R("tanh", N, 0, How::Nan),
    R("tanh", P0, 0, E, P0),
    R("tanh", N0, 0, E, N0),
    R("tanh", I, 0, E, 1),
    R("tanh", -I, 0, E, -1),
};
#undef R
#undef MORE

using Fn = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;

// The standard's name -> cgrad's function or operator.
const std::map<std::string, Fn>& functions() {
  static const std::map<std::string, Fn> m = [] {
    std::map<std::string, Fn> f;
    auto u = [&](const char* name, Tensor (*g)(const Tensor&)) {
      f[name] = [g](const Tensor& a, const Tensor&, const Tensor&) { return g(a); };
    };
    auto b = [&](const char* name, Tensor (*g)(const Tensor&, const Tensor&)) {
      f[name] = [g](const Tensor& a, const Tensor& c, const Tensor&) { return g(a, c); };
    };
    u("abs", abs), u("acos", acos), u("acosh", acosh), u("asin", asin), u("asinh", asinh), u("atan", atan);
    u("atanh", atanh), u("ceil", ceil), u("floor", floor), u("trunc", trunc), u("round", round),
        u("cos", cos);
    u("cosh", cosh), u("exp", exp), u("expm1", expm1), u("isfinite", isfinite), u("isinf", isinf);
    u("isnan", isnan), u("log", log), u("log2", log2), u("log10", log10), u("log1p", log1p), u("sign", sign);
    u("signbit", signbit), u("sin", sin), u("sinh", sinh), u("sqrt", sqrt), u("tan", tan), u("tanh", tanh);
    b("atan2", atan2), b("copysign", copysign), b("floor_divide", floor_divide), b("hypot", hypot);
    b("logaddexp", logaddexp), b("nextafter", nextafter), b("pow", pow), b("remainder", remainder);
    f["add"] = [](const Tensor& a, const Tensor& c, const Tensor&) { return a + c; };
    f["multiply"] = [](const Tensor& a, const Tensor& c, const Tensor&) { return a * c; };
    f["divide"] = [](const Tensor& a, const Tensor& c, const Tensor&) { return a / c; };
    f["equal"] = [](const Tensor& a, const Tensor& c, const Tensor&) { return a == c; };
    f["not_equal"] = [](const Tensor& a, const Tensor& c, const Tensor&) { return a != c; };
    f["clip"] = [](const Tensor& a, const Tensor& lo, const Tensor& hi) { return clip(a, lo, hi); };
    return f;
  }();
  return m;
}

std::vector<std::string> function_names() {
  std::set<std::string> s;
  for (const Row& r : kRows) s.insert(r.fn);
  return {s.begin(), s.end()};
}

template <class T>
bool sign_bit(T v) {
  return std::signbit(v);
}

// The host type a value of storage type S is examined in (float for f16 and bf16: exact).
template <class S>
using Host = std::conditional_t<sizeof(S) == 2, float, S>;

// Within n ulp of S (scalar::nextafter steps the 16-bit types' own bits).
template <class S>
bool within_ulps(S got, S want, int n) {
  const S up(std::numeric_limits<Host<S>>::infinity()), down(-std::numeric_limits<Host<S>>::infinity());
  S lo = want, hi = want;
  for (int k = 0; k < n; ++k) {
    lo = cgrad::scalar::nextafter(lo, down);
    hi = cgrad::scalar::nextafter(hi, up);
  }
  const auto g = static_cast<Host<S>>(got);
  return g >= static_cast<Host<S>>(lo) && g <= static_cast<Host<S>>(hi);
}

std::string show(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-NaN" : "NaN";
  if (v == 0) return std::signbit(v) ? "-0" : "+0";
  std::ostringstream s;
  s << v;
  return s.str();
}

// One function's rows in one dtype (host type S: float, double, float16_t, bfloat16_t),
// evaluated as one tensor (so one kernel on the JIT). Operands and expected values are rounded
// to S once; the representative operands are small enough for every float dtype.
template <class S>
void check(const std::string& fn, DType dt) {
  using T = Host<S>;
  std::vector<const Row*> rows;
  for (const Row& r : kRows)
    if (fn == r.fn) rows.push_back(&r);
  std::vector<S> x1, x2, x3;
  for (const Row* r : rows) {
    x1.push_back(static_cast<S>(r->x1));  // a NaN keeps its sign bit through the conversion
    x2.push_back(static_cast<S>(r->x2));
    x3.push_back(static_cast<S>(r->x3));
  }
  const Shape shape{static_cast<int64_t>(rows.size())};
  Tensor y = functions().at(fn)(tensor(x1, shape), tensor(x2, shape), tensor(x3, shape));
  const bool to_bool = y.dtype() == b8;
  ASSERT_TRUE(to_bool || y.dtype() == dt) << fn << ": result dtype " << dtype_name(y.dtype());
  std::vector<S> got_f;
  std::vector<bool> got_b;
  if (to_bool)
    got_b = y.template to_vector<bool>();
  else
    got_f = y.template to_vector<S>();
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& r = *rows[k];
    const T want = static_cast<T>(static_cast<S>(r.want));
    bool ok = false;
    std::string got;
    if (to_bool) {
      ok = r.how == How::True ? got_b[k] : r.how == How::False ? !got_b[k] : false;
      got = got_b[k] ? "true" : "false";
    } else {
      const T g = static_cast<T>(got_f[k]);
      got = show(static_cast<double>(g));
      switch (r.how) {
        case How::Exact: ok = !std::isnan(g) && g == want && sign_bit(g) == sign_bit(want); break;
        case How::Approx: ok = within_ulps(got_f[k], static_cast<S>(r.want), 2); break;
        case How::Nan: ok = std::isnan(g); break;
        case How::NanPlus: ok = std::isnan(g) && !sign_bit(g); break;
        case How::NanMinus: ok = std::isnan(g) && sign_bit(g); break;
        case How::Positive: ok = !std::isnan(g) && !sign_bit(g); break;
        case How::Negative: ok = !std::isnan(g) && sign_bit(g); break;
        case How::Zero: ok = g == 0; break;
        case How::True:
        case How::False: ok = false; break;
      }
    }
    static const char* const kHow[] = {
        "",         "~",    "NaN",  "NaN (sign bit 0)", "NaN (sign bit 1)", "> +0 or +0", "< -0 or -0",
        "+0 or -0", "true", "false"};
    const std::string want_s = r.how == How::Exact || r.how == How::Approx
                                   ? kHow[static_cast<int>(r.how)] + show(r.want)
                                   : kHow[static_cast<int>(r.how)];
    EXPECT_TRUE(ok) << fn << "(" << show(r.x1) << ", " << show(r.x2)
                    << (fn == "clip" ? ", " + show(r.x3) : "") << ") in " << dtype_name(dt) << ": got " << got
                    << ", the standard says " << want_s;
  }
}

class SpecialCases : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecialCases, FollowTheStandard) {
  check<float>(GetParam(), f32);
  check<double>(GetParam(), f64);
  // f16 and bf16 compute in f32 and round once: the same rules hold.
  check<cgrad::float16_t>(GetParam(), f16);
  check<cgrad::bfloat16_t>(GetParam(), bf16);
}

INSTANTIATE_TEST_SUITE_P(ArrayApi, SpecialCases, ::testing::ValuesIn(function_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// The table's size: the number of the standard's rules it holds (the report counts these).
TEST(SpecialCases, TableCoversTheRulesOfEveryListedFunction) {
  std::size_t rules = 0;
  for (const Row& r : kRows) rules += r.same_rule ? 0 : 1;
  for (const Row& r : kRows) ASSERT_TRUE(functions().count(r.fn)) << r.fn << " has rows but no function";
  std::cout << "special-case table: " << rules << " rules of the standard, " << std::size(kRows) << " rows, "
            << function_names().size() << " functions\n";
  EXPECT_EQ(rules, 308u);
}

}  // namespace
}  // namespace opt
