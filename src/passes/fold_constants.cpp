// Pass fold_constants: computes at plan time what only depends on constants.
//
// What: in topological order, (1) a movement op (reshape, expand, permute, slice) of a Full
// becomes a Full of its own shape with the same value; (2) an element-wise node (cast,
// unary, binary, where) whose inputs are all Full becomes a Full holding the value its op
// gives. Since inputs are visited first, chains of constants fold in one sweep, and a
// constant reached through reshape/expand (how the frontend broadcasts scalars) folds too.
// Why: scalars in expressions (`x * 2 + 1`, `zeros(...) + 1`) are Full nodes; a folded
// constant costs no kernel and one element of storage, and exposes identities to simplify.
// Invariants: a node changes only into a Full of its own shape, dtype and device holding
// exactly the value the backends would compute: the value is computed by the op's helper of
// include/cgrad/scalar.hpp (the helper the interpreter calls), instantiated only for the
// dtypes the op table accepts, and stored as the Full attributes the interpreter reads
// (fvalue for floats, ivalue for integers and b8). Realized nodes are never read or
// rewritten. Reductions, cat and matmul of constants are left alone (see docs/passes.md).
// Host math (libm) is used: a GPU kernel of the same expression may differ in the last ulp.
#include "ir/op_table.h"
#include "passes/pipeline.h"
#include "passes/rewrite.h"

#include <cgrad/scalar.hpp>

namespace cgrad::passes {

using ir::Node;
using ir::Op;

namespace {

template <class R>
bool store(Node& n, R v) {
  if (core::dtype_of_v<R> != n.dtype) return false;  // never for a well-formed node
  if constexpr (core::is_complex_v<R>)
    if (!(v.im == 0 && !scalar::signbit(v.im)))
      return false;  // a Full holds a real value (+0 imaginary part)
  to_full(n, full_attrs<R>(n.shape, n.dtype, v));
  return true;
}

template <Op OP, class F>
bool fold_unary(Node& n, F f) {
  const ir::NodePtr x = n.inputs[0];
  return core::dispatch(x->dtype, [&](auto tin) -> bool {
    using TI = decltype(tin);
    if constexpr (OP == Op::Cast) {
      return core::dispatch(n.dtype, [&](auto tout) -> bool {
        using TO = decltype(tout);
        return store(n, scalar::cast<TO>(const_value<TI>(*x)));
      });
    } else if constexpr (ir::accepts(OP, core::dtype_of_v<TI>)) {
      return store(n, f(const_value<TI>(*x)));
    } else {
      return false;
    }
  });
}

template <Op OP, class F>
bool fold_binary(Node& n, F f) {
  const ir::NodePtr a = n.inputs[0], b = n.inputs[1];
  return core::dispatch(a->dtype, [&](auto tin) -> bool {
    using T = decltype(tin);
    if constexpr (ir::accepts(OP, core::dtype_of_v<T>))
      return store(n, f(const_value<T>(*a), const_value<T>(*b)));
    else
      return false;
  });
}

bool fold_where(Node& n) {
  const ir::NodePtr c = n.inputs[0], a = n.inputs[1], b = n.inputs[2];
  return core::dispatch(n.dtype, [&](auto t) -> bool {
    using T = decltype(t);
    return store(n, scalar::where(const_value<bool>(*c), const_value<T>(*a), const_value<T>(*b)));
  });
}

// The node's value from its constant inputs, through the op's scalar helper.
bool fold_elementwise(Node& n) {
  switch (n.op) {
#define CGRAD_FOLD_Source(E, name)
#define CGRAD_FOLD_Reduce(E, name)
#define CGRAD_FOLD_Movement(E, name)
#define CGRAD_FOLD_Concat(E, name)
#define CGRAD_FOLD_Gemm(E, name)
#define CGRAD_FOLD_Collective(E, name)
#define CGRAD_FOLD_Sort(E, name)  // group sort
#define CGRAD_FOLD_Map(E, name)
#define CGRAD_FOLD_Scan(E, name)
#define CGRAD_FOLD_Gather(E, name)
#define CGRAD_FOLD_Scatter(E, name)  // scatter group
#define CGRAD_FOLD_Ternary(E, name)
#define CGRAD_FOLD_Unary(E, name) \
  case Op::E:                     \
    return fold_unary<Op::E>(n, [](auto x) { return scalar::name(x); });
#define CGRAD_FOLD_Binary(E, name) \
  case Op::E:                      \
    return fold_binary<Op::E>(n, [](auto x, auto y) { return scalar::name(x, y); });
#define CGRAD_OP(E, name, Kind, arity) CGRAD_FOLD_##Kind(E, name)
    // Cast's lambda is never called: fold_unary<Op::Cast> converts with scalar::cast<To>.
#include <cgrad/ops.def>
#undef CGRAD_OP
#undef CGRAD_FOLD_Source
#undef CGRAD_FOLD_Reduce
#undef CGRAD_FOLD_Movement
#undef CGRAD_FOLD_Concat
#undef CGRAD_FOLD_Gemm
#undef CGRAD_FOLD_Collective
#undef CGRAD_FOLD_Sort
#undef CGRAD_FOLD_Map
#undef CGRAD_FOLD_Scan
#undef CGRAD_FOLD_Gather
#undef CGRAD_FOLD_Scatter
#undef CGRAD_FOLD_Ternary
#undef CGRAD_FOLD_Unary
#undef CGRAD_FOLD_Binary
    case Op::Where: return fold_where(n);
    default: return false;
  }
}

bool all_inputs_const(const Node& n) {
  for (auto& in : n.inputs)
    if (!is_const(*in)) return false;
  return !n.inputs.empty();
}

}  // namespace

void fold_constants(const PendingGraph& g) {
  for (const ir::NodePtr& n : g.order) {
    if (!all_inputs_const(*n)) continue;
    const ir::OpKind kind = ir::info(n->op).kind;
    if (kind == ir::OpKind::Movement) {
      // Every element of a view of a constant is that constant.
      const ir::Attrs& c = n->inputs[0]->attrs;
      ir::Attrs a;
      a.shape = n->shape;
      a.dtype = n->dtype;
      a.fvalue = c.fvalue;
      a.ivalue = c.ivalue;
      to_full(*n, std::move(a));
    } else if (ir::is_elementwise(kind)) {
      fold_elementwise(*n);
    }
  }
}

}  // namespace cgrad::passes
