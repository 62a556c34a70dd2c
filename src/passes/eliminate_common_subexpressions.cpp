// Pass eliminate_common_subexpressions: hash-consing, so each value is computed once.
//
// What: in topological order, a node with the same op, attributes, dtype, device and shape
// as an earlier node, and the same inputs, is the same value: the first one is kept and the
// later one becomes a no-op view of it (consumers are pointed at the kept node). Inputs are
// compared by identity after merging (they already point at the nodes kept for them), so
// equal subtrees collapse bottom-up in one sweep, and realized leaves are equal only when
// they are the same node. Operands of commutative ops (op table flag) are compared as a
// sorted pair, so a*b and b*a merge.
// Equal Full constants merge, and so do Rand/Randn with equal seed and shape: they are
// counter-based, so the same seed gives the same numbers.
// Why: graphs repeat work (x*y built twice, the same scalar constant in every op, autograd's
// shared subexpressions); merging saves kernels and memory and lets fusion see sharing.
// Invariants: a merged node keeps its value, shape, dtype and device, becoming a same-shape
// reshape of its equal (no kernel), so handles holding it stay valid. Attributes are compared
// with Attrs::operator== plus the bits of fvalue, so +0 and -0 never merge (nor do NaN
// constants: NaN != NaN, a missed merge only). No result depends on pointer values or hash-map iteration order: the map is only
// looked up, hash buckets chain positions in topological order, and at most one kept node
// can equal a given node (two equal kept nodes would have been merged).
#include "ir/op_table.h"
#include "passes/pipeline.h"
#include "passes/rewrite.h"

#include <cgrad/scalar.hpp>

#include <utility>
#include <bit>
#include <unordered_map>

namespace cgrad::passes {

using ir::Node;
using ir::NodePtr;

namespace {

constexpr uint32_t kNone = UINT32_MAX;

uint64_t mix(uint64_t h, uint64_t v) { return scalar::mix64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6))); }

uint64_t hash_vec(uint64_t h, const std::vector<int64_t>& v) {
  h = mix(h, v.size());
  for (int64_t x : v) h = mix(h, static_cast<uint64_t>(x));
  return h;
}

bool same_attrs(const ir::Attrs& a, const ir::Attrs& b) {
  return a == b && std::bit_cast<uint64_t>(a.fvalue) == std::bit_cast<uint64_t>(b.fvalue);
}

uint64_t hash_node(const Node& n, const std::vector<uint64_t>& ins) {
  const ir::Attrs& a = n.attrs;
  uint64_t h = mix(static_cast<uint64_t>(n.op), static_cast<uint64_t>(n.dtype));
  h = mix(h, static_cast<uint64_t>(n.device.kind) * 1024 + static_cast<uint64_t>(n.device.index));
  h = hash_vec(h, n.shape);
  h = hash_vec(h, a.shape);
  h = hash_vec(h, a.axes);
  for (int64_t x : {a.axis, a.start, a.stop, a.step, a.ivalue}) h = mix(h, static_cast<uint64_t>(x));
  h = mix(h, std::bit_cast<uint64_t>(a.fvalue));
  h = mix(h, a.seed);
  h = mix(h, static_cast<uint64_t>(a.dtype));
  for (uint64_t id : ins) h = mix(h, id);
  return h;
}

// Canonical ids of the inputs: node ids, unique per node. Inputs already point at the nodes
// kept for them, so equal inputs have equal ids; commutative operands are sorted. (Which total
// order sorts them does not change what merges, so results do not depend on id values.)
std::vector<uint64_t> input_ids(const Node& n) {
  std::vector<uint64_t> ids;
  ids.reserve(n.inputs.size());
  for (auto& in : n.inputs) ids.push_back(in->id);
  if (ir::info(n.op).commutative && ids.size() == 2 && ids[1] < ids[0]) std::swap(ids[0], ids[1]);
  return ids;
}

bool equal(const Node& n, const std::vector<uint64_t>& ins, const Node& kept) {
  return n.op == kept.op && n.dtype == kept.dtype && n.device == kept.device && n.shape == kept.shape &&
         same_attrs(n.attrs, kept.attrs) && n.inputs.size() == kept.inputs.size() && input_ids(kept) == ins;
}

}  // namespace

void eliminate_common_subexpressions(const PendingGraph& g) {
  const std::vector<NodePtr>& order = g.order;
  std::unordered_map<uint64_t, uint32_t> heads;  // hash -> latest kept position with it
  std::vector<uint32_t> next(order.size(), kNone);  // kept position -> earlier one with the same hash
  heads.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    Node& n = *order[i];
    skip_views(n);
    if (is_noop_view(n)) continue;  // its consumers look through it
    const std::vector<uint64_t> ins = input_ids(n);
    auto [head, fresh] = heads.try_emplace(hash_node(n, ins), static_cast<uint32_t>(i));
    if (fresh) continue;
    uint32_t j = head->second;
    while (j != kNone && !equal(n, ins, *order[j])) j = next[j];
    if (j != kNone) {
      to_view(n, order[j]);
    } else {
      next[i] = head->second;
      head->second = static_cast<uint32_t>(i);
    }
  }
}

}  // namespace cgrad::passes
