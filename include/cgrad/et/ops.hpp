// cgrad::et element-wise nodes: op tags generated from cgrad/ops.def, the Unary and Binary
// expression nodes, the operators `+ - * /`, unary `-`, and the math functions.
//
// Every tag's `apply` calls the scalar helper of cgrad/scalar.hpp that ops.def names for the op,
// so an op's arithmetic exists once, shared with the interpreter and the generated kernels.
// Operators take expressions on both sides or an arithmetic scalar on either side; a scalar is
// converted to the element type of the expression (a C++ scalar never widens an expression,
// as with cgrad::Tensor). Both operands of a binary node must have the same element type.
#pragma once

#include <cgrad/et/expr.hpp>

#include <utility>

namespace cgrad::et {

/// One tag per element-wise op of cgrad/ops.def (tag::Add, tag::Exp, ...).
namespace tag {
#define CGRAD_ET_TAG_Source(E, name)
#define CGRAD_ET_TAG_Reduce(E, name)
#define CGRAD_ET_TAG_Movement(E, name)
#define CGRAD_ET_TAG_Concat(E, name)
#define CGRAD_ET_TAG_Gemm(E, name)
#define CGRAD_ET_TAG_Collective(E, name)
#define CGRAD_ET_TAG_Sort(E, name)  // group sort
#define CGRAD_ET_TAG_Map(E, name)
#define CGRAD_ET_TAG_Scan(E, name)
#define CGRAD_ET_TAG_Gather(E, name)
#define CGRAD_ET_TAG_Scatter(E, name)  // scatter group
#define CGRAD_ET_TAG_Unary(E, name)             \
  struct E {                                    \
    static constexpr const char* kName = #name; \
    template <class T>                          \
    CGRAD_HD static auto apply(T x) {           \
      return ::cgrad::scalar::name(x);          \
    }                                           \
  };
#define CGRAD_ET_TAG_Binary(E, name)            \
  struct E {                                    \
    static constexpr const char* kName = #name; \
    template <class T>                          \
    CGRAD_HD static auto apply(T a, T b) {      \
      return ::cgrad::scalar::name(a, b);       \
    }                                           \
  };
#define CGRAD_ET_TAG_Ternary(E, name)           \
  struct E {                                    \
    static constexpr const char* kName = #name; \
    template <class C, class T>                 \
    CGRAD_HD static auto apply(C c, T a, T b) { \
      return ::cgrad::scalar::name(c, a, b);    \
    }                                           \
  };
#define CGRAD_OP(E, name, Kind, arity) CGRAD_ET_TAG_##Kind(E, name)
#include <cgrad/ops.def>
#undef CGRAD_OP
#undef CGRAD_ET_TAG_Source
#undef CGRAD_ET_TAG_Reduce
#undef CGRAD_ET_TAG_Movement
#undef CGRAD_ET_TAG_Concat
#undef CGRAD_ET_TAG_Gemm
#undef CGRAD_ET_TAG_Collective
#undef CGRAD_ET_TAG_Sort
#undef CGRAD_ET_TAG_Map
#undef CGRAD_ET_TAG_Scan
#undef CGRAD_ET_TAG_Gather
#undef CGRAD_ET_TAG_Scatter
#undef CGRAD_ET_TAG_Unary
#undef CGRAD_ET_TAG_Binary
#undef CGRAD_ET_TAG_Ternary

/// ops.def's Cast row, with its target type (scalar::cast<To> needs it).
template <class To>
struct CastTo {
  static constexpr const char* kName = "cast";
  template <class T>
  CGRAD_HD static To apply(T x) {
    return ::cgrad::scalar::cast<To>(x);
  }
};
}  // namespace tag

template <class Tag, class A>
struct UnaryEval {
  A a;
  CGRAD_HD auto operator()(std::size_t i) const { return Tag::apply(a(i)); }
};

template <class Tag, class A, class B>
struct BinaryEval {
  A a;
  B b;
  CGRAD_HD auto operator()(std::size_t i) const { return Tag::apply(a(i), b(i)); }
};

/// Tag::apply applied to every element of A.
template <class Tag, class A>
class Unary : public Expr<Unary<Tag, A>> {
 public:
  using value_type = decltype(Tag::apply(std::declval<typename A::value_type>()));
  using space = typename A::space;
  static constexpr bool kScalar = A::kScalar;
  static constexpr bool kStoreByReference = false;

  explicit Unary(const A& a) : a_(a) {}
  std::size_t size() const { return a_.size(); }
  void check_size(std::size_t n) const { a_.check_size(n); }
  bool overlaps_shifted(const void* b, const void* e) const { return a_.overlaps_shifted(b, e); }
  auto evaluator() const { return UnaryEval<Tag, decltype(a_.evaluator())>{a_.evaluator()}; }
  /// A rank-0 expression (built on reductions) converts to its value.
  operator value_type() const requires kScalar { return evaluator()(0); }

