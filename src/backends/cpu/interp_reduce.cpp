// Reduction, matmul and concatenation kernels of the interpreter. Reductions follow their
// op-table row's ReduceRule (identity, combining row, accumulator): float sums and products
// accumulate in double (scalar::acc), integer ones in int64 with wrap-around, so results are
// the exact reference the fused backends are compared with.
#include "backends/cpu/interpreter.h"
#include "core/dtype.hpp"
#include "core/strided.hpp"
#include "ir/op_table.h"

#include <cgrad/scalar.hpp>

#include <algorithm>
#include <limits>

namespace cgrad::backends::cpu {

using ir::Op;
using ir::View;

namespace {

// The start value of a reduction (ir::RedIdentity) in accumulator type A. Floats start from
// -inf / +inf through scalar::inf (std::numeric_limits is not specialized for the 16-bit
// storage types float16_t and bfloat16_t: it would give 0).
template <class A>
A identity_of(ir::RedIdentity id) {
  using L = std::numeric_limits<A>;
  switch (id) {
    case ir::RedIdentity::Zero: return A(0);
    case ir::RedIdentity::One: return A(1);
    case ir::RedIdentity::Lowest:
      if constexpr (scalar::is_float<A>::value)
        return A(-scalar::inf<float>());
      else
        return L::lowest();
    case ir::RedIdentity::Highest:
      if constexpr (scalar::is_float<A>::value)
        return A(scalar::inf<float>());
      else
        return L::max();
  }
  throw Error(ErrorCode::Internal, "interpreter: bad reduction identity");
}

// acc = combine(acc, x) as a function pointer to the scalar helper of the combining Binary row,
// or nullptr where that row does not map A to A. constexpr, so the common rows (sum, max, min)
// can be folded with a pointer the compiler knows and inlines (interp_reduce); the others make
// one indirect call per element.
template <class A>
using CombineFn = A (*)(A, A);
template <class A>
constexpr CombineFn<A> combine_or_null(Op op) {
  // Every op has a case (this file compiles with -Wswitch-enum): Binary rows give their helper
  // where it maps A to A, the rest fall to the error below.
  switch (op) {
#define CGRAD_RED_Binary(E, name)                                        \
  case Op::E:                                                            \
    if constexpr (ir::accepts(Op::E, core::dtype_of_v<A>)) {             \
      if constexpr (std::is_same_v<decltype(scalar::name(A{}, A{})), A>) \
        return [](A a, A b) -> A { return scalar::name(a, b); };         \
    }                                                                    \
    break;
#define CGRAD_RED_None(E) \
  case Op::E:             \
    break;
#define CGRAD_RED_Source(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Unary(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Ternary(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Reduce(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Movement(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Concat(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Gemm(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Collective(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Sort(E, name) CGRAD_RED_None(E)  // group sort
#define CGRAD_RED_Map(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Scan(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Gather(E, name) CGRAD_RED_None(E)
#define CGRAD_RED_Scatter(E, name) CGRAD_RED_None(E)  // scatter group
#define CGRAD_OP(E, name, Kind, arity) CGRAD_RED_##Kind(E, name)
#include <cgrad/ops.def>
#undef CGRAD_OP
#undef CGRAD_RED_Binary
#undef CGRAD_RED_None
#undef CGRAD_RED_Source
#undef CGRAD_RED_Unary
#undef CGRAD_RED_Ternary
#undef CGRAD_RED_Reduce
#undef CGRAD_RED_Movement
#undef CGRAD_RED_Concat
#undef CGRAD_RED_Gemm
#undef CGRAD_RED_Collective
#undef CGRAD_RED_Sort
#undef CGRAD_RED_Map
#undef CGRAD_RED_Scan
#undef CGRAD_RED_Gather
#undef CGRAD_RED_Scatter
  }
  return nullptr;
}
template <class A>
CombineFn<A> combine_fn(Op op) {
  if (const CombineFn<A> f = combine_or_null<A>(op)) return f;
  throw Error(ErrorCode::Internal, std::string("interpreter: ") + ir::op_name(op) +
                                       " cannot combine a reduction of " + dtype_name(core::dtype_of_v<A>));
}

// The fold of `x` into `acc` with the helper of row OP, known at compile time, when `op` is OP;
// false otherwise. (W3, `sum(a*b)` of 2^24 f32, one thread: 26 -> 15 ms, 10 of them the multiply.)
template <Op OP, class A, class Fold>
bool fold_inline(Op op, Fold& fold) {
  static constexpr CombineFn<A> f = combine_or_null<A>(OP);
  if constexpr (f != nullptr) {
    if (op == OP) {
      fold([](A a, A b) { return f(a, b); });
      return true;
    }
  }
  return false;
}

// The pair step of an indexed reduction (argmax group): the combining row's helper with an index
// (scalar::arg_maximum / arg_minimum). An if-chain: only Maximum and Minimum pair with an index.
template <class A>
using ArgStepFn = void (*)(A&, int64_t&, A, int64_t);
template <class A>
ArgStepFn<A> arg_step_fn(Op op) {
  if (op == Op::Maximum) return [](A& a, int64_t& ai, A x, int64_t xi) { scalar::arg_maximum(a, ai, x, xi); };
  if (op == Op::Minimum) return [](A& a, int64_t& ai, A x, int64_t xi) { scalar::arg_minimum(a, ai, x, xi); };
  throw Error(ErrorCode::Internal, std::string("interpreter: ") + ir::op_name(op) + " has no indexed form");
}

// argmax group: the (value, index) pairs, the index of an element being its row-major position
// within the reduced axes (a third stride walk: those axes' row-major strides, 0 elsewhere).
void interp_indexed(const ir::Node& n, const View& in, const core::Strides& acc_st, View& out) {
  const Shape& ishape = n.inputs[0]->shape;
  const ir::ReduceRule& rule = ir::info(n.op).reduce;
  core::Strides pos_st(ishape.size(), 0);
  int64_t step = 1;
  for (std::size_t q = n.attrs.axes.size(); q-- > 0;) {
    const auto a = static_cast<std::size_t>(n.attrs.axes[q]);
    pos_st[a] = step;
    step *= ishape[a];
  }
  const int64_t out_n = core::numel(n.shape);
  core::dispatch(n.inputs[0]->dtype, [&](auto tin) {
    using A = decltype(tin);
    if constexpr (ir::accepts(Op::Argmax, core::dtype_of_v<A>)) {
      const A* x = static_cast<const A*>(in.storage->data);
      const ArgStepFn<A> step_fn = arg_step_fn<A>(rule.combine);
      std::vector<A> acc(static_cast<std::size_t>(out_n), identity_of<A>(rule.identity));
      std::vector<int64_t> idx(static_cast<std::size_t>(out_n), 0);
      std::array<const int64_t*, 3> st{in.strides.data(), acc_st.data(), pos_st.data()};
      core::for_each_strided<3>(ishape, st, {in.offset, 0, 0}, [&](int64_t i, int64_t k, int64_t p) {
        const auto ku = static_cast<std::size_t>(k);
        A a = acc[ku];  // (a copy: std::vector<bool> has no references for b8)
        step_fn(a, idx[ku], x[i], p);
        acc[ku] = a;
      });
      int64_t* o = ptr<int64_t>(out);
      for (int64_t k = 0; k < out_n; ++k) o[k] = idx[static_cast<std::size_t>(k)];
    } else {
      throw Error(ErrorCode::Internal, std::string("interpreter: ") + ir::op_name(n.op) + " of " +
                                           dtype_name(core::dtype_of_v<A>));
    }
  });
}

}  // namespace

// Every reduction kind through its op-table row (ir::ReduceRule): the accumulator starts at the
// row's identity and folds each element in with the combining row's scalar helper.
View interp_reduce(const ir::Node& n, const View& in) {
  const Shape& ishape = n.inputs[0]->shape;
  const DType it = n.inputs[0]->dtype;
  const ir::ReduceRule& rule = ir::info(n.op).reduce;
  View out = alloc_contiguous(n.shape, n.dtype);
  const int64_t out_n = core::numel(n.shape);
  // Accumulator strides: the output's, with 0 on reduced axes.
  core::Strides acc_st = core::contiguous_strides(n.shape);
  for (int64_t a : n.attrs.axes) acc_st[static_cast<std::size_t>(a)] = 0;
  if (rule.acc == ir::RedAcc::Indexed) {
    interp_indexed(n, in, acc_st, out);
    return out;
  }
  core::dispatch(it, [&](auto tin) {
    using TI = decltype(tin);
    const TI* x = static_cast<const TI*>(in.storage->data);
    std::array<const int64_t*, 2> st{in.strides.data(), acc_st.data()};
    auto run = [&](auto acc_tag) {
      using A = decltype(acc_tag);
      std::vector<A> acc(static_cast<std::size_t>(out_n), identity_of<A>(rule.identity));
      // Each accumulator takes its elements in row-major order. When the last axis is reduced,
      // its rows are folded in a local: through acc[k], each step waited for the last one's store
      // (W3 with fold_inline: 53 -> 15 ms; softmax of 4096x4096: 110 -> 33).
      const bool row = !ishape.empty() && acc_st.back() == 0;
      const Shape walked = row ? Shape(ishape.begin(), ishape.end() - 1) : ishape;
      const int64_t len = row ? ishape.back() : 1, xs = row ? in.strides.back() : 0;
      auto fold = [&](auto combine) {
        core::for_each_strided<2>(walked, st, {in.offset, 0}, [&](int64_t i, int64_t k) {
          const auto ku = static_cast<std::size_t>(k);
          A a = acc[ku];  // (a copy: std::vector<bool> for b8 max/min has no references)
          for (int64_t j = 0; j < len; ++j) a = combine(a, static_cast<A>(x[i + j * xs]));
          acc[ku] = a;
        });
      };
      if (!fold_inline<Op::Add, A>(rule.combine, fold) && !fold_inline<Op::Maximum, A>(rule.combine, fold) &&
          !fold_inline<Op::Minimum, A>(rule.combine, fold))
        fold(combine_fn<A>(rule.combine));
      core::dispatch(n.dtype, [&](auto tout) {
        using TO = decltype(tout);
        TO* o = ptr<TO>(out);
        for (int64_t k = 0; k < out_n; ++k)
          o[k] = static_cast<TO>(static_cast<A>(acc[static_cast<std::size_t>(k)]));
      });
    };
    switch (rule.acc) {
      case ir::RedAcc::Wide: run(typename scalar::acc<TI>::type{}); return;
      case ir::RedAcc::Input: run(TI{}); return;
      case ir::RedAcc::Indexed: break;  // (interp_indexed, above)
    }
  });
  return out;
}

// Scans (scan group): the same ReduceRule as a reduction, the accumulator stored after each
// element along attrs.axis (sequentially, from index 0).
View interp_scan(const ir::Node& n, const View& in) {
  const Shape& ishape = n.inputs[0]->shape;
  const DType it = n.inputs[0]->dtype;
  const ir::ReduceRule& rule = ir::info(n.op).reduce;
  View out = alloc_contiguous(n.shape, n.dtype);
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  const int64_t len = ishape[ax];
  Shape rows = ishape;  // one iteration per row along the axis
  rows[ax] = 1;
  if (core::numel(ishape) == 0) return out;
  const int64_t is = in.strides[ax], os = out.strides[ax];
  core::dispatch(it, [&](auto tin) {
    using TI = decltype(tin);
    const TI* x = static_cast<const TI*>(in.storage->data);
    std::array<const int64_t*, 2> st{in.strides.data(), out.strides.data()};
    auto run = [&](auto acc_tag) {
      using A = decltype(acc_tag);
      const CombineFn<A> combine = combine_fn<A>(rule.combine);
      core::dispatch(n.dtype, [&](auto tout) {
        using TO = decltype(tout);
        TO* o = ptr<TO>(out);
        core::for_each_strided<2>(rows, st, {in.offset, 0}, [&](int64_t i, int64_t k) {
          A acc = identity_of<A>(rule.identity);
          for (int64_t j = 0; j < len; ++j) {
            acc = combine(acc, static_cast<A>(x[i + j * is]));
            o[k + j * os] = static_cast<TO>(acc);
          }
        });
      });
    };
    switch (rule.acc) {
      case ir::RedAcc::Wide: run(typename scalar::acc<TI>::type{}); return;
      case ir::RedAcc::Input: run(TI{}); return;
      case ir::RedAcc::Indexed: break;  // (no scan row pairs an index)
    }
    throw Error(ErrorCode::Internal, "interpreter: indexed scan");
  });
  return out;
}

View interp_matmul(const ir::Node& n, const View& a, const View& b) {
  View out;
  interp_matmul_into(n, a, b, out);
  return out;
}

void interp_matmul_into(const ir::Node& n, const View& a, const View& b, View& out) {
  const Shape& as = n.inputs[0]->shape;
  const Shape& bs = n.inputs[1]->shape;
  const std::size_t r = as.size();
  const int64_t m = as[r - 2], k = as[r - 1], nn = bs[r - 1];
  if (!out.storage) out = alloc_contiguous(n.shape, n.dtype);  // else the contiguous slot a plan gave
  Shape batch(as.begin(), as.end() - 2);
  std::array<const int64_t*, 3> st{a.strides.data(), b.strides.data(), out.strides.data()};
  const int64_t ar = a.strides[r - 2], ac = a.strides[r - 1], br = b.strides[r - 2], bc = b.strides[r - 1];
  const int64_t orow = out.strides[r - 2];
  core::dispatch(n.dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      throw Error(ErrorCode::Internal, "interpreter: matmul of b8");
    } else {
      using A = typename scalar::acc<T>::type;
      const T* x = static_cast<const T*>(a.storage->data);
      const T* y = static_cast<const T*>(b.storage->data);
      T* o = static_cast<T*>(out.storage->data);
      // Row i of the result accumulates in `acc` over p, then j: B is read along its rows (unit
      // stride when contiguous) instead of down its columns, and each acc[j] still sums its
      // products in the order p = 0, 1, ... (the same result as the dot-product order).
      std::vector<A> acc(static_cast<std::size_t>(nn));
      core::for_each_strided<3>(batch, st, {a.offset, b.offset, out.offset},
                                [&](int64_t ao, int64_t bo, int64_t oo) {
                                  for (int64_t i = 0; i < m; ++i) {
                                    std::fill(acc.begin(), acc.end(), A(0));
                                    for (int64_t p = 0; p < k; ++p) {
                                      const A xv = static_cast<A>(x[ao + i * ar + p * ac]);
                                      const T* yr = y + bo + p * br;
                                      for (int64_t j = 0; j < nn; ++j) {
                                        A& aj = acc[static_cast<std::size_t>(j)];
                                        aj = scalar::add(aj, scalar::mul(xv, static_cast<A>(yr[j * bc])));
                                      }
                                    }
                                    for (int64_t j = 0; j < nn; ++j)
                                      o[oo + i * orow + j] = static_cast<T>(acc[static_cast<std::size_t>(j)]);
                                  }
                                });
    }
  });
}

View interp_cat(const ir::Node& n, const std::vector<const View*>& in) {
  View out = alloc_contiguous(n.shape, n.dtype);
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  int64_t at = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Shape& s = n.inputs[i]->shape;
    View dst = out;  // the part of the output this input fills
    dst.offset = at * out.strides[ax];
    copy_view(*in[i], s, n.dtype, dst);
    at += s[ax];
  }
  return out;
}

}  // namespace cgrad::backends::cpu
