// sort and argsort (op-table rows of kind Sort) and the unique_* set functions (group sort),
// against std::stable_sort oracles written here: every dtype (f16/bf16, u64 and b8 included),
// NaN, +-0 and infinities, both directions (descending stays stable), negative axes, empty and
// length-1 rows, non-contiguous inputs, the kernel count, the gradient of sort and the errors.
#include "backends/cpu/sort_keys.h"
#include "core/env.hpp"
#include "ir/op.h"
#include "util.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <numeric>

namespace opt {
namespace {

// The oracle's order: NaN after everything in both directions, -0 == +0, u64 unsigned.
bool ref_before(const Data& d, std::size_t a, std::size_t b, bool desc) {
  if (is_floating(d.dtype)) {
    const double x = d.f[a], y = d.f[b];
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return desc ? y < x : x < y;
  }
  return desc ? int_less(d.i[b], d.i[a], d.dtype) : int_less(d.i[a], d.i[b], d.dtype);
}

// For row-major data of shape s: the stable argsort along `axis`, row-major in the same shape.
std::vector<int64_t> ref_argsort(const Data& d, const Shape& s, std::size_t axis, bool desc) {
  const int64_t n = s[axis];
  int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < axis; ++k) outer *= s[k];
  for (std::size_t k = axis + 1; k < s.size(); ++k) inner *= s[k];
  std::vector<int64_t> out(d.size());
  std::vector<int64_t> p(static_cast<std::size_t>(n));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const auto at = [&](int64_t q) { return static_cast<std::size_t>((o * n + q) * inner + i); };
      std::iota(p.begin(), p.end(), int64_t{0});
      std::stable_sort(p.begin(), p.end(),
                       [&](int64_t a, int64_t b) { return ref_before(d, at(a), at(b), desc); });
      for (int64_t j = 0; j < n; ++j) out[at(j)] = p[static_cast<std::size_t>(j)];
    }
  return out;
}

// The values sort must give: element j of each row is the row's element perm[j].
Data gather_rows(const Data& d, const Shape& s, std::size_t axis, const std::vector<int64_t>& perm) {
  int64_t inner = 1;
  for (std::size_t k = axis + 1; k < s.size(); ++k) inner *= s[k];
  const int64_t n = s[axis];
  Data out;
  out.dtype = d.dtype;
  for (std::size_t k = 0; k < perm.size(); ++k) {
    const auto ki = static_cast<int64_t>(k);
    const int64_t j = (ki / inner) % n;
    const auto src = static_cast<std::size_t>(ki + (perm[k] - j) * inner);
    if (is_floating(d.dtype))
      out.push(d.f[src]);
    else
      out.push_int(d.i[src]);
  }
  return out;
}

// Edge values and random ones, cycled to `n` so that every value repeats (ties).
Data tie_values(DType t, std::size_t n, uint64_t seed) {
  const Data base = concat(edges(t), random_data(t, 13, seed));
  Data d;
  d.dtype = t;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t m = (k * 7 + seed) % base.size();
    if (is_floating(t))
      d.push(base.f[m]);
    else
      d.push_int(base.i[m]);
  }
  return d;
}

// Checks sort or argsort of x (whose row-major values are read back, so rounding to f16 and the
// wrap of integers are the tensor's own) along `axis` against the oracle.
void check_sort(int op, const Tensor& x, int64_t axis, bool desc, const std::string& what) {
  const Data d = read(x);
  const std::size_t ax = static_cast<std::size_t>(axis < 0 ? axis + x.ndim() : axis);
  const std::vector<int64_t> perm = ref_argsort(d, x.shape(), ax, desc);
  const std::string name = what + " axis " + std::to_string(axis) + (desc ? " descending" : "");
  if (static_cast<ir::Op>(op) == ir::Op::Argsort) {
    Tensor r = argsort(x, axis, desc);
    EXPECT_EQ(r.dtype(), i64) << name;
    EXPECT_EQ(r.shape(), x.shape()) << name;
    EXPECT_EQ(r.to_vector<int64_t>(), perm) << name;
  } else {
    Tensor r = sort(x, axis, desc);
    EXPECT_EQ(r.dtype(), x.dtype()) << name;
    EXPECT_EQ(r.shape(), x.shape()) << name;
    expect_values(read(r), gather_rows(d, x.shape(), ax, perm), 0, name);
  }
}

}  // namespace

