// cgrad::et::Vector and Segment: the container API, value semantics, the one-loop guarantee
// (counted and observed element by element), aliasing, and the size rule.
#include <cgrad/et.hpp>

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

namespace et = cgrad::et;

namespace {

// A leaf that logs every element read, to observe the order in which a loop visits operands.
struct SpyEval {
  const double* p;
  std::vector<std::size_t>* log;
  double operator()(std::size_t i) const {
    log->push_back(i);
    return p[i];
  }
};
struct Spy : et::Expr<Spy> {
  using value_type = double;
  using space = et::HostSpace;
  static constexpr bool kScalar = false;
  static constexpr bool kStoreByReference = true;
  const et::Vector<double>* v;
  std::vector<std::size_t>* log;
  std::size_t size() const { return v->size(); }
  void check_size(std::size_t) const {}
  bool overlaps_shifted(const void*, const void*) const { return false; }
  SpyEval evaluator() const { return {v->data(), log}; }
};

TEST(EtVector, ContainerApi) {
  static_assert(std::is_same_v<et::Vector<float>::value_type, float>);
  et::Vector<double> z(4);
  EXPECT_EQ(z.size(), 4u);
  for (double x : z) EXPECT_EQ(x, 0.0);
  et::Vector<double> f(3, 2.5);
  EXPECT_EQ(std::accumulate(f.begin(), f.end(), 0.0), 7.5);
  et::Vector<double> s(std::vector<double>{1, 2, 3});
  EXPECT_EQ(s[1], 2.0);
  s[1] = 7;
  EXPECT_EQ(s.data()[1], 7.0);
  s.resize(5);
  EXPECT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0], 1.0);
  EXPECT_EQ(s[4], 0.0);
  s.fill(-1);
  EXPECT_EQ(s.to_vector(), std::vector<double>(5, -1.0));
  const et::Vector<double> il{1, 2};
  EXPECT_EQ(il.size(), 2u);
  EXPECT_TRUE(et::Vector<float>().empty());
}

TEST(EtVector, CopiesAreValues) {
  et::Vector<double> a{1, 2, 3};
  et::Vector<double> b = a;
  b[0] = 10;
  EXPECT_EQ(a[0], 1.0);
  et::Vector<double> c{9};
  c = a;  // copy assignment copies values and size, like std::vector
  a[2] = 30;
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c[2], 3.0);
  et::Vector<double> m = std::move(c);
  EXPECT_EQ(m[2], 3.0);
}

TEST(EtVector, EveryAssignmentIsOneLoop) {
  const et::Vector<double> a{1, 2, 3}, b{4, 5, 6}, c{7, 8, 9};
  et::Vector<double> v;
  et::reset_stats();
  v = a * b + 2.0 * et::exp(c) - et::sqrt(b) / a + et::maximum(a, c) * -b;
  EXPECT_EQ(et::stats().loops, 1u);
  et::Vector<double> w = a + b;  // construction from an expression
  v += w * c;
  v.segment(0, 2) = a.segment(1, 2) * 3;
  EXPECT_EQ(et::stats().loops, 4u);
  EXPECT_EQ(et::stats().reductions, 0u);
}

