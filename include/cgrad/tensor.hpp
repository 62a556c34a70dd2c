/// cgrad::Tensor: a cheap, copyable handle to a lazy value in the computation graph.
#pragma once

#include <cgrad/core.hpp>

#include <atomic>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cgrad {

namespace ir {
struct Node;
}
namespace detail {
struct Var;
}

/// A C++ number used as an operand. It never widens a tensor's dtype within its category
/// (int tensor + int scalar stays int, f32 tensor + double scalar stays f32); a float scalar
/// with an integer tensor gives f32, PyTorch-style.
struct Scalar {
  enum class Kind { Bool, Int, Float };
  Kind kind = Kind::Float;
  double f = 0;
  int64_t i = 0;
  Scalar(bool v) : kind(Kind::Bool), f(v), i(v) {}
  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) Scalar(T v)
      : kind(Kind::Int), f(static_cast<double>(v)), i(static_cast<int64_t>(v)) {}
  template <class T>
  requires std::is_floating_point_v<T> Scalar(T v)
      : kind(Kind::Float), f(static_cast<double>(v)), i(int_part(static_cast<double>(v))) {}

 private:
  // The integer view of a float scalar; 0 where the conversion would be undefined.
  static int64_t int_part(double v) {
    return v == v && v > -9.2e18 && v < 9.2e18 ? static_cast<int64_t>(v) : 0;
  }
};

struct float16_t;   // defined in cgrad/scalar.hpp
struct bfloat16_t;  // defined in cgrad/scalar.hpp
template <class R>
struct complex_t;  // defined in cgrad/scalar.hpp (complex group)
using complex64_t = complex_t<float>;
using complex128_t = complex_t<double>;

/// The dtype of host C++ type T (float -> f32, uint8_t -> u8, float16_t -> f16, ...).
template <class T>
struct dtype_of;
#define CGRAD_DTYPE(E, Kind, bytes, Host, ctype, Compute) \
  template <>                                             \
  struct dtype_of<Host> {                                 \
    static constexpr DType value = DType::E;              \
  };
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE

class Tensor {
 public:
  /// An undefined handle; every op on it throws InvalidArgument. Assign a tensor to it first.
  Tensor();
  explicit Tensor(std::shared_ptr<ir::Node> node);

  // ---- queries (never evaluate) ----
  bool defined() const;
  const Shape& shape() const;
  DType dtype() const;
  Device device() const;
  int64_t numel() const;
  int64_t ndim() const;
  bool is_evaluated() const;

