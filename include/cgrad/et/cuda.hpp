// cgrad::et device space (compiled only by nvcc): et::cuda::Vector<T> lives in device memory and
// its `operator=` runs an expression as ONE CUDA kernel.
//
// The expression nodes are the host ones (ops.hpp, reduce.hpp); what changes is the leaf (a
// device pointer) and the loop (a grid-stride kernel that receives the prepared evaluator by
// value, as the seed design's AccExpressionHandler). Reductions over device expressions run one
// reduction kernel that leaves one partial per block; the partials are copied back and combined
// on the host in block order, so the result is deterministic. The same size rule as the host
// applies; CUDA failures throw cgrad::Error(DeviceError). Kernels run on the default stream:
// reading the result (to_vector, a reduction) waits for them.
#pragma once

#if defined(__CUDACC__)

#include <cgrad/et/vector.hpp>

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cgrad::et::cuda {

/// Memory space of device containers (et::cuda::Vector).
struct DeviceSpace {};

namespace detail {

inline constexpr unsigned kBlock = 256;
inline constexpr std::size_t kMaxReduceBlocks = 1024;
inline constexpr std::size_t kMaxAssignBlocks = std::size_t{1} << 20;

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(ErrorCode::DeviceError,
                std::string("cgrad::et::cuda: ") + what + " failed: " + cudaGetErrorString(e));
}

inline unsigned blocks_for(std::size_t n, std::size_t cap) {
  const std::size_t b = (n + kBlock - 1) / kBlock;
  return static_cast<unsigned>(b < cap ? (b == 0 ? 1 : b) : cap);
}

struct CudaFree {
  void operator()(void* p) const { cudaFree(p); }
};
template <class T>
std::unique_ptr<T, CudaFree> device_alloc(std::size_t n) {
  void* p = nullptr;
  if (n) check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  return std::unique_ptr<T, CudaFree>(static_cast<T*>(p));
}

template <class T, class Ev>
__global__ void assign_kernel(T* out, Ev ev, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = ev(i);
}

template <class Kind, class Acc, class Ev>
__global__ void reduce_kernel(Acc* partial, Ev ev, std::size_t n, Acc identity) {
  __shared__ Acc buf[kBlock];
  Acc local = identity;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    local = Kind::combine(local, static_cast<Acc>(ev(i)));
  buf[threadIdx.x] = local;
  __syncthreads();
  for (unsigned s = kBlock / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = Kind::combine(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = buf[0];
}

}  // namespace detail

/// One reduction kernel over n elements of a prepared device evaluator; the result is a host number.
template <class Kind, class Ev>
auto reduce_in(DeviceSpace, Kind, const Ev& ev, std::size_t n) {
  using T = std::remove_cvref_t<decltype(ev(std::size_t{0}))>;
  using Acc = typename Kind::template acc_t<T>;
  ::cgrad::et::detail::count_reduction();
  Acc r = Kind::template identity<Acc>();
  if (n == 0) return static_cast<T>(r);
  const unsigned blocks = detail::blocks_for(n, detail::kMaxReduceBlocks);
  auto partial = detail::device_alloc<Acc>(blocks);
  detail::reduce_kernel<Kind, Acc><<<blocks, detail::kBlock>>>(partial.get(), ev, n, r);
  detail::check(cudaGetLastError(), "reduction kernel launch");
  std::vector<Acc> host(blocks);
  detail::check(cudaMemcpy(host.data(), partial.get(), blocks * sizeof(Acc), cudaMemcpyDeviceToHost),
                "reduction");
  for (const Acc& p : host) r = Kind::combine(r, p);
  return static_cast<T>(r);
}

/// A vector in device memory; `operator=` runs an expression as one CUDA kernel.
template <class T>
class Vector : public Expr<Vector<T>> {
  static_assert(is_element_v<T>, "cgrad::et::cuda::Vector<T>: T must be float or double");

 public:
  using value_type = T;
  using space = DeviceSpace;
  static constexpr bool kScalar = false;
  static constexpr bool kStoreByReference = true;

  Vector() = default;
  /// n zeros.
  explicit Vector(std::size_t n) : buf_(detail::device_alloc<T>(n)), n_(n) {
    if (n) detail::check(cudaMemset(buf_.get(), 0, n * sizeof(T)), "cudaMemset");
  }
  /// A copy of host values.
  explicit Vector(const std::vector<T>& host) : Vector(host.data(), host.size()) {}
  explicit Vector(const ::cgrad::et::Vector<T>& host) : Vector(host.data(), host.size()) {}
  /// Evaluates `e` (one kernel) into a new Vector of its size.
  template <class E>
  Vector(const Expr<E>& e) {
    static_assert(!E::kScalar, "cgrad::et: cannot construct a Vector from a scalar expression (a reduction)");
    *this = e;
  }
  Vector(const Vector& o) : buf_(detail::device_alloc<T>(o.n_)), n_(o.n_) { copy_from_device(o); }
  Vector(Vector&& o) noexcept : buf_(std::move(o.buf_)), n_(std::exchange(o.n_, 0)) {}
  Vector& operator=(const Vector& o) {
    if (this == &o) return *this;
    if (n_ != o.n_) {
      buf_ = detail::device_alloc<T>(o.n_);
      n_ = o.n_;
    }
    copy_from_device(o);
    return *this;
  }
  Vector& operator=(Vector&& o) noexcept {
    buf_ = std::move(o.buf_);
    n_ = std::exchange(o.n_, 0);
    return *this;
  }
  ~Vector() = default;

  /// Runs `e` as one kernel; same size rule as et::Vector (an empty Vector is resized).
  template <class E>
  Vector& operator=(const Expr<E>& e) {
    static_assert(
        std::is_same_v<typename E::value_type, T>,
        "cgrad::et: cannot assign an expression of another element type; convert it with et::cast<T>(expr)");
    static_assert(std::is_same_v<typename E::space, DeviceSpace> || std::is_same_v<typename E::space, void>,
                  "cgrad::et: cannot assign a host expression to a cuda::Vector; copy the host Vector to the "
                  "device first");
    const E& x = e.derived();
    std::size_t n = n_;
    if constexpr (!E::kScalar) {
      n = x.size();
      x.check_size(n);
      if (n != n_ && n_ != 0)
        throw Error(ErrorCode::ShapeMismatch, "cgrad::et: cannot assign an expression of size " +
                                                  std::to_string(n) + " to a cuda::Vector of size " +
                                                  std::to_string(n_) + " (only an empty Vector is resized)");
    }
    const auto ev = x.evaluator();  // prepare: nested reductions run here, before the kernel
    if (n_ == 0 && n != 0) {
      buf_ = detail::device_alloc<T>(n);
      n_ = n;
    }
    ::cgrad::et::detail::count_loop();
    if (n == 0) return *this;
    detail::assign_kernel<<<detail::blocks_for(n, detail::kMaxAssignBlocks), detail::kBlock>>>(buf_.get(), ev,
                                                                                               n);
    detail::check(cudaGetLastError(), "kernel launch");
    return *this;
  }
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

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  /// Device pointer.
  T* data() { return buf_.get(); }
  const T* data() const { return buf_.get(); }
  /// Keeps the first min(n, size()) elements; new elements are zero.
  void resize(std::size_t n) {
    if (n == n_) return;
    Vector tmp(n);
    const std::size_t keep = n < n_ ? n : n_;
    if (keep)
      detail::check(cudaMemcpy(tmp.data(), data(), keep * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy");
    *this = std::move(tmp);
  }
  /// Copies the elements to the host (waits for pending kernels).
  std::vector<T> to_vector() const {
    std::vector<T> out(n_);
    if (n_)
      detail::check(cudaMemcpy(out.data(), data(), n_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return out;
  }

  // ---- expression interface ----
  void check_size(std::size_t n) const {
    if (n_ != n) ::cgrad::et::detail::throw_size_mismatch(n_, n);
  }
  bool overlaps_shifted(const void* b, const void* e) const {
    return ::cgrad::et::detail::overlaps_shifted(data(), n_, b, e);
  }
  LeafEval<T> evaluator() const { return {data()}; }

 private:
  Vector(const T* host, std::size_t n) : buf_(detail::device_alloc<T>(n)), n_(n) {
    if (n) detail::check(cudaMemcpy(buf_.get(), host, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  void copy_from_device(const Vector& o) {
    if (n_)
      detail::check(cudaMemcpy(buf_.get(), o.data(), n_ * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy");
  }

  std::unique_ptr<T, detail::CudaFree> buf_;
  std::size_t n_ = 0;
};

}  // namespace cgrad::et::cuda

#endif  // __CUDACC__
