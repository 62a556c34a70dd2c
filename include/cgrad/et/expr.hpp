// cgrad::et core: the CRTP expression base, the scalar leaf, evaluators, spaces and counters.
//
// An expression is split the way Eigen splits it: the *expression* (Vector, Binary, Reduce, ...)
// is a host object that holds its operands (vectors by reference, sub-expressions by value) and
// knows sizes; its *evaluator*, built by `evaluator()` right before the loop runs (the "prepare"
// step of the Alpaka design in shared/seeds), is a small trivially copyable object that computes
// element i with `ev(i)`. Building the evaluator is where reductions inside an expression run, so
// they are always complete before the fused element-wise loop starts, and where leaves fetch their
// data pointers. Evaluators are __host__ __device__, so the same tree runs in an OpenMP loop or in
// one CUDA kernel.
//
// Every expression type E provides:
//   value_type                element type (float or double)
//   space                     HostSpace, cuda::DeviceSpace, or void (no vector operand: scalars,
//                             reductions, which are computed to a host number before the loop)
//   kScalar                   true for rank-0 expressions (reductions and arithmetic on them)
//   kStoreByReference         true for containers (held by reference inside other expressions)
//   size()                    number of elements (rank-1 only)
//   check_size(n)             throws cgrad::Error(ShapeMismatch) if an element-wise operand's size != n
//   overlaps_shifted(b, e)    true if an element-wise operand overlaps [b, e) without starting at b
//   evaluator()               the prepared evaluator (runs nested reductions)
#pragma once

#include <cgrad/core.hpp>
#include <cgrad/scalar.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>

// Tells GCC that a fused loop has no loop-carried dependency, which is the aliasing rule et
// enforces (iteration i reads element i and writes element i; shifted overlaps throw), so it may
// vectorize without run-time alias checks. Not for clang: its equivalent,
// `loop vectorize(assume_safety)`, also forces vectorization and warns (-Wpass-failed) on bodies
// it cannot vectorize; clang's vectorizer adds the run-time checks itself.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define CGRAD_ET_IVDEP _Pragma("GCC ivdep")
#else
#define CGRAD_ET_IVDEP
#endif

namespace cgrad::et {

/// Element-wise loops run in parallel (OpenMP `parallel for simd`) from this many elements on,
/// when compiled with OpenMP; smaller loops run on the calling thread.
inline constexpr std::size_t kParallelThreshold = std::size_t{1} << 15;

/// Counters of the passes over memory run by et, for tests and profiling.
struct Stats {
  std::uint64_t loops = 0;       ///< fused element-wise passes (host loops and CUDA kernels)
  std::uint64_t reductions = 0;  ///< reduction passes (host loops and CUDA kernels)
};

namespace detail {
struct Counters {
  std::atomic<std::uint64_t> loops{0};
  std::atomic<std::uint64_t> reductions{0};
};
inline Counters& counters() {
  static Counters c;
  return c;
}
inline void count_loop() { counters().loops.fetch_add(1, std::memory_order_relaxed); }
inline void count_reduction() { counters().reductions.fetch_add(1, std::memory_order_relaxed); }
}  // namespace detail

/// The process-wide et counters.
inline Stats stats() {
  return {detail::counters().loops.load(std::memory_order_relaxed),
          detail::counters().reductions.load(std::memory_order_relaxed)};
}
/// Resets the et counters to zero.
inline void reset_stats() {
  detail::counters().loops.store(0, std::memory_order_relaxed);
  detail::counters().reductions.store(0, std::memory_order_relaxed);
}

/// Memory space of host containers (et::Vector).
struct HostSpace {};

/// CRTP base of every expression.
template <class Derived>
struct Expr {
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
};

template <class T>
inline constexpr bool is_expr_v = std::is_base_of_v<Expr<std::remove_cvref_t<T>>, std::remove_cvref_t<T>>;

/// Element types an et container may hold.
template <class T>
inline constexpr bool is_element_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

namespace detail {

// How an expression stores an operand: containers by reference, everything else by value.
template <class E>
using stored_t = std::conditional_t<E::kStoreByReference, const E&, E>;

// The space of an expression with operands in spaces A and B (void = no vector operand).
template <class A, class B>
struct common_space {
  static_assert(
      std::is_same_v<A, B>,
      "cgrad::et: an expression cannot mix host (et::Vector) and device (et::cuda::Vector) operands; "
      "copy one side to the other space first");
  using type = A;
};
template <class A>
struct common_space<A, void> {
  using type = A;
};
template <class B>
struct common_space<void, B> {
  using type = B;
};
template <>
struct common_space<void, void> {
  using type = void;
};
template <class A, class B>
using common_space_t = typename common_space<A, B>::type;

// True if [b, b + n) overlaps [db, de) but does not start at db: reading it while writing the
// destination element by element would read elements that were already overwritten.
template <class T>
bool overlaps_shifted(const T* b, std::size_t n, const void* db, const void* de) {
  const void* e = b + n;
  const void* bv = b;
  if (n == 0 || bv == db) return false;
  std::less<const void*> lt;
  return lt(bv, de) && lt(db, e);
}

[[noreturn]] inline void throw_size_mismatch(std::size_t operand, std::size_t expected) {
  throw Error(ErrorCode::ShapeMismatch, "cgrad::et: operand sizes differ: an operand has " +
                                            std::to_string(operand) + " elements, the expression has " +
                                            std::to_string(expected));
}

}  // namespace detail

// ---- evaluators: trivially copyable, evaluated per element on host or device ----

/// Reads element i of a contiguous array.
template <class T>
struct LeafEval {
  const T* p;
  CGRAD_HD T operator()(std::size_t i) const { return p[i]; }
};

/// A value that is the same for every element (a scalar operand or a prepared reduction).
template <class T>
struct ScalarEval {
  T v;
  CGRAD_HD T operator()(std::size_t) const { return v; }
};

/// A scalar operand (`2.0 * v`), converted to the expression's element type.
template <class T>
class Literal : public Expr<Literal<T>> {
 public:
  using value_type = T;
  using space = void;
  static constexpr bool kScalar = true;
  static constexpr bool kStoreByReference = false;

  explicit Literal(T v) : v_(v) {}
  std::size_t size() const { return 0; }
  void check_size(std::size_t) const {}
  bool overlaps_shifted(const void*, const void*) const { return false; }
  ScalarEval<T> evaluator() const { return {v_}; }
  operator T() const { return v_; }

 private:
  T v_;
};

namespace detail {

// Turns a scalar operand into a Literal of the expression's element type, with readable errors.
template <class T, class S>
Literal<T> make_literal(const S& s) {
  static_assert(std::is_arithmetic_v<S>,
                "cgrad::et: a scalar operand must be an arithmetic type (float, double, int, ...)");
  if constexpr (std::is_arithmetic_v<S>)
    return Literal<T>(static_cast<T>(s));
  else
    return Literal<T>(T(0));
}

}  // namespace detail
}  // namespace cgrad::et
