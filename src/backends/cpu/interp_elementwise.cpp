// Element-wise and source kernels of the interpreter. Every element-wise op calls the helper
// of include/cgrad/scalar.hpp that ops.def names, instantiated only for the dtypes its op
// table row accepts: no op's arithmetic is written here.
#include "backends/cpu/interpreter.h"
#include "core/dtype.hpp"
#include "core/strided.hpp"
#include "ir/op_table.h"

#include <cgrad/scalar.hpp>

namespace cgrad::backends::cpu {

using ir::Op;
using ir::View;

namespace {

// The element-wise walk over operands of element type T: float rows run in vectorized clones
// (core/strided.hpp; 2^22 f32, one thread: exp 66 -> 1.0 ms, tan 59 -> 5.6, f32 -> f16 5.3 ->
// 0.5), other rows in plain code (integer, bool and complex loops gain little from them and would
// triple this file's code).
template <bool Float, std::size_t N, class F>
void each(const Shape& shape, const std::array<const int64_t*, N>& st, const std::array<int64_t, N>& base,
          F&& f) {
  if constexpr (Float)
    core::for_each_elementwise<N>(shape, st, base, f);
  else
    core::for_each_strided<N>(shape, st, base, f);
}

template <Op OP, class F>
View unary(const ir::Node& n, const View& a, F f) {
  View out = alloc_contiguous(n.shape, n.dtype);
  core::dispatch(a.storage ? n.inputs[0]->dtype : n.dtype, [&](auto tin) {
    using TI = decltype(tin);
    if constexpr (OP == Op::Cast) {
      core::dispatch(n.dtype, [&](auto tout) {
        using TO = decltype(tout);
        TO* o = ptr<TO>(out);
        const TI* x = static_cast<const TI*>(a.storage->data);
        std::array<const int64_t*, 2> st{a.strides.data(), out.strides.data()};
        each<core::is_floating_v<TI> || core::is_floating_v<TO>, 2>(
            n.shape, st, {a.offset, 0}, [o, x](int64_t i, int64_t k) { o[k] = scalar::cast<TO>(x[i]); });
      });
    } else if constexpr (ir::accepts(OP, core::dtype_of_v<TI>)) {
      using TO = decltype(f(TI{}));  // bool for isnan, signbit, ...
      TO* o = ptr<TO>(out);
      const TI* x = static_cast<const TI*>(a.storage->data);
      std::array<const int64_t*, 2> st{a.strides.data(), out.strides.data()};
      each<core::is_floating_v<TI>, 2>(n.shape, st, {a.offset, 0},
                                       [o, x, f](int64_t i, int64_t k) { o[k] = f(x[i]); });
    } else {
      throw Error(ErrorCode::Internal, std::string("interpreter: bad dtype for ") + ir::op_name(OP));
    }
  });
  return out;
}

// One element seen at every index (every stride 0).
bool broadcast(const View& v) {
  for (int64_t s : v.strides)
    if (s != 0) return false;
  return true;
}

template <Op OP, class F>
View binary(const ir::Node& n, const View& a, const View& b, F f) {
  View out = alloc_contiguous(n.shape, n.dtype);
  core::dispatch(n.inputs[0]->dtype, [&](auto tin) {
    using TI = decltype(tin);
    if constexpr (ir::accepts(OP, core::dtype_of_v<TI>)) {
      using TO = decltype(f(TI{}, TI{}));
      TO* o = ptr<TO>(out);
      const TI* x = static_cast<const TI*>(a.storage->data);
      const TI* y = static_cast<const TI*>(b.storage->data);
      // x op c and c op x, c one element broadcast (a constant, a 0-d tensor): c is read once and
      // the walk has two operands, so its rows have unit stride and vectorize (2^22 f32
      // `x ** 2.5`: 142 -> 7.6 ms).
      if constexpr (core::is_floating_v<TI>) {
        std::array<const int64_t*, 2> st2{a.strides.data(), out.strides.data()};
        if (broadcast(b)) {
          const TI c = y[b.offset];
          each<true, 2>(n.shape, st2, {a.offset, 0},
                        [o, x, c, f](int64_t i, int64_t k) { o[k] = f(x[i], c); });
          return;
        }
        if (broadcast(a)) {
          const TI c = x[a.offset];
          st2[0] = b.strides.data();
          each<true, 2>(n.shape, st2, {b.offset, 0},
                        [o, y, c, f](int64_t j, int64_t k) { o[k] = f(c, y[j]); });
          return;
        }
      }
      std::array<const int64_t*, 3> st{a.strides.data(), b.strides.data(), out.strides.data()};
      each<core::is_floating_v<TI>, 3>(
          n.shape, st, {a.offset, b.offset, 0},
          [o, x, y, f](int64_t i, int64_t j, int64_t k) { o[k] = f(x[i], y[j]); });
    } else {
      throw Error(ErrorCode::Internal, std::string("interpreter: bad dtype for ") + ir::op_name(OP));
    }
  });
  return out;
}

View where(const ir::Node& n, const View& c, const View& a, const View& b) {
  View out = alloc_contiguous(n.shape, n.dtype);
  core::dispatch(n.dtype, [&](auto t) {
    using T = decltype(t);
    T* o = ptr<T>(out);
    const bool* cc = static_cast<const bool*>(c.storage->data);
    const T* x = static_cast<const T*>(a.storage->data);
    const T* y = static_cast<const T*>(b.storage->data);
    std::array<const int64_t*, 4> st{c.strides.data(), a.strides.data(), b.strides.data(),
                                     out.strides.data()};
    each<core::is_floating_v<T>, 4>(n.shape, st, {c.offset, a.offset, b.offset, 0},
                                    [o, cc, x, y](int64_t h, int64_t i, int64_t j, int64_t k) {
                                      o[k] = scalar::where(cc[h], x[i], y[j]);
                                    });
  });
  return out;
}

}  // namespace

View interp_elementwise(const ir::Node& n, const std::vector<const View*>& in) {
  switch (n.op) {
#define CGRAD_EW_Source(E, name)
#define CGRAD_EW_Reduce(E, name)
#define CGRAD_EW_Movement(E, name)
#define CGRAD_EW_Concat(E, name)
#define CGRAD_EW_Gemm(E, name)
#define CGRAD_EW_Collective(E, name)
#define CGRAD_EW_Sort(E, name)  // group sort
#define CGRAD_EW_Map(E, name)
#define CGRAD_EW_Scan(E, name)
#define CGRAD_EW_Gather(E, name)
#define CGRAD_EW_Scatter(E, name)  // scatter group
#define CGRAD_EW_Ternary(E, name)
#define CGRAD_EW_Unary(E, name) \
  case Op::E:                   \
    return unary<Op::E>(n, *in[0], [](auto x) { return scalar::name(x); });
#define CGRAD_EW_Binary(E, name) \
  case Op::E:                    \
    return binary<Op::E>(n, *in[0], *in[1], [](auto x, auto y) { return scalar::name(x, y); });
#define CGRAD_OP(E, name, Kind, arity) CGRAD_EW_##Kind(E, name)
    // Cast's lambda is never called: unary<Op::Cast> converts with scalar::cast<To> itself.
#include <cgrad/ops.def>
#undef CGRAD_OP
#undef CGRAD_EW_Source
#undef CGRAD_EW_Reduce
#undef CGRAD_EW_Movement
#undef CGRAD_EW_Concat
#undef CGRAD_EW_Gemm
#undef CGRAD_EW_Collective
#undef CGRAD_EW_Sort
#undef CGRAD_EW_Map
#undef CGRAD_EW_Scan
#undef CGRAD_EW_Gather
#undef CGRAD_EW_Scatter
#undef CGRAD_EW_Ternary
#undef CGRAD_EW_Unary
#undef CGRAD_EW_Binary
    case Op::Where: return where(n, *in[0], *in[1], *in[2]);
    default: break;
  }
  throw Error(ErrorCode::Internal, std::string("interpreter: not element-wise: ") + ir::op_name(n.op));
}

View interp_source(const ir::Node& n) {
  if (n.op == Op::Full) {
    // One element broadcast with zero strides: a constant costs no memory however large.
    View v;
    v.storage = runtime::allocate_host(dtype_size(n.dtype));
    v.strides.assign(n.shape.size(), 0);
    core::dispatch(n.dtype, [&](auto t) {
      using T = decltype(t);
      // (complex: a real constant, held in fvalue)
      *ptr<T>(v) = core::is_floating_v<T> || core::is_complex_v<T> ? static_cast<T>(n.attrs.fvalue)
                                                                   : static_cast<T>(n.attrs.ivalue);
    });
    return v;
  }
  View out = alloc_contiguous(n.shape, n.dtype);
  const int64_t count = core::numel(n.shape);
  core::dispatch(n.dtype, [&](auto t) {
    using T = decltype(t);
    T* o = ptr<T>(out);
    switch (n.op) {
      case Op::Arange:
        for (int64_t i = 0; i < count; ++i) o[i] = static_cast<T>(i);
        return;
      case Op::Rand:
      case Op::Randn:
        if constexpr (core::is_floating_v<T>) {
          for (int64_t i = 0; i < count; ++i)
            o[i] = n.op == Op::Rand ? scalar::rand_uniform<T>(n.attrs.seed, static_cast<uint64_t>(i))
                                    : scalar::rand_normal<T>(n.attrs.seed, static_cast<uint64_t>(i));
          return;
        }
        break;
      default: break;
    }
    throw Error(ErrorCode::Internal, std::string("interpreter: cannot compute source ") + ir::op_name(n.op) +
                                         " of " + dtype_name(n.dtype));
  });
  return out;
}

}  // namespace cgrad::backends::cpu
