// The library's scalar helpers keep their own names (include/cgrad/scalar.hpp, "the helpers'
// names"): a user's program that includes <cgrad/scalar.hpp> without FMA instructions gets an
// fma_ that rounds twice, and the linker must not make it the library's. Both copies are taken
// by address, so each is emitted out of line whatever the build inlines: under a single name the
// linker would keep one of them for both, and one of the two results below would be wrong.
#include <gtest/gtest.h>

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

}  // namespace
