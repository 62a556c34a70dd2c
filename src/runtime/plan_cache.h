// Plans and the plan cache. A Plan is what a backend keeps of a realized graph: an immutable
// list of launches with buffer bindings, replayed on new leaf buffers without passes,
// scheduling or codegen. The cache key is the structure of the pending graph *before* passes
// (ops, attributes, shapes, dtypes, how nodes connect, which are outputs) plus the metadata of
// its realized leaves (dtype, shape, strides, offset, device): same key, same plan.
#pragma once

#include "ir/node.h"

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cgrad::runtime {

/// A backend's compiled form of a graph; opaque to the runtime.
struct Plan {
  Plan();
  virtual ~Plan() = default;
  /// Bytes of the one block holding the plan's intermediate buffers (memory planning), known
  /// when the plan is built; 0 when the backend plans no arena.
  virtual int64_t arena_bytes() const { return 0; }
  /// Whether running the plan can use runtime::free_leaves() (realize() computes them then).
  virtual bool reuses_leaves() const { return false; }
  /// Per leaf: its first in-graph edge (consumer position in the plan-key walk, input index)
  /// and how many in-graph edges it has; structural, filled by realize() (free_leaves()).
  struct LeafRefs {
    std::size_t node = 0, input = 0;
    long edges = 0;
  };
  std::vector<LeafRefs> leaf_refs;
  /// Unique per plan in this process (never reused, unlike addresses): the result cache's key.
  const uint64_t serial;
};

/// The pending graph's identity: its realized leaves in first-use order and the key bytes.
struct PlanKey {
  std::vector<const ir::Node*> leaves;
  std::string bytes;
};
/// `order` is the unrealized subgraph (inputs first) of `roots`, `backend` the backend's name.
PlanKey plan_key(const std::vector<ir::Node*>& order, const std::vector<ir::Node*>& roots,
                 const char* backend);
/// The same key for `order` from ir::topo_order_marked (positions read from the walk's marks).
PlanKey plan_key_marked(const std::vector<ir::Node*>& order, uint64_t epoch,
                        const std::vector<ir::Node*>& roots, const char* backend);

/// Bounded (least recently used out first) map from keys to plans.
class PlanCache {
 public:
  explicit PlanCache(std::size_t capacity = 512) : capacity_(capacity) {}
  std::shared_ptr<Plan> find(const std::string& key);
  void insert(const std::string& key, std::shared_ptr<Plan> plan);
  void clear();
  std::size_t size() const;

 private:
  using Entry = std::pair<std::string, std::shared_ptr<Plan>>;
  std::size_t capacity_;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;
};

PlanCache& plan_cache();

}  // namespace cgrad::runtime
