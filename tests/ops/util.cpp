// Data, layouts and comparisons shared by the op tests (see util.h).
#include "util.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace opt {

void Data::push(double v) {
  if (is_floating(dtype))
    f.push_back(round_to(v, dtype));
  else
    ADD_FAILURE() << "Data::push(double) on " << dtype_name(dtype);
}

void Data::push_int(int64_t v) {
  if (is_floating(dtype)) {
    push(static_cast<double>(v));
    return;
  }
  i.push_back(wrap_as(static_cast<uint64_t>(v), dtype));
}

double Data::fv(std::size_t k) const { return is_floating(dtype) ? f[k] : int_to_double(i[k], dtype); }

uint64_t Rng::next() {
  uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double Rng::uniform(double lo, double hi) {
  return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
}
int64_t Rng::range(int64_t lo, int64_t hi) {
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  uint64_t r = span == 0 ? next() : next() % span;
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + r);
}

int bits_of(DType t) { return static_cast<int>(8 * dtype_size(t)); }

int64_t wrap(uint64_t v, int bits) {
  if (bits == 8) return static_cast<int8_t>(static_cast<uint8_t>(v));
  if (bits == 16) return static_cast<int16_t>(static_cast<uint16_t>(v));
  if (bits == 32) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

int64_t wrap_as(uint64_t v, DType t) {
  if (t == b8) return v != 0;
  if (!is_unsigned(t)) return wrap(v, bits_of(t));
  const int bits = bits_of(t);
  return static_cast<int64_t>(bits == 64 ? v : v & ((uint64_t{1} << bits) - 1));
}

bool int_less(int64_t a, int64_t b, DType t) {
  return t == u64 ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b) : a < b;
}

double int_to_double(int64_t v, DType t) {
  return t == u64 ? static_cast<double>(static_cast<uint64_t>(v)) : static_cast<double>(v);
}
float int_to_float(int64_t v, DType t) {
  return t == u64 ? static_cast<float>(static_cast<uint64_t>(v)) : static_cast<float>(v);
}

Data edges(DType t) {
  Data d;
  d.dtype = t;
  if (is_floating(t)) {
    const double inf = std::numeric_limits<double>::infinity();
    const double big = finfo(t).max, tiny = finfo(t).smallest_subnormal, small = finfo(t).smallest_normal;
    for (double v :
         {0.0,    -0.0, 1.0,   -1.0,  0.5,  -0.5,  2.0, -2.5, 3.0,          1e-3, -1e-3, 10.0,  -10.0, 100.0,
          -100.0, 88.7, -88.7, 710.0, 1e30, -1e30, inf, -inf, std::nan(""), tiny, -tiny, small, big,   -big})
      d.push(v);
  } else if (t == b8) {
    d.i = {0, 1};
  } else {
    const IInfo lim = iinfo(t);
    const auto lo = lim.min, hi = static_cast<int64_t>(lim.max);
    for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{2}, int64_t{-2}, int64_t{3}, int64_t{7},
                      int64_t{-7}, int64_t{31}, int64_t{32}, int64_t{63}, int64_t{64}, int64_t{100},
                      int64_t{-100}, lo, hi, lo + 1, hi - 1})
      d.push_int(v);  // wrapped to t: -1 is the maximum of an unsigned dtype
    if (bits_of(t) < 64) {
      d.push_int(hi / 2);
      d.push_int(hi / 2 + 1);
    } else {
      d.push_int(static_cast<int64_t>(uint64_t{1} << 63));  // 2^63: u64's top bit
      d.push_int(static_cast<int64_t>((uint64_t{1} << 63) - 1));
    }
  }
  return d;
}

