// Movement ops (views of their input) and cat. Arguments are validated and normalized here
// (negative dims, -1 in reshape, Python-style negative slice bounds) before a node is built.
#include "frontend/build.h"

namespace cgrad {

using frontend::make;
using frontend::node_of;
using ir::Op;

Tensor Tensor::reshape(Shape shape) const {
  const ir::NodePtr& n = node_of(*this, "reshape");
  int infer = -1;
  int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0)
        throw Error(ErrorCode::InvalidArgument, "reshape: more than one -1 in " + shape_str(shape) +
                                                    " (reshaping " + shape_str(n->shape) + ")");
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      throw Error(ErrorCode::InvalidArgument, "reshape: negative dimension in " + shape_str(shape) +
                                                  " (reshaping " + shape_str(n->shape) + ")");
    } else {
      known = core::checked_numel({known, shape[i]}, "reshape");
    }
  }
  int64_t total = n->numel();
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      throw Error(ErrorCode::ShapeMismatch, "reshape: cannot reshape " + shape_str(n->shape) + " (" +
                                                std::to_string(total) + " elements) to " + shape_str(shape));
    shape[static_cast<std::size_t>(infer)] = total / known;
  }
  return Tensor(frontend::reshape_node(n, shape));
}

Tensor Tensor::permute(std::vector<int64_t> dims) const {
  const ir::NodePtr& n = node_of(*this, "permute");
  auto nd = static_cast<int64_t>(n->shape.size());
  if (static_cast<int64_t>(dims.size()) != nd)
    throw Error(ErrorCode::InvalidArgument, "permute: " + core::vec_str(dims) +
                                                " is not a permutation of the " + std::to_string(nd) +
                                                " dims of " + shape_str(n->shape));
  for (auto& d : dims) d = core::normalize_axis(d, n->shape, "permute");
  bool identity = true;
  for (int64_t i = 0; i < nd; ++i) identity = identity && dims[static_cast<std::size_t>(i)] == i;
  ir::Attrs a;
  a.axes = dims;
  if (identity) {
    ir::make_node(Op::Permute, {n}, a, n->device);  // still validates repeats
    return frontend::same_value(*this, "permute");  // a new handle: an assign to it leaves *this
  }
  return Tensor(make(Op::Permute, {n}, a, n->device));
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  const ir::NodePtr& n = node_of(*this, "transpose");
  auto nd = static_cast<int64_t>(n->shape.size());
  d0 = core::normalize_axis(d0, n->shape, "transpose");
  d1 = core::normalize_axis(d1, n->shape, "transpose");
  std::vector<int64_t> p(static_cast<std::size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) p[static_cast<std::size_t>(i)] = i;
  std::swap(p[static_cast<std::size_t>(d0)], p[static_cast<std::size_t>(d1)]);
  return permute(p);
}

Tensor Tensor::T() const {
  const ir::NodePtr& n = node_of(*this, "T");
  if (n->shape.size() < 2)
    throw Error(ErrorCode::InvalidArgument, "T: needs at least 2 dims, got shape " + shape_str(n->shape));
  return transpose(-2, -1);
}

Tensor Tensor::expand(Shape shape) const {
  const ir::NodePtr& n = node_of(*this, "expand");
  if (shape.size() < n->shape.size())
    throw Error(ErrorCode::ShapeMismatch,
                "expand: cannot expand " + shape_str(n->shape) + " to fewer dims " + shape_str(shape));
  std::size_t lead = shape.size() - n->shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (i < lead)
        throw Error(ErrorCode::InvalidArgument,
                    "expand: -1 not allowed for a new leading dim in " + shape_str(shape));
      shape[i] = n->shape[i - lead];
    }
    int64_t src = i < lead ? 1 : n->shape[i - lead];
    if (shape[i] < 0 || (src != 1 && src != shape[i]))
      throw Error(ErrorCode::ShapeMismatch,
                  "expand: cannot expand " + shape_str(n->shape) + " to " + shape_str(shape));
  }
  core::checked_numel(shape, "expand");
  return Tensor(frontend::broadcast_to(n, shape));
}