  // ---- evaluation ----
  /// Realizes this tensor (computes it if needed) and returns it.
  Tensor& eval();
  const Tensor& eval() const;
  /// Evaluates if needed and copies the elements, row-major, converted to T.
  template <class T>
  std::vector<T> to_vector() const {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
      std::vector<unsigned char> bytes(static_cast<std::size_t>(numel()));
      read_into(bytes.data(), DType::b8, bytes.size());
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> out(static_cast<std::size_t>(numel()));
      read_into(out.data(), dtype_of<T>::value, out.size());
      return out;
    }
  }
  /// The single element of a one-element tensor, converted to T.
  template <class T>
  T item() const {
    T v{};
    read_item(&v, dtype_of<T>::value);
    return v;
  }
  /// A copy of this tensor on `device` (the same handle's value when it is already there).
  Tensor to(Device device) const;
  /// A copy of this tensor's value in a buffer of its own on the same device, bit for bit (-0.0
  /// and NaN payloads kept): evaluates the tensor first. Later writes to memory the tensor was
  /// imported from (DLPack) do not reach the copy. Gradients flow through it as through `to`.
  Tensor clone() const;
  Tensor cast(DType dtype) const;

  // ---- reductions as methods ----
  Tensor sum(std::vector<int64_t> axes = {}, bool keepdim = false) const;
  Tensor mean(std::vector<int64_t> axes = {}, bool keepdim = false) const;
  Tensor max(std::vector<int64_t> axes = {}, bool keepdim = false) const;
  Tensor min(std::vector<int64_t> axes = {}, bool keepdim = false) const;

  // ---- movement (views, no copy) ----
  Tensor reshape(Shape shape) const;
  Tensor permute(std::vector<int64_t> dims) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor T() const;
  Tensor expand(Shape shape) const;
  Tensor slice(int64_t dim, int64_t start, int64_t stop, int64_t step = 1) const;

  /// In-place update: this tensor and every handle copied from it take the value of `expr`
  /// (same shape and dtype, else an error) at their next evaluation. Tensors derived from this
  /// one before the call keep the value they were built from.
  Tensor& assign(const Tensor& expr);

  // ---- compound assignment rebinds this handle only (copy-on-write) ----
  Tensor& operator+=(const Tensor& o);
  Tensor& operator-=(const Tensor& o);
  Tensor& operator*=(const Tensor& o);
  Tensor& operator/=(const Tensor& o);
  Tensor& operator+=(Scalar o);
  Tensor& operator-=(Scalar o);
  Tensor& operator*=(Scalar o);
  Tensor& operator/=(Scalar o);

  // ---- autograd (docs/autograd.md) ----
  /// Marks this tensor as a leaf whose gradient backward() accumulates into grad(). Only
  /// floating tensors can require a gradient; a tensor computed from one that requires a
  /// gradient is not a leaf and cannot be marked (InvalidOperation). The flag survives
  /// assign(): the assigned value becomes the new leaf.
  Tensor& requires_grad(bool on);
  /// True for a leaf marked with requires_grad(true) and for values computed from one.
  bool requires_grad() const;
  /// False only for a value computed from a tensor that requires a gradient (PyTorch's is_leaf):
  /// a marked leaf and every tensor outside the gradient graph are leaves.
  bool is_leaf() const;
  /// The accumulated gradient of a leaf (a lazy tensor); undefined before any backward().
  Tensor grad() const;
  /// Drops the accumulated gradient (grad() becomes undefined).
  void clear_grad();
  /// Reverse-mode differentiation of this one-element tensor: adds d(this)/d(leaf) to the
  /// grad() of every leaf it depends on. The gradients are lazy and fuse like any graph.
  void backward() const;
  /// The same value, cut from the gradient graph (requires_grad() is false).
  Tensor detach() const;

  /// The graph node this handle currently points to (library internals and tools).
  const std::shared_ptr<ir::Node>& node() const;

 private:
  void read_into(void* dst, DType as, std::size_t count) const;
  void read_item(void* dst, DType as) const;
  std::shared_ptr<detail::Var> var_;
};

// ---- factories ----
Tensor tensor(std::vector<float> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<double> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<int32_t> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<int64_t> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<int8_t> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<int16_t> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<uint8_t> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<uint16_t> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<uint32_t> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<uint64_t> data, Shape shape, Device device = Device::cpu());
/// f16 and bf16 tensors from their element types (include <cgrad/scalar.hpp> for them).
Tensor tensor(std::vector<float16_t> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<bfloat16_t> data, Shape shape, Device device = Device::cpu());
/// A b8 tensor from 0/1 values.
Tensor tensor(std::vector<bool> data, Shape shape, Device device = Device::cpu());
/// c64 and c128 tensors from their element types (complex group; include <cgrad/scalar.hpp>).
Tensor tensor(std::vector<complex64_t> data, Shape shape, Device device = Device::cpu());
Tensor tensor(std::vector<complex128_t> data, Shape shape, Device device = Device::cpu());
/// re + i im (complex group): c64 from f32 parts (f16, bf16, integers too), c128 from f64 parts;
/// the parts are promoted and broadcast as for a binary function.
Tensor complex(const Tensor& re, const Tensor& im);
Tensor zeros(Shape shape, DType dtype = f32, Device device = Device::cpu());
Tensor ones(Shape shape, DType dtype = f32, Device device = Device::cpu());
Tensor full(Shape shape, double value, DType dtype = f32, Device device = Device::cpu());
Tensor arange(int64_t n, DType dtype = f32, Device device = Device::cpu());
/// A random stream of its own: a seed and a draw counter. Each rand/randn that takes it draws
/// with the seed mix64(seed ^ mix64(counter++)), as the global stream (manual_seed) does from its
/// own pair, so a Generator is deterministic for its seed and call order and independent of the
/// global stream and of other generators. Thread-safe (the counter is atomic). A copy snapshots
/// the (seed, counter) pair and then advances on its own: it repeats the original's next draws.
class Generator {
 public:
  explicit constexpr Generator(uint64_t seed = 0x5eedULL) noexcept : seed_(seed) {}
  Generator(const Generator& o) noexcept : seed_(o.seed()), counter_(o.counter()) {}
  Generator& operator=(const Generator& o) noexcept;
  /// Restarts the stream: seed s, counter 0.
  void manual_seed(uint64_t s) noexcept;
  /// Puts the stream at (seed, counter), a state read from seed() and counter() before (a
  /// checkpoint): the draws that followed that state follow again.
  void set_state(uint64_t seed, uint64_t counter) noexcept;
  uint64_t seed() const noexcept { return seed_.load(); }
  /// How many tensors it has drawn since seeded.
  uint64_t counter() const noexcept { return counter_.load(); }
  /// The seed of the next tensor drawn (advances the counter).
  uint64_t next_seed() noexcept;

