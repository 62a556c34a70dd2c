// The realize driver: collect -> verify -> backend.run, with CGRAD_DEBUG reporting.
#include "runtime/realize.h"

#include "core/env.hpp"
#include "ir/graph.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "passes/pipeline.h"
#include "runtime/backend.h"
#include "runtime/plan_diff.h"
#include "runtime/result_cache.h"
#include "runtime/stats.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <unordered_map>

namespace cgrad::runtime {

namespace {
// One realize at a time: node values are written in place, and graphs may be shared by
// handles on several threads.
std::recursive_mutex g_realize_mutex;
std::atomic<SubgraphHook> g_subgraph_hook{nullptr};
thread_local uint64_t t_realize_count = 0;

// realize() and realize_traced(): with `traced`, the plan and leaves are handed back.
void realize_impl(const std::vector<ir::NodePtr>& outputs, Traced* traced) {
  std::lock_guard<std::recursive_mutex> lock(g_realize_mutex);
  std::vector<ir::Node*> roots;
  for (auto& o : outputs)
    if (o && !o->realized()) roots.push_back(o.get());
  if (roots.empty()) return;
  ++t_realize_count;

  const auto& e = core::env();
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
        if (e.debug >= 1) std::fprintf(stderr, "[cgrad] result cache hit: 0 kernels\n");
        return;
      }
    }
    counters().plan_cache_hits.fetch_add(1, std::memory_order_relaxed);
    uint64_t k0 = counters().kernels_launched.load();
    auto t0 = std::chrono::steady_clock::now();
    be.replay(*plan, key.leaves, roots);
    if (results) result_cache().insert(*plan, std::move(probe), roots);
    if (e.debug >= 1) {
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "[cgrad] replay: %llu kernels on %s (%s), %.3f ms\n",
                   static_cast<unsigned long long>(counters().kernels_launched.load() - k0), dev.str().c_str(),
                   be.name(), ms);
    }
    return;
  }

  if (e.debug >= 2)  // the key before passes rewrite the graph
    std::fprintf(stderr, "[cgrad] new plan (why: %s)\n", why_new_plan(order0, key.leaves, roots, be.name()).c_str());
  passes::optimize(outputs);
  Subgraph g = ir::make_subgraph(roots);
  ir::verify(g.order);
  if (SubgraphHook hook = g_subgraph_hook.load()) hook(g);

  if (e.debug >= 4) {
    std::cerr << "[cgrad] graph to realize:\n" << ir::to_string(roots);
  }
  uint64_t k0 = counters().kernels_launched.load();
  auto t0 = std::chrono::steady_clock::now();
  if (auto plan = be.run_and_plan(g, key.leaves, roots)) {
    counters().plans_built.fetch_add(1, std::memory_order_relaxed);
    if (traced) traced->plan = plan;
    if (results) result_cache().insert(*plan, std::move(probe), roots);
    plan_cache().insert(key.bytes, std::move(plan));
  }
  if (e.debug >= 1) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "[cgrad] realize: %zu nodes, %llu kernels on %s (%s), %.3f ms\n", g.order.size(),
                 static_cast<unsigned long long>(counters().kernels_launched.load() - k0), dev.str().c_str(),
                 be.name(), ms);
  }
}

}  // namespace

void set_subgraph_hook(SubgraphHook hook) { g_subgraph_hook.store(hook); }

void realize(const std::vector<ir::NodePtr>& outputs) { realize_impl(outputs, nullptr); }

Traced realize_traced(const std::vector<ir::NodePtr>& roots) {
  Traced t;
  realize_impl(roots, &t);
  return t;
}

std::recursive_mutex& realize_mutex() { return g_realize_mutex; }
uint64_t realize_count() { return t_realize_count; }

}  // namespace cgrad::runtime
