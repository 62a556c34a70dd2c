// Slot binding shared by the CPU JIT and CUDA backends (see plan_slots.h).
#include "runtime/plan_slots.h"

#include "runtime/backend.h"
#include "runtime/result_cache.h"
#include "runtime/stats.h"

#include <algorithm>

namespace cgrad::runtime {

using schedule::Slot;

bool bind_plan_slots(schedule::Schedule& s, std::vector<const ir::Node*>& leaves,
                     const std::vector<ir::Node*>& roots, PlanSlots& p) {
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

std::vector<int64_t> arena_shifts(const schedule::Schedule& s, const schedule::MemoryPlan& mem) {
  std::vector<int64_t> shift(s.slots.size(), 0);
  for (std::size_t i = 0; i < s.slots.size(); ++i) {
    const int a = mem.view_of_arena[i] >= 0 ? mem.view_of_arena[i] : static_cast<int>(i);
    const int64_t off = mem.offset[static_cast<std::size_t>(a)];
    if (off >= 0) shift[i] = off / static_cast<int64_t>(dtype_size(s.slots[i].dtype));
  }
  return shift;
}

void reuse_free_leaves(const schedule::Schedule& s, const PlanSlots& p, const schedule::MemoryPlan& mem,
                       std::vector<ir::View>& views) {
  const std::vector<char>& free = free_leaves();
  for (auto [out, leaf] : mem.reuse) {
    const int li = p.slot_leaf[static_cast<std::size_t>(leaf)];
    ir::View& lv = views[static_cast<std::size_t>(leaf)];
    ir::View& ov = views[static_cast<std::size_t>(out)];
    const Slot& os = s.slots[static_cast<std::size_t>(out)];
    const auto bytes = static_cast<std::size_t>(core::numel(os.shape)) * dtype_size(os.dtype);
    if (li < 0 || static_cast<std::size_t>(li) >= free.size() || !free[static_cast<std::size_t>(li)] ||
        ov.storage || !lv.storage || lv.offset != 0 || lv.storage->nbytes < bytes)
      continue;
    result_cache().forget(lv.storage.get());
    if (lv.storage.use_count() != 2) continue;  // use_count: the leaf node's value and `lv`
    ov = ir::View{lv.storage, 0, core::contiguous_strides(os.shape)};
    ++ov.storage->version;
    counters().buffers_reused.fetch_add(1, std::memory_order_relaxed);
  }
}

void realize_outputs(const PlanSlots& p, const std::vector<ir::View>& views,
                     const std::vector<ir::Node*>& roots) {
  for (auto& [root, slot] : p.outputs)
    ir::set_realized(*roots[static_cast<std::size_t>(root)], views[static_cast<std::size_t>(slot)]);
}

}  // namespace cgrad::runtime
