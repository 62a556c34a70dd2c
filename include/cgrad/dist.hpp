/// cgrad::dist: tensors sharded over processes (docs/distributed.md).
///
/// SPMD model: every process runs the same program. A DTensor is either sharded along one
/// axis (each process holds one contiguous block of that axis: its `local()` tensor) or
/// replicated (every process holds the same full value). Element-wise ops, reductions over
/// other axes and movement that keeps the sharded axis whole run on the local blocks with no
/// communication and fuse exactly as plain tensors do. A reduction over the sharded axis is
/// the local (fused) reduction followed by an AllReduce node in the graph, so a compiled plan
/// replays its collectives. Communication goes through the communicator installed by
/// dist::init() (cgrad/dist/mpi.hpp, target cgrad::dist, built when MPI is found); without one
/// the process is alone (rank 0 of 1) and every collective is the identity.
#pragma once

#include <cgrad/tensor.hpp>

#include <functional>
#include <vector>

namespace cgrad::dist {

enum class ReduceOp { Sum, Max, Min };

/// This process's index and the number of processes (0 and 1 without a communicator).
int rank();
int size();

/// The value of `x` reduced element-wise over every process (lazy: an AllReduce node that
/// runs when the result is evaluated, on every process, in program order). Numeric dtypes.
Tensor all_reduce(const Tensor& x, ReduceOp op = ReduceOp::Sum);

/// Runs `fn` on every process; an exception raised by `fn` on any process is raised on every
/// process (the others get ExecutionFailed naming the failing process), with no hang, as long
/// as every process runs the same collectives in `fn` (docs/distributed.md, "Errors").
void spmd(const std::function<void()>& fn);

/// Where process `r` of `p` starts and how many of `n` it holds: blocks of n / p, the first
/// n % p processes holding one more.
struct Block {
  int64_t start = 0, size = 0;
};
Block block_of(int64_t n, int r, int p);

class DTensor {
 public:
  /// Undefined; assign a DTensor from shard(), replicate() or an op first.
  DTensor() = default;
  /// `local` is this process's block of a tensor of `global` shape sharded along `axis`
  /// (-1: replicated, `local` is the full value). Checked against block_of().
  DTensor(Tensor local, int64_t axis, Shape global);

  bool defined() const { return local_.defined(); }
  /// This process's block (the full value when replicated).
  const Tensor& local() const { return local_; }
  Tensor& local() { return local_; }
  /// The sharded axis, or -1 when replicated.
  int64_t axis() const { return axis_; }
  bool sharded() const { return axis_ >= 0; }
  /// The global shape, dtype and element count.
  const Shape& shape() const { return shape_; }
  DType dtype() const { return local_.dtype(); }
  int64_t ndim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const;

  /// Realizes the local block (every process must evaluate the same tensors: collectives).
  DTensor& eval();
  /// The full value on every process (lazy: each block padded with zeros, summed over the
  /// processes with one all-reduce).
  Tensor gather() const;
  /// The one element of a replicated one-element tensor (evaluates; every process must call it).
  template <class T>
  T item() const {
    return full().template item<T>();
  }
  template <class T>
  std::vector<T> to_vector() const {
    return full().template to_vector<T>();
  }

  DTensor cast(DType t) const;
  DTensor sum(std::vector<int64_t> axes = {}, bool keepdim = false) const;
  DTensor mean(std::vector<int64_t> axes = {}, bool keepdim = false) const;
  DTensor max(std::vector<int64_t> axes = {}, bool keepdim = false) const;
  DTensor min(std::vector<int64_t> axes = {}, bool keepdim = false) const;
  /// Movement keeping the sharded axis whole; anything else raises InvalidOperation naming it.
  DTensor reshape(Shape shape) const;
  DTensor permute(std::vector<int64_t> dims) const;
  DTensor transpose(int64_t d0, int64_t d1) const;
  DTensor T() const;
  DTensor expand(Shape shape) const;
  DTensor slice(int64_t dim, int64_t start, int64_t stop, int64_t step = 1) const;
  /// In-place update of the local block (same sharding and global shape).
  DTensor& assign(const DTensor& expr);
  // Compound assignment rebinds this handle only (copy-on-write, as Tensor's).
  DTensor& operator+=(const DTensor& o);
  DTensor& operator-=(const DTensor& o);
  DTensor& operator*=(const DTensor& o);
  DTensor& operator/=(const DTensor& o);
  DTensor& operator*=(Scalar o);