 private:
  detail::stored_t<A> a_;
};

/// Tag::apply applied element by element to A and B (equal sizes, or one side rank 0).
template <class Tag, class A, class B>
class Binary : public Expr<Binary<Tag, A, B>> {
  static_assert(std::is_same_v<typename A::value_type, typename B::value_type>,
                "cgrad::et: operands have different element types (e.g. Vector<float> and Vector<double>); "
                "convert one of them with et::cast<T>(expr)");

 public:
  using value_type =
      decltype(Tag::apply(std::declval<typename A::value_type>(), std::declval<typename A::value_type>()));
  using space = detail::common_space_t<typename A::space, typename B::space>;
  static constexpr bool kScalar = A::kScalar && B::kScalar;
  static constexpr bool kStoreByReference = false;

  Binary(const A& a, const B& b) : a_(a), b_(b) {}
  std::size_t size() const {
    if constexpr (!A::kScalar)
      return a_.size();
    else
      return b_.size();
  }
  void check_size(std::size_t n) const {
    a_.check_size(n);
    b_.check_size(n);
  }
  bool overlaps_shifted(const void* b, const void* e) const {
    return a_.overlaps_shifted(b, e) || b_.overlaps_shifted(b, e);
  }
  auto evaluator() const {
    // Left operand first: reductions nested on the left run before those on the right.
    auto ea = a_.evaluator();
    auto eb = b_.evaluator();
    return BinaryEval<Tag, decltype(ea), decltype(eb)>{ea, eb};
  }
  /// A rank-0 expression (built on reductions) converts to its value.
  operator value_type() const requires kScalar { return evaluator()(0); }

 private:
  detail::stored_t<A> a_;
  detail::stored_t<B> b_;
};

namespace detail {
template <class Tag, class A, class B>
Binary<Tag, A, B> make_binary(const A& a, const B& b) {
  return {a, b};
}
}  // namespace detail

// An expression with an expression, or with an arithmetic scalar on either side.
#define CGRAD_ET_BINARY_FUNCTION(fn, Tag)                                                               \
  template <class A, class B>                                                                           \
  auto fn(const Expr<A>& a, const Expr<B>& b) {                                                         \
    return detail::make_binary<tag::Tag>(a.derived(), b.derived());                                     \
  }                                                                                                     \
  template <class A, class S>                                                                           \
  requires(!is_expr_v<S>) auto fn(const Expr<A>& a, const S& s) {                                       \
    return detail::make_binary<tag::Tag>(a.derived(), detail::make_literal<typename A::value_type>(s)); \
  }                                                                                                     \
  template <class S, class B>                                                                           \
  requires(!is_expr_v<S>) auto fn(const S& s, const Expr<B>& b) {                                       \
    return detail::make_binary<tag::Tag>(detail::make_literal<typename B::value_type>(s), b.derived()); \
  }

CGRAD_ET_BINARY_FUNCTION(operator+, Add)
CGRAD_ET_BINARY_FUNCTION(operator-, Sub)
CGRAD_ET_BINARY_FUNCTION(operator*, Mul)
CGRAD_ET_BINARY_FUNCTION(operator/, Div)
/// Element-wise power.
CGRAD_ET_BINARY_FUNCTION(pow, Pow)
/// Element-wise maximum (NaN propagates, as NumPy).
CGRAD_ET_BINARY_FUNCTION(maximum, Maximum)
/// Element-wise minimum (NaN propagates, as NumPy).
CGRAD_ET_BINARY_FUNCTION(minimum, Minimum)
#undef CGRAD_ET_BINARY_FUNCTION

template <class A>
auto operator-(const Expr<A>& a) {
  return Unary<tag::Neg, A>(a.derived());
}

#define CGRAD_ET_UNARY_FUNCTION(fn, Tag)    \
  template <class A>                        \
  auto fn(const Expr<A>& a) {               \
    return Unary<tag::Tag, A>(a.derived()); \
  }
CGRAD_ET_UNARY_FUNCTION(exp, Exp)
CGRAD_ET_UNARY_FUNCTION(log, Log)
CGRAD_ET_UNARY_FUNCTION(sqrt, Sqrt)
CGRAD_ET_UNARY_FUNCTION(rsqrt, Rsqrt)
CGRAD_ET_UNARY_FUNCTION(abs, Abs)
CGRAD_ET_UNARY_FUNCTION(sin, Sin)
CGRAD_ET_UNARY_FUNCTION(cos, Cos)
CGRAD_ET_UNARY_FUNCTION(tanh, Tanh)
CGRAD_ET_UNARY_FUNCTION(sigmoid, Sigmoid)
CGRAD_ET_UNARY_FUNCTION(relu, Relu)
#undef CGRAD_ET_UNARY_FUNCTION

/// Converts every element to `To` (float or double): the way to combine float and double operands.
template <class To, class A>
auto cast(const Expr<A>& a) {
  static_assert(is_element_v<To>, "cgrad::et::cast<To>: To must be float or double");
  return Unary<tag::CastTo<To>, A>(a.derived());
}

}  // namespace cgrad::et
