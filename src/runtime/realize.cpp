// The realize driver: plan key -> (result cache hit | replay of the stored plan), or
// lower (runtime/lower.h) + the backend's run, keeping the plan.
#include "runtime/realize.h"

#include "core/env.hpp"
#include "ir/graph.h"
#include "runtime/backend.h"
#include "runtime/lower.h"
#include "runtime/plan_diff.h"
#include "runtime/result_cache.h"
#include "runtime/stats.h"

#include <cgrad/compile.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace cgrad::runtime {

namespace {
// One realize at a time: node values are written in place, and graphs may be shared by
// handles on several threads.
std::recursive_mutex g_realize_mutex;
// cgrad::detail::set_lock_wait_hook's functions (set once, before threads use the library)
std::atomic<void* (*)()> g_wait_release{nullptr};
std::atomic<void (*)(void*)> g_wait_reacquire{nullptr};
std::atomic<SubgraphHook> g_subgraph_hook{nullptr};
thread_local uint64_t t_realize_count = 0;
thread_local const std::vector<char>* t_free_leaves = nullptr;
const std::vector<char> kNoFreeLeaves;

// See free_leaves() (backend.h). `order` and the leaves carry the marks of the plan-key walk
// `epoch` (pending nodes: their position; leaves: their index in `leaves`). A node's references
// from inside the graph are its in-graph edges; any other reference (a handle, a gradient
// record, a trace) shows as a higher use count. `refs`: per leaf, where its first in-graph edge
// is and how many it has. They depend only on the graph's structure, so a plan keeps them
// (Plan::leaf_refs) and a replay first checks each leaf through them: when every leaf is held
// from outside (the common case: handles on the inputs), no walk over the graph is needed.
std::vector<char> find_free_leaves(const std::vector<ir::Node*>& order, uint64_t epoch,
                                   const std::vector<ir::Node*>& roots,
                                   const std::vector<const ir::Node*>& leaves,
                                   std::vector<Plan::LeafRefs>& refs) {
  std::vector<char> free(leaves.size(), 0);
  auto buffer_free = [](const ir::Node* l) {
    return !l->value.storage->borrowed &&
           l->value.storage.use_count() == 1 + result_cache().value_refs(l->value.storage.get());
  };
  if (refs.size() == leaves.size()) {
    bool any = false;
    for (std::size_t j = 0; j < leaves.size() && !any; ++j) {
      const Plan::LeafRefs& r = refs[j];
      if (r.edges == 0 || r.node >= order.size() || r.input >= order[r.node]->inputs.size()) continue;
      const ir::NodePtr& e = order[r.node]->inputs[r.input];
      any = e.get() == leaves[j] && e.use_count() == r.edges && buffer_free(leaves[j]);
    }
    if (!any) return free;
  }
  refs.assign(leaves.size(), Plan::LeafRefs{});
  std::vector<long> leaf_uses(leaves.size(), 0);
  std::vector<long> edges(order.size(), 0), uses(order.size(), 0);
  for (std::size_t p = 0; p < order.size(); ++p)
    for (std::size_t k = 0; k < order[p]->inputs.size(); ++k) {
      const ir::NodePtr& in = order[p]->inputs[k];
      if (in->walk_epoch != epoch || in->walk_index < 0) return free;
      const auto i = static_cast<std::size_t>(in->walk_index);
      if (in->realized()) {
        if (i >= leaves.size()) return free;
        if (refs[i].edges++ == 0) refs[i].node = p, refs[i].input = k;
        leaf_uses[i] = in.use_count();
      } else {
        ++edges[i];
        uses[i] = in.use_count();
      }
    }
  std::vector<char> is_root(order.size(), 0);
  for (const ir::Node* r : roots) is_root[static_cast<std::size_t>(r->walk_index)] = 1;
  for (std::size_t i = 0; i < order.size(); ++i)
    if (!is_root[i] && uses[i] != edges[i]) return free;  // held from outside: may be evaluated later
  for (std::size_t j = 0; j < leaves.size(); ++j)
    free[j] = refs[j].edges > 0 && leaf_uses[j] == refs[j].edges && buffer_free(leaves[j]);
  return free;
}

// Makes free_leaves() return `f` while alive, then what it returned before: a realize nested
// in another (a subgraph hook, a tool) must not take the outer run's free leaves away.
struct FreeLeavesScope {
  explicit FreeLeavesScope(const std::vector<char>* f) : saved(t_free_leaves) { t_free_leaves = f; }
  ~FreeLeavesScope() { t_free_leaves = saved; }
  const std::vector<char>* saved;
  FreeLeavesScope(const FreeLeavesScope&) = delete;
  FreeLeavesScope& operator=(const FreeLeavesScope&) = delete;
};

// The end of the CGRAD_DEBUG=1 line of a run: kernels launched since `k0`, device, backend, time.
std::string run_line(uint64_t k0, std::chrono::steady_clock::time_point t0, Device dev, const Backend& be) {
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return std::to_string(counters().kernels_launched.load() - k0) + " kernels on " + dev.str() + " (" +
         be.name() + "), " + buf;
}

// realize() and realize_traced(): with `traced`, the plan and leaves are handed back: a plan-key
// hit replays the stored plan (or takes the result cache's values); a miss lowers the graph for
// the backend's target and lets the backend compile and launch it.
void realize_impl(const std::vector<ir::NodePtr>& outputs, Traced* traced) {
  RealizeLock lock;
  std::vector<ir::Node*> roots;
  for (auto& o : outputs)
    if (o && !o->realized()) roots.push_back(o.get());
  if (roots.empty()) return;
  ++t_realize_count;

  Device dev = roots[0]->device;
  Backend& be = backend_for(dev);

  // A graph of the same structure and leaf layout as an earlier one replays its plan.
  uint64_t epoch = 0;
  std::vector<ir::Node*> order0 = ir::topo_order_marked(roots, &epoch);
  PlanKey key = plan_key_marked(order0, epoch, roots, be.name());
  if (traced) {
    traced->backend = &be;
    traced->leaves = key.leaves;
    traced->key = key.bytes;
  }
  const bool results = !traced && ResultCache::enabled();
  ResultCache::Probe probe;
  if (results) probe = ResultCache::probe(key.leaves);  // before the run: it may free the leaves
  if (auto plan = plan_cache().find(key.bytes)) {
    if (traced) traced->plan = plan;
    if (results) {
      std::vector<ir::View> values;
      if (result_cache().find(*plan, probe, values)) {
        for (std::size_t r = 0; r < roots.size(); ++r) ir::set_realized(*roots[r], std::move(values[r]));
        counters().result_cache_hits.fetch_add(1, std::memory_order_relaxed);
        dump(Stage::Run, [] { return "result cache hit: 0 kernels"; });
        return;
      }
    }
    counters().plan_cache_hits.fetch_add(1, std::memory_order_relaxed);
    uint64_t k0 = counters().kernels_launched.load();
    auto t0 = std::chrono::steady_clock::now();
    std::vector<char> free;
    if (!traced && plan->reuses_leaves())
      free = find_free_leaves(order0, epoch, roots, key.leaves, plan->leaf_refs);
    FreeLeavesScope scope(free.empty() ? nullptr : &free);
    be.replay(*plan, key.leaves, roots);
    if (results) result_cache().insert(*plan, std::move(probe), roots);
    dump(Stage::Run, [&] { return "replay: " + run_line(k0, t0, dev, be); });
    return;
  }

  // The key before the passes rewrite the graph.
  dump(Stage::Key,
       [&] { return "new plan (why: " + why_new_plan(order0, key.leaves, roots, be.name()) + ")"; });
  // Before the passes: they rewrite edges, and a replay sees the graph as it is here.
  std::vector<char> free;
  std::vector<Plan::LeafRefs> refs;
  if (!traced) free = find_free_leaves(order0, epoch, roots, key.leaves, refs);
  FreeLeavesScope scope(&free);
  uint64_t k0 = counters().kernels_launched.load();
  auto t0 = std::chrono::steady_clock::now();
  Program program = lower(outputs, be.target(), key.leaves);
  if (SubgraphHook hook = g_subgraph_hook.load()) hook(program.graph);
  const std::size_t nodes = program.graph.order.size();
  if (auto plan = be.run(program)) {
    counters().plans_built.fetch_add(1, std::memory_order_relaxed);
    plan->leaf_refs = std::move(refs);
    if (traced) traced->plan = plan;
    if (results) result_cache().insert(*plan, std::move(probe), roots);
    plan_cache().insert(key.bytes, std::move(plan));
  }
  dump(Stage::Run,
       [&] { return "realize: " + std::to_string(nodes) + " nodes, " + run_line(k0, t0, dev, be); });
}

}  // namespace

