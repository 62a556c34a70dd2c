// Sweep of the element-wise rows (Unary, Binary, Ternary, Cast): every accepted dtype and every
// layout through the public API, against reference math written here with std:: functions.
// Dtypes a row does not accept are checked too: ops that compute in floating point take ints
// and bools through f32 (exp(i32) -> f32), the others reject them with DTypeMismatch.
#include "ir/op_table.h"
#include "util.h"

#include <cmath>
#include <functional>
#include <limits>

namespace opt {

namespace {

using ir::Op;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- reference arithmetic ----
int64_t ref_neg(int64_t x, int bits) { return wrap(0 - static_cast<uint64_t>(x), bits); }
int64_t ref_abs(int64_t x, int bits) { return x < 0 ? ref_neg(x, bits) : x; }
int64_t ref_ipow(int64_t a, int64_t b, int bits) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return b % 2 != 0 ? -1 : 1;
    return 0;
  }
  uint64_t r = 1, base = static_cast<uint64_t>(a), e = static_cast<uint64_t>(b);
  while (e) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return wrap(r, bits);
}
// log(e^a + e^b) in the reference's precision, stable for large |a|, |b|.
template <class F>
F ref_logaddexp(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  const F m = std::max(a, b);
  if (std::isinf(m)) return m;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}
// Python's float %: the sign of the divisor.
template <class F>
F ref_fmod_py(F a, F b) {
  F r = std::fmod(a, b);
  if (r == 0) return std::copysign(F(0), b);
  if ((r < 0) != (b < 0)) r += b;
  return r;
}
// Python's a // b: the floor of the exact quotient. fmod is exact, and (a - fmod(a, b)) / b is the
// truncated quotient t to within rounding, so rounding it to the nearest integer gives t (below
// 2^52); one less when the remainder and b differ in sign. Zero or infinite operands: IEEE
// division, floored (the standard's special cases).
template <class F>
F ref_floordiv(F a, F b) {
  if (!std::isfinite(a) || !std::isfinite(b) || b == 0) return std::floor(a / b);
  const F m = std::fmod(a, b);
  F k = std::nearbyint((a - m) / b);
  if (m != 0 && (m < 0) != (b < 0)) k -= 1;
  return k == 0 ? std::copysign(F(0), a / b) : k;
}
int64_t ref_irem(int64_t a, int64_t b, int) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
int64_t ref_ifloordiv(int64_t a, int64_t b, int n) {
  if (b == 0) return 0;
  if (b == -1) return ref_neg(a, n);
  int64_t q = a / b;
  return a % b != 0 && ((a < 0) != (b < 0)) ? q - 1 : q;
}
// nextafter in a 16-bit float dtype t: a's neighbour toward b among t's values (the f32 or f64
// neighbour would round back to a).
double ref_nextafter_16(double a, double b, DType t) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  if (a == b) return b;
  const FInfo fi = finfo(t);
  if (std::isinf(a)) return std::copysign(fi.max, a);
  const double dir = b > a ? 1.0 : -1.0;
  if (a == 0) return dir * fi.smallest_subnormal;
  const int p = t == f16 ? 11 : 8, emin = std::ilogb(fi.smallest_normal), e = std::max(std::ilogb(a), emin);
  double ulp = std::ldexp(1.0, e - (p - 1));
  if ((dir > 0) != (a > 0) && std::fabs(a) == std::ldexp(1.0, e) && e > emin) ulp /= 2;  // down a binade
  const double r = a + dir * ulp;
  return std::fabs(r) > fi.max ? std::copysign(std::numeric_limits<double>::infinity(), r) : r;
}
double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : (a < b ? b : a); }
double nan_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : (b < a ? b : a); }

struct UnaryCase {
  Op op;
  Tensor (*fn)(const Tensor&);
  double (*fd)(double);            // f32 reference (computed in double, rounded) and f64 without fl
  long double (*fl)(long double);  // f64 reference when the op is not correctly rounded
  int ulps;
  int64_t (*fi)(int64_t, int);  // integer reference (for rows accepting ints)
};

