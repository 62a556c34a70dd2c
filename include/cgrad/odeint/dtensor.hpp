// Boost.Odeint support for cgrad::dist::DTensor, the way Boost.Odeint's own MPI backend
// (mpi_state) does it: each process steps its shard of the state with vector_space_algebra (every
// algebra operation is a lazy expression on the local block, fused as for Tensor), and the one
// global quantity, norm_inf for step-size control, is the local max(abs(x)) followed by a max
// all-reduce, so every process takes the same steps as a single process on the whole state.
// Include after <cgrad/odeint.hpp>; link cgrad::dist to run over MPI (docs/distributed.md).
#pragma once

#include <cgrad/dist.hpp>
#include <cgrad/odeint/traits.hpp>

#include <boost/numeric/odeint/integrate/integrate.hpp>

#include <cstddef>

namespace boost::numeric::odeint {

template <>
struct is_resizeable<::cgrad::dist::DTensor> {
  using type = ::cgrad::odeint_detail::resizeable_true;
  static const bool value = type::value;
};

template <>
struct same_size_impl<::cgrad::dist::DTensor, ::cgrad::dist::DTensor> {
  static bool same_size(const ::cgrad::dist::DTensor& a, const ::cgrad::dist::DTensor& b) {
    return a.defined() && b.defined() && a.shape() == b.shape() && a.axis() == b.axis() &&
           a.dtype() == b.dtype() && a.local().device() == b.local().device();
  }
};

template <>
struct resize_impl<::cgrad::dist::DTensor, ::cgrad::dist::DTensor> {
  static void resize(::cgrad::dist::DTensor& a, const ::cgrad::dist::DTensor& b) {
    a = ::cgrad::dist::DTensor(::cgrad::zeros(b.local().shape(), b.dtype(), b.local().device()), b.axis(),
                               b.shape());
  }
};

template <>
struct copy_impl<::cgrad::dist::DTensor, ::cgrad::dist::DTensor> {
  static void copy(const ::cgrad::dist::DTensor& from, ::cgrad::dist::DTensor& to) { to = from; }
};

template <>
struct vector_space_norm_inf<::cgrad::dist::DTensor> {
  using result_type = double;
  // Every process must call it (odeint does: the steppers run the same code everywhere).
  result_type operator()(const ::cgrad::dist::DTensor& x) const {
    return ::cgrad::dist::max(::cgrad::dist::abs(x)).item<double>();
  }
};

template <>
struct algebra_dispatcher<::cgrad::dist::DTensor> {
  using algebra_type = vector_space_algebra;
};

template <class System, class Time, class Observer>
std::size_t integrate(System system, ::cgrad::dist::DTensor& start_state, Time start_time, Time end_time,
                      Time dt, Observer observer) {
  return integrate<double>(system, start_state, start_time, end_time, dt, observer);
}

template <class System, class Time>
std::size_t integrate(System system, ::cgrad::dist::DTensor& start_state, Time start_time, Time end_time,
                      Time dt) {
  return integrate<double>(system, start_state, start_time, end_time, dt);
}

}  // namespace boost::numeric::odeint
