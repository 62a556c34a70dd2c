// Sorting and the set functions (issue #15, group sort). sort/argsort are rows of the op table
// (kind Sort): a row kernel of its own whose input is in memory (docs/fusion.md rule 7). The
// unique_* functions have data-dependent shapes: they evaluate their input (a documented
// synchronisation point, as Dask and ndonnx do), sort on the host under the same order as the
// row kernel (core/order.hpp) and return realized tensors on the input's device.
#include "core/order.hpp"
#include "frontend/build.h"
#include "ir/op_table.h"

#include <algorithm>
#include <numeric>

namespace cgrad {

using frontend::make;
using frontend::node_of;
using ir::Op;

namespace {

Tensor sort_node(Op op, const Tensor& x, int64_t axis, bool descending, const char* name) {
  const ir::NodePtr& n = node_of(x, name);
  if (n->shape.empty())
    throw Error(ErrorCode::InvalidArgument, std::string(name) + ": a 0-d tensor has no axis to sort along");
  ir::Attrs a;
  a.axis = core::normalize_axes({axis}, n->shape, name)[0];
  a.ivalue = descending ? 1 : 0;
  a.dtype = op == Op::Argsort ? DType::i64 : n->dtype;
  return Tensor(make(op, {n}, a, n->device));
}

template <class T>
UniqueAll unique_host(const Tensor& x, const char* name) {
  node_of(x, name);
  const auto v = x.to_vector<T>();  // evaluates x: the synchronisation point
  const std::size_t n = v.size();
  std::vector<int64_t> idx(n);
  std::iota(idx.begin(), idx.end(), int64_t{0});
  auto at = [&](int64_t i) { return static_cast<T>(v[static_cast<std::size_t>(i)]); };
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int64_t a, int64_t b) { return core::order_before(at(a), at(b), false); });
  std::conditional_t<std::is_same_v<T, bool>, std::vector<bool>, std::vector<T>> values;
  std::vector<int64_t> first, counts, inverse(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t k = idx[i];
    if (i == 0 || !core::order_equal(at(idx[i - 1]), at(k))) {
      values.push_back(at(k));
      first.push_back(k);  // stable: the smallest index of its group
      counts.push_back(0);
    }
    ++counts.back();
    inverse[static_cast<std::size_t>(k)] = static_cast<int64_t>(counts.size()) - 1;
  }
  const Device d = x.device();
  const Shape m{static_cast<int64_t>(counts.size())};
  return UniqueAll{tensor(std::move(values), m, d), tensor(std::move(first), m, d),
                   tensor(std::move(inverse), x.shape(), d), tensor(std::move(counts), m, d)};
}

UniqueAll unique(const Tensor& x, const char* name) {
  return core::dispatch(node_of(x, name)->dtype,
                        [&](auto zero) { return unique_host<decltype(zero)>(x, name); });
}

}  // namespace

Tensor sort(const Tensor& x, int64_t axis, bool descending, bool /*stable: always*/) {
  return sort_node(Op::Sort, x, axis, descending, "sort");
}

Tensor argsort(const Tensor& x, int64_t axis, bool descending, bool /*stable: always*/) {
  return sort_node(Op::Argsort, x, axis, descending, "argsort");
}

UniqueAll unique_all(const Tensor& x) { return unique(x, "unique_all"); }

UniqueCounts unique_counts(const Tensor& x) {
  UniqueAll u = unique(x, "unique_counts");
  return {u.values, u.counts};
}

UniqueInverse unique_inverse(const Tensor& x) {
  UniqueAll u = unique(x, "unique_inverse");
  return {u.values, u.inverse_indices};
}

Tensor unique_values(const Tensor& x) { return unique(x, "unique_values").values; }

}  // namespace cgrad