const UnaryCase kUnary[] = {
    {Op::Neg, [](const Tensor& x) { return -x; }, [](double x) { return -x; }, nullptr, 0, ref_neg},
    {Op::Exp, [](const Tensor& x) { return exp(x); }, [](double x) { return std::exp(x); },
     [](long double x) { return std::exp(x); }, 2, nullptr},
    {Op::Log, [](const Tensor& x) { return log(x); }, [](double x) { return std::log(x); },
     [](long double x) { return std::log(x); }, 2, nullptr},
    {Op::Sqrt, [](const Tensor& x) { return sqrt(x); }, [](double x) { return std::sqrt(x); }, nullptr, 0,
     nullptr},
    {Op::Rsqrt, [](const Tensor& x) { return rsqrt(x); }, [](double x) { return 1.0 / std::sqrt(x); },
     [](long double x) { return 1.0L / std::sqrt(x); }, 2, nullptr},
    {Op::Abs, [](const Tensor& x) { return abs(x); }, [](double x) { return std::fabs(x); }, nullptr, 0,
     ref_abs},
    {Op::Sin, [](const Tensor& x) { return sin(x); }, [](double x) { return std::sin(x); },
     [](long double x) { return std::sin(x); }, 2, nullptr},
    {Op::Cos, [](const Tensor& x) { return cos(x); }, [](double x) { return std::cos(x); },
     [](long double x) { return std::cos(x); }, 2, nullptr},
    {Op::Tanh, [](const Tensor& x) { return tanh(x); }, [](double x) { return std::tanh(x); },
     [](long double x) { return std::tanh(x); }, 2, nullptr},
    {Op::Sigmoid, [](const Tensor& x) { return sigmoid(x); },
     [](double x) { return 1.0 / (1.0 + std::exp(-x)); },
     [](long double x) { return 1.0L / (1.0L + std::exp(-x)); }, 2, nullptr},
    {Op::Relu, [](const Tensor& x) { return relu(x); }, [](double x) { return x < 0 ? 0.0 : x; }, nullptr, 0,
     [](int64_t x, int) { return x < 0 ? int64_t{0} : x; }},
    {Op::Floor, [](const Tensor& x) { return floor(x); }, [](double x) { return std::floor(x); }, nullptr, 0,
     [](int64_t x, int) { return x; }},
    {Op::Ceil, [](const Tensor& x) { return ceil(x); }, [](double x) { return std::ceil(x); }, nullptr, 0,
     [](int64_t x, int) { return x; }},
    {Op::Trunc, [](const Tensor& x) { return trunc(x); }, [](double x) { return std::trunc(x); }, nullptr, 0,
     [](int64_t x, int) { return x; }},
    {Op::Round, [](const Tensor& x) { return round(x); }, [](double x) { return std::nearbyint(x); }, nullptr,
     0, [](int64_t x, int) { return x; }},
    {Op::Sign, [](const Tensor& x) { return sign(x); },
     [](double x) { return x > 0   ? 1.0
                           : x < 0 ? -1.0
                                   : x; }, nullptr, 0,
     [](int64_t x, int) -> int64_t { return x > 0   ? 1
                                            : x < 0 ? -1
                                                    : 0; }},
    {Op::Signbit, [](const Tensor& x) { return signbit(x); },
     [](double x) { return std::signbit(x) ? 1.0 : 0.0; }, nullptr, 0,
     [](int64_t x, int) -> int64_t { return x < 0; }},
    {Op::Isnan, [](const Tensor& x) { return isnan(x); }, [](double x) { return std::isnan(x) ? 1.0 : 0.0; },
     nullptr, 0, [](int64_t, int) -> int64_t { return 0; }},
    {Op::Isinf, [](const Tensor& x) { return isinf(x); }, [](double x) { return std::isinf(x) ? 1.0 : 0.0; },
     nullptr, 0, [](int64_t, int) -> int64_t { return 0; }},
    {Op::Isfinite, [](const Tensor& x) { return isfinite(x); },
     [](double x) { return std::isfinite(x) ? 1.0 : 0.0; }, nullptr, 0,
     [](int64_t, int) -> int64_t { return 1; }},
    {Op::Log1p, [](const Tensor& x) { return log1p(x); }, [](double x) { return std::log1p(x); },
     [](long double x) { return std::log1p(x); }, 4, nullptr},
    {Op::Expm1, [](const Tensor& x) { return expm1(x); }, [](double x) { return std::expm1(x); },
     [](long double x) { return std::expm1(x); }, 4, nullptr},
    {Op::Log2, [](const Tensor& x) { return log2(x); }, [](double x) { return std::log2(x); },
     [](long double x) { return std::log2(x); }, 4, nullptr},
    {Op::Log10, [](const Tensor& x) { return log10(x); }, [](double x) { return std::log10(x); },
     [](long double x) { return std::log10(x); }, 4, nullptr},
    {Op::Tan, [](const Tensor& x) { return tan(x); }, [](double x) { return std::tan(x); },
     [](long double x) { return std::tan(x); }, 4, nullptr},
    {Op::Asin, [](const Tensor& x) { return asin(x); }, [](double x) { return std::asin(x); },
     [](long double x) { return std::asin(x); }, 4, nullptr},
    {Op::Acos, [](const Tensor& x) { return acos(x); }, [](double x) { return std::acos(x); },
     [](long double x) { return std::acos(x); }, 4, nullptr},
    {Op::Atan, [](const Tensor& x) { return atan(x); }, [](double x) { return std::atan(x); },
     [](long double x) { return std::atan(x); }, 4, nullptr},
    {Op::Sinh, [](const Tensor& x) { return sinh(x); }, [](double x) { return std::sinh(x); },
     [](long double x) { return std::sinh(x); }, 4, nullptr},
    {Op::Cosh, [](const Tensor& x) { return cosh(x); }, [](double x) { return std::cosh(x); },
     [](long double x) { return std::cosh(x); }, 4, nullptr},
    {Op::Asinh, [](const Tensor& x) { return asinh(x); }, [](double x) { return std::asinh(x); },
     [](long double x) { return std::asinh(x); }, 4, nullptr},
    {Op::Acosh, [](const Tensor& x) { return acosh(x); }, [](double x) { return std::acosh(x); },
     [](long double x) { return std::acosh(x); }, 4, nullptr},
    {Op::Atanh, [](const Tensor& x) { return atanh(x); }, [](double x) { return std::atanh(x); },
     [](long double x) { return std::atanh(x); }, 4, nullptr},
    {Op::Erf, [](const Tensor& x) { return erf(x); }, [](double x) { return std::erf(x); },
     [](long double x) { return std::erf(x); }, 4, nullptr},
    {Op::BitwiseInvert, [](const Tensor& x) { return bitwise_invert(x); }, nullptr, nullptr, 0,
     [](int64_t x, int n) { return wrap(~static_cast<uint64_t>(x), n); }},  // (b8: ref_unary_int)
    {Op::LogicalNot, [](const Tensor& x) { return logical_not(x); }, nullptr, nullptr, 0,
     [](int64_t x, int) -> int64_t { return x == 0; }},
};

