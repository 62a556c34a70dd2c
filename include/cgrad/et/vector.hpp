// cgrad::et::Vector<T>: a host vector whose assignment from an expression is one fused loop,
// and et::Segment<T>, a contiguous view of a Vector that can be read and assigned the same way.
//
// Assignment (`v = expr`, `v += expr`, construction from an expression) runs, in this order:
//   1. size check: every element-wise operand must have the expression's size, and the
//      destination must have it too, except an empty Vector, which is resized (a Segment never is);
//   2. prepare: the evaluator is built; reductions inside the expression run here, so they see
//      the destination's old values even when they read it;
//   3. one loop writing dst[i] = ev(i) (OpenMP `parallel for simd` from kParallelThreshold
//      elements on when compiled with OpenMP, `parallel for` with clang; else a plain loop).
// Aliasing: iteration i reads only element i of each operand and then writes element i of the
// destination, so the destination may appear in the expression (`a = a + b`, `a = 2 * a`): no
// iteration (and no SIMD lane group, which loads before it stores) reads an element another has
// written. A view that overlaps the destination without starting at the same address would break
// this; it is detected and throws cgrad::Error(InvalidOperation) before anything is written.
// Copying a Vector copies its values (value semantics) and may change its size, like std::vector.
#pragma once

#include <cgrad/et/reduce.hpp>

#include <algorithm>
#include <initializer_list>
#include <new>
#include <tuple>
#include <utility>
#include <vector>

namespace cgrad::et {

template <class T>
class Segment;

namespace detail {

// Storage of et::Vector: 64-byte aligned (a cache line, an AVX-512 register), so that the fused
// loops' vector loads and stores never straddle two cache lines. With std::allocator's 16-byte
// alignment every 64-byte access of a memory-bound loop did, which cost et 1.3-1.6x against the
// hand loops of bench_odeint (perf: the stores of the right-hand side loop).
template <class T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr std::size_t kAlignment = 64;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kAlignment}));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete (p, std::align_val_t{kAlignment}); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const noexcept {
    return true;
  }
};

// One fused loop over [0, n): body(i) for every i, on the OpenMP threads when n is large.
template <class Body>
void for_each_index(std::size_t n, const Body& body) {
  count_loop();
#if defined(_OPENMP)
  if (n >= kParallelThreshold) {
    const auto m = static_cast<std::ptrdiff_t>(n);
#if defined(__clang__)
    // clang turns `simd` into a hard request and warns (-Wpass-failed, not scopable by a pragma)
    // when a body cannot be vectorized (libm calls); its loop vectorizer still runs without it.
#pragma omp parallel for schedule(static)
#else
#pragma omp parallel for simd schedule(static)
#endif
    for (std::ptrdiff_t i = 0; i < m; ++i) body(static_cast<std::size_t>(i));
    return;
  }
#endif
  CGRAD_ET_IVDEP
  for (std::size_t i = 0; i < n; ++i) body(i);
}

// The fused loop: one pass writing dst[i] = ev(i).
template <class T, class Ev>
void host_loop(T* dst, std::size_t n, const Ev ev) {
  for_each_index(n, [&](std::size_t i) { dst[i] = ev(i); });
}

template <class T, class E>
constexpr void check_assignable() {
  static_assert(
      std::is_same_v<typename E::value_type, T>,
      "cgrad::et: cannot assign an expression of another element type (e.g. double to Vector<float>); "
      "convert it with et::cast<T>(expr)");
  static_assert(
      std::is_same_v<typename E::space, HostSpace> || std::is_same_v<typename E::space, void>,
      "cgrad::et: cannot assign a device expression to a host et::Vector; use cuda::Vector::to_vector()");
}

// Steps 1-3 above. `dest(n)` returns the destination pointer for n elements; a Vector resizes
// itself there when it is empty (after prepare, so reductions over it saw its old state).
template <class T, class E, class Dest>
void assign(const E& x, std::size_t dst_size, bool resizable, const char* what, Dest&& dest) {
  check_assignable<T, E>();
  if constexpr (E::kScalar) {
    const auto ev = x.evaluator();
    host_loop(dest(dst_size), dst_size, ev);
  } else {
    const std::size_t n = x.size();
    x.check_size(n);
    if (n != dst_size && !(resizable && dst_size == 0))
      throw Error(ErrorCode::ShapeMismatch, std::string("cgrad::et: cannot assign an expression of size ") +
                                                std::to_string(n) + " to a " + what + " of size " +
                                                std::to_string(dst_size) +
                                                (resizable ? " (only an empty Vector is resized)" : ""));
    const auto ev = x.evaluator();  // prepare: nested reductions run here, before any write
    T* d = dest(n);
    if (x.overlaps_shifted(d, d + n))
      throw Error(ErrorCode::InvalidOperation,
                  "cgrad::et: the destination overlaps a shifted view of itself in the expression; "
                  "evaluate the expression into a separate Vector first");
    host_loop(d, n, ev);
  }
}

}  // namespace detail

