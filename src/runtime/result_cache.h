// The result cache (the unstoppable-stream seed's phase 4): evaluating a graph whose plan and
// input buffers were already evaluated returns the values computed then, launching nothing.
//
// Key: the plan's serial (the plan key covers structure, attributes, constants and every leaf's
// layout) plus, per leaf, its storage's id and version. Storage ids are never reused and a
// storage that is written again bumps its version, so a key can only match the very same
// values: assign() gives a tensor a new node (a new storage), and an in-place write changes the
// version. Values are immutable once computed (plans write in place only into buffers no node
// can see), so handing the same storage to a second result is safe.
// Bounded: least recently used entries go first once CGRAD_RESULT_CACHE_BYTES is passed (0
// turns the cache off); entries whose input storages are gone, written since, or held by nothing
// but other entries' values (no handle can reach them), are dropped as soon as an insert sees
// them (the newest and oldest few entries), and a run
// whose inputs were freed or overwritten during it (an output written over a free leaf:
// `x = f(x)` in a loop) is not cached at all, nor one that reads borrowed memory (from_blob:
// its owner writes it without bumping a version).
#pragma once

#include "ir/node.h"
#include "runtime/plan_cache.h"

#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>
#include <vector>

namespace cgrad::runtime {

class ResultCache {
 public:
  using Key = std::vector<uint64_t>;
  /// What identifies one evaluation's inputs: taken before the plan runs (realizing the roots
  /// may free the leaf nodes), completed with the plan's serial once the plan exists.
  struct Probe {
    Key key;  // [plan serial, (storage id, version) per leaf]
    std::vector<std::weak_ptr<ir::Storage>> inputs;
  };
  /// Whether CGRAD_RESULT_CACHE_BYTES allows caching at all.
  static bool enabled();
  static Probe probe(const std::vector<const ir::Node*>& leaves);
  /// The roots' values `plan` computed before on the probe's leaves; false when not cached.
  bool find(const Plan& plan, Probe& p, std::vector<ir::View>& values);
  /// Remembers the (now realized) roots' values of running `plan` on the probe's leaves.
  void insert(const Plan& plan, Probe p, const std::vector<ir::Node*>& roots);
  void clear();
  /// How many references to `s` the cached values hold (its use_count beyond its owners).
  long value_refs(const ir::Storage* s) const;
  /// Drops every entry holding `s` as a value (before the buffer is written again).
  void forget(const ir::Storage* s);
  std::size_t bytes() const { return bytes_; }
  std::size_t size() const { return lru_.size(); }

 private:
  static std::size_t hash(const Key& k);
  struct Entry {
    Key key;
    std::vector<ir::View> values;
    std::vector<std::weak_ptr<ir::Storage>> inputs;
    std::vector<const ir::Storage*> input_ptrs;  // the same, as value_refs_ keys (never dereferenced)
    std::size_t bytes = 0;
    std::size_t hash = 0;
  };
  void erase(std::list<Entry>::iterator it);
  /// True when nothing but cached values holds `s`, whose owners are `owners`.
  bool cache_only(const ir::Storage* s, long owners) const { return owners <= value_refs(s); }
  /// An entry that can never match again: an input gone, written since, or reachable only
  /// through the cache.
  bool dead(const Entry& e) const;
  /// Erases dead entries among the few most and least recently used.
  void drop_dead();

  std::list<Entry> lru_;  // most recent first
  // By the key's hash; find() compares the whole key (a colliding entry is replaced on insert).
  std::unordered_map<std::size_t, std::list<Entry>::iterator> index_;
  std::unordered_map<const ir::Storage*, long> value_refs_;  // per storage: cached views of it
  std::size_t bytes_ = 0;
};

ResultCache& result_cache();

}  // namespace cgrad::runtime