  // Autograd on the local block: a sharded loss reduced to a replicated scalar backpropagates to
  // every process's block; the gradient of a replicated parameter is this process's part
  // (sum them with all_reduce_grads).
  DTensor& requires_grad(bool on);
  DTensor grad() const;
  void backward() const;

 private:
  Tensor full() const;  // the local value if replicated, else gather()
  Tensor local_;
  int64_t axis_ = -1;
  Shape shape_;
};

/// This process's block of `full` (the same value on every process) along `axis`; no
/// communication. The axis must have at least size() elements.
DTensor shard(const Tensor& full, int64_t axis);
/// `t` (the same value on every process) as a replicated DTensor.
DTensor replicate(const Tensor& t);
/// A sharded DTensor from this process's block, the global size of `axis` given.
DTensor from_local(const Tensor& local, int64_t axis, int64_t global_size);
Tensor gather(const DTensor& x);

// ---- element-wise (NumPy broadcasting on global shapes; a replicated operand's slice of the
// sharded axis is taken locally; two operands sharded along different axes are an error) ----
DTensor operator+(const DTensor& a, const DTensor& b);
DTensor operator-(const DTensor& a, const DTensor& b);
DTensor operator*(const DTensor& a, const DTensor& b);
DTensor operator/(const DTensor& a, const DTensor& b);
DTensor operator+(const DTensor& a, Scalar b);
DTensor operator-(const DTensor& a, Scalar b);
DTensor operator*(const DTensor& a, Scalar b);
DTensor operator/(const DTensor& a, Scalar b);
DTensor operator+(Scalar a, const DTensor& b);
DTensor operator-(Scalar a, const DTensor& b);
DTensor operator*(Scalar a, const DTensor& b);
DTensor operator/(Scalar a, const DTensor& b);
DTensor operator-(const DTensor& a);
DTensor operator<(const DTensor& a, const DTensor& b);
DTensor operator>(const DTensor& a, const DTensor& b);
DTensor operator<(const DTensor& a, Scalar b);
DTensor operator>(const DTensor& a, Scalar b);
DTensor exp(const DTensor& x);
DTensor log(const DTensor& x);
DTensor sqrt(const DTensor& x);
DTensor abs(const DTensor& x);
DTensor sin(const DTensor& x);
DTensor cos(const DTensor& x);
DTensor tanh(const DTensor& x);
DTensor sigmoid(const DTensor& x);
DTensor relu(const DTensor& x);
DTensor pow(const DTensor& a, Scalar b);
DTensor maximum(const DTensor& a, const DTensor& b);
DTensor minimum(const DTensor& a, const DTensor& b);
DTensor where(const DTensor& cond, const DTensor& a, const DTensor& b);

// ---- reductions: over the sharded axis a local reduction plus one all-reduce (replicated
// result); over other axes local only ----
DTensor sum(const DTensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
DTensor mean(const DTensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
DTensor max(const DTensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
DTensor min(const DTensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);

// ---- composites ----
/// Row-sharded `a` times replicated `b`: local; contraction sharded on either side: local GEMM
/// of the matching blocks plus one all-reduce; replicated `a` times column-sharded `b`: local.
DTensor matmul(const DTensor& a, const DTensor& b);
DTensor softmax(const DTensor& x, int64_t axis = -1);
DTensor log_softmax(const DTensor& x, int64_t axis = -1);
/// Mean cross-entropy over the global batch: logits (N, C) and targets sharded along the batch.
DTensor cross_entropy(const DTensor& logits, const DTensor& targets);
DTensor cat(const std::vector<DTensor>& xs, int64_t dim = 0);

/// Data parallelism: replaces the grad() of every parameter (replicated, so each process has
/// only its part) by the sum over the processes (divided by size() with `average`), with one
/// all-reduce per dtype for all parameters together (lazy: it runs with the optimizer's update).
void all_reduce_grads(const std::vector<Tensor>& params, bool average = false);

}  // namespace cgrad::dist
