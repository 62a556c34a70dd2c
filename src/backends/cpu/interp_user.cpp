// The interpreter's kernel for user element-wise functions (issue #23): evaluates the parsed
// body (ir/user_fn.h) once per element, node by node, with the same cgrad::scalar helpers the
// generated kernels call, so it is the oracle for the JIT and CUDA renderings of the body.
#include "backends/cpu/interpreter.h"
#include "core/dtype.hpp"
#include "ir/op_table.h"
#include "ir/user_fn.h"

#include <cgrad/scalar.hpp>

#include <type_traits>

namespace cgrad::backends::cpu {

using ir::Op;
using ir::UserExpr;
using ir::View;

namespace {

template <class T>
struct Value {
  T v{};
  bool b = false;
};

// One element-wise row applied to values of dtype T (the rows the parser allows: Unary and
// Binary, cast excluded), instantiated only where the row accepts T.
template <class T>
Value<T> apply(Op op, const Value<T>& x, const Value<T>& y) {
  Value<T> r;
  switch (op) {
#define CGRAD_U_Source(E, name)
#define CGRAD_U_Reduce(E, name)
#define CGRAD_U_Movement(E, name)
#define CGRAD_U_Concat(E, name)
#define CGRAD_U_Gemm(E, name)
#define CGRAD_U_Map(E, name)
#define CGRAD_U_Scan(E, name)
#define CGRAD_U_Gather(E, name)
#define CGRAD_U_Scatter(E, name)     // scatter group
#define CGRAD_U_Collective(E, name)  // the all-reduce: communication, not arithmetic (docs/distributed.md)
#define CGRAD_U_Sort(E, name)        // group sort: row kernels, not arithmetic
#define CGRAD_U_Ternary(E, name)
#define CGRAD_U_Unary(E, name)                                                    \
  case Op::E:                                                                     \
    if constexpr (Op::E != Op::Cast && ir::accepts(Op::E, core::dtype_of_v<T>)) { \
      r.v = scalar::name(x.v);                                                    \
      return r;                                                                   \
    }                                                                             \
    break;
#define CGRAD_U_Binary(E, name)                              \
  case Op::E:                                                \
    if constexpr (ir::accepts(Op::E, core::dtype_of_v<T>)) { \
      using R = decltype(scalar::name(x.v, y.v));            \
      if constexpr (std::is_same_v<R, bool>) {               \
        r.b = scalar::name(x.v, y.v);                        \
        return r;                                            \
      } else if constexpr (std::is_same_v<R, T>) {           \
        r.v = scalar::name(x.v, y.v);                        \
        return r;                                            \
      }                                                      \
    }                                                        \
    break;
#define CGRAD_OP(E, name, Kind, arity) CGRAD_U_##Kind(E, name)
#include <cgrad/ops.def>
#undef CGRAD_OP
#undef CGRAD_U_Source
#undef CGRAD_U_Reduce
#undef CGRAD_U_Movement
#undef CGRAD_U_Concat
#undef CGRAD_U_Gemm
#undef CGRAD_U_Map
#undef CGRAD_U_Scan
#undef CGRAD_U_Gather
#undef CGRAD_U_Scatter
#undef CGRAD_U_Collective
#undef CGRAD_U_Sort
#undef CGRAD_U_Ternary
#undef CGRAD_U_Unary
#undef CGRAD_U_Binary
    default: break;
  }
  throw Error(ErrorCode::Internal, std::string("interpreter: user function calls ") + ir::op_name(op) +
                                       " on dtype " + dtype_name(core::dtype_of_v<T>));
}

template <class T>
T eval_body(const ir::UserBody& body, const T* in, std::vector<Value<T>>& s) {
  for (std::size_t i = 0; i < body.nodes.size(); ++i) {
    const UserExpr& e = body.nodes[i];
    auto a = [&](std::size_t j) -> const Value<T>& { return s[static_cast<std::size_t>(e.args[j])]; };
    Value<T>& r = s[i];
    switch (e.kind) {
      case UserExpr::Kind::Input: r.v = in[e.index]; break;
      case UserExpr::Kind::Literal:
        r.v =
            core::is_floating_v<T> ? static_cast<T>(e.value) : static_cast<T>(static_cast<int64_t>(e.value));
        break;
      case UserExpr::Kind::Call: r = apply<T>(e.op, a(0), e.args.size() > 1 ? a(1) : a(0)); break;
      case UserExpr::Kind::Select: r = a(0).b ? a(1) : a(2); break;
      case UserExpr::Kind::And: r.b = a(0).b && a(1).b; break;
      case UserExpr::Kind::Or: r.b = a(0).b || a(1).b; break;
      case UserExpr::Kind::Not: r.b = !a(0).b; break;
    }
  }
  return s[static_cast<std::size_t>(body.root)].v;
}

}  // namespace

View interp_user(const ir::Node& n, const std::vector<const View*>& in) {
  const ir::UserFn& fn = *n.attrs.fn;
  const ir::UserBody& body = fn.outputs[static_cast<std::size_t>(n.attrs.axis)];
  View out = alloc_contiguous(n.shape, n.dtype);
  core::dispatch(n.dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool> || core::is_complex_v<T>) {  // (the User row: kNumeric)
      throw Error(ErrorCode::Internal, std::string("interpreter: user function on ") + dtype_name(n.dtype));
    } else {
      // 16-bit floats: the body is computed in float and rounded once, as in the generated
      // kernels (docs/semantics.md: storage types computed in f32).
      using C = std::conditional_t<core::is_floating_v<T> && sizeof(T) == 2, float, T>;
      const std::size_t k = in.size(), rank = n.shape.size();
      std::vector<const T*> base(k);
      std::vector<int64_t> off(k);
      for (std::size_t j = 0; j < k; ++j) {
        base[j] = static_cast<const T*>(in[j]->storage->data);
        off[j] = in[j]->offset;
      }
      std::vector<int64_t> idx(rank, 0);
      std::vector<C> args(k);
      std::vector<Value<C>> scratch(body.nodes.size());
      T* o = ptr<T>(out);
      const int64_t count = n.numel();
      for (int64_t e = 0; e < count; ++e) {
        for (std::size_t j = 0; j < k; ++j) args[j] = static_cast<C>(base[j][off[j]]);
        o[e] = static_cast<T>(eval_body<C>(body, args.data(), scratch));
        // odometer step over the output's row-major index, moving every input's offset
        for (std::size_t d = rank; d-- > 0;) {
          for (std::size_t j = 0; j < k; ++j) off[j] += in[j]->strides[d];
          if (++idx[d] < n.shape[d]) break;
          for (std::size_t j = 0; j < k; ++j) off[j] -= in[j]->strides[d] * n.shape[d];
          idx[d] = 0;
        }
      }
    }
  });
  return out;
}

}  // namespace cgrad::backends::cpu
