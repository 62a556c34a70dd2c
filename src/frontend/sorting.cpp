// Sorting and the set functions (issue #15, group sort). sort/argsort are rows of the op table
// (kind Sort): a row kernel of its own whose input is in memory (docs/fusion.md rule 7). The
// unique_* functions have data-dependent shapes: they evaluate their input (a documented
// synchronisation point, as Dask and ndonnx do), group it through the Sort rows themselves (or,
// for integers of a narrow span, a histogram) and return realized tensors on the input's device.
#include "core/order.hpp"
#include "frontend/build.h"
#include "ir/op_table.h"
#include "runtime/realize.h"

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

// What a unique_* function needs: unique_values and unique_counts only the sorted values, the
// others also the positions (for `indices` and `inverse_indices`).
enum class Want { Values, Counts, All };

// The elements of a 1-D sort's output, read in place where it is a contiguous host value (a copy
// otherwise: device values, bool); empty for an empty Tensor().
template <class T>
class SortedElements {
 public:
  explicit SortedElements(const Tensor& t) {
    if (!t.defined()) return;
    const ir::NodePtr& n = t.node();
    runtime::realize({n});
    const ir::View& v = n->value;
    size_ = static_cast<std::size_t>(n->numel());
    if constexpr (!std::is_same_v<T, bool>)
      if (!v.storage->device.is_cuda() && (size_ <= 1 || v.strides[0] == 1)) {
        data_ = static_cast<const T*>(v.storage->data) + v.offset;
        return;
      }
    copy_ = t.to_vector<T>();
  }
  std::size_t size() const { return size_; }
  T operator[](std::size_t i) const { return data_ ? data_[i] : static_cast<T>(copy_[i]); }

 private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
  decltype(std::declval<Tensor>().to_vector<T>()) copy_;
};

// The groups of equal elements in sorted order: their values, and as wanted the smallest index
// of each group, the group of each element and each group's size.
template <class T>
struct Groups {
  std::conditional_t<std::is_same_v<T, bool>, std::vector<bool>, std::vector<T>> values;
  std::vector<int64_t> first, counts, inverse;
};

// Integers whose values span at most 2n + 1024: a histogram over the span, O(n) with no sort
// (labels and categories; 2^22 i32 of 1..99 took 362 ms by a comparison sort, NumPy 24).
// Ascending integer order is the sort's order, and the first index of a value is its smallest.
// False (nothing done) for a wider span.
template <class T>
bool group_by_counting(const std::vector<T>& v, Want want, Groups<T>& g) {
  const std::size_t n = v.size();
  if (n == 0) return false;
  T lo = v[0], hi = v[0];
  for (const T e : v) lo = e < lo ? e : lo, hi = e > hi ? e : hi;
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);  // (mod 2^64: exact)
  if (span > 2 * static_cast<uint64_t>(n) + 1024) return false;
  auto bin = [lo](T e) {
    return static_cast<std::size_t>(static_cast<uint64_t>(e) - static_cast<uint64_t>(lo));
  };
  std::vector<int64_t> count(static_cast<std::size_t>(span) + 1, 0);
  for (const T e : v) ++count[bin(e)];
  std::vector<int64_t> rank(want == Want::All ? count.size() : 0), first;
  if (want == Want::All) {
    first.assign(count.size(), 0);
    for (std::size_t i = n; i-- > 0;) first[bin(v[i])] = static_cast<int64_t>(i);  // the smallest wins
  }
  for (std::size_t b = 0; b < count.size(); ++b) {
    if (count[b] == 0) continue;
    if (want == Want::All) rank[b] = static_cast<int64_t>(g.values.size()), g.first.push_back(first[b]);
    g.values.push_back(static_cast<T>(static_cast<uint64_t>(lo) + b));
    if (want != Want::Values) g.counts.push_back(count[b]);
  }
  if (want == Want::All) {
    g.inverse.resize(n);
    for (std::size_t i = 0; i < n; ++i) g.inverse[i] = rank[bin(v[i])];
  }
  return true;
}

// Any real dtype: in the order of the row kernel, the sorted values alone when no positions are
// wanted, else the stable argsort and the elements `elems` (flat's, read by the caller) gathered
// through it. Both sorts are the op table's Sort rows (radix on long rows), so the order is the
// sort's by construction. The sorted values are read where the sort wrote them, and the outputs
// have room for every group from the start, so that none grows (unique_values of 2^22 random f32:
// 66 -> 45 ms; the copy and the growing vectors were fresh pages, faulted in one by one).
// Complex values (which the Sort rows do not take) are put in order here, by the same total
// order (core/order.hpp: lexicographic, NaNs last), stably.
template <class T, class V>
std::vector<int64_t> host_order(const V& elems) {
  std::vector<int64_t> idx(elems.size());
  std::iota(idx.begin(), idx.end(), int64_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    return core::order_before(static_cast<T>(elems[static_cast<std::size_t>(a)]),
                              static_cast<T>(elems[static_cast<std::size_t>(b)]), false);
  });
  return idx;
}

