/// Boost.Odeint support for cgrad: `#include <cgrad/odeint.hpp>` makes cgrad::et::Vector<T> and
/// cgrad::Tensor odeint state types that use vector_space_algebra (odeint picks it for them by
/// default), for the explicit steppers, the controlled and dense-output Runge-Kutta steppers,
/// Bulirsch-Stoer, Adams-Bashforth and the integrate_* functions. See docs/odeint.md, also for
/// the steppers that are not supported (implicit ones and controlled Adams-Bashforth-Moulton).
#pragma once

#include <boost/numeric/odeint.hpp>

#include <cgrad/odeint/et_vector.hpp>
#include <cgrad/odeint/tensor.hpp>
