// Boost.Odeint support for cgrad::Tensor: odeint uses vector_space_algebra for it, so each
// algebra operation of a stepper is one lazy Tensor expression (`x = 1.0 * x + dt * k1`), which
// the engine fuses into one kernel when it is evaluated.
//
// Tensor already has what vector_space_algebra's operations call: `+ - * /` with tensors and
// scalars on either side, `*=`, `abs` (found by ADL), and `operator=`, which rebinds the handle
// without touching other handles (copy-on-write), so odeint's copies behave as values. Added
// here: the resize traits (a default-constructed Tensor is undefined, so odeint must resize its
// temporaries, to zeros of the state's shape, dtype and device), copy (a handle copy),
// norm_inf (max(abs(x)), evaluated, as a double), and the algebra choice.
// Tensor has no `value_type` member (its element type is a run-time dtype), and odeint's plain
// integrate(system, x, t0, t1, dt [, observer]) reads State::value_type to pick the coefficient type
// of the controlled dopri5 it runs. Overloads below for Tensor states make that call work as
// written, with double coefficients (the state keeps its dtype: an f32 state stays f32);
// integrate<double>(...) keeps working. The other integrate_* functions take a stepper and need no
// value_type.
#pragma once

#include <cgrad/odeint/traits.hpp>
#include <cgrad/tensor.hpp>

#include <boost/numeric/odeint/integrate/integrate.hpp>

#include <cstddef>

namespace boost::numeric::odeint {

template <>
struct is_resizeable<::cgrad::Tensor> {
  using type = ::cgrad::odeint_detail::resizeable_true;
  static const bool value = type::value;
};

template <>
struct same_size_impl<::cgrad::Tensor, ::cgrad::Tensor> {
  static bool same_size(const ::cgrad::Tensor& a, const ::cgrad::Tensor& b) {
    return a.defined() && b.defined() && a.shape() == b.shape() && a.dtype() == b.dtype() &&
           a.device() == b.device();
  }
};

template <>
struct resize_impl<::cgrad::Tensor, ::cgrad::Tensor> {
  static void resize(::cgrad::Tensor& a, const ::cgrad::Tensor& b) {
    a = ::cgrad::zeros(b.shape(), b.dtype(), b.device());
  }
};

template <>
struct copy_impl<::cgrad::Tensor, ::cgrad::Tensor> {
  static void copy(const ::cgrad::Tensor& from, ::cgrad::Tensor& to) { to = from; }
};

template <>
struct vector_space_norm_inf<::cgrad::Tensor> {
  using result_type = double;
  result_type operator()(const ::cgrad::Tensor& x) const {
    return ::cgrad::max(::cgrad::abs(x)).item<double>();
  }
};

template <>
struct algebra_dispatcher<::cgrad::Tensor> {
  using algebra_type = vector_space_algebra;
};

template <class System, class Time, class Observer>
std::size_t integrate(System system, ::cgrad::Tensor& start_state, Time start_time, Time end_time, Time dt,
                      Observer observer) {
  return integrate<double>(system, start_state, start_time, end_time, dt, observer);
}

template <class System, class Time>
std::size_t integrate(System system, ::cgrad::Tensor& start_state, Time start_time, Time end_time, Time dt) {
  return integrate<double>(system, start_state, start_time, end_time, dt);
}

}  // namespace boost::numeric::odeint
