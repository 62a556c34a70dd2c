// The user's copies of scalar::fma_ and scalar::pow_f64 (scalar_names_user.cpp), for test_scalar_names.cpp.
#pragma once

namespace cgrad_test {

using ScalarFma = double (*)(double, double, double);
using ScalarPow = double (*)(double, double);
ScalarFma user_fma();     ///< &cgrad::scalar::fma_ where a user's program takes it
ScalarPow user_pow();     ///< &cgrad::scalar::pow_f64 there (its exact products without FMA: Dekker's)
bool user_build_fuses();  ///< whether that program has FMA instructions (then fma_ rounds once there too)

}  // namespace cgrad_test