struct BinaryCase {
  Op op;
  Tensor (*fn)(const Tensor&, const Tensor&);
  double (*fd)(double, double);
  long double (*fl)(long double, long double);
  int ulps;
  int64_t (*fi)(int64_t, int64_t, int);  // also used for b8 operands (0/1)
  float (*ff)(float, float) = nullptr;   // f32 reference where computing in double and rounding differs
  bool cancels = false;                  // ulps of the larger operand bound the error too (Data::scale)
};

const BinaryCase kBinary[] = {
    {Op::Add, [](const Tensor& a, const Tensor& b) { return a + b; },
     [](double a, double b) { return a + b; }, nullptr, 0,
     [](int64_t a, int64_t b, int n) {
       return wrap(static_cast<uint64_t>(a) + static_cast<uint64_t>(b), n);
     }},
    {Op::Sub, [](const Tensor& a, const Tensor& b) { return a - b; },
     [](double a, double b) { return a - b; }, nullptr, 0,
     [](int64_t a, int64_t b, int n) {
       return wrap(static_cast<uint64_t>(a) - static_cast<uint64_t>(b), n);
     }},
    {Op::Mul, [](const Tensor& a, const Tensor& b) { return a * b; },
     [](double a, double b) { return a * b; }, nullptr, 0,
     [](int64_t a, int64_t b, int n) {
       return wrap(static_cast<uint64_t>(a) * static_cast<uint64_t>(b), n);
     }},
    {Op::Div, [](const Tensor& a, const Tensor& b) { return a / b; },
     [](double a, double b) { return a / b; }, nullptr, 0, nullptr},
    {Op::Pow, [](const Tensor& a, const Tensor& b) { return pow(a, b); },
     [](double a, double b) { return std::pow(a, b); },
     [](long double a, long double b) { return std::pow(a, b); }, 2, ref_ipow},
    {Op::Maximum, [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, nan_max, nullptr, 0,
     [](int64_t a, int64_t b, int) { return a < b ? b : a; }},
    {Op::Minimum, [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, nan_min, nullptr, 0,
     [](int64_t a, int64_t b, int) { return b < a ? b : a; }},
    {Op::Lt, [](const Tensor& a, const Tensor& b) { return a < b; },
     [](double a, double b) { return a < b ? 1.0 : 0.0; }, nullptr, 0,
     [](int64_t a, int64_t b, int) -> int64_t { return a < b; }},
    {Op::Le, [](const Tensor& a, const Tensor& b) { return a <= b; },
     [](double a, double b) { return a <= b ? 1.0 : 0.0; }, nullptr, 0,
     [](int64_t a, int64_t b, int) -> int64_t { return a <= b; }},
    {Op::Gt, [](const Tensor& a, const Tensor& b) { return a > b; },
     [](double a, double b) { return a > b ? 1.0 : 0.0; }, nullptr, 0,
     [](int64_t a, int64_t b, int) -> int64_t { return a > b; }},
    {Op::Ge, [](const Tensor& a, const Tensor& b) { return a >= b; },
     [](double a, double b) { return a >= b ? 1.0 : 0.0; }, nullptr, 0,
     [](int64_t a, int64_t b, int) -> int64_t { return a >= b; }},
    {Op::Eq, [](const Tensor& a, const Tensor& b) { return a == b; },
     [](double a, double b) { return a == b ? 1.0 : 0.0; }, nullptr, 0,
     [](int64_t a, int64_t b, int) -> int64_t { return a == b; }},
    {Op::Ne, [](const Tensor& a, const Tensor& b) { return a != b; },
     [](double a, double b) { return a != b ? 1.0 : 0.0; }, nullptr, 0,
     [](int64_t a, int64_t b, int) -> int64_t { return a != b; }},
    {Op::Atan2, [](const Tensor& a, const Tensor& b) { return atan2(a, b); },
     [](double a, double b) { return std::atan2(a, b); },
     [](long double a, long double b) { return std::atan2(a, b); }, 4, nullptr},
    {Op::Hypot, [](const Tensor& a, const Tensor& b) { return hypot(a, b); },
     [](double a, double b) { return std::hypot(a, b); },
     [](long double a, long double b) { return std::hypot(a, b); }, 2, nullptr},
    {Op::Copysign, [](const Tensor& a, const Tensor& b) { return copysign(a, b); },
     [](double a, double b) { return std::copysign(a, b); }, nullptr, 0, nullptr},
    // log(e^a + e^b) = m + log1p(e^-|a - b|) cancels near 0 (e^a + e^b near 1): its error is a few
    // ulps of the operands there, for NumPy's formula as for this one.
    {Op::Logaddexp, [](const Tensor& a, const Tensor& b) { return logaddexp(a, b); }, ref_logaddexp<double>,
     ref_logaddexp<long double>, 4, nullptr, nullptr, true},
    {Op::Nextafter, [](const Tensor& a, const Tensor& b) { return nextafter(a, b); },
     [](double a, double b) { return std::nextafter(a, b); }, nullptr, 0, nullptr,
     [](float a, float b) { return std::nextafter(a, b); }},
    {Op::Remainder, [](const Tensor& a, const Tensor& b) { return remainder(a, b); }, ref_fmod_py<double>,
     nullptr, 0, ref_irem, ref_fmod_py<float>},
    {Op::FloorDivide, [](const Tensor& a, const Tensor& b) { return floor_divide(a, b); },
     ref_floordiv<double>, nullptr, 0, ref_ifloordiv, ref_floordiv<float>},
    {Op::BitwiseAnd, [](const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }, nullptr, nullptr, 0,
     [](int64_t a, int64_t b, int) { return a & b; }},
    {Op::BitwiseOr, [](const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }, nullptr, nullptr, 0,
     [](int64_t a, int64_t b, int) { return a | b; }},
    {Op::BitwiseXor, [](const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }, nullptr, nullptr, 0,
     [](int64_t a, int64_t b, int) { return a ^ b; }},
    {Op::BitwiseLeftShift, [](const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); }, nullptr,
     nullptr, 0,
     [](int64_t a, int64_t b, int n) {
       return b < 0 || b >= n ? 0 : wrap(static_cast<uint64_t>(a) << b, n);
     }},
    {Op::BitwiseRightShift, [](const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); },
     nullptr, nullptr, 0,
     [](int64_t a, int64_t b, int n) -> int64_t { return b < 0 || b >= n ? (a < 0 ? -1 : 0) : a >> b; }},
    {Op::LogicalAnd, [](const Tensor& a, const Tensor& b) { return logical_and(a, b); }, nullptr, nullptr, 0,
     [](int64_t a, int64_t b, int) -> int64_t { return a && b; }},
    {Op::LogicalOr, [](const Tensor& a, const Tensor& b) { return logical_or(a, b); }, nullptr, nullptr, 0,
     [](int64_t a, int64_t b, int) -> int64_t { return a || b; }},
    {Op::LogicalXor, [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); }, nullptr, nullptr, 0,
     [](int64_t a, int64_t b, int) -> int64_t { return (a != 0) != (b != 0); }},
};

