// Indexing and searching (issue #15, the index group): take and take_along_axis build the one
// gather row (Op::Take) over i64 positions; scatter_add and scatter_add_along_axis (their
// inverses, the scatter group) build the one scatter row (Op::ScatterAdd); searchsorted is a binary search
// written as ceil(log2(n + 1)) gathers of the sorted input, so it fuses into one kernel per call; nonzero has
// a data-dependent shape and evaluates its input (a synchronisation point, docs/semantics.md).
//
// Out-of-range positions: -n <= i < 0 wraps once (NumPy); anything else outside [0, n) reads 0
// inside the kernel (JAX's fill mode), so a lazy index tensor never reads outside a buffer.
#include "frontend/build.h"

#include <algorithm>

namespace cgrad {

using frontend::make;
using frontend::node_of;
using ir::Op;

namespace {

ir::NodePtr index_node(const Tensor& indices, const char* op) {
  const ir::NodePtr& i = node_of(indices, op);
  if (!is_integer(i->dtype))
    throw Error(ErrorCode::DTypeMismatch,
                std::string(op) + ": indices must have an integer dtype, got " + dtype_name(i->dtype));
  return i;
}

// The gather row: x and idx (any integer dtype) already agree outside `axis`.
Tensor gather(ir::NodePtr x, ir::NodePtr idx, int64_t axis, const char* op) {
  if (x->shape[static_cast<std::size_t>(axis)] == 0) {  // every position is out of range: 0
    Shape s = x->shape;
    s[static_cast<std::size_t>(axis)] = idx->shape[static_cast<std::size_t>(axis)];
    return zeros(s, x->dtype, x->device);
  }
  std::array<ir::NodePtr*, 2> operands{&x, &idx};
  frontend::place(operands, op);
  ir::Attrs a;
  a.axis = axis;
  return Tensor(make(Op::Take, {x, frontend::cast_to(idx, DType::i64)}, a, x->device));
}

// The scatter row (scatter group): src and idx (any integer dtype) already have one shape that
// agrees with base outside `axis`; base and src promote to one dtype.
Tensor scatter(ir::NodePtr base, ir::NodePtr src, ir::NodePtr idx, int64_t axis, const char* op) {
  const DType t = core::promote(base->dtype, src->dtype);
  if (t == DType::b8)
    throw Error(ErrorCode::DTypeMismatch, std::string(op) + ": base and src must be numeric, got b8");
  std::array<ir::NodePtr*, 3> operands{&base, &src, &idx};
  const Device dev = frontend::place(operands, op);
  ir::Attrs a;
  a.axis = axis;
  return Tensor(make(
      Op::ScatterAdd,
      {frontend::cast_to(base, t), frontend::cast_to(src, t), frontend::cast_to(idx, DType::i64)}, a, dev));
}

}  // namespace

Tensor take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis) {
  ir::NodePtr xn = node_of(x, "take");
  const ir::NodePtr in = index_node(indices, "take");
  if (!axis) {
    if (xn->shape.size() > 1)
      throw Error(ErrorCode::InvalidArgument, "take: axis is required for " + shape_str(xn->shape) +
                                                  " (more than one dimension); flatten x first");
    xn = frontend::reshape_node(xn, {xn->numel()});
    axis = 0;
  }
  const int64_t ax = core::normalize_axis(*axis, xn->shape, "take");
  const auto u = static_cast<std::size_t>(ax);
  // out = x.shape[:axis] + indices.shape + x.shape[axis+1:]: gather the flattened indices,
  // broadcast over the other dims of x, then unflatten them.
  const int64_t m = in->numel();
  Shape one(xn->shape.size(), 1), full = xn->shape;
  one[u] = m;
  full[u] = m;
  Tensor r = gather(xn, frontend::broadcast_to(frontend::reshape_node(in, one), full), ax, "take");
  Shape out(xn->shape.begin(), xn->shape.begin() + ax);
  out.insert(out.end(), in->shape.begin(), in->shape.end());
  out.insert(out.end(), xn->shape.begin() + ax + 1, xn->shape.end());
  return out == r.shape() ? r : r.reshape(out);
}