void set_subgraph_hook(SubgraphHook hook) { g_subgraph_hook.store(hook); }

const std::vector<char>& free_leaves() { return t_free_leaves ? *t_free_leaves : kNoFreeLeaves; }

void realize(const std::vector<ir::NodePtr>& outputs) { realize_impl(outputs, nullptr); }

Traced realize_traced(const std::vector<ir::NodePtr>& roots) {
  Traced t;
  realize_impl(roots, &t);
  return t;
}

RealizeLock::RealizeLock() {
  if (g_realize_mutex.try_lock()) return;
  // (a thread holding the GIL and waiting here while the holder, tracing a compiled function,
  // waited for the GIL: tools/fuzz_numpy.py from 4 Python threads hung at once)
  void* (*const release)() = g_wait_release.load();
  void (*const reacquire)(void*) = g_wait_reacquire.load();
  void* state = release ? release() : nullptr;
  g_realize_mutex.lock();
  if (reacquire) reacquire(state);
}

RealizeLock::~RealizeLock() { g_realize_mutex.unlock(); }

void store_lock_wait_hook(cgrad::detail::LockWaitHook hook) {
  g_wait_release.store(hook.release);
  g_wait_reacquire.store(hook.reacquire);
}
uint64_t realize_count() { return t_realize_count; }

}  // namespace cgrad::runtime

namespace cgrad::detail {
void set_lock_wait_hook(LockWaitHook hook) { runtime::store_lock_wait_hook(hook); }
}  // namespace cgrad::detail