Data random_data(DType t, std::size_t n, uint64_t seed) {
  Rng r(seed * 0x2545f4914f6cdd1dULL + static_cast<uint64_t>(t) + 1);
  Data d;
  d.dtype = t;
  for (std::size_t k = 0; k < n; ++k) {
    if (is_floating(t)) {
      switch (k % 3) {
        case 0: d.push(r.uniform(-10, 10)); break;
        case 1: d.push((r.next() & 1 ? -1.0 : 1.0) * std::exp2(r.uniform(-30, 30))); break;
        default: d.push(r.uniform(-1000, 1000)); break;
      }
    } else if (t == b8) {
      d.i.push_back(static_cast<int64_t>(r.next() & 1));
    } else {
      switch (k % 3) {
        case 0: d.push_int(r.range(-100, 100)); break;
        case 1: d.push_int(r.range(-1000000, 1000000)); break;
        default: d.push_int(static_cast<int64_t>(r.next())); break;
      }
    }
  }
  return d;
}

Data concat(const Data& a, const Data& b) {
  Data d = a;
  d.f.insert(d.f.end(), b.f.begin(), b.f.end());
  d.i.insert(d.i.end(), b.i.begin(), b.i.end());
  return d;
}

std::pair<Data, Data> pairs(DType t, std::size_t n_random, uint64_t seed) {
  Data e = edges(t);
  Data a, b;
  a.dtype = b.dtype = t;
  const std::size_t m = e.size();
  for (std::size_t x = 0; x < m; ++x)
    for (std::size_t y = 0; y < m; ++y) {
      if (is_floating(t)) {
        a.f.push_back(e.f[x]);
        b.f.push_back(e.f[y]);
      } else {
        a.i.push_back(e.i[x]);
        b.i.push_back(e.i[y]);
      }
    }
  // Pad to a multiple of 8 values (the layouts use 8 columns).
  std::size_t total = m * m + n_random;
  total += (8 - total % 8) % 8;
  const std::size_t extra = total - m * m;
  Data ra = random_data(t, extra, seed), rb = random_data(t, extra, seed + 1000);
  return {concat(a, ra), concat(b, rb)};
}

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Strided: return "strided slice";
    case Layout::ZeroDim: return "0-d";
    case Layout::Empty: return "empty (0,)";
    case Layout::EmptyRows: return "empty (2, 0, 3)";
  }
  return "?";
}

Shape layout_shape(Layout l, std::size_t n) {
  switch (l) {
    case Layout::Contiguous:
    case Layout::Transposed:
    case Layout::Strided: return {static_cast<int64_t>(n / 8), 8};
    case Layout::ZeroDim: return {};
    case Layout::Empty: return {0};
    case Layout::EmptyRows: return {2, 0, 3};
  }
  return {};
}

namespace {
template <class T>
std::vector<T> host(const Data& d, const std::vector<std::size_t>& pick, double filler) {
  std::vector<T> v;
  v.reserve(pick.size());
  for (std::size_t k : pick) {
    if (k == SIZE_MAX)
      v.push_back(static_cast<T>(filler));
    else if constexpr (core::is_floating_v<T>)
      v.push_back(static_cast<T>(d.f[k]));
    else
      v.push_back(static_cast<T>(d.i[k]));
  }
  return v;
}

// A tensor of `shape` whose row-major elements are d's values at `pick` (SIZE_MAX = filler).
Tensor build(const Data& d, const std::vector<std::size_t>& pick, const Shape& shape) {
  switch (d.dtype) {
    case DType::f32: return tensor(host<float>(d, pick, 777), shape);
    case DType::f64: return tensor(host<double>(d, pick, 777), shape);
    case DType::i32: return tensor(host<int32_t>(d, pick, 777), shape);
    case DType::i64: return tensor(host<int64_t>(d, pick, 777), shape);
    case DType::i8: return tensor(host<int8_t>(d, pick, 77), shape);
    case DType::i16: return tensor(host<int16_t>(d, pick, 777), shape);
    case DType::u8: return tensor(host<uint8_t>(d, pick, 77), shape);
    case DType::u16: return tensor(host<uint16_t>(d, pick, 777), shape);
    case DType::u32: return tensor(host<uint32_t>(d, pick, 777), shape);
    case DType::u64: return tensor(host<uint64_t>(d, pick, 777), shape);
    case DType::f16: return tensor(host<float16_t>(d, pick, 777), shape);
    case DType::bf16: return tensor(host<bfloat16_t>(d, pick, 777), shape);
    case DType::b8: {
      std::vector<int64_t> v = host<int64_t>(d, pick, 1);
      return tensor(std::vector<bool>(v.begin(), v.end()), shape);
    }
    case DType::c64:   // complex group: Data holds real values (test_complex.cpp builds its own
    case DType::c128:  // complex inputs); these are their real parts, imaginary parts 0
      return tensor(host<double>(d, pick, 777), shape).cast(d.dtype);
  }
  return {};
}
}  // namespace