Tensor take_along_axis(const Tensor& x, const Tensor& indices, int64_t axis) {
  const ir::NodePtr& xn = node_of(x, "take_along_axis");
  const ir::NodePtr in = index_node(indices, "take_along_axis");
  if (xn->shape.empty())
    throw Error(ErrorCode::InvalidArgument, "take_along_axis: x must have at least one dimension");
  if (in->shape.size() != xn->shape.size())
    throw Error(ErrorCode::ShapeMismatch, "take_along_axis: indices " + shape_str(in->shape) + " and x " +
                                              shape_str(xn->shape) + " differ in rank");
  const int64_t ax = core::normalize_axis(axis, xn->shape, "take_along_axis");
  Shape xs = xn->shape, is = in->shape;  // broadcast every dim but the axis
  for (std::size_t d = 0; d < xs.size(); ++d) {
    if (static_cast<int64_t>(d) == ax || xs[d] == is[d]) continue;
    if (xs[d] != 1 && is[d] != 1)
      throw Error(ErrorCode::ShapeMismatch, "take_along_axis: indices " + shape_str(in->shape) + " and x " +
                                                shape_str(xn->shape) + " do not broadcast outside axis " +
                                                std::to_string(ax));
    xs[d] = is[d] = std::max(xs[d], is[d]);
  }
  return gather(frontend::broadcast_to(xn, xs), frontend::broadcast_to(in, is), ax, "take_along_axis");
}

Tensor scatter_add(const Tensor& base, int64_t axis, const Tensor& indices, const Tensor& src) {
  const ir::NodePtr& b = node_of(base, "scatter_add");
  const ir::NodePtr in = index_node(indices, "scatter_add");
  const ir::NodePtr& s = node_of(src, "scatter_add");
  if (b->shape.empty())
    throw Error(ErrorCode::InvalidArgument, "scatter_add: base must have at least one dimension");
  const int64_t ax = core::normalize_axis(axis, b->shape, "scatter_add");
  const auto u = static_cast<std::size_t>(ax);
  Shape want(b->shape.begin(), b->shape.begin() + ax);  // take's output shape
  want.insert(want.end(), in->shape.begin(), in->shape.end());
  want.insert(want.end(), b->shape.begin() + ax + 1, b->shape.end());
  if (s->shape != want)
    throw Error(ErrorCode::ShapeMismatch, "scatter_add: src has shape " + shape_str(s->shape) +
                                              ", expected " + shape_str(want) +
                                              " (base.shape[:axis] + indices.shape + base.shape[axis+1:])");
  // The flattened indices along the axis, broadcast over the other dims (as take builds them).
  const int64_t m = in->numel();
  Shape one(b->shape.size(), 1), full = b->shape;
  one[u] = m;
  full[u] = m;
  return scatter(b, frontend::reshape_node(s, full),
                 frontend::broadcast_to(frontend::reshape_node(in, one), full), ax, "scatter_add");
}

Tensor scatter_add(const Shape& shape, int64_t axis, const Tensor& indices, const Tensor& src) {
  node_of(src, "scatter_add");
  return scatter_add(zeros(shape, src.dtype(), src.device()), axis, indices, src);
}

Tensor scatter_add_along_axis(const Tensor& base, int64_t axis, const Tensor& indices, const Tensor& src) {
  const char* op = "scatter_add_along_axis";
  const ir::NodePtr& b = node_of(base, op);
  const ir::NodePtr in = index_node(indices, op);
  const ir::NodePtr& s = node_of(src, op);
  if (b->shape.empty())
    throw Error(ErrorCode::InvalidArgument, std::string(op) + ": base must have at least one dimension");
  if (in->shape.size() != b->shape.size() || s->shape.size() != b->shape.size())
    throw Error(ErrorCode::ShapeMismatch, std::string(op) + ": indices " + shape_str(in->shape) + ", src " +
                                              shape_str(s->shape) + " and base " + shape_str(b->shape) +
                                              " differ in rank");
  const int64_t ax = core::normalize_axis(axis, b->shape, op);
  Shape sh(b->shape.size());
  for (std::size_t d = 0; d < sh.size(); ++d) {
    const int64_t i = in->shape[d], v = s->shape[d];
    const bool ok = i == v || i == 1 || v == 1;
    sh[d] = i == 1 ? v : i;
    if (!ok || (static_cast<int64_t>(d) != ax && sh[d] != b->shape[d]))
      throw Error(ErrorCode::ShapeMismatch, std::string(op) + ": indices " + shape_str(in->shape) +
                                                " and src " + shape_str(s->shape) +
                                                " do not broadcast to base " + shape_str(b->shape) +
                                                " outside axis " + std::to_string(ax));
  }
  return scatter(b, frontend::broadcast_to(s, sh), frontend::broadcast_to(in, sh), ax, op);
}

