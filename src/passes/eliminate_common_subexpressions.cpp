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
// constants: NaN != NaN, a missed merge only). No result depends on pointer values or hash-map iteration
// order: the map is only looked up, hash buckets chain positions in topological order, and at most one kept
// node can equal a given node (two equal kept nodes would have been merged).
#include "ir/op_table.h"
#include "passes/flat_table.h"
#include "passes/pipeline.h"
#include "passes/rewrite.h"

#include <cgrad/scalar.hpp>

#include <bit>

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

bool commutative_pair(const Node& n) { return ir::info(n.op).commutative && n.inputs.size() == 2; }

// Inputs are hashed by node id (unique per node) and compared by identity. They already point
// at the nodes kept for them, so equal inputs are the same node. A commutative pair is hashed
// in id order and compared either way round; which order the ids give does not change what
// merges, so results do not depend on id values.
uint64_t hash_node(const Node& n) {
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
  if (commutative_pair(n)) {
    uint64_t i0 = n.inputs[0]->id, i1 = n.inputs[1]->id;
    return mix(mix(h, i0 < i1 ? i0 : i1), i0 < i1 ? i1 : i0);
  }
  for (auto& in : n.inputs) h = mix(h, in->id);
  return h;
}

bool same_inputs(const Node& n, const Node& kept) {
  if (n.inputs.size() != kept.inputs.size()) return false;
  if (n.inputs == kept.inputs) return true;
  return commutative_pair(n) && n.inputs[0] == kept.inputs[1] && n.inputs[1] == kept.inputs[0];
}

bool equal(const Node& n, const Node& kept) {
  return n.op == kept.op && n.dtype == kept.dtype && n.device == kept.device && n.shape == kept.shape &&
         same_attrs(n.attrs, kept.attrs) && same_inputs(n, kept);
}

}  // namespace

void eliminate_common_subexpressions(const PendingGraph& g) {
  // A fresh walk: nodes earlier passes unlinked must not be kept in place of live ones.
  const PendingGraph live(g.outputs);
  const std::vector<NodePtr>& order = live.order;
  FlatTable heads(order.size());                    // hash -> latest kept position with it
  std::vector<uint32_t> next(order.size(), kNone);  // kept position -> earlier one with the same hash
  for (std::size_t i = 0; i < order.size(); ++i) {
    Node& n = *order[i];
    skip_views(n);
    if (is_noop_view(n)) continue;  // its consumers look through it
    bool fresh = false;
    uint32_t& head = heads.find_or_insert(hash_node(n) | 1, static_cast<uint32_t>(i), fresh);
    if (fresh) continue;
    uint32_t j = head;
    while (j != kNone && !equal(n, *order[j])) j = next[j];
    if (j != kNone) {
      to_view(n, order[j]);
    } else {
      next[i] = head;
      head = static_cast<uint32_t>(i);
    }
  }
}

}  // namespace cgrad::passes
