// Reductions. The IR keeps reduced dims with size 1; keepdim=false is a reshape on top.
#include "frontend/build.h"
#include "ir/op_table.h"

#include <algorithm>

namespace cgrad {

using frontend::make;
using frontend::node_of;
using ir::Op;

namespace {

struct Reduced {
  ir::NodePtr node;   // keepdim shape
  Shape final_shape;  // requested shape
  int64_t count;      // elements combined into each output
};

Reduced reduce(Op op, const Tensor& x, const std::vector<int64_t>& axes, bool keepdim, const char* name) {
  const ir::NodePtr& n = node_of(x, name);
  std::vector<int64_t> ax = core::normalize_axes(axes, n->shape, name);
  int64_t count = 1;
  for (int64_t a : ax) count *= n->shape[static_cast<std::size_t>(a)];
  if (!ir::info(op).reduce.empty_ok && count == 0)
    throw Error(ErrorCode::InvalidArgument, std::string(name) +
                                                ": reduction over a zero-size dimension of shape " +
                                                shape_str(n->shape) + " has no identity");
  ir::Attrs a;
  a.axes = ax;
  ir::NodePtr r = make(op, {n}, a, n->device);
  Shape fin;
  for (std::size_t i = 0; i < n->shape.size(); ++i) {
    bool reduced = std::find(ax.begin(), ax.end(), static_cast<int64_t>(i)) != ax.end();
    if (!reduced)
      fin.push_back(n->shape[i]);
    else if (keepdim)
      fin.push_back(1);
  }
  return {r, fin, count};
}

// f16 and bf16: mean, var and std compute in f32 and round their result once, as PyTorch's
// do. Their sums would otherwise round to 16 bits before the division: the mean of 1000 f16
// values of 100 overflowed to inf (the sum, 10^5, is past f16's 65504), and so did the variance
// of any f16 data whose squared deviations add past 65504 (docs/semantics.md, "Reductions").
// The casts fuse into the reduction's kernel, so nothing more is read or written.
bool is_half(DType t) { return t == DType::f16 || t == DType::bf16; }

}  // namespace

Tensor sum(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Reduced r = reduce(Op::Sum, x, axes, keepdim, "sum");
  return Tensor(frontend::reshape_node(r.node, r.final_shape));
}

Tensor mean(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  const DType t = node_of(x, "mean")->dtype;
  if (!is_floating(t) && !is_complex(t))  // (complex group: the mean of complex values is complex)
    throw Error(ErrorCode::DTypeMismatch, std::string("mean: input dtype ") + dtype_name(x.dtype()) +
                                              " is not floating (cast to f32 or f64 first)");
  if (is_half(t)) return mean(x.cast(DType::f32), std::move(axes), keepdim).cast(t);
  Reduced r = reduce(Op::Sum, x, axes, keepdim, "mean");
  Tensor s(frontend::reshape_node(r.node, r.final_shape));
  return s / static_cast<double>(r.count);
}

// var/std: two passes (mean, then the sum of squared deviations), not E[x^2] - E[x]^2, which
// cancels catastrophically when the mean is large against the spread. The mean is kept with its
// reduced dims so the deviation is element-wise over x (rule 6 stages both sums in one row kernel
// on the CPU).
Tensor var(const Tensor& x, std::vector<int64_t> axes, double correction, bool keepdim) {
  const ir::NodePtr& n = node_of(x, "var");
  if (!is_floating(n->dtype))
    throw Error(ErrorCode::DTypeMismatch, std::string("var: input dtype ") + dtype_name(n->dtype) +
                                              " is not floating (cast to f32 or f64 first)");
  if (!(correction >= 0))
    throw Error(ErrorCode::InvalidArgument,
                "var: correction must be >= 0, got " + std::to_string(correction));
  if (is_half(n->dtype)) return var(x.cast(DType::f32), std::move(axes), correction, keepdim).cast(n->dtype);
  std::vector<int64_t> ax = core::normalize_axes(axes, n->shape, "var");
  if (ax.empty())
    for (std::size_t d = 0; d < n->shape.size(); ++d) ax.push_back(static_cast<int64_t>(d));
  int64_t count = 1;
  for (int64_t a : ax) count *= n->shape[static_cast<std::size_t>(a)];
  const Tensor d = x - mean(x, ax, true);
  const double dof = std::max(static_cast<double>(count) - correction, 0.0);
  return sum(d * d, ax, keepdim) / dof;
}

// std's gradient is 0 where the variance is 0 (constant data), as PyTorch's, and as the norms'
// and hypot's at the origin, not sqrt's inf times the variance's 0 (NaN). The selects run on the
// reduced values, in the reduction's kernel.
Tensor std(const Tensor& x, std::vector<int64_t> axes, double correction, bool keepdim) {
  const DType t = node_of(x, "std")->dtype;
  if (is_half(t)) return std(x.cast(DType::f32), std::move(axes), correction, keepdim).cast(t);
  const Tensor v = var(x, std::move(axes), correction, keepdim);
  const Tensor flat = v == 0.0;
  return where(flat, 0.0, sqrt(where(flat, 1.0, v)));
}

// Scans (scan group): the input is cast to the result dtype first (a cast that fuses into the
// scan's kernel), so the Scan row keeps its input's dtype; include_initial is a cat of the
// identity in front (the short cat fuses into its consumer or runs as a copy).
namespace {
Tensor scan(Op op, const Tensor& x, std::optional<int64_t> axis, std::optional<DType> dtype,
            bool include_initial, const char* name) {
  const ir::NodePtr& n = node_of(x, name);
  const auto nd = static_cast<int64_t>(n->shape.size());
  if (nd == 0)
    throw Error(ErrorCode::InvalidArgument, std::string(name) + ": input must have at least one dimension");
  if (!axis && nd > 1)
    throw Error(ErrorCode::InvalidArgument, std::string(name) + ": axis is required for input of shape " +
                                                shape_str(n->shape) + " (more than one dimension)");
  const int64_t ax = core::normalize_axis(axis.value_or(0), n->shape, name);
  DType out = n->dtype;
  if (dtype)
    out = *dtype;
  else if (is_unsigned(n->dtype))
    out = DType::u64;
  else if (!is_floating(n->dtype) && !is_complex(n->dtype))
    out = DType::i64;  // signed integers and b8 (complex keeps its dtype, as floats do)
  if (out == DType::b8)
    throw Error(ErrorCode::DTypeMismatch, std::string(name) + ": result dtype b8 is not numeric");
  const Tensor xc = n->dtype == out ? x : x.cast(out);
  ir::Attrs a;
  a.axis = ax;
  Tensor r(make(op, {node_of(xc, name)}, a, n->device));
  if (!include_initial) return r;
  Shape first = n->shape;
  first[static_cast<std::size_t>(ax)] = 1;
  return cat({full(first, op == Op::CumSum ? 0.0 : 1.0, out, x.device()), r}, ax);
}
}  // namespace

Tensor cumulative_sum(const Tensor& x, std::optional<int64_t> axis, std::optional<DType> dtype,
                      bool include_initial) {
  return scan(Op::CumSum, x, axis, dtype, include_initial, "cumulative_sum");
}

Tensor cumulative_prod(const Tensor& x, std::optional<int64_t> axis, std::optional<DType> dtype,
                       bool include_initial) {
  return scan(Op::CumProd, x, axis, dtype, include_initial, "cumulative_prod");
}

Tensor max(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Reduced r = reduce(Op::Max, x, axes, keepdim, "max");
  return Tensor(frontend::reshape_node(r.node, r.final_shape));
}

Tensor min(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Reduced r = reduce(Op::Min, x, axes, keepdim, "min");
  return Tensor(frontend::reshape_node(r.node, r.final_shape));
}

Tensor prod(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Reduced r = reduce(Op::Prod, x, axes, keepdim, "prod");
  return Tensor(frontend::reshape_node(r.node, r.final_shape));
}

// any/all reduce b8: other dtypes are tested against zero first (x != 0, so NaN counts as true,
// as the standard says), a cast that fuses into the reduction's kernel.
Tensor any(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Tensor b = node_of(x, "any")->dtype == DType::b8 ? x : x.cast(DType::b8);
  Reduced r = reduce(Op::Any, b, axes, keepdim, "any");
  return Tensor(frontend::reshape_node(r.node, r.final_shape));
}

Tensor all(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Tensor b = node_of(x, "all")->dtype == DType::b8 ? x : x.cast(DType::b8);
  Reduced r = reduce(Op::All, b, axes, keepdim, "all");
  return Tensor(frontend::reshape_node(r.node, r.final_shape));
}

namespace {
// argmax/argmin: one Argmax/Argmin row (argmax group), a one-pass reduction whose accumulator
// pairs the extreme with its index (ir::RedAcc::Indexed), the index of an element being its
// row-major position within the reduced axes. A NaN counts as the extreme (the first NaN's
// index, as NumPy and PyTorch); among equal values the first wins. No axis: over all axes (the
// row-major flat index), without reshaping x (that would materialize a strided x first).
Tensor arg_extreme(const Tensor& x, std::optional<int64_t> axis, bool keepdim, Op op, const char* name) {
  std::vector<int64_t> axes;
  if (axis) {
    axes = {*axis};
  } else {
    for (std::size_t k = 0; k < node_of(x, name)->shape.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  const ir::NodePtr& n = node_of(x, name);
  std::vector<int64_t> ax = core::normalize_axes(axes, n->shape, name);
  int64_t len = 1;
  for (int64_t a : ax) len *= n->shape[static_cast<std::size_t>(a)];
  if (len == 0)
    throw Error(ErrorCode::InvalidArgument, std::string(name) +
                                                ": reduction over a zero-size dimension of shape " +
                                                shape_str(n->shape) + " has no identity");
  ir::Attrs a;
  a.axes = ax;
  a.dtype = DType::i64;
  ir::NodePtr r = make(op, {n}, a, n->device);
  Shape fin;
  for (std::size_t d = 0; d < n->shape.size(); ++d) {
    const bool reduced = std::find(ax.begin(), ax.end(), static_cast<int64_t>(d)) != ax.end();
    if (!reduced || keepdim) fin.push_back(reduced ? 1 : n->shape[d]);
  }
  return Tensor(frontend::reshape_node(r, fin));
}
}  // namespace

Tensor argmax(const Tensor& x, std::optional<int64_t> axis, bool keepdim) {
  return arg_extreme(x, axis, keepdim, Op::Argmax, "argmax");
}
Tensor argmin(const Tensor& x, std::optional<int64_t> axis, bool keepdim) {
  return arg_extreme(x, axis, keepdim, Op::Argmin, "argmin");
}

Tensor count_nonzero(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Tensor b = node_of(x, "count_nonzero")->dtype == DType::b8 ? x : x.cast(DType::b8);
  return sum(b, std::move(axes), keepdim);  // sum of b8 is i64
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  node_of(a, "isclose");
  node_of(b, "isclose");
  // Integers and b8 compare in f64, as NumPy's isclose does (no wrap-around in a - b). Complex
  // values compare by the modulus of the difference (NumPy's); they raised a cast error until
  // 2026-12-07, found by a probe against NumPy.
  auto exact = [](DType t) { return !is_floating(t) && !is_complex(t); };
  const bool exact_types = exact(a.dtype()) && exact(b.dtype());
  const Tensor x = exact_types ? a.cast(DType::f64) : a, y = exact_types ? b.cast(DType::f64) : b;
  // NumPy's rule: within the tolerance where y is finite, else equal (equal infinities). Without
  // the isfinite, rtol * |inf| = inf made every finite x, and -inf, close to inf (until 2026-12-07).
  Tensor close = logical_or(x == y, logical_and(isfinite(y), abs(x - y) <= atol + rtol * abs(y)));
  if (equal_nan) close = logical_or(close, logical_and(isnan(x), isnan(y)));
  return close;
}

Tensor allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all(isclose(a, b, rtol, atol, equal_nan));
}

Tensor Tensor::sum(std::vector<int64_t> axes, bool keepdim) const {
  return cgrad::sum(*this, std::move(axes), keepdim);
}
Tensor Tensor::mean(std::vector<int64_t> axes, bool keepdim) const {
  return cgrad::mean(*this, std::move(axes), keepdim);
}
Tensor Tensor::max(std::vector<int64_t> axes, bool keepdim) const {
  return cgrad::max(*this, std::move(axes), keepdim);
}
Tensor Tensor::min(std::vector<int64_t> axes, bool keepdim) const {
  return cgrad::min(*this, std::move(axes), keepdim);
}

}  // namespace cgrad
