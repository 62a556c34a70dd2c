// Reductions. The IR keeps reduced dims with size 1; keepdim=false is a reshape on top.
#include "frontend/build.h"

#include <algorithm>

namespace cgrad {

using frontend::make;
using frontend::node_of;
using ir::Op;

namespace {

struct Reduced {
  ir::NodePtr node;       // keepdim shape
  Shape final_shape;      // requested shape
  int64_t count;          // elements combined into each output
};

Reduced reduce(Op op, const Tensor& x, const std::vector<int64_t>& axes, bool keepdim, const char* name) {
  const ir::NodePtr& n = node_of(x, name);
  std::vector<int64_t> ax = core::normalize_axes(axes, n->shape, name);
  int64_t count = 1;
  for (int64_t a : ax) count *= n->shape[static_cast<std::size_t>(a)];
  if ((op == Op::Max || op == Op::Min) && count == 0)
    throw Error(ErrorCode::InvalidArgument, std::string(name) + ": reduction over a zero-size dimension of shape " +
                                                shape_str(n->shape) + " has no identity");
  ir::Attrs a;
  a.axes = ax;
  ir::NodePtr r = make(op, {n}, a, n->device);
  Shape fin;
  for (std::size_t i = 0; i < n->shape.size(); ++i) {
    bool reduced = std::find(ax.begin(), ax.end(), static_cast<int64_t>(i)) != ax.end();
    if (!reduced) fin.push_back(n->shape[i]);
    else if (keepdim) fin.push_back(1);
  }
  return {r, fin, count};
}

}  // namespace

Tensor sum(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Reduced r = reduce(Op::Sum, x, axes, keepdim, "sum");
  return Tensor(frontend::reshape_node(r.node, r.final_shape));
}

Tensor mean(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  if (!is_floating(node_of(x, "mean")->dtype))
    throw Error(ErrorCode::DTypeMismatch, std::string("mean: input dtype ") + dtype_name(x.dtype()) +
                                              " is not floating (cast to f32 or f64 first)");
  Reduced r = reduce(Op::Sum, x, axes, keepdim, "mean");
  Tensor s(frontend::reshape_node(r.node, r.final_shape));
  return s / static_cast<double>(r.count);
}

Tensor max(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Reduced r = reduce(Op::Max, x, axes, keepdim, "max");
  return Tensor(frontend::reshape_node(r.node, r.final_shape));
}

Tensor min(const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Reduced r = reduce(Op::Min, x, axes, keepdim, "min");
  return Tensor(frontend::reshape_node(r.node, r.final_shape));
}

Tensor Tensor::sum(std::vector<int64_t> axes, bool keepdim) const { return cgrad::sum(*this, std::move(axes), keepdim); }
Tensor Tensor::mean(std::vector<int64_t> axes, bool keepdim) const { return cgrad::mean(*this, std::move(axes), keepdim); }
Tensor Tensor::max(std::vector<int64_t> axes, bool keepdim) const { return cgrad::max(*this, std::move(axes), keepdim); }
Tensor Tensor::min(std::vector<int64_t> axes, bool keepdim) const { return cgrad::min(*this, std::move(axes), keepdim); }

}  // namespace cgrad
