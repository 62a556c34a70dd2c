// DTensor: a tensor sharded along one axis over the processes, or replicated. This file holds
// the handle (global shape, sharded axis, local block), making and gathering DTensors,
// reductions and movement; dist_ops.cpp holds element-wise ops and composites. The rule every
// op follows: compute on the local blocks with the ordinary ops (so fusion is unchanged), and
// add an AllReduce node exactly where the result combines elements of the sharded axis.
#include "dist/dist_internal.h"

#include <algorithm>
#include <numeric>

namespace cgrad::dist {

namespace detail {

int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op) {
  if (axis < -ndim || axis >= ndim)
    throw Error(ErrorCode::InvalidArgument, std::string(op) + ": axis " + std::to_string(axis) +
                                                " out of range for " + std::to_string(ndim) + " dims");
  return axis < 0 ? axis + ndim : axis;
}

std::string sharding_str(const DTensor& x) {
  if (!x.sharded()) return "replicated";
  return "sharded along axis " + std::to_string(x.axis()) + " (size " +
         std::to_string(x.shape()[static_cast<std::size_t>(x.axis())]) + " over " + std::to_string(size()) +
         " processes)";
}

[[noreturn]] void crosses_axis(const DTensor& x, const char* op, const std::string& detail) {
  throw Error(ErrorCode::InvalidOperation,
              std::string(op) + ": " + detail + " would move data across the sharded axis " +
                  std::to_string(x.axis()) + " of a tensor of global shape " + shape_str(x.shape()) + ", " +
                  sharding_str(x) + "; gather() it first (docs/distributed.md)");
}

Shape local_shape(const Shape& global, int64_t axis) {
  Shape s = global;
  if (axis >= 0)
    s[static_cast<std::size_t>(axis)] = block_of(global[static_cast<std::size_t>(axis)], rank(), size()).size;
  return s;
}

}  // namespace detail

using detail::crosses_axis;
using detail::normalize_axis;

DTensor::DTensor(Tensor local, int64_t axis, Shape global)
    : local_(std::move(local)), axis_(axis), shape_(std::move(global)) {
  if (!local_.defined()) throw Error(ErrorCode::InvalidArgument, "DTensor: undefined local tensor");
  if (axis_ >= ndim() || axis_ < -1)
    throw Error(ErrorCode::InvalidArgument, "DTensor: axis " + std::to_string(axis_) +
                                                " out of range for global shape " + shape_str(shape_));
  const Shape want = detail::local_shape(shape_, axis_);
  if (local_.shape() != want)
    throw Error(ErrorCode::ShapeMismatch, "DTensor: local block of shape " + shape_str(local_.shape()) +
                                              " on process " + std::to_string(rank()) + ", expected " +
                                              shape_str(want) + " for global shape " + shape_str(shape_) +
                                              " sharded along axis " + std::to_string(axis_));
}

int64_t DTensor::numel() const {
  return std::accumulate(shape_.begin(), shape_.end(), int64_t{1}, std::multiplies<>());
}

DTensor& DTensor::eval() {
  local_.eval();
  return *this;
}

Tensor DTensor::gather() const {
  if (!sharded()) return local_;
  // Each process places its block in zeros of the global shape; one sum all-reduce assembles
  // the whole (adding zeros is exact), so gather needs nothing but the all-reduce.
  const auto ax = static_cast<std::size_t>(axis_);
  const Block b = block_of(shape_[ax], rank(), size());
  Tensor v = dtype() == DType::b8 ? local_.cast(DType::i32) : local_;
  std::vector<Tensor> parts;
  Shape pad = v.shape();
  if (b.start > 0) {
    pad[ax] = b.start;
    parts.push_back(zeros(pad, v.dtype(), v.device()));
  }
  parts.push_back(v);
  if (const int64_t after = shape_[ax] - b.start - b.size; after > 0) {
    pad[ax] = after;
    parts.push_back(zeros(pad, v.dtype(), v.device()));
  }
  Tensor whole = all_reduce(parts.size() == 1 ? v : cgrad::cat(parts, axis_), ReduceOp::Sum);
  return dtype() == DType::b8 ? whole.cast(DType::b8) : whole;
}

Tensor DTensor::full() const { return sharded() ? gather() : local_; }