TEST(EtVector, LoopIsFusedElementByElement) {
  // In a fused loop, element i of every operand is read before element i + 1 of any: the read
  // log of `spy + 2 * spy` is 0,0,1,1,2,2,...; two passes would log 0,1,2,...,0,1,2,...
  const et::Vector<double> a{1, 2, 3, 4};
  std::vector<std::size_t> log;
  const Spy spy{{}, &a, &log};
  et::Vector<double> v;
  v = spy + 2 * spy;
  EXPECT_EQ(log, (std::vector<std::size_t>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(v.to_vector(), (std::vector<double>{3, 6, 9, 12}));

  // A reduction is one complete pass before the loop: 0..3 (sum), then the fused reads.
  log.clear();
  v = spy / et::sum(spy);
  EXPECT_EQ(log, (std::vector<std::size_t>{0, 1, 2, 3, 0, 1, 2, 3}));
}

TEST(EtVector, EvaluatorsArePlainData) {
  const et::Vector<double> a{1}, b{2};
  auto ev = (a * b + 2.0 * et::exp(-a)).evaluator();
  static_assert(std::is_trivially_copyable_v<decltype(ev)>, "evaluators are passed to kernels by value");
  EXPECT_DOUBLE_EQ(ev(0), 2.0 + 2.0 * std::exp(-1.0));
}

TEST(EtVector, AliasingIsSafe) {
  for (std::size_t n : {std::size_t{10}, et::kParallelThreshold + 3}) {
    et::Vector<double> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = static_cast<double>(i);
      b[i] = 1.0 / (1.0 + static_cast<double>(i));
    }
    const auto a0 = a;
    a = a + b;
    a = 2.0 * a - a * b;
    a *= a;
    for (std::size_t i = 0; i < n; ++i) {
      const double s = a0[i] + b[i];
      const double t = 2.0 * s - s * b[i];
      ASSERT_EQ(a[i], t * t) << i;
    }
  }
}

TEST(EtVector, SegmentsReadAndWrite) {
  et::Vector<double> v{0, 1, 2, 3, 4, 5};
  const et::Vector<double> w{10, 20, 30};
  v.segment(3, 3) = v.segment(0, 3) + w;  // disjoint views of the same vector
  EXPECT_EQ(v.to_vector(), (std::vector<double>{0, 1, 2, 10, 21, 32}));
  v.segment(0, 3) *= 2;  // the same view on both sides is fine
  EXPECT_EQ(v.to_vector(), (std::vector<double>{0, 2, 4, 10, 21, 32}));
  const et::Vector<double>& cv = v;
  et::Vector<double> s = cv.segment(2, 2) * 1.0;
  EXPECT_EQ(s.to_vector(), (std::vector<double>{4, 10}));
  auto seg = v.segment(4, 2);
  seg = cv.segment(0, 2);  // assigning a segment writes values, it does not rebind the view
  EXPECT_EQ(v.to_vector(), (std::vector<double>{0, 2, 4, 10, 0, 2}));
  EXPECT_EQ(static_cast<double>(et::sum(v.segment(3, 3))), 12.0);
}

TEST(EtVector, ShiftedSelfOverlapIsRejectedBeforeWriting) {
  et::Vector<double> v{0, 1, 2, 3, 4};
  const auto before = v;
  try {
    v.segment(1, 4) = v.segment(0, 4) + 1.0;
    FAIL() << "no throw";
  } catch (const cgrad::Error& e) {
    EXPECT_EQ(e.code(), cgrad::ErrorCode::InvalidOperation);
  }
  EXPECT_EQ(v.to_vector(), before.to_vector());
  EXPECT_THROW(v.segment(3, 3), cgrad::Error);  // out of range
}

TEST(EtVector, SizeRule) {
  const et::Vector<double> a(4, 1.0), b(4, 2.0), c(5, 3.0);
  et::Vector<double> empty;
  empty = a + b;  // an empty destination is resized
  EXPECT_EQ(empty.size(), 4u);

  et::Vector<double> three(3, 7.0);
  try {
    three = a + b;
    FAIL() << "no throw";
  } catch (const cgrad::Error& e) {
    EXPECT_EQ(e.code(), cgrad::ErrorCode::ShapeMismatch);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("size 4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("size 3"), std::string::npos) << msg;
  }
  EXPECT_EQ(three.to_vector(), std::vector<double>(3, 7.0));  // unchanged

  try {
    empty = a + c;
    FAIL() << "no throw";
  } catch (const cgrad::Error& e) {
    EXPECT_EQ(e.code(), cgrad::ErrorCode::ShapeMismatch);
    const std::string msg = e.what();
    EXPECT_NE(msg.find('5'), std::string::npos) << msg;
    EXPECT_NE(msg.find('4'), std::string::npos) << msg;
  }
  EXPECT_THROW(three.segment(0, 2) = a + b, cgrad::Error);  // segments are never resized
  EXPECT_THROW(three += a, cgrad::Error);
}

// assign_all: several assignments of one size as one loop, every value of element i computed
// before any is stored (so destinations may be read at the same index), sizes and shifted
// overlaps checked before anything is written.
TEST(EtVector, AssignAllIsOneLoop) {
  const std::size_t n = 5;
  et::Vector<double> s(3 * n), d(3 * n), rho(n, 28.0);
  for (std::size_t i = 0; i < 3 * n; ++i) s[i] = 0.5 * static_cast<double>(i) - 3.0;
  const auto x = s.segment(0, n), y = s.segment(n, n), z = s.segment(2 * n, n);
  et::reset_stats();
  et::assign_all(d.segment(0, n), 10.0 * (y - x), d.segment(n, n), x * (rho - z) - y, d.segment(2 * n, n),
                 x * y - 2.5 * z);
  EXPECT_EQ(et::stats().loops, 1u);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(d[i], 10.0 * (s[n + i] - s[i]));
    EXPECT_EQ(d[n + i], s[i] * (28.0 - s[2 * n + i]) - s[n + i]);
    EXPECT_EQ(d[2 * n + i], s[i] * s[n + i] - 2.5 * s[2 * n + i]);
  }

  et::Vector<double> a{1, 2, 3}, b{10, 20, 30};
  et::assign_all(a, a + b, b, a * 2.0);  // b reads a's value before this loop wrote it
  EXPECT_EQ(a.to_vector(), (std::vector<double>{11, 22, 33}));
  EXPECT_EQ(b.to_vector(), (std::vector<double>{2, 4, 6}));

  et::Vector<double> c{1, 2, 3, 4};
  EXPECT_THROW(et::assign_all(a, a + 1.0, c, c * 2.0), cgrad::Error);  // sizes differ
  EXPECT_EQ(a.to_vector(), (std::vector<double>{11, 22, 33}));
  EXPECT_THROW(et::assign_all(c.segment(1, 3), c.segment(0, 3) + 1.0, a, a + 1.0), cgrad::Error);  // shifted
  EXPECT_EQ(c.to_vector(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(a.to_vector(), (std::vector<double>{11, 22, 33}));
}

}  // namespace
