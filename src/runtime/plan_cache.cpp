// Plan keys (structural serialization of a pending graph) and the LRU plan cache.
#include "runtime/plan_cache.h"

#include "ir/user_fn.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <unordered_map>

namespace cgrad::runtime {

namespace {
std::atomic<uint64_t> g_next_plan_serial{1};
}  // namespace

Plan::Plan() : serial(g_next_plan_serial.fetch_add(1, std::memory_order_relaxed)) {}

namespace {

struct Writer {
  std::string& out;
  void i64(int64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void f64(double v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void vec(const std::vector<int64_t>& v) {
    i64(static_cast<int64_t>(v.size()));
    for (int64_t x : v) i64(x);
  }
};

}  // namespace

namespace {

// Serializes the graph; `pos_of(n)` gives a pending node's position or -1 for a leaf.
// `leaf_slot(n)` is where a leaf's first-use index is remembered (-1 until assigned).
template <class PosOf, class LeafSlot>
PlanKey serialize(const std::vector<ir::Node*>& order, const std::vector<ir::Node*>& roots,
                  const char* backend, PosOf pos_of, LeafSlot leaf_slot) {
  PlanKey k;
  k.bytes.reserve(96 * order.size() + 64);
  k.bytes += backend;
  k.bytes.push_back('\0');
  Writer w{k.bytes};
  static const ir::Attrs kDefault{};
  for (const ir::Node* n : order) {
    // Attributes that differ from their defaults, flagged in a mask in the node's first word
    // and written in mask order (element-wise nodes have none): the same information as writing
    // them all, in about half the bytes that are hashed and compared per lookup.
    const ir::Attrs& a = n->attrs;
    uint64_t fbits = 0;
    std::memcpy(&fbits, &a.fvalue, sizeof fbits);  // -0.0 is not 0.0
    // 2048: the node's shape is its first input's (every element-wise node), which the key
    // already holds, so it is not written again.
    const bool input_shape = !n->inputs.empty() && core::same_shape(n->shape, n->inputs[0]->shape);
    const uint64_t mask = (!a.shape.empty() ? 1u : 0u) | (!a.axes.empty() ? 2u : 0u) |
                          (a.axis != 0 ? 4u : 0u) | (a.start != 0 ? 8u : 0u) | (a.stop != 0 ? 16u : 0u) |
                          (a.step != kDefault.step ? 32u : 0u) | (fbits != 0 ? 64u : 0u) |
                          (a.ivalue != 0 ? 128u : 0u) | (a.seed != 0 ? 256u : 0u) |
                          (a.dtype != kDefault.dtype ? 512u : 0u) | (n->device.index != 0 ? 1024u : 0u) |
                          (input_shape ? 2048u : 0u) | (a.fn ? 4096u : 0u);
    const uint64_t ninputs = std::min<uint64_t>(n->inputs.size(), 0xffff);  // 0xffff: the count follows
    w.i64(static_cast<int64_t>(static_cast<uint64_t>(n->op) | (static_cast<uint64_t>(n->dtype) << 8) |
                               (static_cast<uint64_t>(n->device.kind) << 16) | (mask << 24) |
                               (ninputs << 40)));
    if (mask & 1024) w.i64(n->device.index);
    if (ninputs == 0xffff) w.i64(static_cast<int64_t>(n->inputs.size()));
    if (!(mask & 2048)) w.vec(n->shape);
    if (mask & 1) w.vec(a.shape);
    if (mask & 2) w.vec(a.axes);
    if (mask & 4) w.i64(a.axis);
    if (mask & 8) w.i64(a.start);
    if (mask & 16) w.i64(a.stop);
    if (mask & 32) w.i64(a.step);
    if (mask & 64) w.f64(a.fvalue);
    if (mask & 128) w.i64(a.ivalue);
    if (mask & 256) w.i64(static_cast<int64_t>(a.seed));
    if (mask & 512) w.i64(static_cast<int64_t>(a.dtype));
    if (mask & 4096) w.i64(static_cast<int64_t>(a.fn->id));  // a user function (issue #23): by identity
    for (auto& in : n->inputs) {
      int64_t p = pos_of(in.get());
      if (p >= 0) {
        w.i64(p);
        continue;
      }
      // a realized leaf: by first-use index, with its layout
      int64_t& li = leaf_slot(in.get());
      if (li >= 0) {
        w.i64(-1 - li);
        continue;
      }
      li = static_cast<int64_t>(k.leaves.size());
      w.i64(-1 - li);
      k.leaves.push_back(in.get());
      w.i64(static_cast<int64_t>(in->dtype) | (static_cast<int64_t>(in->device.kind) << 16));
      w.vec(in->shape);
      w.vec(in->value.strides);
      w.i64(in->value.offset);
    }
  }
  w.i64(-7);
  for (const ir::Node* r : roots) w.i64(pos_of(r));
  return k;
}

}  // namespace

PlanKey plan_key(const std::vector<ir::Node*>& order, const std::vector<ir::Node*>& roots,
                 const char* backend) {
  std::unordered_map<const ir::Node*, int64_t> pos;
  pos.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int64_t>(i);
  std::unordered_map<const ir::Node*, int64_t> leaf;
  return serialize(
      order, roots, backend,
      [&](const ir::Node* n) {
        auto it = pos.find(n);
        return it == pos.end() ? int64_t(-1) : it->second;
      },
      [&](const ir::Node* n) -> int64_t& { return leaf.try_emplace(n, -1).first->second; });
}

PlanKey plan_key_marked(const std::vector<ir::Node*>& order, uint64_t epoch,
                        const std::vector<ir::Node*>& roots, const char* backend) {
  // Leaves are not in `order`: their marks are free to hold the first-use index.
  return serialize(
      order, roots, backend,
      [&](const ir::Node* n) {
        return n->walk_epoch == epoch && !n->realized() ? n->walk_index : int64_t(-1);
      },
      [&](const ir::Node* n) -> int64_t& {
        auto* m = const_cast<ir::Node*>(n);
        if (m->walk_epoch != epoch) {
          m->walk_epoch = epoch;
          m->walk_index = -1;
        }
        return m->walk_index;
      });
}

std::shared_ptr<Plan> PlanCache::find(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void PlanCache::insert(const std::string& key, std::shared_ptr<Plan> plan) {
  if (auto it = index_.find(key); it != index_.end()) {
    it->second->second = std::move(plan);
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  if (lru_.size() >= capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  lru_.emplace_front(key, std::move(plan));
  index_.emplace(lru_.front().first, lru_.begin());  // the view points into the list's string
}

void PlanCache::clear() {
  index_.clear();
  lru_.clear();
}
std::size_t PlanCache::size() const { return lru_.size(); }

PlanCache& plan_cache() {
  static PlanCache c;
  return c;
}

}  // namespace cgrad::runtime
