// What every compiling backend does around its kernels: tie a schedule's slots to realize()'s
// leaves and roots once (lower() does it, so the plan can be replayed on other leaves of the same
// layout), and bind slot values while a plan runs (leaves, constants, views of bound slots).
#pragma once

#include "ir/graph.h"
#include "schedule/plan_memory.h"
#include "schedule/schedule.h"

#include <functional>
#include <utility>
#include <vector>

namespace cgrad::runtime {

struct PlanSlots {
  std::vector<int> slot_leaf;                // per slot: index into the leaves, or -1
  std::vector<std::pair<int, int>> outputs;  // (index into roots, slot)
};

/// Fills `p` for `s` and clears the slots' node pointers (plans keep none). A leaf the plan key
/// does not know is appended to `leaves`; then the plan cannot be replayed and false is returned.
bool bind_plan_slots(schedule::Schedule& s, std::vector<const ir::Node*>& leaves,
                     const std::vector<ir::Node*>& roots, PlanSlots& p);

/// Binds every unbound slot that can be bound now: a leaf (through `leaf`), a constant (through
/// `constant`) or a view of a bound slot. With `shift` (per slot, in elements), a view of a slot
/// placed in a memory-planned arena is moved by its base's arena offset.
void bind_views(const schedule::Schedule& s, const PlanSlots& p, const std::vector<const ir::Node*>& leaves,
                std::vector<ir::View>& views, const std::function<ir::View(const ir::Node&)>& leaf,
                const std::function<ir::View(const schedule::Slot&)>& constant,
                const int64_t* shift = nullptr);

/// Gives every slot the loop kernel `k` stores to, and that has no value yet, a fresh buffer
/// from `alloc(shape, dtype)`.
void allocate_stores(const schedule::Schedule& s, const schedule::KernelSpec& k, std::vector<ir::View>& views,
                     const std::function<ir::View(const Shape&, DType)>& alloc);

/// Per slot: its memory-planned arena offset in elements (0 outside the arena), for
/// bind_views' `shift` and the kernels' offsets.
std::vector<int64_t> arena_shifts(const schedule::Schedule& s, const schedule::MemoryPlan& mem);

/// Outputs of the last kernel written over free leaves (MemoryPlan::reuse, free_leaves):
/// call just before the last kernel, so nothing that can fail runs between overwriting the leaf
/// and finishing. The leaf's buffer must be held only by its node and `views`.
void reuse_free_leaves(const schedule::Schedule& s, const PlanSlots& p, const schedule::MemoryPlan& mem,
                       std::vector<ir::View>& views);

/// The plan outputs: each root becomes a realized leaf holding its slot's value.
void realize_outputs(const PlanSlots& p, const std::vector<ir::View>& views,
                     const std::vector<ir::Node*>& roots);

}  // namespace cgrad::runtime