 private:
  std::atomic<uint64_t> seed_;
  std::atomic<uint64_t> counter_{0};
};

/// Uniform in [0, 1). Deterministic for a given manual_seed and call order.
Tensor rand(Shape shape, DType dtype = f32, Device device = Device::cpu());
/// Standard normal.
Tensor randn(Shape shape, DType dtype = f32, Device device = Device::cpu());
/// rand and randn from gen's stream (the global stream does not move).
Tensor rand(Shape shape, DType dtype, Device device, Generator& gen);
Tensor randn(Shape shape, DType dtype, Device device, Generator& gen);
/// Restarts the global stream: seed, counter 0.
void manual_seed(uint64_t seed);
/// The global stream (rand and randn without a Generator): its seed() and counter() are its
/// state, and set_state() puts one back (PyTorch's get_rng_state/set_rng_state).
Generator& default_generator() noexcept;

// ---- element-wise ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, Scalar b);
Tensor operator<=(const Tensor& a, Scalar b);
Tensor operator>(const Tensor& a, Scalar b);
Tensor operator>=(const Tensor& a, Scalar b);
Tensor operator==(const Tensor& a, Scalar b);
Tensor operator!=(const Tensor& a, Scalar b);

Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
// The Array API standard's element-wise functions (docs/semantics.md lists them with their
// special cases). Floating functions take integers and bools through f32 like exp.
Tensor floor(const Tensor& x);     ///< integers unchanged
Tensor ceil(const Tensor& x);      ///< integers unchanged
Tensor trunc(const Tensor& x);     ///< integers unchanged
Tensor round(const Tensor& x);     ///< half to even; integers unchanged
Tensor sign(const Tensor& x);      ///< -1, +0 or 1 (+0 for either zero; NaN stays NaN)
Tensor signbit(const Tensor& x);   ///< b8: the sign bit (true for -0.0 and negative NaNs)
Tensor isnan(const Tensor& x);     ///< b8
Tensor isinf(const Tensor& x);     ///< b8
Tensor isfinite(const Tensor& x);  ///< b8
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor log2(const Tensor& x);
Tensor log10(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor asin(const Tensor& x);
Tensor acos(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor sinh(const Tensor& x);
Tensor cosh(const Tensor& x);
Tensor asinh(const Tensor& x);
Tensor acosh(const Tensor& x);
Tensor atanh(const Tensor& x);
Tensor erf(const Tensor& x);             ///< not in the standard; for GELU
Tensor bitwise_invert(const Tensor& x);  ///< integers and b8 (on b8: logical not)
Tensor logical_not(const Tensor& x);     ///< b8 only
Tensor negative(const Tensor& x);        ///< -x
Tensor positive(const Tensor& x);        ///< x itself (numeric dtypes)
Tensor square(const Tensor& x);          ///< x * x
Tensor reciprocal(const Tensor& x);      ///< 1 / x (true division: f32 for integers)
Tensor conj(const Tensor& x);            ///< complex conjugate (c64, c128); a real x itself
Tensor real(const Tensor& x);            ///< real part, of the real dtype (c64 -> f32); a real x itself
Tensor imag(const Tensor& x);  ///< imaginary part, of the real dtype; zeros of x's dtype for a real x
Tensor atan2(const Tensor& a, const Tensor& b);
Tensor hypot(const Tensor& a, const Tensor& b);
Tensor copysign(const Tensor& a, const Tensor& b);
Tensor logaddexp(const Tensor& a, const Tensor& b);
Tensor nextafter(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Tensor& b);  ///< sign of b, like Python's %; int % 0 = 0
Tensor remainder(const Tensor& a, Scalar b);
Tensor floor_divide(const Tensor& a, const Tensor& b);  ///< rounds toward -inf; int // 0 = 0
Tensor floor_divide(const Tensor& a, Scalar b);
Tensor bitwise_and(const Tensor& a, const Tensor& b);  ///< integers and b8
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);  ///< integers; counts outside [0, bits) give 0
/// Arithmetic for signed dtypes, logical for unsigned ones; counts outside [0, bits): the sign fill.
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);  ///< b8 only
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
/// Scalar forms of the binary functions above: the scalar follows the promotion rule of every
/// C++ scalar operand (docs/semantics.md: it never widens the tensor within its category).
Tensor atan2(const Tensor& a, Scalar b);
Tensor atan2(Scalar a, const Tensor& b);
Tensor hypot(const Tensor& a, Scalar b);
Tensor hypot(Scalar a, const Tensor& b);
Tensor copysign(const Tensor& a, Scalar b);
Tensor copysign(Scalar a, const Tensor& b);
Tensor logaddexp(const Tensor& a, Scalar b);
Tensor logaddexp(Scalar a, const Tensor& b);
Tensor nextafter(const Tensor& a, Scalar b);
Tensor nextafter(Scalar a, const Tensor& b);
Tensor remainder(Scalar a, const Tensor& b);
Tensor floor_divide(Scalar a, const Tensor& b);
Tensor bitwise_and(const Tensor& a, Scalar b);
Tensor bitwise_and(Scalar a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, Scalar b);
Tensor bitwise_or(Scalar a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, Scalar b);
Tensor bitwise_xor(Scalar a, const Tensor& b);
Tensor bitwise_left_shift(const Tensor& a, Scalar b);
Tensor bitwise_left_shift(Scalar a, const Tensor& b);
Tensor bitwise_right_shift(const Tensor& a, Scalar b);
Tensor bitwise_right_shift(Scalar a, const Tensor& b);
Tensor logical_and(const Tensor& a, Scalar b);
Tensor logical_and(Scalar a, const Tensor& b);
Tensor logical_or(const Tensor& a, Scalar b);
Tensor logical_or(Scalar a, const Tensor& b);
Tensor logical_xor(const Tensor& a, Scalar b);
Tensor logical_xor(Scalar a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, Scalar b);
Tensor pow(Scalar a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, Scalar b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, Scalar b);
/// Element-wise select; `cond` must be b8. a and b are promoted together.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, Scalar b);
Tensor where(const Tensor& cond, Scalar a, const Tensor& b);
Tensor where(const Tensor& cond, Scalar a, Scalar b);
/// minimum(maximum(x, lo), hi); lo > hi gives hi everywhere (as PyTorch).
Tensor clamp(const Tensor& x, Scalar lo, Scalar hi);
Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi);
/// The standard's name for clamp: NaN in x, lo or hi gives NaN.
Tensor clip(const Tensor& x, Scalar lo, Scalar hi);
Tensor clip(const Tensor& x, const Tensor& lo, const Tensor& hi);