const UnaryCase* find_unary(int op) {
  for (const auto& c : kUnary)
    if (static_cast<int>(c.op) == op) return &c;
  return nullptr;
}
const BinaryCase* find_binary(int op) {
  for (const auto& c : kBinary)
    if (static_cast<int>(c.op) == op) return &c;
  return nullptr;
}

// The value an input element takes after the frontend's int -> f32 conversion.
double as_f32(const Data& d, std::size_t k) {
  if (is_floating(d.dtype)) return d.f[k];
  return static_cast<double>(int_to_float(d.i[k], d.dtype));
}

// Integer references for dtype t. fi computes in int64 and wraps to `bits` as signed: exact for
// the signed dtypes at their width; unsigned dtypes narrower than 64 bits are non-negative in
// int64, so fi at 64 bits then reduced modulo 2^bits is exact too. u64 values are held as their
// bits (util.h): the rows that read order or sign (comparisons, max, min, abs, relu, pow's
// exponent) get their u64 reference here, the wrapping ones (+ - * neg) are the same bits.
uint64_t ref_upow(uint64_t a, uint64_t e) {
  uint64_t r = 1;
  for (; e; e >>= 1, a *= a)
    if (e & 1) r *= a;
  return r;
}
int64_t ref_unary_int(const UnaryCase& c, int64_t x, DType t) {
  if (t == b8) return c.op == Op::BitwiseInvert ? int64_t{x == 0} : c.fi(x, 8);  // logical not
  if (!is_unsigned(t)) return c.fi(x, bits_of(t));
  // Unsigned values are never negative (u64's high bit is not a sign).
  if (c.op == Op::Signbit) return 0;
  if (c.op == Op::Sign) return x != 0;
  if (t == u64 && (c.op == Op::Abs || c.op == Op::Relu)) return x;  // identity on unsigned values
  return wrap_as(static_cast<uint64_t>(c.fi(x, 64)), t);
}
int64_t ref_binary_int(const BinaryCase& c, int64_t a, int64_t b, DType t) {
  if (t == b8 || !is_unsigned(t)) return c.fi(a, b, bits_of(t));
  if (t == u64) {
    const bool lt = int_less(a, b, t), gt = int_less(b, a, t);
    if (c.op == Op::Lt) return lt;
    if (c.op == Op::Le) return !gt;
    if (c.op == Op::Gt) return gt;
    if (c.op == Op::Ge) return !lt;
    if (c.op == Op::Maximum) return lt ? b : a;
    if (c.op == Op::Minimum) return gt ? b : a;
    const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    if (c.op == Op::Pow) return static_cast<int64_t>(ref_upow(ua, ub));
    // Division rows in unsigned arithmetic (by 0 gives 0); the right shift is logical.
    if (c.op == Op::Remainder) return ub == 0 ? 0 : static_cast<int64_t>(ua % ub);
    if (c.op == Op::FloorDivide) return ub == 0 ? 0 : static_cast<int64_t>(ua / ub);
    if (c.op == Op::BitwiseRightShift) return ub >= 64 ? 0 : static_cast<int64_t>(ua >> ub);
  }
  // u8, u16, u32: their values are non-negative in int64, so the 64-bit reference reduced
  // modulo 2^bits is exact (a shift by [bits, 64) leaves no bit inside the type either).
  return ir::info(c.op).dtype_rule == ir::DTypeRule::Bool ? c.fi(a, b, 64)
                                                          : wrap_as(static_cast<uint64_t>(c.fi(a, b, 64)), t);
}