Tensor Tensor::slice(int64_t dim, int64_t start, int64_t stop, int64_t step) const {
  const ir::NodePtr& n = node_of(*this, "slice");
  dim = core::normalize_axis(dim, n->shape, "slice");
  int64_t d = n->shape[static_cast<std::size_t>(dim)];
  if (step < 1)
    throw Error(ErrorCode::InvalidArgument, "slice: step must be >= 1, got " + std::to_string(step) +
                                                " (dim " + std::to_string(dim) + " of shape " +
                                                shape_str(n->shape) + ")");
  int64_t s = start < 0 ? start + d : start;
  int64_t e = stop < 0 ? stop + d : stop;
  if (s < 0 || s > d || e < 0 || e > d)
    throw Error(ErrorCode::InvalidArgument, "slice: [" + std::to_string(start) + ":" + std::to_string(stop) +
                                                "] out of range for dim " + std::to_string(dim) +
                                                " of size " + std::to_string(d) + " in shape " +
                                                shape_str(n->shape));
  if (e < s) e = s;
  if (s == 0 && e == d && step == 1) return frontend::same_value(*this, "slice");  // as above
  ir::Attrs a;
  a.axis = dim;
  a.start = s;
  a.stop = e;
  a.step = step;
  return Tensor(make(Op::Slice, {n}, a, n->device));
}

Tensor flip(const Tensor& x, std::vector<int64_t> axes) {
  const ir::NodePtr& n = node_of(x, "flip");
  std::vector<int64_t> ax = core::normalize_axes(axes, n->shape, "flip");  // empty: every axis
  // Dims of size 0 or 1 read the same either way.
  std::erase_if(ax, [&](int64_t a) { return n->shape[static_cast<std::size_t>(a)] <= 1; });
  if (ax.empty()) return frontend::same_value(x, "flip");
  ir::Attrs a;
  a.axes = ax;
  return Tensor(make(Op::Flip, {n}, a, n->device));
}

Tensor cat(const std::vector<Tensor>& xs, int64_t dim) {
  if (xs.empty()) throw Error(ErrorCode::InvalidArgument, "cat: needs at least one tensor");
  std::vector<ir::NodePtr> ins;
  std::vector<core::PromoOperand> promos;
  for (const Tensor& t : xs) {
    ins.push_back(node_of(t, "cat"));
    promos.push_back({core::PromoOperand::Tier::Dim, ins.back()->dtype});
  }
  const Shape& s0 = ins[0]->shape;
  if (s0.empty())
    throw Error(ErrorCode::InvalidArgument, "cat: zero-dimensional tensors cannot be concatenated");
  dim = core::normalize_axis(dim, s0, "cat");
  for (auto& n : ins) {
    if (n->shape.size() != s0.size())
      throw Error(ErrorCode::ShapeMismatch,
                  "cat: shapes " + shape_str(s0) + " and " + shape_str(n->shape) + " differ in rank");
  }
  DType t = core::promote_all(promos.data(), static_cast<int>(promos.size()));
  ir::Attrs a;
  a.axis = dim;
  // Validate shapes before inserting casts, so an error builds nothing.
  {
    ir::Node proto;
    proto.op = Op::Cat;
    proto.inputs = ins;
    proto.attrs = a;
    Shape unused;
    ir::info(Op::Cat).shape_rule(proto, unused);
    proto.inputs.clear();
  }
  if (ins.size() == 1) return xs[0].cast(t);
  {
    std::vector<ir::NodePtr*> operand_nodes;
    for (auto& n : ins) operand_nodes.push_back(&n);
    frontend::place(operand_nodes, "cat");
  }
  for (auto& n : ins) n = frontend::cast_to(n, t);
  return Tensor(make(Op::Cat, ins, a, ins[0]->device));
}

}  // namespace cgrad