template <class T, class V>
void group_by_sorting(const Tensor& flat, const V& elems, Want want, Groups<T>& g) {
  const bool positions = want == Want::All, gather = positions || core::is_complex_v<T>;
  const Tensor sorted = gather ? Tensor() : sort(flat, 0);
  const SortedElements<T> in_order(sorted);
  auto v = [&](std::size_t i) { return gather ? static_cast<T>(elems[i]) : in_order[i]; };
  std::vector<int64_t> idx;
  if constexpr (core::is_complex_v<T>)
    idx = host_order<T>(elems);
  else if (positions)
    idx = argsort(flat, 0).to_vector<int64_t>();
  const std::size_t n = gather ? elems.size() : in_order.size();
  if (positions) g.inverse.resize(n);
  // room for n groups, the most there can be: only the pages written are touched
  g.values.reserve(n);
  if (want != Want::Values) g.counts.reserve(n);
  if (positions) g.first.reserve(n);
  T prev{};
  for (std::size_t i = 0; i < n; ++i) {
    const T cur = v(gather ? static_cast<std::size_t>(idx[i]) : i);  // i-th in order
    if (i == 0 || !core::order_equal(prev, cur)) {
      g.values.push_back(cur);
      if (positions) g.first.push_back(idx[i]);  // stable: the smallest index of its group
      if (want != Want::Values) g.counts.push_back(0);
    }
    prev = cur;
    if (want != Want::Values) ++g.counts.back();
    if (positions) g.inverse[static_cast<std::size_t>(idx[i])] = static_cast<int64_t>(g.counts.size()) - 1;
  }
}

// Evaluates x (the synchronisation point), groups its elements and returns the wanted outputs as
// realized tensors on x's device.
template <class T>
UniqueAll unique_host(const Tensor& x, Want want, const char* name) {
  node_of(x, name);
  Tensor flat = x.reshape({x.numel()});
  flat.eval();  // once, for the sorts and reads below (a copy when x is not contiguous)
  constexpr bool integers = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  // the elements, read once: for the histogram, or to gather through the argsort
  const bool read = integers || core::is_complex_v<T> || want == Want::All;
  const auto elems = read ? flat.to_vector<T>() : decltype(flat.to_vector<T>()){};
  Groups<T> g;
  bool counted = false;
  if constexpr (integers) counted = group_by_counting(elems, want, g);
  if (!counted) group_by_sorting<T>(flat, elems, want, g);
  const Device d = x.device();
  const Shape m{static_cast<int64_t>(g.values.size())};
  UniqueAll u{tensor(std::move(g.values), m, d), Tensor(), Tensor(), Tensor()};
  if (want != Want::Values) u.counts = tensor(std::move(g.counts), m, d);
  if (want == Want::All) {
    u.indices = tensor(std::move(g.first), m, d);
    u.inverse_indices = tensor(std::move(g.inverse), x.shape(), d);
  }
  return u;
}

UniqueAll unique(const Tensor& x, Want want, const char* name) {
  return core::dispatch(node_of(x, name)->dtype,
                        [&](auto zero) { return unique_host<decltype(zero)>(x, want, name); });
}

}  // namespace

Tensor sort(const Tensor& x, int64_t axis, bool descending, bool /*stable: always*/) {
  return sort_node(Op::Sort, x, axis, descending, "sort");
}

Tensor argsort(const Tensor& x, int64_t axis, bool descending, bool /*stable: always*/) {
  return sort_node(Op::Argsort, x, axis, descending, "argsort");
}

UniqueAll unique_all(const Tensor& x) { return unique(x, Want::All, "unique_all"); }

UniqueCounts unique_counts(const Tensor& x) {
  UniqueAll u = unique(x, Want::Counts, "unique_counts");
  return {u.values, u.counts};
}

UniqueInverse unique_inverse(const Tensor& x) {
  UniqueAll u = unique(x, Want::All, "unique_inverse");
  return {u.values, u.inverse_indices};
}

Tensor unique_values(const Tensor& x) { return unique(x, Want::Values, "unique_values").values; }

}  // namespace cgrad