std::size_t count(const Tensor& t) { return static_cast<std::size_t>(t.numel()); }

// How a row treats inputs of dtype t: computed in t, through f32, or rejected.
enum class Mode { Native, ViaF32, Rejected };
Mode mode_of(Op op, DType t) {
  if (ir::accepts(op, t)) return Mode::Native;
  if (ir::info(op).int_to_float && !is_floating(t)) return Mode::ViaF32;
  return Mode::Rejected;
}

void expect_rejected(const std::function<void()>& f, Op op, DType t) {
  std::string msg;
  EXPECT_EQ(error_code(f, &msg), ErrorCode::DTypeMismatch) << ir::op_name(op) << " of " << dtype_name(t);
  EXPECT_NE(msg.find(ir::op_name(op)), std::string::npos) << msg;
}

}  // namespace

bool unary_known(int op) { return find_unary(op) != nullptr || op == static_cast<int>(Op::Cast); }
bool binary_known(int op) { return find_binary(op) != nullptr; }

void sweep_unary(int op_index, DType t) {
  const UnaryCase* c = find_unary(op_index);
  ASSERT_NE(c, nullptr) << "no reference for unary op " << ir::op_name(Op(op_index));
  const Op op = c->op;
  const Mode mode = mode_of(op, t);
  Data d = concat(edges(t), random_data(t, 64, 7 + static_cast<uint64_t>(op_index)));
  while (d.size() % 8) d = concat(d, random_data(t, 1, d.size()));
  if (mode == Mode::Rejected) {
    Tensor x = make(d, Layout::Contiguous);
    expect_rejected([&] { c->fn(x); }, op, t);
    return;
  }
  const DType compute = mode == Mode::Native ? t : f32;
  const bool to_bool = ir::info(op).dtype_rule == ir::DTypeRule::Bool;  // isnan, signbit, ...
  const DType out = to_bool ? b8 : compute;
  for (Layout l : kLayouts) {
    Tensor x = make(d, l);
    Tensor y = c->fn(x);
    EXPECT_EQ(y.dtype(), out);
    EXPECT_EQ(y.shape(), x.shape());
    Data want;
    want.dtype = out;
    for (std::size_t k = 0; k < count(x); ++k) {
      if (!is_floating(compute)) {
        want.i.push_back(ref_unary_int(*c, d.i[k], t));
      } else if (to_bool) {
        want.i.push_back(c->fd(compute == f32 ? as_f32(d, k) : d.f[k]) != 0);
      } else if (compute == f32) {
        want.f.push_back(round_to(c->fd(as_f32(d, k)), f32));
      } else {
        want.f.push_back(c->fl ? static_cast<double>(c->fl(static_cast<long double>(d.f[k])))
                               : c->fd(d.f[k]));
      }
    }
    expect_values(read(y), want, c->ulps,
                  std::string(ir::op_name(op)) + " " + dtype_name(t) + " " + layout_name(l));
  }
}