/// A host vector of float or double; `operator=` runs an expression as one fused loop.
template <class T>
class Vector : public Expr<Vector<T>> {
  static_assert(is_element_v<T>, "cgrad::et::Vector<T>: T must be float or double");

 public:
  using value_type = T;
  using space = HostSpace;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;
  static constexpr bool kScalar = false;
  static constexpr bool kStoreByReference = true;

  Vector() = default;
  /// n elements equal to `value`.
  explicit Vector(std::size_t n, T value = T(0)) : data_(n, value) {}
  explicit Vector(const std::vector<T>& values) : data_(values.begin(), values.end()) {}
  Vector(std::initializer_list<T> values) : data_(values) {}
  /// Evaluates `e` (one loop) into a new Vector of its size.
  template <class E>
  Vector(const Expr<E>& e) {
    static_assert(!E::kScalar,
                  "cgrad::et: cannot construct a Vector from a scalar expression (a reduction); "
                  "assign it to a T or fill a sized Vector instead");
    *this = e;
  }
  Vector(const Vector&) = default;
  Vector(Vector&&) noexcept = default;
  Vector& operator=(const Vector&) = default;
  Vector& operator=(Vector&&) noexcept = default;
  ~Vector() = default;

  /// Runs `e` as one fused loop (see the file comment for the size and aliasing rules). A rank-0
  /// expression (a reduction) fills the Vector, keeping its size.
  template <class E>
  Vector& operator=(const Expr<E>& e) {
    detail::assign<T>(e.derived(), size(), /*resizable=*/true, "Vector", [this](std::size_t n) {
      if (data_.empty()) data_.resize(n);
      return data_.data();
    });
    return *this;
  }
  /// `v op= r` is `v = v op r`: one loop. r is an expression or an arithmetic scalar.
  template <class R>
  Vector& operator+=(const R& r) {
    return *this = *this + r;
  }
  template <class R>
  Vector& operator-=(const R& r) {
    return *this = *this - r;
  }
  template <class R>
  Vector& operator*=(const R& r) {
    return *this = *this * r;
  }
  template <class R>
  Vector& operator/=(const R& r) {
    return *this = *this / r;
  }

  std::size_t size() const { return data_.size(); }
  bool empty() const { return data_.empty(); }
  /// Keeps the first min(n, size()) elements; new elements are zero.
  void resize(std::size_t n) { data_.resize(n); }
  void fill(T value) { std::fill(data_.begin(), data_.end(), value); }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size(); }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size(); }
  std::vector<T> to_vector() const { return std::vector<T>(data_.begin(), data_.end()); }

  /// Elements [offset, offset + count) as a view (throws InvalidArgument when out of range).
  Segment<T> segment(std::size_t offset, std::size_t count) { return Segment<T>(*this, offset, count); }
  Segment<const T> segment(std::size_t offset, std::size_t count) const {
    return Segment<const T>(*this, offset, count);
  }

  // ---- expression interface ----
  void check_size(std::size_t n) const {
    if (size() != n) detail::throw_size_mismatch(size(), n);
  }
  bool overlaps_shifted(const void* b, const void* e) const {
    return detail::overlaps_shifted(data(), size(), b, e);
  }
  LeafEval<T> evaluator() const { return {data()}; }

 private:
  std::vector<T, detail::AlignedAllocator<T>> data_;
};

/// A contiguous view [offset, offset + count) of a Vector (Segment<const T> is read-only).
/// Copying a Segment copies the view; assigning to one writes the parent's elements.
template <class T>
class Segment : public Expr<Segment<T>> {
 public:
  using value_type = std::remove_const_t<T>;
  using parent_type = std::conditional_t<std::is_const_v<T>, const Vector<value_type>, Vector<value_type>>;
  using space = HostSpace;
  static constexpr bool kScalar = false;
  static constexpr bool kStoreByReference = false;

  Segment(parent_type& parent, std::size_t offset, std::size_t count)
      : parent_(&parent), offset_(offset), count_(count) {
    check_range();
  }
  Segment(const Segment&) = default;
  ~Segment() = default;
  /// Writes the values of `o` into this view (one loop).
  Segment& operator=(const Segment& o) { return assign(o); }
  template <class E>
  Segment& operator=(const Expr<E>& e) {
    return assign(e.derived());
  }
  template <class R>
  Segment& operator+=(const R& r) {
    return assign(*this + r);
  }
  template <class R>
  Segment& operator-=(const R& r) {
    return assign(*this - r);
  }
  template <class R>
  Segment& operator*=(const R& r) {
    return assign(*this * r);
  }
  template <class R>
  Segment& operator/=(const R& r) {
    return assign(*this / r);
  }

