// Shape rules of the op table (op_table.h holds the rows themselves).
#include "ir/op_table.h"

#include "ir/node.h"

#include <string>

namespace cgrad::ir {

const OpInfo& info(Op op) { return kTable[static_cast<std::size_t>(op)]; }

namespace rules {

using core::fail;

namespace {
std::string name_of(const Node& n) { return info(n.op).name; }
}  // namespace

void source_shape(const Node& n, Shape& out) {
  core::checked_numel(n.attrs.shape, info(n.op).name);
  out = n.attrs.shape;
}

void elementwise_shape(const Node& n, Shape& out) {
  const Shape& s = n.inputs[0]->shape;
  for (auto& in : n.inputs) {
    if (!core::same_shape(in->shape, s))
      fail(ErrorCode::ShapeMismatch, name_of(n) + ": operand shapes " + cgrad::shape_str(s) + " and " +
                                         cgrad::shape_str(in->shape) +
                                         " differ (the frontend broadcasts before building)");
  }
  out = s;
}

void reduce_shape(const Node& n, Shape& s) {
  s = n.inputs[0]->shape;
  const auto& axes = n.attrs.axes;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(s.size()) || (i && axes[i] <= axes[i - 1]))
      fail(ErrorCode::InvalidArgument,
           name_of(n) + ": bad axes " + core::vec_str(axes) + " for shape " + cgrad::shape_str(s));
    s[static_cast<std::size_t>(axes[i])] = 1;
  }
}

void reshape_shape(const Node& n, Shape& out) {
  const Shape& in = n.inputs[0]->shape;
  int64_t m = core::checked_numel(n.attrs.shape, "reshape");
  if (m != core::numel(in))
    fail(ErrorCode::ShapeMismatch,
         "reshape: cannot reshape " + cgrad::shape_str(in) + " (" + std::to_string(core::numel(in)) +
             " elements) to " + cgrad::shape_str(n.attrs.shape) + " (" + std::to_string(m) + " elements)");
  out = n.attrs.shape;
}

void permute_shape(const Node& n, Shape& out) {
  const Shape& in = n.inputs[0]->shape;
  const auto& p = n.attrs.axes;
  std::vector<char> seen(in.size(), 0);
  bool ok = p.size() == in.size();
  for (std::size_t i = 0; ok && i < p.size(); ++i) {
    ok = p[i] >= 0 && p[i] < static_cast<int64_t>(in.size()) && !seen[static_cast<std::size_t>(p[i])];
    if (ok) seen[static_cast<std::size_t>(p[i])] = 1;
  }
  if (!ok)
    fail(ErrorCode::InvalidArgument, "permute: " + core::vec_str(p) + " is not a permutation of the " +
                                         std::to_string(in.size()) + " dims of " + cgrad::shape_str(in));
  out.resize(in.size());
  for (std::size_t i = 0; i < p.size(); ++i) out[i] = in[static_cast<std::size_t>(p[i])];
}

void expand_shape(const Node& n, Shape& out) {
  const Shape& in = n.inputs[0]->shape;
  const Shape& to = n.attrs.shape;
  bool ok = in.size() == to.size();
  for (std::size_t i = 0; ok && i < in.size(); ++i) ok = in[i] == to[i] || (in[i] == 1 && to[i] >= 0);
  if (!ok)
    fail(ErrorCode::ShapeMismatch,
         "expand: cannot expand " + cgrad::shape_str(in) + " to " + cgrad::shape_str(to));
  core::checked_numel(to, "expand");
  out = to;
}

// flip: the input's shape; attrs.axes are distinct dims of it (the frontend normalizes them).
void flip_shape(const Node& n, Shape& out) {
  const Shape& in = n.inputs[0]->shape;
  std::vector<char> seen(in.size(), 0);
  for (int64_t a : n.attrs.axes) {
    if (a < 0 || a >= static_cast<int64_t>(in.size()) || seen[static_cast<std::size_t>(a)])
      fail(ErrorCode::InvalidArgument,
           "flip: axes " + core::vec_str(n.attrs.axes) + " are not distinct dims of " + cgrad::shape_str(in));
    seen[static_cast<std::size_t>(a)] = 1;
  }
  out = in;
}