Tensor make(const Data& d, const Shape& shape) {
  std::vector<std::size_t> pick(static_cast<std::size_t>(core::numel(shape)));
  for (std::size_t k = 0; k < pick.size(); ++k) pick[k] = k;
  return build(d, pick, shape);
}

Tensor make_all(const Data& d, const Shape& shape) {
  std::vector<std::size_t> pick(d.size());
  for (std::size_t k = 0; k < pick.size(); ++k) pick[k] = k;
  return build(d, pick, shape);
}

Tensor make(const Data& d, Layout l) {
  const Shape s = layout_shape(l, d.size());
  if (l == Layout::Transposed) {
    const std::size_t rows = static_cast<std::size_t>(s[0]), cols = static_cast<std::size_t>(s[1]);
    std::vector<std::size_t> pick(rows * cols);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) pick[c * rows + r] = r * cols + c;
    Tensor t = build(d, pick, {s[1], s[0]}).T();
    EXPECT_EQ(t.shape(), s);
    return t;
  }
  if (l == Layout::Strided) {
    // Storage rows of 2C+1 elements; the logical element (r, c) sits at column 1 + 2c.
    const std::size_t rows = static_cast<std::size_t>(s[0]), cols = static_cast<std::size_t>(s[1]);
    const std::size_t w = 2 * cols + 1;
    std::vector<std::size_t> pick(rows * w, SIZE_MAX);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) pick[r * w + 1 + 2 * c] = r * cols + c;
    const auto wi = static_cast<int64_t>(w);
    Tensor t = build(d, pick, {s[0], wi}).slice(1, 1 - wi, wi, 2);  // negative start: 1 - w == 1
    EXPECT_EQ(t.shape(), s);
    return t;
  }
  return make(d, s);
}

Data read(const Tensor& t) {
  Data d;
  d.dtype = t.dtype();
  if (is_floating(d.dtype))
    d.f = t.to_vector<double>();
  else
    d.i = t.to_vector<int64_t>();
  return d;
}

namespace {
// Precision (mantissa bits with the implicit one) and smallest normal exponent of the 16-bit
// floats, for the references below (written here, not taken from the library's conversions).
struct Format {
  int p, emin;
  double max;
};
Format format_of(DType t) { return t == f16 ? Format{11, -14, 65504.0} : Format{8, -126, 0x1.fep127}; }

// want rounded to nearest even in a 16-bit float format (overflow to infinity).
double round_16(double want, DType t) {
  if (std::isnan(want) || std::isinf(want) || want == 0) return want;
  const Format f = format_of(t);
  const int e = std::max(std::ilogb(want), f.emin);
  const double q = std::ldexp(1.0, e - f.p + 1);  // the quantum at want's exponent
  const double r = std::nearbyint(want / q) * q;  // want / q is exact; nearbyint rounds to even
  if (std::fabs(r) > f.max) return std::copysign(std::numeric_limits<double>::infinity(), want);
  return r;
}

// The position of a finite 16-bit float value among the format's values (0 for zero, negative
// below), so that two values are ulps apart by the difference of their ordinals.
double ordinal_16(double v, DType t) {
  const Format f = format_of(t);
  const double a = std::fabs(v), q = std::ldexp(1.0, f.p - 1);
  double o;
  if (a < std::ldexp(1.0, f.emin)) {
    o = a / std::ldexp(1.0, f.emin - f.p + 1);
  } else {
    const int e = std::ilogb(a);
    o = (e - f.emin + 1) * q + (std::ldexp(a, -e) - 1) * q;
  }
  return v < 0 ? -o : o;
}
}  // namespace