// ---- reductions (negative axes count from the end; empty axes = all) ----
Tensor sum(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
Tensor mean(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
Tensor max(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
Tensor min(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
/// Product; integers and b8 give i64 (like sum), floats keep their dtype; empty: 1.
Tensor prod(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
/// Variance over `axes` (empty: all) with `correction` degrees of freedom removed from the
/// count N: sum((x - mean)^2) / max(N - correction, 0), computed in two passes (the mean, then the
/// squared deviations; on the CPU one staged row kernel). correction >= N divides by 0 (inf, or
/// NaN where every deviation is 0, as NumPy); floating inputs only (DTypeMismatch otherwise).
Tensor var(const Tensor& x, std::vector<int64_t> axes = {}, double correction = 0.0, bool keepdim = false);
/// sqrt(var(x, axes, correction, keepdim)).
/// Running sum / product along `axis` (scan group; Array API 2024.12). `axis` may be omitted only
/// for 1-D input (InvalidArgument otherwise, and for 0-d input). The result dtype is `dtype` when
/// given, else as sum/prod: signed integers and b8 give i64, unsigned u64 (wrapping), floats keep
/// theirs (accumulated in f64, f16/bf16 rounded once per element). include_initial: the output
/// is one longer along `axis`, starting with the identity (0 / 1). One kernel on the CPU JIT and
/// CUDA: rows of the axis run sequentially, the element-wise input fuses into the row loop.
Tensor cumulative_sum(const Tensor& x, std::optional<int64_t> axis = std::nullopt,
                      std::optional<DType> dtype = std::nullopt, bool include_initial = false);
Tensor cumulative_prod(const Tensor& x, std::optional<int64_t> axis = std::nullopt,
                       std::optional<DType> dtype = std::nullopt, bool include_initial = false);
Tensor std(const Tensor& x, std::vector<int64_t> axes = {}, double correction = 0.0, bool keepdim = false);
/// b8: whether any / every element is non-zero (NaN counts as non-zero); empty: false / true.
Tensor any(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
Tensor all(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
/// i64 index of the first maximum / minimum along `axis` (a NaN counts as the extreme);
/// no axis: over the flattened input. Throws InvalidArgument over a zero-size dimension.
Tensor argmax(const Tensor& x, std::optional<int64_t> axis = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> axis = std::nullopt, bool keepdim = false);
/// i64 count of the elements != 0 (NaN counts) over `axes` (empty: all).
Tensor count_nonzero(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
/// b8: |a - b| <= atol + rtol * |b| element-wise (NumPy's rule); equal infinities are close, NaN
/// is close to NaN only with equal_nan. allclose: all of it, as a 0-d b8 tensor.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false);
Tensor allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
                bool equal_nan = false);

// ---- sorting and set functions (group sort; docs/semantics.md "Sorting") ----
/// The elements of each row along `axis` in ascending (or descending) order; NaNs last in both
/// directions, -0 and +0 equal. Always stable: equal elements keep their input order, also when
/// descending (`stable = false` is accepted and gives the same result). Any dtype.
Tensor sort(const Tensor& x, int64_t axis = -1, bool descending = false, bool stable = true);
/// The i64 positions along `axis` that sort(x, axis, descending) takes its elements from.
Tensor argsort(const Tensor& x, int64_t axis = -1, bool descending = false, bool stable = true);
/// The Array API's unique_all: the distinct elements of x (flattened) in ascending order, the
/// index of each one's first occurrence, the index into `values` of each element of x (shape of
/// x) and how often each occurs (i64). Each NaN is distinct; -0 and +0 are one value. Data-
/// dependent shapes: x is evaluated first (a synchronisation point) and the results are realized.
struct UniqueAll {
  Tensor values, indices, inverse_indices, counts;
};
UniqueAll unique_all(const Tensor& x);
/// unique_all's values and counts.
struct UniqueCounts {
  Tensor values, counts;
};
UniqueCounts unique_counts(const Tensor& x);
/// unique_all's values and inverse_indices.
struct UniqueInverse {
  Tensor values, inverse_indices;
};
UniqueInverse unique_inverse(const Tensor& x);
/// unique_all's values.
Tensor unique_values(const Tensor& x);

// ---- movement and linear algebra ----
Tensor cat(const std::vector<Tensor>& xs, int64_t dim = 0);
/// Reverses the order of elements along `axes` (negative count from the end; empty: every
/// axis). A view (negative strides), fused into consumers like a slice.
Tensor flip(const Tensor& x, std::vector<int64_t> axes = {});

// ---- indexing and searching (issue #15; docs/semantics.md, "Indexing") ----
// Indices: any integer dtype; -n <= i < 0 counts from the end (wraps once); a position still
// outside [0, n) gives 0 (computed in the kernel: lazy indices never read outside a buffer).
/// Elements of x at `indices` along `axis` (no axis: x must be 1-D or 0-d). The result has shape
/// x.shape[:axis] + indices.shape + x.shape[axis+1:]. A gather fused into its consumer's kernel.
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis = std::nullopt);
/// out[.., j, ..] = x[.., indices[.., j, ..], ..] along `axis`; x and indices have the same rank
/// and broadcast against each other outside `axis`.
Tensor take_along_axis(const Tensor& x, const Tensor& indices, int64_t axis = -1);
/// i64 positions at which the elements of x2 would be inserted into the sorted 1-D x1 to keep it
/// sorted: side "left" (first such position) or "right" (last). NaN sorts last. A binary search:
/// ceil(log2(n + 1)) fused gathers of x1.
Tensor searchsorted(const Tensor& x1, const Tensor& x2, std::string_view side = "left");
// ---- scatter_add (issue #15, scatter group; docs/semantics.md, "scatter_add") ----
/// take's inverse: a copy of `base` with src added at `indices` along `axis`:
/// out[.., indices[k], ..] += src[.., k, ..], where src has shape
/// base.shape[:axis] + indices.shape + base.shape[axis+1:]. Repeated indices accumulate, in
/// increasing k for each output element (deterministic); indices wrap as take's (-n <= i < 0);
/// one still outside [0, n) adds nothing. base and src promote to one numeric dtype.
/// Differentiable in base and src (src's gradient is a take of the output's).
Tensor scatter_add(const Tensor& base, int64_t axis, const Tensor& indices, const Tensor& src);
/// scatter_add into zeros of `shape` (src's dtype and device).
Tensor scatter_add(const Shape& shape, int64_t axis, const Tensor& indices, const Tensor& src);
/// take_along_axis's inverse: out[.., indices[.., j, ..], ..] += src[.., j, ..] along `axis`.
/// indices and src have base's rank and broadcast against each other to a shape that equals
/// base's outside `axis`.
Tensor scatter_add_along_axis(const Tensor& base, int64_t axis, const Tensor& indices, const Tensor& src);
/// One i64 tensor per dim of x (at least 1-D): the indices of the non-zero elements, row-major.
/// The result's length depends on the data: x is evaluated (a synchronisation point).
std::vector<Tensor> nonzero(const Tensor& x);

/// NumPy matmul: 1-D operands are promoted and the added dim removed; batch dims broadcast.
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor softmax(const Tensor& x, int64_t axis = -1);
Tensor log_softmax(const Tensor& x, int64_t axis = -1);
/// Mean cross-entropy over the batch. logits (N, C) [or (C)]; targets are i64/i32 class indices
/// of shape (N) [or ()], or probabilities with the logits' shape.
Tensor cross_entropy(const Tensor& logits, const Tensor& targets);

// ---- autograd ----
/// Gradients of the one-element tensor `y` with respect to each of `xs` (leaves or values on
/// the way to `y`; each must require a gradient), as lazy tensors of the shapes of `xs`.
/// Leaves' grad() is left alone. With `create_graph` (the default) the gradients are
/// themselves differentiable, so grad of a grad works (docs/autograd.md lists what does not).
std::vector<Tensor> grad(const Tensor& y, const std::vector<Tensor>& xs, bool create_graph = true);
/// While alive, ops on this thread record no gradient history (optimizer updates, inference).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;
};
/// False while a NoGradGuard is alive on this thread.
bool is_grad_enabled();

// ---- evaluation and introspection ----
/// Realizes several outputs in one schedule.
void eval(const std::vector<Tensor>& outputs);
/// Writes Graphviz DOT of the graphs behind `outputs` to `path`.
void to_dot(const std::vector<Tensor>& outputs, const std::string& path);
/// DOT text of the graphs behind `outputs`.
std::string to_dot_string(const std::vector<Tensor>& outputs);
void print_graph(const Tensor& t, std::ostream& os);
void print_graph(const Tensor& t);
/// The values of `t`, NumPy-style (evaluates).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace cgrad
