// matmul (NumPy semantics) and the composites softmax, log_softmax and cross_entropy, built
// from primitive ops in their numerically stable forms (max subtracted before exp).
#include "frontend/build.h"

#include <array>
#include <limits>

namespace cgrad {

using frontend::make;
using frontend::node_of;
using ir::Op;

Tensor matmul(const Tensor& a, const Tensor& b) {
  ir::NodePtr na = node_of(a, "matmul"), nb = node_of(b, "matmul");
  const Shape sa = na->shape, sb = nb->shape;
  if (sa.empty() || sb.empty())
    throw Error(ErrorCode::InvalidArgument,
                "matmul: operands must have at least 1 dim, got " + shape_str(sa) + " and " + shape_str(sb));
  Shape a2 = sa.size() == 1 ? Shape{1, sa[0]} : sa;
  Shape b2 = sb.size() == 1 ? Shape{sb[0], 1} : sb;
  int64_t k1 = a2[a2.size() - 1], k2 = b2[b2.size() - 2];
  if (k1 != k2)
    throw Error(ErrorCode::ShapeMismatch, "matmul: shapes " + shape_str(sa) + " and " + shape_str(sb) +
                                              ": inner dimensions " + std::to_string(k1) + " and " +
                                              std::to_string(k2) + " differ");
  Shape ba(a2.begin(), a2.end() - 2), bb(b2.begin(), b2.end() - 2);
  Shape batch;
  try {
    batch = core::broadcast_shapes(ba, bb, "matmul");
  } catch (const Error&) {
    throw Error(ErrorCode::ShapeMismatch, "matmul: batch dims of shapes " + shape_str(sa) + " and " +
                                              shape_str(sb) + " cannot be broadcast");
  }
  core::PromoOperand p[2] = {{core::PromoOperand::Tier::Dim, na->dtype},
                             {core::PromoOperand::Tier::Dim, nb->dtype}};
  DType t = core::promote_all(p, 2);
  if (t == DType::b8)
    throw Error(ErrorCode::DTypeMismatch, "matmul: not supported for dtype b8 (cast first)");
  const int64_t m = a2[a2.size() - 2], n = b2[b2.size() - 1];
  Shape full_a = batch, full_b = batch, out = batch;
  full_a.insert(full_a.end(), {m, k1});
  full_b.insert(full_b.end(), {k1, n});
  out.insert(out.end(), {m, n});
  core::checked_numel(out, "matmul");
  const std::array<ir::NodePtr*, 2> operands{&na, &nb};
  frontend::place(operands, "matmul");
  na = frontend::broadcast_to(frontend::reshape_node(frontend::cast_to(na, t), a2), full_a);
  nb = frontend::broadcast_to(frontend::reshape_node(frontend::cast_to(nb, t), b2), full_b);
  ir::NodePtr r = make(Op::Matmul, {na, nb}, {}, na->device);
  Shape fin = batch;
  if (sa.size() > 1) fin.push_back(m);
  if (sb.size() > 1) fin.push_back(n);
  return Tensor(frontend::reshape_node(r, fin));
}

namespace {
// softmax and log_softmax compute in f32 or f64: integers and f16/bf16 in f32. A 16-bit result
// is rounded once at the end (as PyTorch's CPU kernels do): the row sums of 16-bit exps rounded
// to 16 bits, and a row past 65504 elements overflowed f16's sum to inf (every output 0).
DType result_type(DType t) { return is_floating(t) ? t : DType::f32; }
Tensor in_float(const Tensor& x) {
  const DType t = x.dtype();
  return t == DType::f32 || t == DType::f64 ? x : x.cast(DType::f32);
}
Tensor as_result(const Tensor& y, DType t) { return y.dtype() == t ? y : y.cast(t); }
}  // namespace

Tensor softmax(const Tensor& x, int64_t axis) {
  const ir::NodePtr& n = node_of(x, "softmax");
  if (n->shape.empty()) throw Error(ErrorCode::InvalidArgument, "softmax: needs at least 1 dim");
  axis = core::normalize_axis(axis, n->shape, "softmax");
  Tensor xf = in_float(x);
  const DType out = result_type(n->dtype);
  if (n->shape[static_cast<std::size_t>(axis)] == 0) return as_result(xf, out);
  Tensor y;
  {
    NoGradGuard composite;  // differentiated by its own rule, not through its primitives
    Tensor e = exp(xf - max(xf, {axis}, true));
    // One division per row, then a multiplication per element (a division per element costs more
    // than the exp on x86: vdivpd). Within 1 ulp of e / sum; the interpreter runs the same graph.
    y = e * (1.0 / sum(e, {axis}, true));
  }
  ir::Attrs a;
  a.axis = axis;
  frontend::attach_composite(y, ir::Composite::Softmax, {xf.node()}, a);
  return as_result(y, out);
}

Tensor log_softmax(const Tensor& x, int64_t axis) {
  const ir::NodePtr& n = node_of(x, "log_softmax");
  if (n->shape.empty()) throw Error(ErrorCode::InvalidArgument, "log_softmax: needs at least 1 dim");
  axis = core::normalize_axis(axis, n->shape, "log_softmax");
  Tensor xf = in_float(x);
  const DType out = result_type(n->dtype);
  if (n->shape[static_cast<std::size_t>(axis)] == 0) return as_result(xf, out);
  Tensor y;
  {
    NoGradGuard composite;
    Tensor shifted = xf - max(xf, {axis}, true);
    y = shifted - log(sum(exp(shifted), {axis}, true));
  }
  ir::Attrs a;
  a.axis = axis;
  frontend::attach_composite(y, ir::Composite::LogSoftmax, {xf.node()}, a);
  return as_result(y, out);
}

Tensor cross_entropy(const Tensor& logits, const Tensor& targets) {
  const ir::NodePtr& l = node_of(logits, "cross_entropy");
  const ir::NodePtr& t = node_of(targets, "cross_entropy");
  if (l->shape.empty() || l->shape.size() > 2)
    throw Error(ErrorCode::ShapeMismatch,
                "cross_entropy: logits must be (N, C) or (C), got " + shape_str(l->shape));
  Tensor lg = l->shape.size() == 1 ? logits.reshape({1, l->shape[0]}) : logits;
  const int64_t N = lg.shape()[0], C = lg.shape()[1];
  if (is_integer(t->dtype)) {
    Shape want = l->shape.size() == 1 ? Shape{} : Shape{N};
    if (t->shape != want)
      throw Error(ErrorCode::ShapeMismatch, "cross_entropy: class-index targets for logits " +
                                                shape_str(l->shape) + " must have shape " + shape_str(want) +
                                                ", got " + shape_str(t->shape));
    Tensor lsm, onehot_f, loss;
    {
      NoGradGuard composite;  // the backward is the fused (p - y) / N, not the primitives' chain
      lsm = log_softmax(lg, 1);
      // One-hot by comparison with arange(C). A target outside [0, C) matches no class: its row
      // is NaN, so the mean is NaN rather than a silently wrong number.
      Tensor onehot =
          (arange(C, DType::i64, lg.device()).reshape({1, C}) == targets.cast(DType::i64).reshape({N, 1}));
      onehot_f = onehot.cast(lsm.dtype());
      Tensor hits = sum(onehot_f, {1});
      Tensor picked = -sum(where(onehot, lsm, 0.0), {1});
      Tensor per_row = where(hits == 1.0, picked, std::numeric_limits<double>::quiet_NaN());
      loss = mean(per_row);
    }
    ir::Attrs a;
    a.ivalue = 1;  // one-hot targets: the gradient is (p - y) / N
    frontend::attach_composite(loss, ir::Composite::CrossEntropy, {lg.node(), lsm.node(), onehot_f.node()},
                               a);
    return loss;
  }
  if (!is_floating(t->dtype))
    throw Error(ErrorCode::DTypeMismatch,
                std::string("cross_entropy: targets must be i64/i32 class indices or float "
                            "probabilities, got ") +
                    dtype_name(t->dtype));
  if (t->shape != l->shape)
    throw Error(ErrorCode::ShapeMismatch, "cross_entropy: probability targets must have the logits' shape " +
                                              shape_str(l->shape) + ", got " + shape_str(t->shape));
  Tensor y = l->shape.size() == 1 ? targets.reshape({1, C}) : targets;
  Tensor lsm, loss;
  {
    NoGradGuard composite;
    lsm = log_softmax(lg, 1);
    loss = mean(-sum(y * lsm, {1}));
  }
  frontend::attach_composite(loss, ir::Composite::CrossEntropy, {lg.node(), lsm.node(), y.node()}, {});
  return loss;
}

}  // namespace cgrad
