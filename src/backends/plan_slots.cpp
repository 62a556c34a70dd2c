// Slot binding shared by the CPU JIT and CUDA backends (see plan_slots.h).
#include "backends/plan_slots.h"

#include <algorithm>

namespace cgrad::backends {

using schedule::Slot;

bool bind_plan_slots(schedule::Schedule& s, std::vector<const ir::Node*>& leaves, const std::vector<ir::Node*>& roots,
                     PlanSlots& p) {
  bool replayable = true;
  const std::size_t known = leaves.size();
  p.slot_leaf.assign(s.slots.size(), -1);
  for (std::size_t i = 0; i < s.slots.size(); ++i) {
    if (s.slots[i].kind != Slot::Kind::Leaf) continue;
    auto end = leaves.begin() + static_cast<std::ptrdiff_t>(known);
    auto it = std::find(leaves.begin(), end, s.slots[i].node);
    if (it == end) {
      replayable = false;
      p.slot_leaf[i] = static_cast<int>(leaves.size());
      leaves.push_back(s.slots[i].node);
    } else {
      p.slot_leaf[i] = static_cast<int>(it - leaves.begin());
    }
  }
  for (auto& [node, slot] : s.outputs)
    for (std::size_t r = 0; r < roots.size(); ++r)
      if (roots[r] == node) p.outputs.emplace_back(static_cast<int>(r), slot);
  for (auto& sl : s.slots) sl.node = nullptr;
  return replayable;
}

void bind_views(const schedule::Schedule& s, const PlanSlots& p, const std::vector<const ir::Node*>& leaves,
                std::vector<ir::View>& views, const std::function<ir::View(const ir::Node&)>& leaf,
                const std::function<ir::View(const Slot&)>& constant, const int64_t* shift) {
  for (std::size_t i = 0; i < s.slots.size(); ++i) {
    const Slot& sl = s.slots[i];
    if (views[i].storage) continue;
    if (sl.kind == Slot::Kind::Leaf) {
      views[i] = leaf(*leaves[static_cast<std::size_t>(p.slot_leaf[i])]);
    } else if (sl.kind == Slot::Kind::Const) {
      views[i] = constant(sl);
    } else if (sl.kind == Slot::Kind::View && views[static_cast<std::size_t>(sl.base)].storage) {
      views[i] = sl.layout;
      views[i].storage = views[static_cast<std::size_t>(sl.base)].storage;
      if (shift) views[i].offset += shift[i];  // a view of an arena slot
    }
  }
}

void allocate_stores(const schedule::Schedule& s, const schedule::KernelSpec& k, std::vector<ir::View>& views,
                     const std::function<ir::View(const Shape&, DType)>& alloc) {
  for (auto& st : k.stores) {
    auto slot = static_cast<std::size_t>(k.accesses[static_cast<std::size_t>(st.access)].slot);
    if (!views[slot].storage) views[slot] = alloc(s.slots[slot].shape, s.slots[slot].dtype);
  }
}

void run_planned(runtime::Backend& be, const runtime::Subgraph& g) {
  std::vector<ir::Node*> roots;
  for (std::size_t i = 0; i < g.order.size(); ++i)
    if (g.is_output[i]) roots.push_back(g.order[i]);
  auto key = runtime::plan_key(g.order, roots, be.name());
  be.run_and_plan(g, key.leaves, roots);
}

void realize_outputs(const PlanSlots& p, const std::vector<ir::View>& views, const std::vector<ir::Node*>& roots) {
  for (auto& [root, slot] : p.outputs)
    ir::set_realized(*roots[static_cast<std::size_t>(root)], views[static_cast<std::size_t>(slot)]);
}

}  // namespace cgrad::backends