void sweep_binary(int op_index, DType t) {
  const BinaryCase* c = find_binary(op_index);
  ASSERT_NE(c, nullptr) << "no reference for binary op " << ir::op_name(Op(op_index));
  const Op op = c->op;
  const Mode mode = mode_of(op, t);
  const auto ab = pairs(t, 200, 11 + static_cast<uint64_t>(op_index));
  const Data& a = ab.first;
  const Data& b = ab.second;
  if (mode == Mode::Rejected) {
    Tensor x = make(a, Layout::Contiguous), y = make(b, Layout::Contiguous);
    expect_rejected([&] { c->fn(x, y); }, op, t);
    return;
  }
  const bool to_bool = ir::info(op).dtype_rule == ir::DTypeRule::Bool;
  const DType compute = mode == Mode::Native ? t : f32;
  const DType out = to_bool ? b8 : compute;
  auto ref_f = [&](std::size_t i, std::size_t j) -> double {
    if (compute == f32 && c->ff)
      return static_cast<double>(c->ff(static_cast<float>(as_f32(a, i)), static_cast<float>(as_f32(b, j))));
    if (compute == f32) return round_to(c->fd(as_f32(a, i), as_f32(b, j)), f32);
    if (op == Op::Nextafter && (compute == f16 || compute == bf16))
      return ref_nextafter_16(a.f[i], b.f[j], compute);
    // f16 and bf16 compute in f32: where that differs from the exact result rounded (floor_divide
    // of bf16 values whose quotient underflows f32), the f32 reference, rounded by expect_values.
    if ((compute == f16 || compute == bf16) && c->ff)
      return static_cast<double>(c->ff(static_cast<float>(a.f[i]), static_cast<float>(b.f[j])));
    if (c->fl)
      return static_cast<double>(c->fl(static_cast<long double>(a.f[i]), static_cast<long double>(b.f[j])));
    return c->fd(a.f[i], b.f[j]);
  };
  auto want_of = [&](std::size_t n, auto index_a, auto index_b) {
    Data w;
    w.dtype = out;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = index_a(k), j = index_b(k);
      if (!is_floating(compute)) {
        w.i.push_back(ref_binary_int(*c, a.i[i], b.i[j], t));  // integer (or b8) arithmetic / comparison
      } else {
        const double v = ref_f(i, j);
        if (c->cancels) w.scale.push_back(std::max(std::fabs(a.fv(i)), std::fabs(b.fv(j))));
        if (is_floating(out))
          w.f.push_back(v);
        else
          w.i.push_back(v != 0);  // comparison of floats
      }
    }
    return w;
  };
  auto same = [](std::size_t k) { return k; };
  const std::pair<Layout, Layout> combos[] = {
      {Layout::Contiguous, Layout::Contiguous}, {Layout::Transposed, Layout::Strided},
      {Layout::Strided, Layout::Contiguous},    {Layout::ZeroDim, Layout::ZeroDim},
      {Layout::Empty, Layout::Empty},           {Layout::EmptyRows, Layout::EmptyRows},
  };
  const std::string name = std::string(ir::op_name(op)) + " " + dtype_name(t);
  for (auto [la, lb] : combos) {
    Tensor x = make(a, la), y = make(b, lb);
    Tensor z = c->fn(x, y);
    EXPECT_EQ(z.dtype(), out);
    EXPECT_EQ(z.shape(), x.shape());
    expect_values(read(z), want_of(count(x), same, same), c->ulps,
                  name + " " + layout_name(la) + " with " + layout_name(lb));
  }
  // Broadcasting: (R, 1) with (8,) -> (R, 8); and a 0-d operand against a matrix.
  const auto rows = static_cast<int64_t>(a.size() / 8);
  Tensor col = make(a, Shape{rows, 1}), row = make(b, Shape{8});
  Tensor z = c->fn(col, row);
  EXPECT_EQ(z.shape(), (Shape{rows, 8}));
  expect_values(read(z),
                want_of(
                    static_cast<std::size_t>(rows) * 8, [](std::size_t k) { return k / 8; },
                    [](std::size_t k) { return k % 8; }),
                c->ulps, name + " broadcast (R, 1) with (8,)");
  Tensor s = make(b, Shape{});
  Tensor m = make(a, Layout::Transposed);
  Tensor z2 = c->fn(m, s);
  EXPECT_EQ(z2.shape(), m.shape());
  expect_values(read(z2), want_of(count(m), same, [](std::size_t) { return std::size_t{0}; }), c->ulps,
                name + " matrix with 0-d");
}

