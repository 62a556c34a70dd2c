// The library's scalar helpers keep their own names (include/cgrad/scalar.hpp, "the helpers'
// names"): a user's program that includes <cgrad/scalar.hpp> without FMA instructions gets an
// fma_ that rounds twice, and the linker must not make it the library's. Both copies are taken
// by address, so each is emitted out of line whatever the build inlines: under a single name the
// linker would keep one of them for both, and one of the two results below would be wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <cgrad/scalar.hpp>
#include <cmath>

#include "scalar_names.h"

namespace {

TEST(ScalarNames, LibraryAndUserCopiesOfFmaStayApart) {
  const cgrad_test::ScalarFma library = &cgrad::scalar::fma_, user = cgrad_test::user_fma();
  EXPECT_NE(library, user);
  // (1 + 2^-30)(1 - 2^-30) - 1 = -2^-60 exactly; the product rounded first is 1, and the sum 0.
  volatile double a = 1 + 0x1p-30, b = 1 - 0x1p-30, c = -1;
  EXPECT_EQ(library(a, b, c), -0x1p-60);
  EXPECT_EQ(library(a, b, c), std::fma(a, b, c));
  if (cgrad_test::user_build_fuses()) GTEST_SKIP() << "this target builds users' code with FMA";
  const double product = a * b;
  EXPECT_EQ(user(a, b, c), product + c);
  EXPECT_EQ(user(a, b, c), 0.0);
}

// f64 pow keeps y log|x| in two doubles through exact products, FMAs where fma_ is one; in a user's
// build without FMA they are Dekker's (scalar.hpp, two_prod_err). With fma_ rounding twice there
// instead, pow was off by 476 ulp where |y log x| nears 709.
TEST(ScalarNames, UserPowWithoutFmaKeepsItsAccuracy) {
  const cgrad_test::ScalarPow user = cgrad_test::user_pow();
  double worst = 0;
  for (int i = 0; i < 20000; ++i) {
    const double x = 0.9 + 0.2 * (i % 1000) / 1000.0 + 1e-7 * i, y = -7000.0 + 0.7 * i;
    const long double want = powl(x, y);
    const double rounded = static_cast<double>(want);
    if (!(std::fabs(rounded) >= 0x1p-1022) || std::isinf(rounded)) continue;  // normal results
    int e = 0;
    std::frexp(rounded, &e);
    worst = std::max(worst, static_cast<double>(std::fabs(user(x, y) - want) / std::ldexp(1.0L, e - 53)));
  }
  EXPECT_LE(worst, 0.65);
  EXPECT_GT(worst, 0.3);  // (the sweep rounds)
}

}  // namespace
