// The result cache: LRU by bytes over (plan, leaf storages with versions) -> root values.
#include "runtime/result_cache.h"

#include "core/env.hpp"

namespace cgrad::runtime {

namespace {
// Entries checked for dead inputs at each insert, from the old end (entries of values long
// dropped) and from the new end (a loop's previous step: `x = f(x)`, or a lazy
// `x.assign(f(x))` realized by the pending-depth rule, whose previous entry holds the state the
// new entry reads). Together they keep such loops at O(1) entries, whatever else is cached.
constexpr int kTailSweep = 8;
constexpr int kFrontSweep = 2;
}  // namespace

bool ResultCache::enabled() { return core::env().result_cache_bytes > 0; }

std::size_t ResultCache::hash(const Key& k) {
  uint64_t h = 1469598103934665603ull;
  for (uint64_t x : k) h = (h ^ x) * 1099511628211ull + (h >> 29);
  return static_cast<std::size_t>(h);
}

ResultCache::Probe ResultCache::probe(const std::vector<const ir::Node*>& leaves) {
  Probe p;
  p.key.reserve(1 + 2 * leaves.size());
  p.key.push_back(0);
  p.inputs.reserve(leaves.size());
  for (const ir::Node* l : leaves) {
    p.key.push_back(l->value.storage->id);
    p.key.push_back(l->value.storage->version);
    p.inputs.push_back(l->value.storage);
  }
  return p;
}

bool ResultCache::find(const Plan& plan, Probe& p, std::vector<ir::View>& values) {
  p.key[0] = plan.serial;
  if (lru_.empty()) return false;
  auto it = index_.find(hash(p.key));
  if (it == index_.end() || it->second->key != p.key) return false;
  lru_.splice(lru_.begin(), lru_, it->second);
  values = it->second->values;
  return true;
}

void ResultCache::insert(const Plan& plan, Probe p, const std::vector<ir::Node*>& roots) {
  const auto limit = static_cast<std::size_t>(core::env().result_cache_bytes);
  // First, so that an input only a dropped entry held is seen gone just below.
  drop_dead();
  // An input freed or written during the run (an output took over its buffer), or held by
  // nothing but cached values: the key can never match again (or only through a hit of the
  // entry that holds it), and holding the values would keep buffers a later run could reuse.
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    auto in = p.inputs[i].lock();
    if (!in || in->version != p.key[2 + 2 * i] || cache_only(in.get(), in.use_count() - 1)) return;
    // Memory another library owns (from_blob, DLPack, NumPy's asarray) changes without a
    // version bump: `a[:] = 5` after `x = asarray(a)` made sum(x) return the old sum while
    // sum(x + 0) and x itself read 5 (until 2026-12-07). Graphs over it run again each time.
    if (in->borrowed) return;
  }
  Entry e;
  e.key = std::move(p.key);
  e.key[0] = plan.serial;
  for (std::size_t r = 0; r < roots.size(); ++r) {
    const ir::View& v = roots[r]->value;
    e.values.push_back(v);
    bool seen = !v.storage;
    for (std::size_t q = 0; q < r && !seen; ++q) seen = roots[q]->value.storage == v.storage;
    if (!seen) e.bytes += v.storage->nbytes;
  }
  if (e.bytes > limit) return;
  e.input_ptrs.reserve(p.inputs.size());
  for (const auto& w : p.inputs) e.input_ptrs.push_back(w.lock().get());
  e.inputs = std::move(p.inputs);
  e.hash = hash(e.key);
  if (auto old = index_.find(e.hash); old != index_.end()) erase(old->second);
  bytes_ += e.bytes;
  for (auto& v : e.values)
    if (v.storage) ++value_refs_[v.storage.get()];
  lru_.push_front(std::move(e));
  index_.emplace(lru_.front().hash, lru_.begin());
  while (bytes_ > limit && !lru_.empty()) erase(std::prev(lru_.end()));
}

void ResultCache::erase(std::list<Entry>::iterator it) {
  bytes_ -= it->bytes;
  for (auto& v : it->values)
    if (v.storage) {
      auto r = value_refs_.find(v.storage.get());
      if (--r->second == 0) value_refs_.erase(r);
    }
  index_.erase(it->hash);
  lru_.erase(it);
}

bool ResultCache::dead(const Entry& e) const {
  // Owners: every cached view of the buffer plus whatever else holds it (a node's value, a view
  // handed out); no more than the cached views means no handle can reach it. Read without
  // locking the weak pointer (a load, not a compare-and-swap: this runs on every insert); the
  // pointer is only a key. Owners appear only through an existing owner, so a count that races
  // with another thread can only make a dead entry look alive for one more sweep.
  for (std::size_t i = 0; i < e.inputs.size(); ++i) {
    const long owners = e.inputs[i].use_count();
    if (owners == 0 || cache_only(e.input_ptrs[i], owners)) return true;
  }
  // An input written since (an optimizer's in-place update of a parameter the user still
  // holds): versions only grow, so the key cannot match again. This read needs the storage
  // alive, hence the lock.
  for (std::size_t i = 0; i < e.inputs.size(); ++i) {
    auto in = e.inputs[i].lock();
    if (!in || in->version != e.key[2 + 2 * i]) return true;
  }
  return false;
}

void ResultCache::drop_dead() {
  // Erasing an entry can free the input of the next one checked (a chain of loop states), so
  // each side goes on from where it stands.
  int checked = 0;
  for (auto it = lru_.begin(); it != lru_.end() && checked < kFrontSweep; ++checked) {
    auto cur = it++;
    if (dead(*cur)) erase(cur);
  }
  checked = 0;
  for (auto it = lru_.end(); it != lru_.begin() && checked < kTailSweep; ++checked) {
    auto cur = std::prev(it);
    if (dead(*cur)) {
      erase(cur);
    } else {
      it = cur;
    }
  }
}

long ResultCache::value_refs(const ir::Storage* s) const {
  auto it = value_refs_.find(s);
  return it == value_refs_.end() ? 0 : it->second;
}

void ResultCache::forget(const ir::Storage* s) {
  if (!value_refs(s)) return;
  for (auto it = lru_.begin(); it != lru_.end();) {
    auto cur = it++;
    for (auto& v : cur->values)
      if (v.storage.get() == s) {
        erase(cur);
        break;
      }
  }
}

void ResultCache::clear() {
  value_refs_.clear();
  index_.clear();
  lru_.clear();
  bytes_ = 0;
}

ResultCache& result_cache() {
  static ResultCache c;
  return c;
}

}  // namespace cgrad::runtime