void sweep_cast(int, DType t) {
  Data d = concat(edges(t), random_data(t, 62, 3));
  while (d.size() % 8) d = concat(d, random_data(t, 1, d.size()));
  if (is_floating(t)) {
    // Values around the integer limits, where saturation starts.
    for (double v : {2147483647.0,
                     2147483648.0,
                     -2147483648.0,
                     -2147483649.0,
                     2147483520.0,
                     9.2233720368547758e18,
                     -9.2233720368547758e18,
                     1.8446744073709552e19,
                     1.5,
                     -1.5,
                     2.5,
                     -2.5,
                     0.99,
                     -0.99,
                     -0.5,
                     1e10,
                     -1e10,
                     4e9,
                     -4e9,
                     127.5,
                     128.0,
                     -128.5,
                     -129.0,
                     255.5,
                     256.0,
                     32767.5,
                     -32769.0,
                     65535.5,
                     65536.0,
                     4294967295.0,
                     4294967296.0})
      d.push(v);
    while (d.size() % 8) d.push(0.25);
  }
  for (DType to : kDTypes) {
    for (Layout l : kLayouts) {
      Tensor x = make(d, l);
      Tensor y = x.cast(to);
      EXPECT_EQ(y.dtype(), to);
      EXPECT_EQ(y.shape(), x.shape());
      Data want;
      want.dtype = to;
      for (std::size_t k = 0; k < count(x); ++k) {
        if (to == b8) {
          want.i.push_back(is_floating(t) ? d.f[k] != 0 : d.i[k] != 0);  // NaN -> true
        } else if (is_floating(to)) {
          if (is_floating(t))
            want.f.push_back(round_to(d.f[k], to));
          else if (to == f32)
            want.f.push_back(static_cast<double>(int_to_float(d.i[k], t)));
          else
            want.f.push_back(int_to_double(d.i[k], t));
        } else if (is_floating(t)) {
          // Saturating to the range of `to`, NaN -> 0, otherwise truncation toward zero.
          const double v = d.f[k];
          const IInfo lim = iinfo(to);
          const double above = std::ldexp(1.0, is_unsigned(to) ? bits_of(to) : bits_of(to) - 1);  // max + 1
          if (std::isnan(v))
            want.i.push_back(0);
          else if (v >= above)
            want.i.push_back(static_cast<int64_t>(lim.max));
          else if (v <= static_cast<double>(lim.min))
            want.i.push_back(lim.min);
          else if (to == u64)
            want.i.push_back(static_cast<int64_t>(static_cast<uint64_t>(std::trunc(v))));
          else
            want.i.push_back(static_cast<int64_t>(std::trunc(v)));
        } else {
          want.i.push_back(wrap_as(static_cast<uint64_t>(d.i[k]), to));  // modulo 2^bits
        }
      }
      expect_values(read(y), want, 0,
                    std::string("cast ") + dtype_name(t) + " -> " + dtype_name(to) + " " + layout_name(l));
    }
  }
  // Casting to the same dtype is the identity and builds nothing.
  Tensor x = make(d, Layout::Contiguous);
  EXPECT_EQ(x.cast(t).node(), x.node());
}