void slice_shape(const Node& n, Shape& out) {
  const Shape& in = n.inputs[0]->shape;
  const Attrs& a = n.attrs;
  if (a.axis < 0 || a.axis >= static_cast<int64_t>(in.size()))
    fail(ErrorCode::InvalidArgument,
         "slice: dim " + std::to_string(a.axis) + " out of range for " + cgrad::shape_str(in));
  int64_t d = in[static_cast<std::size_t>(a.axis)];
  if (a.step < 1 || a.start < 0 || a.start > a.stop || a.stop > d)
    fail(ErrorCode::InvalidArgument, "slice: [" + std::to_string(a.start) + ":" + std::to_string(a.stop) +
                                         ":" + std::to_string(a.step) + "] out of range for dim " +
                                         std::to_string(a.axis) + " of " + cgrad::shape_str(in));
  out = in;
  out[static_cast<std::size_t>(a.axis)] = (a.stop - a.start + a.step - 1) / a.step;
}

void cat_shape(const Node& n, Shape& out) {
  const Shape& s0 = n.inputs[0]->shape;
  int64_t ax = n.attrs.axis;
  if (ax < 0 || ax >= static_cast<int64_t>(s0.size()))
    fail(ErrorCode::InvalidArgument,
         "cat: dim " + std::to_string(ax) + " out of range for " + cgrad::shape_str(s0));
  out = s0;
  out[static_cast<std::size_t>(ax)] = 0;
  for (auto& in : n.inputs) {
    const Shape& s = in->shape;
    bool ok = s.size() == s0.size();
    for (std::size_t i = 0; ok && i < s.size(); ++i) ok = static_cast<int64_t>(i) == ax || s[i] == s0[i];
    if (!ok)
      fail(ErrorCode::ShapeMismatch, "cat: shapes " + cgrad::shape_str(s0) + " and " + cgrad::shape_str(s) +
                                         " differ outside dim " + std::to_string(ax));
    out[static_cast<std::size_t>(ax)] += s[static_cast<std::size_t>(ax)];
  }
  core::checked_numel(out, "cat");
}

void matmul_shape(const Node& n, Shape& out) {
  const Shape& a = n.inputs[0]->shape;
  const Shape& b = n.inputs[1]->shape;
  std::size_t r = a.size();
  bool ok = r >= 2 && b.size() == r && a[r - 1] == b[r - 2];
  for (std::size_t i = 0; ok && i + 2 < r; ++i) ok = a[i] == b[i];
  if (!ok)
    fail(ErrorCode::ShapeMismatch,
         "matmul: shapes " + cgrad::shape_str(a) + " and " + cgrad::shape_str(b) + " do not match");
  out = a;
  out[r - 1] = b[r - 1];
}

// index group (issue #15): take's output has the indices' shape; x matches it outside the axis.
void take_shape(const Node& n, Shape& out) {
  const Shape& x = n.inputs[0]->shape;
  const Shape& i = n.inputs[1]->shape;
  const int64_t ax = n.attrs.axis;
  if (ax < 0 || ax >= static_cast<int64_t>(x.size()))
    fail(ErrorCode::InvalidArgument,
         "take: axis " + std::to_string(ax) + " out of range for " + cgrad::shape_str(x));
  bool ok = i.size() == x.size();
  for (std::size_t d = 0; ok && d < x.size(); ++d) ok = static_cast<int64_t>(d) == ax || i[d] == x[d];
  if (!ok)
    fail(ErrorCode::ShapeMismatch, "take: indices of shape " + cgrad::shape_str(i) + " do not match " +
                                       cgrad::shape_str(x) + " outside axis " + std::to_string(ax));
  out = i;
}

// scatter group: scatter_add(base, src, idx) has base's shape; idx has src's shape, and src agrees
// with base outside the axis (the frontend broadcasts and reshapes to this form).
void scatter_shape(const Node& n, Shape& out) {
  const Shape& b = n.inputs[0]->shape;
  const Shape& s = n.inputs[1]->shape;
  const Shape& i = n.inputs[2]->shape;
  const int64_t ax = n.attrs.axis;
  if (ax < 0 || ax >= static_cast<int64_t>(b.size()))
    fail(ErrorCode::InvalidArgument,
         "scatter_add: axis " + std::to_string(ax) + " out of range for " + cgrad::shape_str(b));
  if (i != s)
    fail(ErrorCode::ShapeMismatch, "scatter_add: indices of shape " + cgrad::shape_str(i) +
                                       " differ from the values' shape " + cgrad::shape_str(s));
  bool ok = s.size() == b.size();
  for (std::size_t d = 0; ok && d < b.size(); ++d) ok = static_cast<int64_t>(d) == ax || s[d] == b[d];
  if (!ok)
    fail(ErrorCode::ShapeMismatch, "scatter_add: values of shape " + cgrad::shape_str(s) + " do not match " +
                                       cgrad::shape_str(b) + " outside axis " + std::to_string(ax));
  out = b;
}

}  // namespace rules
}  // namespace cgrad::ir