  std::size_t size() const { return count_; }
  T* data() const {
    check_range();
    return parent_->data() + offset_;
  }
  T& operator[](std::size_t i) const { return parent_->data()[offset_ + i]; }

  // ---- expression interface ----
  void check_size(std::size_t n) const {
    if (count_ != n) detail::throw_size_mismatch(count_, n);
  }
  bool overlaps_shifted(const void* b, const void* e) const {
    return detail::overlaps_shifted(data(), count_, b, e);
  }
  LeafEval<value_type> evaluator() const { return {data()}; }

 private:
  template <class E>
  Segment& assign(const E& x) {
    static_assert(!std::is_const_v<T>,
                  "cgrad::et: cannot assign to a read-only Segment (a segment of a const Vector)");
    if constexpr (!std::is_const_v<T>)
      detail::assign<value_type>(x, count_, /*resizable=*/false, "Segment",
                                 [this](std::size_t) { return data(); });
    return *this;
  }
  void check_range() const {
    if (offset_ > parent_->size() || count_ > parent_->size() - offset_)
      throw Error(ErrorCode::InvalidArgument,
                  "cgrad::et: segment [" + std::to_string(offset_) + ", " + std::to_string(offset_ + count_) +
                      ") is out of range for a Vector of size " + std::to_string(parent_->size()));
  }

  parent_type* parent_;
  std::size_t offset_;
  std::size_t count_;
};

namespace detail {

template <class D>
struct is_destination : std::false_type {};
template <class T>
struct is_destination<Vector<T>> : std::true_type {};
template <class T>
struct is_destination<Segment<T>> : std::bool_constant<!std::is_const_v<T>> {};

// True if a destination [b, e) overlaps a shifted view of itself in any of the expressions.
template <class Args, std::size_t... J>
bool overlaps_any(const Args& args, const void* b, const void* e, std::index_sequence<J...>) {
  return (std::get<2 * J + 1>(args).overlaps_shifted(b, e) || ...);
}

template <class Args, std::size_t... K>
void assign_all(Args&& args, std::index_sequence<K...> ks) {
  auto& first = std::get<0>(args);
  const std::size_t n = first.size();
  (
      [&] {
        using D = std::remove_cvref_t<std::tuple_element_t<2 * K, std::remove_cvref_t<Args>>>;
        using E = std::remove_cvref_t<std::tuple_element_t<2 * K + 1, std::remove_cvref_t<Args>>>;
        static_assert(is_destination<D>::value,
                      "cgrad::et::assign_all: destinations (arguments 1, 3, 5, ...) must be et::Vector or "
                      "writable et::Segment objects");
        static_assert(is_expr_v<E> && !E::kScalar,
                      "cgrad::et::assign_all: values (arguments 2, 4, 6, ...) must be element-wise et "
                      "expressions; fill with a reduction through operator=");
        check_assignable<typename D::value_type, E>();
        const auto& d = std::get<2 * K>(args);
        const auto& e = std::get<2 * K + 1>(args);
        if (d.size() != n) throw_size_mismatch(d.size(), n);
        e.check_size(n);
      }(),
      ...);
  const auto evs = std::make_tuple(std::get<2 * K + 1>(args).evaluator()...);  // prepare: reductions run here
  const auto dst = std::make_tuple(std::get<2 * K>(args).data()...);
  (
      [&] {
        auto* d = std::get<K>(dst);
        if (overlaps_any(args, d, d + n, ks))
          throw Error(ErrorCode::InvalidOperation,
                      "cgrad::et::assign_all: a destination overlaps a shifted view of itself in one of the "
                      "expressions; evaluate that expression into a separate Vector first");
      }(),
      ...);
  for_each_index(n, [&](std::size_t i) {
    const auto values = std::make_tuple(std::get<K>(evs)(i)...);  // all reads of i before any write
    ((std::get<K>(dst)[i] = std::get<K>(values)), ...);
  });
}

}  // namespace detail

/// Several assignments of one size run as one fused loop (one pass over memory):
/// `et::assign_all(dst0, expr0, dst1, expr1, ...)`, e.g. the components of a right-hand side
/// written into segments of one derivative vector. Destinations are Vectors or writable Segments,
/// all of the expressions' size (never resized; a size mismatch throws before anything is
/// written). Reductions inside the expressions run first. Every value of element i is computed
/// before any is stored, so each destination may appear in any expression at the same index;
/// a shifted overlap throws, as in operator=.
template <class... A>
void assign_all(A&&... args) {
  static_assert(sizeof...(A) >= 2 && sizeof...(A) % 2 == 0,
                "cgrad::et::assign_all takes pairs: destination, expression, destination, expression, ...");
  detail::assign_all(std::forward_as_tuple(args...), std::make_index_sequence<sizeof...(A) / 2>{});
}

}  // namespace cgrad::et
