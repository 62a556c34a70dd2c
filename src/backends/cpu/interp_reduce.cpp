// Reduction, matmul and concatenation kernels of the interpreter. Float sums and products
// accumulate in double (scalar::acc), integer ones in int64 with wrap-around, so results are
// the exact reference the fused backends are compared with.
#include "backends/cpu/interpreter.h"
#include "core/strided.hpp"
#include "core/dtype.hpp"

#include <cgrad/scalar.hpp>

#include <cstring>
#include <limits>

namespace cgrad::backends::cpu {

using ir::Op;
using ir::View;

View interp_reduce(const ir::Node& n, const View& in) {
  const Shape& ishape = n.inputs[0]->shape;
  const DType it = n.inputs[0]->dtype;
  View out = alloc_contiguous(n.shape, n.dtype);
  const int64_t out_n = core::numel(n.shape);
  // Accumulator strides: the output's, with 0 on reduced axes.
  core::Strides acc_st = core::contiguous_strides(n.shape);
  for (int64_t a : n.attrs.axes) acc_st[static_cast<std::size_t>(a)] = 0;
  core::dispatch(it, [&](auto tin) {
    using TI = decltype(tin);
    const TI* x = static_cast<const TI*>(in.storage->data);
    std::array<const int64_t*, 2> st{in.strides.data(), acc_st.data()};
    if (n.op == Op::Sum) {
      using A = typename scalar::acc<TI>::type;
      std::vector<A> acc(static_cast<std::size_t>(out_n), A(0));
      core::for_each_strided<2>(ishape, st, {in.offset, 0}, [&](int64_t i, int64_t k) {
        auto& a = acc[static_cast<std::size_t>(k)];
        a = scalar::add(a, static_cast<A>(x[i]));
      });
      core::dispatch(n.dtype, [&](auto tout) {
        using TO = decltype(tout);
        if constexpr (std::is_same_v<TO, bool>) {
          throw Error(ErrorCode::Internal, "interpreter: sum into b8");
        } else {
          TO* o = ptr<TO>(out);
          for (int64_t k = 0; k < out_n; ++k) o[k] = static_cast<TO>(acc[static_cast<std::size_t>(k)]);
        }
      });
    } else {
      const bool is_max = n.op == Op::Max;
      TI* o = ptr<TI>(out);
      std::vector<char> first(static_cast<std::size_t>(out_n), 1);
      core::for_each_strided<2>(ishape, st, {in.offset, 0}, [&](int64_t i, int64_t k) {
        auto ku = static_cast<std::size_t>(k);
        if (first[ku]) {
          o[k] = x[i];
          first[ku] = 0;
        } else {
          o[k] = is_max ? scalar::maximum(o[k], x[i]) : scalar::minimum(o[k], x[i]);
        }
      });
    }
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
      core::for_each_strided<3>(batch, st, {a.offset, b.offset, out.offset}, [&](int64_t ao, int64_t bo, int64_t oo) {
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < nn; ++j) {
            A acc = A(0);
            for (int64_t p = 0; p < k; ++p)
              acc = scalar::add(acc, scalar::mul(static_cast<A>(x[ao + i * ar + p * ac]), static_cast<A>(y[bo + p * br + j * bc])));
            o[oo + i * orow + j] = static_cast<T>(acc);
          }
      });
    }
  });
}

View interp_cat(const ir::Node& n, const std::vector<const View*>& in) {
  View out = alloc_contiguous(n.shape, n.dtype);
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  const std::size_t es = dtype_size(n.dtype);
  int64_t at = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Shape& s = n.inputs[i]->shape;
    View dst = out;
    dst.offset = at * out.strides[ax];
    auto* d = static_cast<char*>(dst.storage->data);
    auto* src = static_cast<const char*>(in[i]->storage->data);
    std::array<const int64_t*, 2> st{in[i]->strides.data(), dst.strides.data()};
    core::for_each_strided<2>(s, st, {in[i]->offset, dst.offset}, [&](int64_t p, int64_t q) {
      std::memcpy(d + q * static_cast<int64_t>(es), src + p * static_cast<int64_t>(es), es);
    });
    at += s[ax];
  }
  return out;
}

}  // namespace cgrad::backends::cpu
