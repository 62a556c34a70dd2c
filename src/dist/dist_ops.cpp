// Element-wise ops and composites on DTensors (docs/distributed.md). Element-wise ops broadcast
// on global shapes and run the ordinary op on the local blocks: a replicated operand that spans
// the sharded axis is sliced to this process's block (a view, no copy), so a chain of them is
// still one fused kernel per process. matmul, softmax and cross-entropy add an AllReduce node
// exactly where the math sums or maximizes over the sharded axis.
#include "dist/dist_internal.h"

#include <algorithm>
#include <map>

namespace cgrad::dist {

using detail::crosses_axis;
using detail::normalize_axis;

namespace {

// The operands' local tensors, aligned for an element-wise op on the global broadcast shape.
struct Aligned {
  std::vector<Tensor> locals;
  int64_t axis = -1;  // in the broadcast shape
  Shape global;
};

Aligned align(std::initializer_list<const DTensor*> xs, const char* op) {
  Aligned r;
  std::size_t nd = 0;
  for (const DTensor* x : xs) nd = std::max(nd, x->shape().size());
  r.global.assign(nd, 1);
  const DTensor* sharded_by = nullptr;
  for (const DTensor* x : xs) {
    const std::size_t lead = nd - x->shape().size();
    for (std::size_t i = 0; i < x->shape().size(); ++i) {
      int64_t& g = r.global[lead + i];
      const int64_t d = x->shape()[i];
      if (g != d && g != 1 && d != 1)
        throw Error(ErrorCode::ShapeMismatch, std::string(op) + ": global shapes do not broadcast (" +
                                                  shape_str(x->shape()) + " against " + shape_str(r.global) +
                                                  ")");
      if (d != 1) g = d;
    }
    if (!x->sharded()) continue;
    const auto a = static_cast<int64_t>(lead) + x->axis();
    if (sharded_by && a != r.axis)
      throw Error(ErrorCode::InvalidOperation, std::string(op) + ": operands sharded along different axes (" +
                                                   detail::sharding_str(*sharded_by) + " and " +
                                                   detail::sharding_str(*x) + "); gather() one first");
    r.axis = a;
    sharded_by = x;
  }
  for (const DTensor* x : xs) {
    const std::size_t lead = nd - x->shape().size();
    const int64_t a = r.axis - static_cast<int64_t>(lead);
    if (r.axis < 0 || x->sharded() || a < 0 || x->shape()[static_cast<std::size_t>(a)] == 1) {
      if (x->sharded() &&
          x->shape()[static_cast<std::size_t>(x->axis())] != r.global[static_cast<std::size_t>(r.axis)])
        crosses_axis(*x, op, "broadcasting the sharded axis");
      r.locals.push_back(x->local());
      continue;
    }
    // A replicated operand spanning the sharded axis: this process's block of it.
    const Block b = block_of(r.global[static_cast<std::size_t>(r.axis)], rank(), size());
    r.locals.push_back(size() == 1 ? x->local() : x->local().slice(a, b.start, b.start + b.size));
  }
  return r;
}

template <class F>
DTensor map1(const DTensor& x, F f) {
  return DTensor(f(x.local()), x.axis(), x.shape());
}
template <class F>
DTensor map2(const DTensor& a, const DTensor& b, const char* op, F f) {
  Aligned al = align({&a, &b}, op);
  return DTensor(f(al.locals[0], al.locals[1]), al.axis, al.global);
}

}  // namespace

#define CGRAD_DIST_BINARY(OP, NAME)                                                            \
  DTensor OP(const DTensor& a, const DTensor& b) {                                             \
    return map2(a, b, NAME, [](const Tensor& x, const Tensor& y) { return cgrad::OP(x, y); }); \
  }                                                                                            \
  DTensor OP(const DTensor& a, Scalar b) {                                                     \
    return map1(a, [&](const Tensor& x) { return cgrad::OP(x, b); });                          \
  }
#define CGRAD_DIST_BINARY_BOTH(OP, NAME)                              \
  CGRAD_DIST_BINARY(OP, NAME)                                         \
  DTensor OP(Scalar a, const DTensor& b) {                            \
    return map1(b, [&](const Tensor& y) { return cgrad::OP(a, y); }); \
  }
CGRAD_DIST_BINARY_BOTH(operator+, "+")
CGRAD_DIST_BINARY_BOTH(operator-, "-")
CGRAD_DIST_BINARY_BOTH(operator*, "*")
CGRAD_DIST_BINARY_BOTH(operator/, "/")
CGRAD_DIST_BINARY(operator<, "<")
CGRAD_DIST_BINARY(operator>, ">")
#undef CGRAD_DIST_BINARY_BOTH
#undef CGRAD_DIST_BINARY

DTensor maximum(const DTensor& a, const DTensor& b) {
  return map2(a, b, "maximum", [](const Tensor& x, const Tensor& y) { return cgrad::maximum(x, y); });
}
DTensor minimum(const DTensor& a, const DTensor& b) {
  return map2(a, b, "minimum", [](const Tensor& x, const Tensor& y) { return cgrad::minimum(x, y); });
}
DTensor where(const DTensor& cond, const DTensor& a, const DTensor& b) {
  Aligned al = align({&cond, &a, &b}, "where");
  return DTensor(cgrad::where(al.locals[0], al.locals[1], al.locals[2]), al.axis, al.global);
}
DTensor pow(const DTensor& a, Scalar b) {
  return map1(a, [&](const Tensor& x) { return cgrad::pow(x, b); });
}
DTensor operator-(const DTensor& a) {
  return map1(a, [](const Tensor& x) { return -x; });
}

#define CGRAD_DIST_UNARY(OP)                                      \
  DTensor OP(const DTensor& x) {                                  \
    return map1(x, [](const Tensor& t) { return cgrad::OP(t); }); \
  }
CGRAD_DIST_UNARY(exp)
CGRAD_DIST_UNARY(log)
CGRAD_DIST_UNARY(sqrt)
CGRAD_DIST_UNARY(abs)
CGRAD_DIST_UNARY(sin)
CGRAD_DIST_UNARY(cos)
CGRAD_DIST_UNARY(tanh)
CGRAD_DIST_UNARY(sigmoid)
CGRAD_DIST_UNARY(relu)
#undef CGRAD_DIST_UNARY

DTensor& DTensor::operator+=(const DTensor& o) { return *this = *this + o; }
DTensor& DTensor::operator-=(const DTensor& o) { return *this = *this - o; }
DTensor& DTensor::operator*=(const DTensor& o) { return *this = *this * o; }
DTensor& DTensor::operator/=(const DTensor& o) { return *this = *this / o; }
DTensor& DTensor::operator*=(Scalar o) { return *this = *this * o; }

// ---- composites ----

DTensor matmul(const DTensor& a, const DTensor& b) {
  if (a.ndim() < 1 || b.ndim() < 1) throw Error(ErrorCode::InvalidArgument, "matmul: 0-d operand");
  const int64_t ka = a.ndim() - 1, kb = b.ndim() == 1 ? 0 : b.ndim() - 2;  // contraction axes
  const bool a_contract = a.sharded() && a.axis() == ka, b_contract = b.sharded() && b.axis() == kb;
  if (a_contract || b_contract) {
    // Contraction over the sharded axis: each process multiplies its blocks of k (slicing a
    // replicated operand), one all-reduce sums the partial products.
    if ((a.sharded() && !a_contract) || (b.sharded() && !b_contract))
      throw Error(ErrorCode::InvalidOperation,
                  "matmul: one operand is sharded along the contraction axis and the "
                  "other along another axis (" +
                      detail::sharding_str(a) + ", " + detail::sharding_str(b) + ")");
    const int64_t k = a.shape()[static_cast<std::size_t>(ka)];
    if (k != b.shape()[static_cast<std::size_t>(kb)])
      throw Error(ErrorCode::ShapeMismatch, "matmul: contraction sizes differ: " + shape_str(a.shape()) +
                                                " and " + shape_str(b.shape()));
    const Block blk = block_of(k, rank(), size());
    Tensor la = a_contract || size() == 1 ? a.local() : a.local().slice(ka, blk.start, blk.start + blk.size);
    Tensor lb = b_contract || size() == 1 ? b.local() : b.local().slice(kb, blk.start, blk.start + blk.size);
    Tensor out = all_reduce(cgrad::matmul(la, lb), ReduceOp::Sum);
    return DTensor(out, -1, out.shape());
  }
  if (a.sharded() && b.sharded())
    throw Error(ErrorCode::InvalidOperation, "matmul: both operands sharded outside the contraction axis (" +
                                                 detail::sharding_str(a) + ", " + detail::sharding_str(b) +
                                                 "); gather() one first");
  // A batch dim on the replicated side would broadcast against the sharded one: not supported.
  if (a.sharded() && b.ndim() > 2) crosses_axis(a, "matmul", "multiplying by a replicated batched operand");
  if (b.sharded() && a.ndim() > 2) crosses_axis(b, "matmul", "multiplying a replicated batched left operand");
  if (b.sharded() && b.axis() != b.ndim() - 1)
    crosses_axis(b, "matmul", "multiplying along a sharded batch axis");
  Tensor out = cgrad::matmul(a.local(), b.local());
  Shape g = out.shape();
  if (a.sharded()) {  // rows (or batch) of a: kept in place by the product
    g[static_cast<std::size_t>(a.axis())] = a.shape()[static_cast<std::size_t>(a.axis())];
    return DTensor(out, a.axis(), g);
  }
  if (b.sharded()) {  // columns of b: the result's last axis
    g.back() = b.shape().back();
    return DTensor(out, static_cast<int64_t>(g.size()) - 1, g);
  }
  return DTensor(out, -1, g);
}

DTensor softmax(const DTensor& x, int64_t axis) {
  const int64_t ax = normalize_axis(axis, x.ndim(), "softmax");
  if (ax != x.axis()) return DTensor(cgrad::softmax(x.local(), ax), x.axis(), x.shape());
  // Over the sharded axis: global max and global sum, one all-reduce each.
  DTensor m = x.max({ax}, true);
  DTensor e = exp(x - DTensor(m.local().detach(), -1, m.shape()));
  return e / e.sum({ax}, true);
}

DTensor log_softmax(const DTensor& x, int64_t axis) {
  const int64_t ax = normalize_axis(axis, x.ndim(), "log_softmax");
  if (ax != x.axis()) return DTensor(cgrad::log_softmax(x.local(), ax), x.axis(), x.shape());
  DTensor m = x.max({ax}, true);
  DTensor z = x - DTensor(m.local().detach(), -1, m.shape());
  return z - log(exp(z).sum({ax}, true));
}

DTensor cross_entropy(const DTensor& logits, const DTensor& targets) {
  if (logits.ndim() != 2 || logits.axis() != 0 || targets.axis() != 0)
    throw Error(ErrorCode::InvalidArgument,
                "cross_entropy: logits (N, C) and targets must both be sharded along the "
                "batch axis 0 (logits " +
                    detail::sharding_str(logits) + ", targets " + detail::sharding_str(targets) + ")");
  // The local mean times the local batch is the local sum; one all-reduce adds them up.
  const auto n_local = static_cast<double>(logits.local().shape()[0]);
  Tensor part = cgrad::cross_entropy(logits.local(), targets.local()) * n_local;
  Tensor total = all_reduce(part, ReduceOp::Sum) / static_cast<double>(logits.shape()[0]);
  return DTensor(total, -1, total.shape());
}

DTensor cat(const std::vector<DTensor>& xs, int64_t dim) {
  if (xs.empty()) throw Error(ErrorCode::InvalidArgument, "cat: no tensors");
  const int64_t d = normalize_axis(dim, xs[0].ndim(), "cat");
  std::vector<Tensor> locals;
  for (const DTensor& x : xs) {
    if (x.axis() != xs[0].axis())
      throw Error(ErrorCode::InvalidOperation, "cat: operands with different sharding (" +
                                                   detail::sharding_str(xs[0]) + ", " +
                                                   detail::sharding_str(x) + ")");
    if (x.sharded() && x.axis() == d) crosses_axis(x, "cat", "concatenating along axis " + std::to_string(d));
    locals.push_back(x.local());
  }
  Tensor l = cgrad::cat(locals, d);
  Shape g = xs[0].shape();
  g[static_cast<std::size_t>(d)] = l.shape()[static_cast<std::size_t>(d)];
  return DTensor(l, xs[0].axis(), g);
}

void all_reduce_grads(const std::vector<Tensor>& params, bool average) {
  // One flat buffer per dtype (in parameter order, so every process builds the same one).
  std::map<DType, std::vector<std::size_t>> by_dtype;
  for (std::size_t i = 0; i < params.size(); ++i)
    if (params[i].grad().defined()) by_dtype[params[i].grad().dtype()].push_back(i);
  NoGradGuard off;
  for (auto& [dt, idx] : by_dtype) {
    std::vector<Tensor> flat;
    for (std::size_t i : idx) flat.push_back(params[i].grad().reshape({-1}));
    Tensor all = all_reduce(flat.size() == 1 ? flat[0] : cgrad::cat(flat, 0), ReduceOp::Sum);
    if (average) all = all / static_cast<double>(size());
    int64_t off_elems = 0;
    for (std::size_t i : idx) {
      Tensor g = params[i].grad();
      const int64_t n = g.numel();
      g.assign(all.slice(0, off_elems, off_elems + n).reshape(g.shape()));
      off_elems += n;
    }
  }
}

}  // namespace cgrad::dist
