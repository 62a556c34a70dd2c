// A translation unit built as a user's program builds it: <cgrad/scalar.hpp> without
// CGRAD_SCALAR_EXACT_FMA (test_ops gets that from cgrad_internal, like the library) and, on
// x86-64, without FMA instructions (-mno-fma in CMakeLists.txt), so its fma_ is a * b + c,
// rounded twice. test_scalar_names.cpp checks that the library's copy keeps its own name.
#undef CGRAD_SCALAR_EXACT_FMA
#include <cgrad/scalar.hpp>

#include "scalar_names.h"

namespace cgrad_test {

ScalarFma user_fma() { return &cgrad::scalar::fma_; }

ScalarPow user_pow() { return &cgrad::scalar::pow_f64; }

bool user_build_fuses() {
#if defined(__FMA__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

}  // namespace cgrad_test
