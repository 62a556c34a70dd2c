// cgrad::et reductions: et::sum, et::dot, et::max, et::min, et::norm_inf.
//
// A reduction is a rank-0 expression. Used on its own it converts to its value (`double s =
// et::sum(a * b);`); inside an element-wise expression it is computed when the expression is
// prepared, i.e. before the fused loop writes anything (`v = a / et::norm_inf(a)` is one
// reduction pass, then one element-wise pass, and `a = a / et::norm_inf(a)` is safe). The pass
// runs in the space of its operand (host loop or CUDA kernel) and yields a host number.
//
// Float sums accumulate in double (scalar::acc<T>); the combine functions are the scalar helpers
// of the matching element-wise ops (add, maximum, minimum), so max/min propagate NaN like the
// tensor engine. Parallel host reductions combine per-thread partials in thread order: the result
// is deterministic for a given thread count.
#pragma once

#include <cgrad/et/ops.hpp>

#include <limits>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace cgrad::et {

/// Reduction kinds: accumulator type, identity (host) and combine (host and device).
namespace reduction {
struct Sum {
  template <class T>
  using acc_t = typename ::cgrad::scalar::acc<T>::type;
  template <class A>
  static A identity() {
    return A(0);
  }
  template <class A>
  CGRAD_HD static A combine(A x, A y) {
    return ::cgrad::scalar::add(x, y);
  }
};
struct Max {
  template <class T>
  using acc_t = T;
  template <class A>
  static A identity() {
    return -std::numeric_limits<A>::infinity();
  }
  template <class A>
  CGRAD_HD static A combine(A x, A y) {
    return ::cgrad::scalar::maximum(x, y);
  }
};
struct Min {
  template <class T>
  using acc_t = T;
  template <class A>
  static A identity() {
    return std::numeric_limits<A>::infinity();
  }
  template <class A>
  CGRAD_HD static A combine(A x, A y) {
    return ::cgrad::scalar::minimum(x, y);
  }
};
/// max over abs(x): like Max, but 0 for an empty vector.
struct NormInf {
  template <class T>
  using acc_t = T;
  template <class A>
  static A identity() {
    return A(0);
  }
  template <class A>
  CGRAD_HD static A combine(A x, A y) {
    return ::cgrad::scalar::maximum(x, y);
  }
};
}  // namespace reduction

/// One reduction pass over n elements of a prepared host evaluator.
template <class Kind, class Ev>
auto reduce_in(HostSpace, Kind, const Ev& ev, std::size_t n) {
  using T = std::remove_cvref_t<decltype(ev(std::size_t{0}))>;
  using Acc = typename Kind::template acc_t<T>;
  detail::count_reduction();
  Acc r = Kind::template identity<Acc>();
#if defined(_OPENMP)
  if (n >= kParallelThreshold) {
    const int threads = omp_get_max_threads();
    std::vector<Acc> partial(static_cast<std::size_t>(threads), r);
    const auto m = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel num_threads(threads)
    {
      Acc local = Kind::template identity<Acc>();
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < m; ++i)
        local = Kind::combine(local, static_cast<Acc>(ev(static_cast<std::size_t>(i))));
      partial[static_cast<std::size_t>(omp_get_thread_num())] = local;
    }
    for (const Acc& p : partial) r = Kind::combine(r, p);
    return static_cast<T>(r);
  }
#endif
  for (std::size_t i = 0; i < n; ++i) r = Kind::combine(r, static_cast<Acc>(ev(i)));
  return static_cast<T>(r);
}

/// A reduction of a vector expression to one number (rank 0).
template <class Kind, class A>
class Reduce : public Expr<Reduce<Kind, A>> {
  static_assert(
      !A::kScalar,
      "cgrad::et: reductions (sum, dot, max, min, norm_inf) take a vector expression, not a scalar");

 public:
  using value_type = typename A::value_type;
  using space = void;  // the result is a host number, usable in any space
  static constexpr bool kScalar = true;
  static constexpr bool kStoreByReference = false;

  explicit Reduce(const A& a) : a_(a) {}
  std::size_t size() const { return 0; }
  void check_size(std::size_t) const {}
  bool overlaps_shifted(const void*, const void*) const { return false; }
  /// Runs the reduction (one pass); an expression containing it is prepared with this value.
  value_type value() const {
    const std::size_t n = a_.size();
    a_.check_size(n);
    return reduce_in(typename A::space{}, Kind{}, a_.evaluator(), n);
  }
  ScalarEval<value_type> evaluator() const { return {value()}; }
  operator value_type() const { return value(); }

 private:
  detail::stored_t<A> a_;
};

/// Sum of all elements (float accumulates in double).
template <class A>
auto sum(const Expr<A>& a) {
  return Reduce<reduction::Sum, A>(a.derived());
}
/// Sum of a * b: one pass, no temporary.
template <class A, class B>
auto dot(const Expr<A>& a, const Expr<B>& b) {
  using P = Binary<tag::Mul, A, B>;
  return Reduce<reduction::Sum, P>(P(a.derived(), b.derived()));
}
/// Largest element (-inf for an empty vector; NaN if any element is NaN).
template <class A>
auto max(const Expr<A>& a) {
  return Reduce<reduction::Max, A>(a.derived());
}
/// Smallest element (+inf for an empty vector; NaN if any element is NaN).
template <class A>
auto min(const Expr<A>& a) {
  return Reduce<reduction::Min, A>(a.derived());
}
/// Largest absolute value (0 for an empty vector).
template <class A>
auto norm_inf(const Expr<A>& a) {
  using P = Unary<tag::Abs, A>;
  return Reduce<reduction::NormInf, P>(P(a.derived()));
}

}  // namespace cgrad::et
