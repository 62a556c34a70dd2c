// Shared pieces of the Boost.Odeint adaptation of cgrad types: the odeint headers that the
// adaptations specialize, and the "true" type that odeint's is_resizeable expects (boost's up to
// Boost 1.85, std's from 1.86 on, when odeint moved to std type traits).
#pragma once

#include <boost/version.hpp>

#include <boost/numeric/odeint/algebra/algebra_dispatcher.hpp>
#include <boost/numeric/odeint/algebra/vector_space_algebra.hpp>
#include <boost/numeric/odeint/util/copy.hpp>
#include <boost/numeric/odeint/util/is_resizeable.hpp>
#include <boost/numeric/odeint/util/resize.hpp>
#include <boost/numeric/odeint/util/same_size.hpp>
#include <boost/numeric/odeint/util/unit_helper.hpp>

#include <type_traits>

#if BOOST_VERSION < 108600
#include <boost/type_traits/integral_constant.hpp>
#endif

namespace cgrad::odeint_detail {

#if BOOST_VERSION >= 108600
using resizeable_true = std::true_type;
#else
using resizeable_true = boost::true_type;
#endif

}  // namespace cgrad::odeint_detail