void sweep_sort(int op, DType t) {
  const Shape s{3, 5, 4};
  const Data d = tie_values(t, 60, 5);
  for (int64_t axis : {-1, 0, 1, 2, -3})
    for (bool desc : {false, true}) check_sort(op, make(d, s), axis, desc, "3-D");
  for (Layout l : {Layout::Transposed, Layout::Strided, Layout::Empty, Layout::EmptyRows})
    for (int64_t axis : {0, -1})
      for (bool desc : {false, true})
        check_sort(op, make(tie_values(t, 64, 9), l), axis, desc, layout_name(l));
  // Rows of 256 elements or more take the radix path (interp_sort.cpp): ties, and many values.
  const Data many = concat(edges(t), random_data(t, 1000, 11));
  for (bool desc : {false, true}) {
    check_sort(op, make(tie_values(t, 1400, 3), Shape{2, 700}), -1, desc, "long rows with ties");
    check_sort(op, make(tie_values(t, 1400, 4), Shape{700, 2}), 0, desc, "long strided rows");
    check_sort(op, make(many, Shape{static_cast<int64_t>(many.size())}), 0, desc, "long random row");
  }
  // Row lengths on each comparison path (interp_sort.cpp): a sorting network for 32-bit keys (16),
  // merges of 16-element runs (33, 100). Few, short rows: the gpu suite compiles a device kernel
  // for each shape. (ThreadCount.SameBitsForEveryPoolSize sorts rows that the pool splits.)
  for (int64_t len : {16, 33, 100}) {
    const Data rd = tie_values(t, static_cast<std::size_t>(3 * len), static_cast<uint64_t>(len));
    for (bool desc : {false, true})
      check_sort(op, make(rd, Shape{3, len}), -1, desc, "rows of " + std::to_string(len));
  }
  // The network sorts kNetworkLanes (8) rows at once: 19 strided rows of 13 fill two groups and
  // part of a third.
  for (bool desc : {false, true})
    check_sort(op, make(tie_values(t, 13 * 19, 7), Shape{13, 19}), 0, desc, "19 strided rows of 13");
  check_sort(op, make(d, Shape{6, 1}), -1, false, "length-1 rows");
  check_sort(op, make(d, Shape{1}), 0, true, "one element");
  check_sort(op, flip(make(d, Shape{4, 5}), {1}), 1, false, "flipped view");
  check_sort(op, make(d, Shape{5}) * 1, 0, false, "element-wise producer");
  std::string msg;
  Tensor zero_d = make(d, Shape{});
  EXPECT_EQ(error_code([&] { sort(zero_d); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("0-d"), std::string::npos) << msg;
  EXPECT_EQ(error_code([&] { argsort(make(d, s), 3); }, &msg), ErrorCode::InvalidArgument);
}

namespace {

TEST(Sort, NanLastAndSignedZerosKeepTheirOrder) {
  const double nan = std::nan(""), inf = INFINITY;
  Tensor x = tensor(std::vector<double>{nan, 1, -0.0, -inf, 0.0, nan, -0.0, inf, -1}, {9});
  EXPECT_EQ(argsort(x).to_vector<int64_t>(), (std::vector<int64_t>{3, 8, 2, 4, 6, 1, 7, 0, 5}));
  EXPECT_EQ(argsort(x, -1, true).to_vector<int64_t>(), (std::vector<int64_t>{7, 1, 2, 4, 6, 8, 3, 0, 5}));
  const std::vector<double> s = sort(x).to_vector<double>();
  EXPECT_TRUE(std::signbit(s[2]) && !std::signbit(s[3]) && std::signbit(s[4]));
  EXPECT_TRUE(std::isnan(s[7]) && std::isnan(s[8]));
  // Descending with ties keeps the input order (the Array API's stable sort), unlike a flip.
  Tensor ti = tensor(std::vector<int32_t>{2, 1, 2, 3, 1}, {5});
  EXPECT_EQ(argsort(ti, 0, true).to_vector<int64_t>(), (std::vector<int64_t>{3, 0, 2, 1, 4}));
  // u64 above 2^63 is the largest; b8 false < true.
  Tensor tu = tensor(std::vector<uint64_t>{uint64_t{1} << 63, 5, ~uint64_t{0}, 0}, {4});
  EXPECT_EQ(argsort(tu).to_vector<int64_t>(), (std::vector<int64_t>{3, 1, 0, 2}));
  EXPECT_EQ(sort(tensor(std::vector<bool>{true, false, true}, {3})).to_vector<bool>(),
            (std::vector<bool>{false, true, true}));
}

// Long rows (where Sort sorts keys alone and reads values back from them: by the quicksort where
// the CPU has AVX-512F, by the radix sort elsewhere): the elements the order ties but whose bits
// differ, -0 with +0 and NaNs of either sign and any payload, come out in their input order, bit
// for bit, in f32 and f64, in both directions.
template <class F, class B>
void check_tied_bits(int n) {
  std::vector<B> bits;
  for (int i = 0; i < n; ++i) {
    const int k = (i * 7) % 11;
    const B sign = B{1} << (8 * sizeof(B) - 1);
    const B nan = sizeof(B) == 4 ? B(0x7fc00000u) : B(0x7ff8000000000000ull);
    bits.push_back(k < 3   ? (k == 1 ? sign : B{0})
                   : k < 6 ? (nan | B(i)) ^ (k == 4 ? sign : B{0})
                           : std::bit_cast<B>(static_cast<F>(i % 9) - F(4)));
  }
  std::vector<F> v(bits.size());
  std::memcpy(v.data(), bits.data(), bits.size() * sizeof(B));
  const Tensor x = tensor(v, {static_cast<int64_t>(v.size())});
  // (n, 17) for n = 600, else (n, 2): each column a copy of v, read at a stride (in blocks of 16
  // rows and one, or of 2)
  const int64_t copies = n <= 600 ? 17 : 2;
  std::vector<F> tiled;
  for (const F e : v) tiled.insert(tiled.end(), static_cast<std::size_t>(copies), e);
  const Tensor x2 = tensor(tiled, {static_cast<int64_t>(v.size()), copies});
  for (bool desc : {false, true}) {
    std::vector<std::size_t> p(v.size());
    std::iota(p.begin(), p.end(), std::size_t{0});
    std::stable_sort(p.begin(), p.end(), [&](std::size_t a, std::size_t b) {
      if (std::isnan(v[a]) || std::isnan(v[b])) return !std::isnan(v[a]) && std::isnan(v[b]);
      return desc ? v[b] < v[a] : v[a] < v[b];
    });
    const std::vector<F> got = sort(x, 0, desc).template to_vector<F>();
    for (std::size_t j = 0; j < p.size(); ++j)
      ASSERT_EQ(std::bit_cast<B>(got[j]), bits[p[j]])
          << sizeof(F) << "-byte, position " << j << (desc ? " descending" : "");
    const std::vector<F> cols = sort(x2, 0, desc).template to_vector<F>();
    const auto w = static_cast<std::size_t>(copies);
    for (std::size_t j = 0; j < p.size(); ++j)
      for (std::size_t c = 0; c < w; ++c)
        ASSERT_EQ(std::bit_cast<B>(cols[w * j + c]), bits[p[j]])
            << sizeof(F) << "-byte, strided column " << c << ", position " << j
            << (desc ? " descending" : "");
  }
}

TEST(Sort, LongRowsKeepTheBitsOfTiedZerosAndNans) {
  for (int n : {600, 70000}) {
    check_tied_bits<float, uint32_t>(n);
    check_tied_bits<double, uint64_t>(n);
  }
}

// Neighbour rows along the last dim are read and written in blocks of up to 16 (interp_sort.cpp,
// block_range): 37 rows, two blocks and part of a third; in 3-D, runs of 20 rows, each a block and
// part of one. Every dtype, both ops and directions, rows past the radix sort's and the
// quicksort's lengths. CPU paths only: the gpu suite's mirror leaves this test out (a device
// sorts every row alike; these shapes took 100 s of the emulated device's time).
void check_neighbour_rows(DType t) {
  SCOPED_TRACE(dtype_name(t));
  for (ir::Op op : {ir::Op::Sort, ir::Op::Argsort})
    for (bool desc : {false, true}) {
      check_sort(static_cast<int>(op), make(tie_values(t, 300 * 37, 5), Shape{300, 37}), 0, desc,
                 "37 long strided rows");
      check_sort(static_cast<int>(op), make(tie_values(t, 2 * 260 * 20, 6), Shape{2, 260, 20}), 1, desc,
                 "3-D long strided rows");
    }
}

// Argsort of 64-bit keys sorts words of 32 of the key's bits (argsort_wide_words): rows that span
// a wide range (so those bits are the offsets' top bits) and whose keys cluster within 2^20 of a
// few centres, with exact ties, so that many words tie and their runs are ordered again by the
// whole key; rows of 50, 300, 5000 and 40000 elements, NaNs and infinities among the float ones.
// f32 and i32 too (the same values rounded or wrapped: many ties): their words' quicksort runs at
// every length. Along both axes (rows along axis 0 go through blocks of neighbour rows).
TEST(Argsort, WideKeysTiedInTheirTopBits) {
  Rng g{17};
  for (DType t : {f64, i64, u64, f32, i32})
    for (int64_t n : {50, 300, 5000, 40000}) {
      Data d;
      d.dtype = t;
      for (int64_t k = 0; k < 2 * n; ++k) {
        const int64_t c = g.range(0, 3), off = g.range(0, 40) * (g.range(0, 1) ? 1 : 1 << 15);
        if (is_floating(t)) {
          const double centres[] = {-3e5, 1.0, 7.5e10, 1e300};
          d.push(c == 3 && k % 5 == 0 ? (k % 2 ? -1e300 : std::numeric_limits<double>::quiet_NaN())
                                      : centres[c] * (1.0 + static_cast<double>(off) * 0x1p-52));
          if (k % 97 == 0) d.f.back() = -std::numeric_limits<double>::infinity();
        } else {
          const int64_t centres[] = {-500000000000000000, 3, 4000000000000000000, INT64_MIN + 7};
          d.push_int(centres[c] + off);
        }
      }
      for (bool desc : {false, true}) {
        check_sort(static_cast<int>(ir::Op::Argsort), make(d, Shape{2, n}), -1, desc,
                   std::string(dtype_name(t)) + " rows of " + std::to_string(n));
        check_sort(static_cast<int>(ir::Op::Argsort), make(d, Shape{n, 2}), 0, desc,
                   std::string(dtype_name(t)) + " strided rows of " + std::to_string(n));
      }
    }
}

TEST(Sort, NeighbourRowsInBlocksMatchTheOracle) {
  for (DType t : kDTypes) check_neighbour_rows(t);
}

// Rows whose zeros all have one sign: the keys of zeros read back as +0, and only a row with
// negative zeros is refilled from its input (the refill scans it), in rows of 300 and, along axis
// 0, in a block of neighbour rows.
TEST(Sort, ZerosOfOneSignKeepIt) {
  for (const float zero : {0.0f, -0.0f}) {
    std::vector<float> v;
    for (int i = 0; i < 600; ++i) v.push_back(i % 7 == 3 ? zero : static_cast<float>((i * 13) % 29) - 14.5f);
    for (const auto& [shape, axis] : std::vector<std::pair<Shape, int64_t>>{{{2, 300}, 1}, {{300, 2}, 0}})
      for (bool desc : {false, true}) {
        const std::vector<float> got = sort(tensor(v, shape), axis, desc).to_vector<float>();
        int zeros = 0;
        for (const float e : got) {
          if (e != 0.0f) continue;
          ++zeros;
          EXPECT_EQ(std::signbit(e), std::signbit(zero)) << "axis " << axis << (desc ? " descending" : "");
        }
        EXPECT_EQ(zeros, 86);
      }
  }
}

// The sorts of CPUs without AVX-512F (the radix and merge sorts, the row loops' baseline build),
// run where the CPU has it by turning the quicksort off for the test (sort_keys.h), so that every
// path is tested on every machine: the sweep of 32- and 64-bit dtypes, and the tied bits of a
// row past kRadixMin (the radix sort's length; 70000 takes the same path).
TEST(Sort, PathsWithoutAvx512MatchTheOracle) {
  if (!cgrad::backends::cpu::have_sort_keys()) GTEST_SKIP() << "the only paths this CPU has: tested above";
  struct Portable {
    Portable() { cgrad::backends::cpu::set_sort_keys_allowed(false); }
    ~Portable() { cgrad::backends::cpu::set_sort_keys_allowed(true); }
  } portable;
  for (DType t : {f32, f64, i32}) {
    sweep_sort(static_cast<int>(ir::Op::Sort), t);
    sweep_sort(static_cast<int>(ir::Op::Argsort), t);
    check_neighbour_rows(t);
  }
  check_tied_bits<float, uint32_t>(600);
  check_tied_bits<double, uint64_t>(600);
}

TEST(Sort, IsItsOwnKernelAfterItsProducer) {
  Tensor a = tensor(std::vector<float>{3, 1, 2, 5, 4, 0}, {2, 3});
  Tensor y = sort(a * 2.0f + 1.0f, 1);
  reset_stats();
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{3, 5, 7, 1, 9, 11}));
  // A compiled backend fuses the producer into one element-wise kernel and runs the sort after
  // it (the interpreter launches one per node, constants included).
  if (core::env().backend != "interpreter") {
    EXPECT_EQ(stats().kernels_launched, 2u);
  }
  // The sorted values feed fused element-wise consumers.
  EXPECT_EQ((sort(a, 0, true) - 1.0f).to_vector<float>(), (std::vector<float>{4, 3, 1, 2, 0, -1}));
}

TEST(Sort, GradientScattersToTheSortedPositions) {
  Tensor x = tensor(std::vector<float>{0.5f, -2, 3, 1}, {4}).requires_grad(true);
  Tensor w = tensor(std::vector<float>{1, 10, 100, 1000}, {4});
  Tensor g = grad(sum(sort(x) * w), {x})[0];
  // sorted: -2 (x1), 0.5 (x0), 1 (x3), 3 (x2)
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{10, 1, 1000, 100}));
  Tensor gd = grad(sum(sort(x, 0, true) * w), {x})[0];
  EXPECT_EQ(gd.to_vector<float>(), (std::vector<float>{100, 1000, 1, 10}));
}