Tensor searchsorted(const Tensor& x1, const Tensor& x2, std::string_view side) {
  const ir::NodePtr& s = node_of(x1, "searchsorted");
  node_of(x2, "searchsorted");
  if (side != "left" && side != "right")
    throw Error(ErrorCode::InvalidArgument,
                "searchsorted: side must be 'left' or 'right', got '" + std::string(side) + "'");
  if (s->shape.size() != 1)
    throw Error(ErrorCode::InvalidArgument, "searchsorted: x1 must be 1-D, got " + shape_str(s->shape));
  const bool right = side == "right";
  const int64_t n = s->shape[0];
  const Shape out = x2.shape();
  if (n == 0) return zeros(out, DType::i64, s->device);
  // lo = the number of elements of x1 before v. Invariant: x1[lo - 1] goes before v. Each step
  // tries lo + step: one gather and one comparison, all fused (x1 is read at random: it is
  // materialized once). NaN sorts last, as NumPy's sort puts it.
  const Tensor v = x2.reshape({x2.numel()});
  const bool flt = is_floating(s->dtype) || is_floating(x2.dtype());
  auto before = [&](const Tensor& t) {  // t goes before v (left: t < v; right: t <= v)
    Tensor b = right ? t <= v : t < v;
    if (flt) b = logical_or(b, right ? isnan(v) : logical_and(isnan(v), logical_not(isnan(t))));
    return b;
  };
  int64_t step = 1;
  while (step <= n / 2) step *= 2;
  Tensor lo = zeros({v.numel()}, DType::i64, s->device);
  for (; step >= 1; step /= 2) {
    const Tensor cand = lo + step;
    const Tensor t = take(x1, cand - 1);
    lo = where(logical_and(cand <= n, before(t)), cand, lo);
  }
  return lo.reshape(out);
}

std::vector<Tensor> nonzero(const Tensor& x) {
  const ir::NodePtr& n = node_of(x, "nonzero");
  if (n->shape.empty())
    throw Error(ErrorCode::InvalidArgument,
                "nonzero: x must have at least one dimension (the Array API's rule)");
  // Data-dependent shape: evaluate the mask now (a synchronisation point), count on the host,
  // then write the indices row by row of the last dim, without a branch per element: each
  // element's last-dim index is written to the next free place, which moves on only for a true
  // one; the other dims' indices are filled once per row over the places the row took.
  const Tensor b = n->dtype == DType::b8 ? x : x.cast(DType::b8);
  const std::vector<uint8_t> mask = b.cast(DType::u8).to_vector<uint8_t>();
  const std::size_t r = n->shape.size();
  std::size_t count = 0;
  for (uint8_t m : mask) count += m;
  std::vector<std::vector<int64_t>> idx(r, std::vector<int64_t>(count + 1));  // (+1: the last write)
  const int64_t last = n->shape[r - 1];
  std::vector<int64_t> pos(r, 0);  // the row's multi-index (the last dim's stays 0)
  std::size_t k = 0;
  int64_t* __restrict out_last = idx[r - 1].data();  // (restrict: the mask's bytes are not indices)
  for (std::size_t row = 0; last > 0 && row * static_cast<std::size_t>(last) < mask.size(); ++row) {
    const uint8_t* __restrict m = mask.data() + row * static_cast<std::size_t>(last);
    const std::size_t k0 = k;
    for (int64_t j = 0; j < last; ++j) {
      out_last[k] = j;
      k += m[j];
    }
    for (std::size_t d = 0; d + 1 < r; ++d)
      std::fill(idx[d].begin() + static_cast<std::ptrdiff_t>(k0),
                idx[d].begin() + static_cast<std::ptrdiff_t>(k), pos[d]);
    for (std::size_t d = r - 1; d-- > 0;) {  // next row, row-major
      if (++pos[d] < n->shape[d]) break;
      pos[d] = 0;
    }
  }
  for (auto& v : idx) v.resize(count);
  std::vector<Tensor> out;
  for (auto& v : idx) out.push_back(tensor(std::move(v), {static_cast<int64_t>(count)}, n->device));
  return out;
}

}  // namespace cgrad