DTensor shard(const Tensor& full, int64_t axis) {
  const int64_t ax = normalize_axis(axis, full.ndim(), "shard");
  const int64_t n = full.shape()[static_cast<std::size_t>(ax)];
  if (n < size())
    throw Error(ErrorCode::InvalidArgument, "shard: axis " + std::to_string(ax) + " has " +
                                                std::to_string(n) + " elements, fewer than the " +
                                                std::to_string(size()) + " processes");
  const Block b = block_of(n, rank(), size());
  return DTensor(size() == 1 ? full : full.slice(ax, b.start, b.start + b.size), ax, full.shape());
}

DTensor replicate(const Tensor& t) { return DTensor(t, -1, t.shape()); }

DTensor from_local(const Tensor& local, int64_t axis, int64_t global_size) {
  const int64_t ax = normalize_axis(axis, local.ndim(), "from_local");
  Shape g = local.shape();
  g[static_cast<std::size_t>(ax)] = global_size;
  return DTensor(local, ax, g);
}

Tensor gather(const DTensor& x) { return x.gather(); }

DTensor DTensor::cast(DType t) const { return DTensor(local_.cast(t), axis_, shape_); }

// ---- reductions ----
namespace {

enum class Red { Sum, Mean, Max, Min };

DTensor reduce(const DTensor& x, std::vector<int64_t> axes, bool keepdim, Red kind, const char* name) {
  const int64_t nd = x.ndim();
  if (axes.empty())
    for (int64_t i = 0; i < nd; ++i) axes.push_back(i);
  for (auto& a : axes) a = normalize_axis(a, nd, name);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  int64_t count = 1;
  for (int64_t a : axes) count *= x.shape()[static_cast<std::size_t>(a)];
  const Tensor& l = x.local();
  if (kind == Red::Mean && !is_floating(l.dtype()))
    throw Error(ErrorCode::DTypeMismatch, std::string("mean: input dtype ") + dtype_name(l.dtype()) +
                                              " is not floating (cast to f32 or f64 first)");
  Tensor r = kind == Red::Max   ? cgrad::max(l, axes, keepdim)
             : kind == Red::Min ? cgrad::min(l, axes, keepdim)
                                : cgrad::sum(l, axes, keepdim);
  Shape g;
  int64_t new_axis = -1;
  for (int64_t i = 0; i < nd; ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (i == x.axis() && !reduced) new_axis = static_cast<int64_t>(g.size());
    if (!reduced)
      g.push_back(x.shape()[static_cast<std::size_t>(i)]);
    else if (keepdim)
      g.push_back(1);
  }
  if (x.sharded() && new_axis < 0) {  // the sharded axis was reduced: combine the processes' parts
    r = all_reduce(r, kind == Red::Max ? ReduceOp::Max : kind == Red::Min ? ReduceOp::Min : ReduceOp::Sum);
  }
  if (kind == Red::Mean) r = r / static_cast<double>(count);
  return DTensor(r, new_axis, g);
}

}  // namespace

DTensor DTensor::sum(std::vector<int64_t> axes, bool keepdim) const {
  return reduce(*this, std::move(axes), keepdim, Red::Sum, "sum");
}
DTensor DTensor::mean(std::vector<int64_t> axes, bool keepdim) const {
  const DType t = local_.dtype();
  if (t == DType::f16 || t == DType::bf16)  // in f32, rounded once, as cgrad::mean (docs/semantics.md)
    return cast(DType::f32).mean(std::move(axes), keepdim).cast(t);
  return reduce(*this, std::move(axes), keepdim, Red::Mean, "mean");
}
DTensor DTensor::max(std::vector<int64_t> axes, bool keepdim) const {
  return reduce(*this, std::move(axes), keepdim, Red::Max, "max");
}
DTensor DTensor::min(std::vector<int64_t> axes, bool keepdim) const {
  return reduce(*this, std::move(axes), keepdim, Red::Min, "min");
}
DTensor sum(const DTensor& x, std::vector<int64_t> axes, bool keepdim) {
  return x.sum(std::move(axes), keepdim);
}
DTensor mean(const DTensor& x, std::vector<int64_t> axes, bool keepdim) {
  return x.mean(std::move(axes), keepdim);
}
DTensor max(const DTensor& x, std::vector<int64_t> axes, bool keepdim) {
  return x.max(std::move(axes), keepdim);
}
DTensor min(const DTensor& x, std::vector<int64_t> axes, bool keepdim) {
  return x.min(std::move(axes), keepdim);
}