double round_to(double want, DType t) {
  if (t == f32) return static_cast<double>(static_cast<float>(want));
  if (t == f16 || t == bf16) return round_16(want, t);
  return want;
}

namespace {
template <class T, class I>
uint64_t ulp_distance(T a, T b) {
  I ia, ib;
  std::memcpy(&ia, &a, sizeof(T));
  std::memcpy(&ib, &b, sizeof(T));
  if (ia < 0) ia = std::numeric_limits<I>::min() - ia;
  if (ib < 0) ib = std::numeric_limits<I>::min() - ib;
  return ia >= ib ? static_cast<uint64_t>(ia) - static_cast<uint64_t>(ib)
                  : static_cast<uint64_t>(ib) - static_cast<uint64_t>(ia);
}
}  // namespace

::testing::AssertionResult close(double got, double want, DType t, int ulps) {
  if (std::isnan(got) && std::isnan(want)) return ::testing::AssertionSuccess();
  auto fail = [&](const char* why) {
    std::ostringstream s;
    s.precision(17);
    s << "got " << got << ", want " << want << " (" << dtype_name(t) << ", " << why << ")";
    return ::testing::AssertionFailure() << s.str();
  };
  if (std::isnan(got) || std::isnan(want)) return fail("NaN mismatch");
  if (got == want) return ::testing::AssertionSuccess();
  if (std::isinf(got) || std::isinf(want) || ulps == 0) return fail("not equal");
  uint64_t d = t == f32   ? ulp_distance<float, int32_t>(static_cast<float>(got), static_cast<float>(want))
               : t == f64 ? ulp_distance<double, int64_t>(got, want)
                          : static_cast<uint64_t>(std::fabs(ordinal_16(got, t) - ordinal_16(want, t)));
  if (d <= static_cast<uint64_t>(ulps)) return ::testing::AssertionSuccess();
  const double tiny = finfo(t).smallest_normal;
  if (std::fabs(got - want) <= tiny) return ::testing::AssertionSuccess();
  return fail((std::to_string(d) + " ulp apart").c_str());
}

void expect_values(const Data& got, const Data& want, int ulps, const std::string& what) {
  EXPECT_EQ(got.dtype, want.dtype) << what << ": dtype " << dtype_name(got.dtype) << " vs "
                                   << dtype_name(want.dtype);
  ASSERT_EQ(got.size(), want.size()) << what;
  if (got.dtype != want.dtype) return;
  int reported = 0;
  for (std::size_t k = 0; k < got.size() && reported < 5; ++k) {
    if (is_floating(got.dtype)) {
      auto r = close(got.f[k], round_to(want.f[k], got.dtype), got.dtype, ulps);
      if (!r && k < want.scale.size() && std::isfinite(got.f[k])) {
        const FInfo fi = finfo(got.dtype);  // ulps of the scale: its binade times eps
        const double ulp = std::ldexp(fi.eps, std::ilogb(std::max(want.scale[k], fi.smallest_normal)));
        if (std::fabs(got.f[k] - want.f[k]) <= ulps * ulp) r = ::testing::AssertionSuccess();
      }
      if (!r) {
        ADD_FAILURE() << what << ": element " << k << ": " << r.message();
        ++reported;
      }
    } else if (got.i[k] != want.i[k]) {
      ADD_FAILURE() << what << ": element " << k << ": got " << got.i[k] << ", want " << want.i[k];
      ++reported;
    }
  }
}

}  // namespace opt
