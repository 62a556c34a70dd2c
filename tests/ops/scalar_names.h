// The user's copy of scalar::fma_ (scalar_names_user.cpp), for test_scalar_names.cpp.
#pragma once

namespace cgrad_test {

using ScalarFma = double (*)(double, double, double);
ScalarFma user_fma();     ///< &cgrad::scalar::fma_ where a user's program takes it
bool user_build_fuses();  ///< whether that program has FMA instructions (then fma_ rounds once there too)

}  // namespace cgrad_test