// ---- movement ----
DTensor DTensor::reshape(Shape shape) const {
  const int64_t total = numel();
  int64_t known = 1, infer = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer < 0)
      infer = static_cast<int64_t>(i);
    else
      known *= shape[i];
  }
  if (infer >= 0 && known > 0) shape[static_cast<std::size_t>(infer)] = total / known;
  if (!sharded()) return DTensor(local_.reshape(shape), -1, shape);
  // Allowed when every dim up to the sharded one is unchanged: the blocks stay contiguous
  // pieces of the same rows.
  const auto ax = static_cast<std::size_t>(axis_);
  bool keeps = shape.size() > ax;
  for (std::size_t i = 0; keeps && i <= ax; ++i) keeps = shape[i] == shape_[i];
  if (!keeps) crosses_axis(*this, "reshape", "reshaping to " + shape_str(shape));
  return DTensor(local_.reshape(detail::local_shape(shape, axis_)), axis_, shape);
}

DTensor DTensor::permute(std::vector<int64_t> dims) const {
  Tensor l = local_.permute(dims);  // validates dims
  Shape g;
  int64_t a = -1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = normalize_axis(dims[i], ndim(), "permute");
    g.push_back(shape_[static_cast<std::size_t>(d)]);
    if (d == axis_) a = static_cast<int64_t>(i);
  }
  return DTensor(l, a, g);
}

DTensor DTensor::transpose(int64_t d0, int64_t d1) const {
  std::vector<int64_t> p(static_cast<std::size_t>(ndim()));
  std::iota(p.begin(), p.end(), int64_t{0});
  std::swap(p[static_cast<std::size_t>(normalize_axis(d0, ndim(), "transpose"))],
            p[static_cast<std::size_t>(normalize_axis(d1, ndim(), "transpose"))]);
  return permute(p);
}

DTensor DTensor::T() const {
  if (ndim() < 2)
    throw Error(ErrorCode::InvalidArgument, "T: needs at least 2 dims, got " + shape_str(shape_));
  return transpose(-2, -1);
}

DTensor DTensor::expand(Shape shape) const {
  if (!sharded()) return DTensor(local_.expand(shape), -1, local_.expand(shape).shape());
  const int64_t lead = static_cast<int64_t>(shape.size()) - ndim();
  if (lead < 0)
    throw Error(ErrorCode::InvalidArgument, "expand: target " + shape_str(shape) + " has fewer dims");
  const int64_t a = axis_ + lead;
  auto& target = shape[static_cast<std::size_t>(a)];
  if (target != -1 && target != shape_[static_cast<std::size_t>(axis_)])
    crosses_axis(*this, "expand", "expanding to " + shape_str(shape));
  target = -1;
  Tensor l = local_.expand(shape);
  Shape g = l.shape();
  g[static_cast<std::size_t>(a)] = shape_[static_cast<std::size_t>(axis_)];
  return DTensor(l, a, g);
}

DTensor DTensor::slice(int64_t dim, int64_t start, int64_t stop, int64_t step) const {
  const int64_t d = normalize_axis(dim, ndim(), "slice");
  if (d == axis_) crosses_axis(*this, "slice", "slicing axis " + std::to_string(d));
  Tensor l = local_.slice(d, start, stop, step);
  Shape g = shape_;
  g[static_cast<std::size_t>(d)] = l.shape()[static_cast<std::size_t>(d)];
  return DTensor(l, axis_, g);
}

DTensor& DTensor::assign(const DTensor& expr) {
  if (expr.axis_ != axis_ || expr.shape_ != shape_)
    throw Error(ErrorCode::ShapeMismatch, "assign: value of global shape " + shape_str(expr.shape_) + ", " +
                                              detail::sharding_str(expr) + ", to a tensor of global shape " +
                                              shape_str(shape_) + ", " + detail::sharding_str(*this));
  local_.assign(expr.local_);
  return *this;
}

DTensor& DTensor::requires_grad(bool on) {
  local_.requires_grad(on);
  return *this;
}

DTensor DTensor::grad() const {
  Tensor g = local_.grad();
  if (!g.defined()) return DTensor();
  return DTensor(g, axis_, shape_);
}

void DTensor::backward() const {
  if (sharded())
    throw Error(ErrorCode::InvalidOperation,
                "backward: the loss is " + detail::sharding_str(*this) +
                    "; reduce it over the sharded axis first (a replicated scalar)");
  local_.backward();
}

}  // namespace cgrad::dist
