// Pass eliminate_common_subexpressions: hash-consing, so each value is computed once.
//
// What: in topological order, a node with the same op, attributes, dtype, device and shape
// as an earlier node, and the same inputs, is the same value: the first one is kept and the
// later one becomes a no-op view of it (consumers are pointed at the kept node). Inputs are
// compared by canonical id: an unrealized node's position in the topological order (after
// merging, so equal subtrees collapse bottom-up in one sweep), a realized leaf's order of
// first appearance (realized leaves are equal only when they are the same node). Operands of
// commutative ops (op table flag) are compared as a sorted pair of ids, so a*b and b*a merge.
// Equal Full constants merge, and so do Rand/Randn with equal seed and shape: they are
// counter-based, so the same seed gives the same numbers.
// Why: graphs repeat work (x*y built twice, the same scalar constant in every op, autograd's
// shared subexpressions); merging saves kernels and memory and lets fusion see sharing.
// Invariants: a merged node keeps its value, shape, dtype and device, becoming a same-shape
// reshape of its equal (no kernel), so handles holding it stay valid. Attributes are compared
// with Attrs::operator== plus the bits of fvalue, so +0 and -0 (and NaN payloads) never
// merge. No result depends on pointer values or hash-map iteration order: maps are only
// looked up, and hash buckets chain node positions.
#include "ir/graph.h"
#include "ir/op_table.h"
#include "passes/pipeline.h"
#include "passes/rewrite.h"

#include <cgrad/scalar.hpp>

#include <algorithm>
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

class Merger {
 public:
  Merger(const std::vector<NodePtr>& outputs, std::vector<Node*> order) : order_(std::move(order)) {
    const std::size_t n = order_.size();
    id_.reserve(n * 2);
    for (std::size_t i = 0; i < n; ++i) id_.emplace(order_[i], i);
    // A shared handle per node, to point consumers at a kept node.
    handle_.resize(n);
    for (auto& o : outputs)
      if (auto it = id_.find(o.get()); it != id_.end()) handle_[it->second] = o;
    for (Node* c : order_)
      for (auto& in : c->inputs)
        if (auto it = id_.find(in.get()); it != id_.end() && !handle_[it->second]) handle_[it->second] = in;
    next_.assign(n, kNone);
    heads_.reserve(n);
  }

  void run() {
    for (std::size_t i = 0; i < order_.size(); ++i) {
      Node& n = *order_[i];
      skip_views(n, graveyard_);
      if (is_noop_view(n)) continue;  // its consumers look through it
      std::vector<uint64_t> ins = input_ids(n);
      uint64_t h = hash_node(n, ins);
      auto [head, fresh] = heads_.try_emplace(h, static_cast<uint32_t>(i));
      if (!fresh) {
        for (uint32_t j = head->second; j != kNone; j = next_[j]) {
          if (equal(n, ins, *order_[j])) {
            id_[&n] = j;
            to_view(n, handle_[j], graveyard_);
            break;
          }
        }
        if (is_noop_view(n)) continue;
        next_[i] = head->second;
        head->second = static_cast<uint32_t>(i);
      }
    }
  }

 private:
  // Canonical ids of the inputs; realized leaves numbered after all unrealized nodes.
  std::vector<uint64_t> input_ids(const Node& n) {
    std::vector<uint64_t> ids;
    ids.reserve(n.inputs.size());
    for (auto& in : n.inputs) {
      auto [it, fresh] = id_.try_emplace(in.get(), order_.size() + leaves_);
      if (fresh) ++leaves_;
      ids.push_back(it->second);
    }
    if (ir::info(n.op).commutative && ids.size() == 2 && ids[1] < ids[0]) std::swap(ids[0], ids[1]);
    return ids;
  }

  bool equal(const Node& n, const std::vector<uint64_t>& ins, const Node& kept) {
    return n.op == kept.op && n.dtype == kept.dtype && n.device == kept.device && n.shape == kept.shape &&
           same_attrs(n.attrs, kept.attrs) && n.inputs.size() == kept.inputs.size() && input_ids(kept) == ins;
  }

  std::vector<Node*> order_;
  std::unordered_map<const Node*, uint64_t> id_;
  std::vector<NodePtr> handle_;
  std::unordered_map<uint64_t, uint32_t> heads_;  ///< hash -> latest kept position with it
  std::vector<uint32_t> next_;                    ///< earlier kept position with the same hash
  uint64_t leaves_ = 0;
  Graveyard graveyard_;
};

}  // namespace

void eliminate_common_subexpressions(const std::vector<ir::NodePtr>& outputs) {
  Merger m(outputs, ir::topo_order(unrealized_roots(outputs), true));
  m.run();
}

}  // namespace cgrad::passes