// unique_*: oracle by sorting and grouping in the test; each NaN distinct, -0 == +0.
class Unique : public ::testing::TestWithParam<DType> {};

TEST_P(Unique, MatchesAStableSortOracle) {
  const DType t = GetParam();
  const Data d = tie_values(t, 24, 3);
  const Data l = tie_values(t, 600, 5);  // past kRadixMin: the row kernel's radix path
  // Contiguous, transposed (non-contiguous) and empty; short and long.
  std::vector<Tensor> xs = {make(d, Shape{24}), make(d, Shape{6, 4}).T(), make(d, Shape{0}),
                            make(l, Shape{600}), make(l, Shape{20, 30}).T()};
  if (!is_floating(t) && t != b8) {  // integers of a narrow span: the histogram path, any sign
    Data k;
    k.dtype = t;
    for (int64_t j = 0; j < 700; ++j) k.push_int((j * 37) % 81 - 40);
    xs.push_back(make(k, Shape{700}));
    xs.push_back(make(k, Shape{35, 20}).T());
  }
  for (const Tensor& x : xs) {
    const Shape s = x.shape();
    const Data v = read(x);
    std::vector<std::size_t> p(v.size());
    std::iota(p.begin(), p.end(), std::size_t{0});
    std::stable_sort(p.begin(), p.end(),
                     [&](std::size_t a, std::size_t b) { return ref_before(v, a, b, false); });
    Data values;
    values.dtype = t;
    std::vector<int64_t> first, counts, inverse(v.size());
    for (std::size_t k = 0; k < p.size(); ++k) {
      bool same = k > 0;
      if (same && is_floating(t))
        same = v.f[p[k]] == v.f[p[k - 1]];  // NaN != NaN
      else if (same)
        same = v.i[p[k]] == v.i[p[k - 1]];
      if (!same) {
        if (is_floating(t))
          values.push(v.f[p[k]]);
        else
          values.push_int(v.i[p[k]]);
        first.push_back(static_cast<int64_t>(p[k]));
        counts.push_back(0);
      }
      ++counts.back();
      inverse[p[k]] = static_cast<int64_t>(counts.size()) - 1;
    }
    UniqueAll u = unique_all(x);
    const std::string what = std::string(dtype_name(t)) + " " + shape_str(s);
    expect_values(read(u.values), values, 0, what);
    EXPECT_EQ(u.indices.to_vector<int64_t>(), first) << what;
    EXPECT_EQ(u.inverse_indices.shape(), s) << what;
    EXPECT_EQ(u.inverse_indices.to_vector<int64_t>(), inverse) << what;
    EXPECT_EQ(u.counts.to_vector<int64_t>(), counts) << what;
    EXPECT_EQ(unique_values(x).numel(), static_cast<int64_t>(counts.size())) << what;
    EXPECT_EQ(unique_counts(x).counts.to_vector<int64_t>(), counts) << what;
    EXPECT_EQ(unique_inverse(x).inverse_indices.to_vector<int64_t>(), inverse) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryDType, Unique, ::testing::ValuesIn(kDTypes),
                         [](const auto& i) { return std::string(dtype_name(i.param)); });

TEST(Unique, EachNanIsDistinctAndZerosAreOne) {
  const double nan = std::nan("");
  UniqueAll u = unique_all(tensor(std::vector<double>{nan, 0.0, -0.0, nan, 1}, {5}));
  EXPECT_EQ(u.values.numel(), 4);
  EXPECT_EQ(u.counts.to_vector<int64_t>(), (std::vector<int64_t>{2, 1, 1, 1}));
  EXPECT_EQ(u.indices.to_vector<int64_t>(), (std::vector<int64_t>{1, 4, 0, 3}));
  EXPECT_EQ(u.inverse_indices.to_vector<int64_t>(), (std::vector<int64_t>{2, 0, 0, 3, 1}));
  UniqueAll z = unique_all(tensor(std::vector<float>{7}, {}));
  EXPECT_EQ(z.inverse_indices.shape(), Shape{});
  EXPECT_EQ(z.values.to_vector<float>(), std::vector<float>{7});
}

// Complex values (which sort does not take) are grouped by the same order: lexicographic on
// (re, im), -0 == +0, each value with a NaN part distinct and last, in the order of the input.
TEST(Unique, ComplexInLexicographicOrder) {
  const double nan = std::nan("");
  const std::vector<std::complex<double>> z = {{1, 2}, {1, 1}, {nan, 0}, {0, 5}, {1, 1}, {-0.0, 5}, {0, nan}};
  for (DType t : {c64, c128}) {
    const std::string what = dtype_name(t);
    Tensor x;
    if (t == c64) {
      std::vector<complex64_t> d;
      for (auto e : z) d.emplace_back(static_cast<float>(e.real()), static_cast<float>(e.imag()));
      x = tensor(d, {7});
    } else {
      std::vector<complex128_t> d;
      for (auto e : z) d.emplace_back(e.real(), e.imag());
      x = tensor(d, {7});
    }
    UniqueAll u = unique_all(x);
    EXPECT_EQ(u.values.dtype(), t) << what;
    EXPECT_EQ(u.counts.to_vector<int64_t>(), (std::vector<int64_t>{2, 2, 1, 1, 1})) << what;
    EXPECT_EQ(u.indices.to_vector<int64_t>(), (std::vector<int64_t>{3, 1, 0, 2, 6})) << what;
    EXPECT_EQ(u.inverse_indices.to_vector<int64_t>(), (std::vector<int64_t>{2, 1, 3, 0, 1, 0, 4})) << what;
    const std::vector<complex128_t> vals = u.values.cast(c128).to_vector<complex128_t>();
    ASSERT_EQ(vals.size(), 5u) << what;
    EXPECT_EQ(vals[0].re, 0.0);
    EXPECT_EQ(vals[0].im, 5.0);
    EXPECT_EQ(vals[1].re, 1.0);
    EXPECT_EQ(vals[1].im, 1.0);
    EXPECT_EQ(vals[2].im, 2.0);
    EXPECT_TRUE(std::isnan(vals[3].re) && std::isnan(vals[4].im)) << what;
    EXPECT_EQ(unique_values(x).numel(), 5) << what;
    EXPECT_EQ(unique_counts(x).counts.to_vector<int64_t>(), (std::vector<int64_t>{2, 2, 1, 1, 1})) << what;
    EXPECT_EQ(unique_inverse(x).inverse_indices.to_vector<int64_t>(),
              (std::vector<int64_t>{2, 1, 3, 0, 1, 0, 4}))
        << what;
    EXPECT_EQ(unique_values(x.reshape({7, 1}).T()).numel(), 5) << what;
  }
}

}  // namespace
}  // namespace opt
