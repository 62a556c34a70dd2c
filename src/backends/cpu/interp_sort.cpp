// The row kernel of sort and argsort (issue #15, group sort): each row along attrs.axis is read
// whole (any strides: a view of memory), its positions stable-sorted under core/order.hpp's
// order (NaNs last, -0 == +0, equal elements in their input order in both directions), and the
// sorted values (Sort) or their i64 positions (Argsort) written to a contiguous output. The CPU
// JIT backend and the CUDA backend's host path run this same routine (docs/semantics.md).
#include "backends/cpu/interpreter.h"

#include "core/order.hpp"
#include "ir/op_table.h"

#include <algorithm>
#include <numeric>

namespace cgrad::backends::cpu {

using ir::View;

namespace {

template <class T>
void sort_rows(const ir::Node& n, const View& in, View& out) {
  const Shape& shape = n.shape;
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  const bool desc = n.attrs.ivalue != 0, arg = n.op == ir::Op::Argsort;
  const int64_t len = shape[ax], total = core::numel(shape);
  if (total == 0) return;
  const int64_t rows = total / len;
  const core::Strides ost = core::contiguous_strides(shape);
  const auto* src = static_cast<const T*>(in.storage->data);
  std::vector<int64_t> idx(static_cast<std::size_t>(len));
  std::vector<T> vals(static_cast<std::size_t>(len));
  std::vector<int64_t> pos(shape.size(), 0);  // the row's index; pos[ax] stays 0
  for (int64_t r = 0; r < rows; ++r) {
    int64_t ioff = in.offset, ooff = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) ioff += pos[d] * in.strides[d], ooff += pos[d] * ost[d];
    for (int64_t j = 0; j < len; ++j) vals[static_cast<std::size_t>(j)] = src[ioff + j * in.strides[ax]];
    std::iota(idx.begin(), idx.end(), int64_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
      return core::order_before(vals[static_cast<std::size_t>(a)], vals[static_cast<std::size_t>(b)], desc);
    });
    for (int64_t j = 0; j < len; ++j) {
      const int64_t k = idx[static_cast<std::size_t>(j)];
      if (arg)
        static_cast<int64_t*>(out.storage->data)[ooff + j * ost[ax]] = k;
      else
        static_cast<T*>(out.storage->data)[ooff + j * ost[ax]] = vals[static_cast<std::size_t>(k)];
    }
    for (std::size_t d = shape.size(); d-- > 0;) {  // next row: odometer over the dims but ax
      if (d == ax) continue;
      if (++pos[d] < shape[d]) break;
      pos[d] = 0;
    }
  }
}

}  // namespace

View interp_sort(const ir::Node& n, const View& in) {
  View out = alloc_contiguous(n.shape, n.dtype);
  core::dispatch(n.inputs[0]->dtype, [&](auto zero) { sort_rows<decltype(zero)>(n, in, out); });
  return out;
}

}  // namespace cgrad::backends::cpu
