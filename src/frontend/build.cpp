// Node building for the frontend: promotion, broadcasting, constants, auto-realize.
#include "frontend/build.h"

#include "frontend/trace.h"

#include "core/env.hpp"
#include "ir/derivatives.h"
#include "ir/graph.h"
#include "ir/op_table.h"
#include "runtime/backend.h"
#include "runtime/realize.h"
#include "runtime/stats.h"

#include <cgrad/scalar.hpp>

#include <algorithm>
#include <array>
#include <mutex>
#include <string>

namespace cgrad::frontend {

const NodePtr& node_of(const Tensor& t, const char* op) {
  if (!t.defined())
    throw Error(ErrorCode::InvalidArgument, std::string(op) + ": tensor is undefined (default-constructed)");
  if (TraceLog* log = active_trace()) note_read(*log, t);
  return t.node();
}

namespace {
thread_local int g_no_grad_depth = 0;

// A node's depth is computed when it is built, so it goes stale when one of its ancestors is
// realized later: a lazy value built from a lazy state that is evaluated afterwards (the
// derivative odeint's FSAL steppers keep from one step to the next) keeps the state's old depth,
// and everything built from it adds up, step after step, until the auto-realize rule cuts the
// graph at places that move from step to step (new plans every time). Before the rule fires, the
// depths of n's unrealized ancestors are recomputed from the realized frontier, once.
// The walk reads input lists, which another thread's realize may drop or rewrite: the caller
// holds the realize lock.
void refresh_depth(ir::Node& n) {
  for (ir::Node* m : ir::topo_order({&n}, /*unrealized_only=*/true)) {
    int64_t d = 0;
    for (auto& in : m->inputs) d = std::max(d, in->pending_depth());
    m->set_depth(d + 1);
  }
}

}  // namespace

bool grad_mode() { return g_no_grad_depth == 0; }

namespace {
// make's work after building the node: its gradient record and the pending-depth rule.
NodePtr finish(NodePtr n, bool record) {
  const Op op = n->op;
  // complex group: a row without a complex derivative rule refuses here (the node is not yet
  // referenced: every tensor is intact), rather than gradients that silently stop at the node.
  bool cplx = false;
  if (record) {
    cplx = is_complex(n->dtype);
    for (const NodePtr& in : n->inputs) cplx = cplx || (in && is_complex(in->dtype));
  }
  if (cplx && (is_floating(n->dtype) || is_complex(n->dtype)) &&
      autograd::complex_grad(op) == autograd::ComplexGrad::None)
    throw Error(ErrorCode::InvalidOperation,
                std::string(ir::op_name(op)) +
                    ": no derivative rule for complex values (docs/autograd.md); detach() the input or "
                    "build under NoGradGuard");
  // Only floating and complex values carry gradients: comparisons, integer casts and integer sums
  // stop them.
  if (record && (is_floating(n->dtype) || is_complex(n->dtype))) {
    auto r = std::make_shared<ir::GradRecord>();
    r->op = op;
    r->attrs = n->attrs;
    r->inputs = n->inputs;
    n->grad = std::move(r);
  }
  // The rule fires once per `limit` nodes of a chain: taking the realize lock there costs the
  // common path nothing.
  const int64_t limit = core::env().max_pending_depth;
  if (limit > 0 && n->pending_depth() >= limit) {
    runtime::RealizeLock lock;
    refresh_depth(*n);
    if (n->pending_depth() >= limit) {
      runtime::realize({n});
      runtime::counters().auto_realizes.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return n;
}

bool records_grad(const ir::NodeList& inputs) {
  bool record = false;
  if (g_no_grad_depth == 0)
    for (const NodePtr& in : inputs) record = record || (in && in->grad);
  return record;
}
}  // namespace

NodePtr make(Op op, ir::NodeList inputs, ir::Attrs attrs, Device device) {
  const bool record = records_grad(inputs);
  return finish(ir::make_node(op, std::move(inputs), std::move(attrs), device), record);
}

NodePtr make(Op op, ir::NodeList inputs, Device device) {
  const bool record = records_grad(inputs);
  return finish(ir::make_node(op, std::move(inputs), device), record);
}

Tensor same_value(const Tensor& x, const char* op) {
  const NodePtr& n = node_of(x, op);
  if (!n->grad || !grad_mode()) return Tensor(n);
  ir::Attrs a;
  a.shape = n->shape;
  return Tensor(make(Op::Reshape, {n}, a, n->device));
}

void make_leaf(const std::shared_ptr<detail::Var>& v) {
  NodePtr n = v->node;
  if (n->grad && !(n->grad->is_leaf && n->grad->leaf.lock() == v)) {
    NoGradGuard off;
    ir::Attrs a;
    a.shape = n->shape;
    n = make(Op::Reshape, {n}, a, n->device);
  }
  auto r = std::make_shared<ir::GradRecord>();
  r->is_leaf = true;
  r->leaf = v;
  n->grad = std::move(r);
  v->node = std::move(n);
}

void attach_composite(const Tensor& out, ir::Composite kind, std::vector<NodePtr> inputs, ir::Attrs attrs) {
  if (!grad_mode()) return;
  bool any = false;
  for (const NodePtr& in : inputs) any = any || in->grad;
  if (!any) return;
  const NodePtr& n = out.node();
  auto r = std::make_shared<ir::GradRecord>();
  r->op = n->op;
  r->composite = kind;
  r->attrs = std::move(attrs);
  r->inputs = std::move(inputs);
  n->grad = std::move(r);
}

namespace {
// An element-wise op whose tensor operands are all the same pending permute (`M.T + 1`,
// `exp(M.T)`, `M.T * N.T`) is built on the permutes' inputs and permuted after, as NumPy and
// PyTorch keep their operands' memory order: its kernel walks every operand in memory order
// (where a row-order result reads `M` across rows: 2048^2 f32 `M.T + 1` took 3.4 ms against
// NumPy's 0.8), and the result is a view of that buffer. Constants and broadcast scalars are
// permuted back (index math). Not when the op records gradients, so that the gradient still
// flows through the permute a handle may hold. Null when the op is built as it is. Casts too
// (`cast_to`: `M.T.cast(f64)`, and `M_i32.T + 1.5`, whose operand is cast first).
NodePtr sink_permute(Op op, const ir::NodeList& ins, const ir::Attrs& attrs, Device device) {
  const ir::Node* first = nullptr;
  for (const NodePtr& n : ins)
    if (n->built_as == Op::Permute && !n->realized()) {
      first = n.get();
      break;
    }
  if (!first || records_grad(ins)) return nullptr;
  // A pending node's op, attrs and inputs change only under the realize lock (passes rewrite
  // them, a realize drops the inputs).
  runtime::RealizeLock lock;
  if (first->op != Op::Permute || first->realized()) return nullptr;
  const std::vector<int64_t> p = first->attrs.axes;
  const std::vector<int64_t> inv = core::inverse_permutation(p);
  ir::NodeList inner;
  for (const NodePtr& n : ins) {
    const bool pending = !n->realized();
    if (pending && n->op == Op::Permute && n->attrs.axes == p) {
      inner.push_back(n->inputs[0]);
      continue;
    }
    const bool scalar =
        pending && (n->op == Op::Full || (n->op == Op::Expand && core::numel(n->inputs[0]->shape) == 1));
    if (!scalar) return nullptr;
    ir::Attrs a;
    a.axes = inv;
    inner.push_back(make(Op::Permute, {n}, a, device));
  }
  ir::Attrs a;
  a.axes = p;
  return make(Op::Permute, {make(op, std::move(inner), attrs, device)}, a, device);
}
}  // namespace

NodePtr cast_to(const NodePtr& n, DType t) {
  if (n->dtype == t) return n;
  ir::Attrs a;
  a.dtype = t;
  if (NodePtr s = sink_permute(Op::Cast, {n}, a, n->device)) return s;
  return make(Op::Cast, {n}, a, n->device);
}

NodePtr reshape_node(const NodePtr& n, const Shape& shape) {
  if (n->shape == shape) return n;
  ir::Attrs a;
  a.shape = shape;
  return make(Op::Reshape, {n}, a, n->device);
}

NodePtr broadcast_to(const NodePtr& n, const Shape& shape) {
  if (n->shape == shape) return n;
  NodePtr r = n;
  if (n->shape.size() < shape.size()) {
    Shape padded(shape.size() - n->shape.size(), 1);
    padded.insert(padded.end(), n->shape.begin(), n->shape.end());
    r = reshape_node(r, padded);
  }
  if (r->shape == shape) return r;
  ir::Attrs a;
  a.shape = shape;
  return make(Op::Expand, {r}, a, r->device);
}

NodePtr full_node(const Shape& shape, Scalar value, DType t, Device device) {
  ir::Attrs a;
  a.shape = shape;
  a.dtype = t;
  if (is_complex(t)) {
    // complex group: a constant is real (Scalar holds real values); its imaginary part is 0.
    a.fvalue = core::dispatch(real_dtype(t), [&](auto tag) {
      return static_cast<double>(static_cast<decltype(tag)>(
          value.kind == Scalar::Kind::Float ? value.f : static_cast<double>(value.i)));
    });
  } else if (is_floating(t)) {
    // An f32 (f16, bf16) constant holds its rounded value, so equal constants compare equal
    // (CSE, plan keys) and kernels see the value the dtype holds.
    a.fvalue =
        core::dispatch(t, [&](auto tag) { return static_cast<double>(static_cast<decltype(tag)>(value.f)); });
  } else if (t == DType::b8) {
    a.ivalue = value.kind == Scalar::Kind::Float ? (value.f != 0) : (value.i != 0);
  } else {
    // An integer constant from a float scalar is converted like a cast to `t` (saturating to
    // t's range, NaN -> 0); from an integer scalar it wraps like integer arithmetic.
    if (value.kind == Scalar::Kind::Float)
      a.ivalue = core::dispatch(
          t, [&](auto tag) { return static_cast<int64_t>(scalar::cast<decltype(tag)>(value.f)); });
    else
      a.ivalue = core::wrap_to(value.i, t);
  }
  return make(Op::Full, {}, a, device);
}

core::PromoOperand promo(const NodePtr& n) {
  return {n->shape.empty() ? core::PromoOperand::Tier::ZeroDim : core::PromoOperand::Tier::Dim, n->dtype};
}

Device place(std::span<NodePtr* const> nodes, const char* name) {
  Device target = Device::cpu();
  bool on_cuda = false;
  for (NodePtr* n : nodes) {
    if (!*n || !(*n)->device.is_cuda()) continue;
    if (on_cuda && (*n)->device != target)
      throw Error(ErrorCode::DeviceError, std::string(name) + ": operands on different CUDA devices (" +
                                              target.str() + " and " + (*n)->device.str() +
                                              "): move one with to()");
    target = (*n)->device;
    on_cuda = true;
  }
  for (NodePtr* n : nodes) {
    if (!*n || (*n)->device == target) continue;
    if (!(*n)->realized()) runtime::realize({*n});  // computed where it lives, then copied
    NodePtr src = *n;
    *n = runtime::cached_copy(src, target);
    if (src->grad && !(*n)->grad) attach_composite(Tensor(*n), ir::Composite::ToDevice, {src}, {});
  }
  return target;
}

namespace {
// A comparison of integers with an integer scalar their dtype `t` cannot hold has one answer for
// every element: u8 < -1 is false, u8 != 256 true (NumPy 2's rule), not the answer for the wrapped
// scalar (-1 -> 255) that arithmetic uses. Null when the comparison needs computing.
NodePtr comparison_out_of_range(Op op, const Operand* const* ops, DType t, const Shape& shape) {
  const bool ordered = op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge;
  if ((!ordered && op != Op::Eq && op != Op::Ne) || !is_integer(t)) return nullptr;
  for (int i = 0; i < 2; ++i) {
    const Operand& o = *ops[i];
    if (o.tensor || o.scalar.kind != Scalar::Kind::Int || core::holds(t, o.scalar.i)) continue;
    // lhs < rhs for every element: the scalar on the right above t's range, or on the left below
    const bool lhs_less = (o.scalar.i > 0) == (i == 1);
    const bool v = op == Op::Ne || (ordered && lhs_less == (op == Op::Lt || op == Op::Le));
    const Device device = node_of(*ops[1 - i]->tensor, ir::info(op).name)->device;
    return broadcast_to(full_node({}, Scalar(v), DType::b8, device), shape);
  }
  return nullptr;
}
}  // namespace

Tensor elementwise(Op op, std::initializer_list<Operand> operands) {
  const ir::OpInfo& row = ir::info(op);
  const char* name = row.name;
  const std::size_t count = operands.size();
  // Where's condition takes no part in promotion.
  const bool has_cond = op == Op::Where;
  std::array<const Operand*, 3> ops{};
  std::array<NodePtr, 3> nodes;
  std::size_t i = 0;
  for (const Operand& o : operands) ops[i++] = &o;

  // Fast path: tensors only, one shape and dtype, nothing to convert (the common case). Each
  // operand's node is looked up once (node_of checks the handle and notes the read for tracing).
  bool simple = !has_cond;
  std::array<const NodePtr*, 3> fast{};
  for (i = 0; i < count && simple; ++i) {
    if (!ops[i]->tensor) {
      simple = false;
      break;
    }
    fast[i] = &node_of(*ops[i]->tensor, name);
    const ir::Node& n = **fast[i];
    const ir::Node& first = **fast[0];
    simple = i == 0 ||
             (n.dtype == first.dtype && n.device == first.device && core::same_shape(n.shape, first.shape));
  }
  if (simple) {
    const ir::Node& first = **fast[0];
    const DType t = first.dtype;
    if ((row.inputs & ir::bit(t)) && !(row.int_to_float && !is_floating(t) && !is_complex(t))) {
      ir::NodeList ins;
      for (i = 0; i < count; ++i) ins.push_back(*fast[i]);
      const Device device = first.device;
      if (NodePtr s = sink_permute(op, ins, {}, device)) return Tensor(std::move(s));
      return Tensor(make(op, std::move(ins), device));
    }
  }

  std::array<core::PromoOperand, 3> promos;
  int np = 0;
  Shape shape;
  Device device = Device::cpu();
  bool have_device = false;
  for (i = 0; i < count; ++i) {
    const Operand& o = *ops[i];
    const bool cond = has_cond && i == 0;
    if (o.tensor) {
      const NodePtr& n = node_of(*o.tensor, name);
      shape = !have_device ? n->shape : core::broadcast_shapes(shape, n->shape, name);
      if (!have_device) device = n->device;
      have_device = true;
      nodes[i] = n;
      if (!cond) promos[static_cast<std::size_t>(np++)] = promo(n);
    } else if (!cond) {
      promos[static_cast<std::size_t>(np++)] = {core::PromoOperand::Tier::Scalar,
                                                core::scalar_dtype(o.scalar)};
    }
  }
  if (!have_device)
    throw Error(ErrorCode::InvalidArgument, std::string(name) + ": needs at least one tensor operand");
  DType t = core::promote_all(promos.data(), np);
  if (row.int_to_float && !is_floating(t) && !is_complex(t)) t = DType::f32;
  if (!(row.inputs & ir::bit(t)))
    throw Error(
        ErrorCode::DTypeMismatch,
        std::string(name) + ": not supported for dtype " + dtype_name(t) +
            (t == DType::b8  ? " (cast to a numeric dtype first)"
             : is_complex(t) ? " (complex dtypes: see docs/semantics.md for the functions that take them)"
                             : ""));
  for (i = 0; i < count; ++i) {
    NodePtr n = nodes[i];
    if (has_cond && i == 0 && n && n->dtype != DType::b8)
      throw Error(ErrorCode::DTypeMismatch,
                  std::string("where: condition must be b8, got ") + dtype_name(n->dtype));
  }
  if (NodePtr c = comparison_out_of_range(op, ops.data(), t, shape)) return Tensor(std::move(c));
  {
    std::array<NodePtr*, 3> operand_nodes{};  // no allocation: at most 3 operands
    for (i = 0; i < count; ++i) operand_nodes[i] = &nodes[i];
    device = place(std::span<NodePtr* const>(operand_nodes.data(), count), name);
  }
  ir::NodeList ins;
  ins.reserve(count);
  for (i = 0; i < count; ++i) {
    NodePtr n = nodes[i];
    if (has_cond && i == 0) {
      if (!n) n = full_node(shape, ops[i]->scalar, DType::b8, device);
    } else if (!n) {
      n = full_node(shape, ops[i]->scalar, t, device);
    } else {
      n = cast_to(n, t);
    }
    ins.push_back(broadcast_to(n, shape));
  }
  if (NodePtr s = sink_permute(op, ins, {}, device)) return Tensor(std::move(s));
  return Tensor(make(op, std::move(ins), device));
}

}  // namespace cgrad::frontend

namespace cgrad {
NoGradGuard::NoGradGuard() { ++frontend::g_no_grad_depth; }
NoGradGuard::~NoGradGuard() { --frontend::g_no_grad_depth; }
bool is_grad_enabled() { return frontend::grad_mode(); }
}  // namespace cgrad