void sweep_where(int, DType t) {
  const auto ab = pairs(t, 100, 5);
  const Data& a = ab.first;
  const Data& b = ab.second;
  Data cond = random_data(b8, a.size(), 9);
  for (Layout l : kLayouts) {
    Tensor c = make(cond, l), x = make(a, l), y = make(b, l);
    Tensor z = where(c, x, y);
    EXPECT_EQ(z.dtype(), t);
    EXPECT_EQ(z.shape(), x.shape());
    Data want;
    want.dtype = t;
    for (std::size_t k = 0; k < count(x); ++k) {
      if (is_floating(t))
        want.f.push_back(cond.i[k] ? a.f[k] : b.f[k]);
      else
        want.i.push_back(cond.i[k] ? a.i[k] : b.i[k]);
    }
    expect_values(read(z), want, 0, std::string("where ") + dtype_name(t) + " " + layout_name(l));
  }
  // Broadcast condition (R, 1), a row (8,), a 0-d tensor.
  const auto rows = static_cast<int64_t>(a.size() / 8);
  Tensor z = where(make(cond, Shape{rows, 1}), make(a, Shape{8}), make(b, Shape{}));
  ASSERT_EQ(z.shape(), (Shape{rows, 8}));
  Data want;
  want.dtype = t;
  for (std::size_t k = 0; k < static_cast<std::size_t>(rows) * 8; ++k) {
    const bool ck = cond.i[k / 8] != 0;
    if (is_floating(t))
      want.f.push_back(ck ? a.f[k % 8] : b.f[0]);
    else
      want.i.push_back(ck ? a.i[k % 8] : b.i[0]);
  }
  expect_values(read(z), want, 0, std::string("where broadcast ") + dtype_name(t));
  // The condition must be b8.
  if (t != b8) {
    Tensor x = make(a, Layout::Contiguous);
    EXPECT_EQ(error_code([&] { where(x, x, x); }), ErrorCode::DTypeMismatch);
  }
}

}  // namespace opt
