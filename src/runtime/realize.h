// realize(): the entry point of the pipeline. Collects the unrealized subgraph of the requested
// outputs (nodes no output depends on never enter), verifies it, and hands it to the backend of
// its device. After it returns every output is a realized leaf.
#pragma once

#include "ir/graph.h"
#include "ir/node.h"
#include "runtime/plan_cache.h"

#include <cgrad/compile.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace cgrad::runtime {

class Backend;

void realize(const std::vector<ir::NodePtr>& outputs);

/// Called with every subgraph realize() plans afresh (a plan-cache miss), after the passes and
/// the verifier and before the backend runs it; nullptr (the default) for none. For tools and
/// tests: the cuda-compile tests collect the CUDA source of every schedule of a suite with it.
using SubgraphHook = void (*)(const ir::Subgraph& g);
void set_subgraph_hook(SubgraphHook hook);
/// What realize_traced() leaves for compile(): the plan that computed the roots (nullptr when
/// the backend does not plan), its backend, and the graph's realized leaves in plan-key order
/// (the order replay() takes them in).
struct Traced {
  std::shared_ptr<Plan> plan;
  Backend* backend = nullptr;
  std::vector<const ir::Node*> leaves;
  std::string key;  ///< the plan key's bytes (CGRAD_DEBUG=2 compares keys)
};
/// realize() for compile(): the same plan cache, but never the result cache (a trace needs the
/// plan, not only the values). Every root must be unrealized.
Traced realize_traced(const std::vector<ir::NodePtr>& roots);

/// Holds the realize lock, the one realize() holds (node values are written under it), for a
/// scope (recursive). A thread that finds it taken waits with the
/// lock-wait hook around the wait (cgrad::detail::set_lock_wait_hook: Python's GIL released).
class RealizeLock {
 public:
  RealizeLock();
  ~RealizeLock();
  RealizeLock(const RealizeLock&) = delete;
  RealizeLock& operator=(const RealizeLock&) = delete;
};
/// cgrad::detail::set_lock_wait_hook's body.
void store_lock_wait_hook(cgrad::detail::LockWaitHook hook);
/// realize() calls started on this thread so far (compile() notices realizes inside a trace).
uint64_t realize_count();

}  // namespace cgrad::runtime
