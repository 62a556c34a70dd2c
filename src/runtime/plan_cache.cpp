// Plan keys (structural serialization of a pending graph) and the LRU plan cache.
#include "runtime/plan_cache.h"

#include <cstring>
#include <unordered_map>

namespace cgrad::runtime {

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

PlanKey plan_key(const std::vector<ir::Node*>& order, const std::vector<ir::Node*>& roots, const char* backend) {
  PlanKey k;
  k.bytes.reserve(64 * order.size() + 64);
  k.bytes += backend;
  k.bytes.push_back('\0');
  Writer w{k.bytes};
  std::unordered_map<const ir::Node*, int64_t> pos, leaf;
  pos.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int64_t>(i);
  for (const ir::Node* n : order) {
    w.i64(static_cast<int64_t>(n->op) | (static_cast<int64_t>(n->dtype) << 8) |
          (static_cast<int64_t>(n->device.kind) << 16) | (static_cast<int64_t>(n->device.index) << 24));
    w.vec(n->shape);
    const ir::Attrs& a = n->attrs;
    w.vec(a.shape);
    w.vec(a.axes);
    w.i64(a.axis);
    w.i64(a.start);
    w.i64(a.stop);
    w.i64(a.step);
    w.f64(a.fvalue);
    w.i64(a.ivalue);
    w.i64(static_cast<int64_t>(a.seed));
    w.i64(static_cast<int64_t>(a.dtype));
    w.i64(static_cast<int64_t>(n->inputs.size()));
    for (auto& in : n->inputs) {
      auto it = pos.find(in.get());
      if (it != pos.end()) {
        w.i64(it->second);
        continue;
      }
      // a realized leaf: by first-use index, with its layout
      auto [lt, fresh] = leaf.emplace(in.get(), static_cast<int64_t>(k.leaves.size()));
      w.i64(-1 - lt->second);
      if (fresh) {
        k.leaves.push_back(in.get());
        w.i64(static_cast<int64_t>(in->dtype) | (static_cast<int64_t>(in->device.kind) << 16));
        w.vec(in->shape);
        w.vec(in->value.strides);
        w.i64(in->value.offset);
      }
    }
  }
  w.i64(-7);
  for (const ir::Node* r : roots) w.i64(pos.at(r));
  return k;
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
