// The routine of scatter_add (issue #15, scatter group): out = base, then for every element of src,
// out[.., p, ..] += src[.., j, ..] at p = the wrapped index idx[.., j, ..] along attrs.axis; an index
// still outside [0, n) adds nothing (take's fill mode). src is walked in row-major order on one
// thread, so every output element receives its values in increasing j, whatever the strides: the
// floating sums are the same on every run and every backend that runs this routine (the CPU JIT and
// the CUDA backend's host path; docs/semantics.md, "scatter_add").
#include "backends/cpu/interpreter.h"

#include "core/dtype.hpp"
#include "core/strided.hpp"
#include "ir/op_table.h"

#include <cgrad/scalar.hpp>

#include <array>
#include <type_traits>

namespace cgrad::backends::cpu {

using ir::View;

View interp_scatter_add(const ir::Node& n, const View& base, const View& src, const View& idx) {
  View out = contiguous_copy(base, n.shape, n.dtype);
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  const int64_t len = n.shape[ax];
  core::Strides ost = out.strides;
  const int64_t step = ost[ax];
  ost[ax] = 0;  // the position along the axis comes from idx
  const Shape& s = n.inputs[1]->shape;
  const auto* ip = static_cast<const int64_t*>(idx.storage->data);
  core::dispatch(n.dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, bool>) {  // the row accepts numeric dtypes only
      T* o = static_cast<T*>(out.storage->data) + out.offset;
      const T* v = static_cast<const T*>(src.storage->data);
      std::array<const int64_t*, 3> st{ost.data(), src.strides.data(), idx.strides.data()};
      core::for_each_strided<3>(s, st, {0, src.offset, idx.offset}, [&](int64_t oo, int64_t so, int64_t io) {
        const int64_t p = scalar::take(ip[io], len);
        if (p >= 0) o[oo + p * step] = scalar::add(o[oo + p * step], v[so]);
      });
    }
  });
  return out;
}

}  // namespace cgrad::backends::cpu
