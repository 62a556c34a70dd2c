// Pass simplify: algebraic identities that hold exactly, bit for bit, for every input.
//
// What: in topological order, a node equal to one of its inputs (or an input's input) is
// turned into a no-op view of it, and its consumers are pointed at that node directly:
//   x * 1, 1 * x, x / 1                      -> x
//   x - (+0), x + (-0), -0 + x (floats)      -> x   (x + 0 and x - 0 for integers)
//   -(-x)                                    -> x
//   cast of x to x's own dtype               -> x
//   reshape/expand to x's shape, identity permute, slice of a whole dim with step 1 -> x
//   where(constant c, a, b)                  -> a if c else b;   where(c, a, a) -> a
//   pow(x, 1)                                -> x
// and movement chains are composed in place: reshape(reshape(x)) -> reshape(x),
// permute(permute(x)) -> one permute (none when the composition is the identity),
// expand(expand(x)) -> expand(x). Integer x * 0 becomes the constant 0, and pow(x, 2) becomes
// x * x (real dtypes; NumPy and PyTorch do the same).
// Why: the frontend and autograd emit these (scalar operands, broadcasts, double negation,
// gradients multiplied by ones); each costs a kernel or hides a pattern from fusion.
// Invariants: a rewritten node keeps its value bit for bit, its shape, dtype and device:
// "-> x" rewrites the node in place into a same-shape reshape of x (a view, no kernel), so
// handles that hold it stay valid; realized nodes are never rewritten. Identities that are
// not exact are left alone on purpose: x + (+0) turns -0 into +0; float x * 0 is NaN for
// NaN and infinite x; exp(log x) is NaN for x < 0 and rounds twice otherwise; log(exp x)
// overflows to inf for large x and rounds. The two pow rewrites hold for the exact power
// (x^1 and x^2 rounded once, the special values of C99's pow included: pow(NaN, 1) is NaN,
// pow(-0, 2) is +0, pow(-inf, 2) is +inf) but not always for pow's kernels, which compute
// e^(y log|x|) and, squaring every float, were one unit off the exact square's rounding for
// 130,764 of them (ties: tiny squares, and squares such as 4097^2; glibc's powf for 1,548,806):
// the rewrite gives the correctly rounded square everywhere, for the cost of a multiply.
// Constants are matched as plain Full nodes, so fold_constants runs first.
#include "passes/pipeline.h"
#include "passes/rewrite.h"

#include <cmath>

namespace cgrad::passes {

using ir::Node;
using ir::NodePtr;
using ir::Op;

namespace {

bool is_pending(const Node& n, Op op) { return !n.realized() && n.op == op; }

// A constant zero whose sign makes `x op c == x` exact: for floats x + (-0) and x - (+0)
// keep every x (including -0 and NaN); x + (+0) and x - (-0) turn -0 into +0.
bool is_exact_zero_for(const Node& c, Op op) {
  if (!is_const(c)) return false;
  return core::dispatch(c.dtype, [&](auto t) {
    using T = decltype(t);
    T v = const_value<T>(c);
    if constexpr (core::is_floating_v<T>)
      return v == T(0) && std::signbit(v) == (op == Op::Add);
    else
      return v == T(0);
  });
}

bool is_identity_perm(const std::vector<int64_t>& p) {
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

bool is_whole_slice(const Node& n) {
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  return n.attrs.start == 0 && n.attrs.step == 1 && n.attrs.stop == n.inputs[0]->shape[ax];
}

// Whether `x` has `n`'s shape and dtype, and that dtype is real (not complex, not bool): the
// pow rewrites below compute n from x alone.
bool same_real_value(const Node& n, const Node& x) {
  return x.shape == n.shape && x.dtype == n.dtype && !is_complex(n.dtype) && n.dtype != DType::b8;
}

// The node `n` equals (an input, or an input's input), or null.
NodePtr equal_node(const Node& n) {
  const auto& in = n.inputs;
  switch (n.op) {
    case Op::Mul:
      if (const_equals(*in[1], 1)) return in[0];
      if (const_equals(*in[0], 1)) return in[1];
      break;
    case Op::Div:
      if (const_equals(*in[1], 1)) return in[0];
      break;
    case Op::Add:
      if (is_exact_zero_for(*in[1], Op::Add)) return in[0];
      if (is_exact_zero_for(*in[0], Op::Add)) return in[1];
      break;
    case Op::Sub:
      if (is_exact_zero_for(*in[1], Op::Sub)) return in[0];
      break;
    case Op::Neg:
      if (is_pending(*in[0], Op::Neg)) return in[0]->inputs[0];
      break;
    case Op::Cast:
      if (in[0]->dtype == n.dtype) return in[0];
      break;
    case Op::Reshape:
      if (in[0]->shape == n.shape) return in[0];
      if (is_pending(*in[0], Op::Reshape) && in[0]->inputs[0]->shape == n.shape) return in[0]->inputs[0];
      break;
    case Op::Expand:
      if (in[0]->shape == n.shape) return in[0];
      break;
    case Op::Permute:
      if (is_identity_perm(n.attrs.axes)) return in[0];
      break;
    case Op::Slice:
      if (is_whole_slice(n)) return in[0];
      break;
    case Op::Pow:
      if (same_real_value(n, *in[0]) && const_equals(*in[1], 1)) return in[0];
      break;
    case Op::Where:
      if (is_const(*in[0])) return in[0]->attrs.ivalue != 0 ? in[1] : in[2];
      if (in[1] == in[2]) return in[1];
      break;
    default: break;
  }
  return nullptr;
}

// Rewrites that keep the node but change what it is computed from.
void compose_in_place(Node& n) {
  const NodePtr in = n.inputs.empty() ? nullptr : n.inputs[0];
  switch (n.op) {
    case Op::Reshape:  // reshape(reshape(x), s) = reshape(x, s)
    case Op::Expand:   // expand(expand(x, s1), s2) = expand(x, s2): x's dims are s2's or 1
      if (is_pending(*in, n.op)) set_inputs(n, {in->inputs[0]});
      break;
    case Op::Permute:
      if (is_pending(*in, Op::Permute)) {
        // out[i] = in[p2[i]] = x[p1[p2[i]]]
        std::vector<int64_t> q(n.attrs.axes.size());
        for (std::size_t i = 0; i < q.size(); ++i)
          q[i] = in->attrs.axes[static_cast<std::size_t>(n.attrs.axes[i])];
        NodePtr x = in->inputs[0];
        if (is_identity_perm(q)) {
          to_view(n, x);
        } else {
          n.attrs.axes = std::move(q);
          set_inputs(n, {x});
        }
      }
      break;
    case Op::Pow:  // pow(x, 2) = x * x, one rounding of the exact square
      if (same_real_value(n, *in) && const_equals(*n.inputs[1], 2)) {
        n.op = Op::Mul;
        set_inputs(n, {in, in});
      }
      break;
    case Op::Mul:  // integer x * 0 = 0 (floats: NaN * 0 and inf * 0 are NaN)
      if (!is_floating(n.dtype) && (const_equals(*n.inputs[0], 0) || const_equals(*n.inputs[1], 0)))
        to_full(n, full_attrs<int64_t>(n.shape, n.dtype, 0));
      break;
    default: break;
  }
}

}  // namespace

void simplify(const PendingGraph& g) {
  for (const NodePtr& n : g.order) {
    skip_views(*n);
    if (NodePtr x = equal_node(*n))
      to_view(*n, std::move(x));
    else
      compose_in_place(*n);
  }
}

}  // namespace cgrad::passes
