// Boost.Odeint support for cgrad::et::Vector<T> (and, under nvcc, et::cuda::Vector<T>): odeint
// uses vector_space_algebra for them, so every algebra operation of a stepper (scale_sum2 ...
// scale_sum14, rel_error) is one et expression assigned to a state: one fused loop (one kernel).
//
// What odeint needs and where it comes from:
//   state = expr, scalar * state, state + state, scalar + state, state / state, state *= scalar,
//   abs(state) found by ADL: cgrad::et operators and functions;
//   norm_inf (error control): vector_space_norm_inf below, one reduction pass;
//   is_resizeable / same_size / resize / copy: below (resize keeps odeint's temporaries the
//   state's size; copy is a value copy);
//   value_type (integrate()): Vector<T>::value_type.
// get_unit_value is specialized to return a reference, so that rel_error does not copy the three
// states it reads (odeint's default returns by value, which for a vector is a full copy).
#pragma once

#include <cgrad/et.hpp>
#include <cgrad/odeint/traits.hpp>

namespace boost::numeric::odeint {

#define CGRAD_ODEINT_ET_CONTAINER(V)                                                     \
  template <class T>                                                                     \
  struct is_resizeable<V<T>> {                                                           \
    using type = ::cgrad::odeint_detail::resizeable_true;                                \
    static const bool value = type::value;                                               \
  };                                                                                     \
  template <class T>                                                                     \
  struct same_size_impl<V<T>, V<T>> {                                                    \
    static bool same_size(const V<T>& a, const V<T>& b) { return a.size() == b.size(); } \
  };                                                                                     \
  template <class T>                                                                     \
  struct resize_impl<V<T>, V<T>> {                                                       \
    static void resize(V<T>& a, const V<T>& b) { a.resize(b.size()); }                   \
  };                                                                                     \
  template <class T>                                                                     \
  struct copy_impl<V<T>, V<T>> {                                                         \
    static void copy(const V<T>& from, V<T>& to) { to = from; }                          \
  };                                                                                     \
  template <class T>                                                                     \
  struct vector_space_norm_inf<V<T>> {                                                   \
    using result_type = T;                                                               \
    result_type operator()(const V<T>& x) const { return ::cgrad::et::norm_inf(x); }     \
  };                                                                                     \
  template <class T>                                                                     \
  struct algebra_dispatcher<V<T>> {                                                      \
    using algebra_type = vector_space_algebra;                                           \
  };                                                                                     \
  namespace detail {                                                                     \
  template <class T>                                                                     \
  struct get_unit_value_impl<V<T>> {                                                     \
    static const V<T>& value(const V<T>& t) { return t; }                                \
    using result_type = const V<T>&;                                                     \
  };                                                                                     \
  }

CGRAD_ODEINT_ET_CONTAINER(::cgrad::et::Vector)
#if defined(__CUDACC__)
CGRAD_ODEINT_ET_CONTAINER(::cgrad::et::cuda::Vector)
#endif
#undef CGRAD_ODEINT_ET_CONTAINER

}  // namespace boost::numeric::odeint
