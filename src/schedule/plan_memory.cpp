// Memory planning (see plan_memory.h): liveness over the kernel order, first-fit offsets in
// one arena, in-place writes over inputs that die in an element-wise kernel.
#include "schedule/plan_memory.h"

#include "core/dtype.hpp"

#include <algorithm>
#include <sstream>

namespace cgrad::schedule {

namespace {

constexpr int64_t kAlign = 64;

int64_t aligned_bytes(const Slot& s) {
  int64_t n = core::numel(s.shape) * static_cast<int64_t>(dtype_size(s.dtype));
  return std::max<int64_t>(kAlign, (n + kAlign - 1) / kAlign * kAlign);
}

struct Block {
  int64_t off, size;
  int slot;
  int end;  // last kernel that reads it
};

int view_root(const Schedule& s, int i) {
  while (i >= 0 && s.slots[static_cast<std::size_t>(i)].kind == Slot::Kind::View)
    i = s.slots[static_cast<std::size_t>(i)].base;
  return i;
}

// Whether instruction `v` of `k` depends on instruction `on`.
bool depends(const KernelSpec& k, int v, int on) {
  std::vector<char> seen(k.code.size(), 0);
  std::vector<int> stack{v};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (i == on) return true;
    if (seen[static_cast<std::size_t>(i)]) continue;
    seen[static_cast<std::size_t>(i)] = 1;
    for (int a : k.code[static_cast<std::size_t>(i)].args) stack.push_back(a);
  }
  return false;
}

// Outputs of the last kernel that may take over a leaf's buffer (see plan_memory.h): the
// kernel is element-wise, reads the leaf (contiguous, from its start) only through accesses
// equal to a store access of the output, and each such store depends on that read, so every
// element of the leaf is read before it is overwritten, in the same loop iteration.
void plan_reuse(const Schedule& s, MemoryPlan& m, const std::vector<char>& escapes,
                const std::vector<int>& last) {
  const int kl = static_cast<int>(s.kernels.size()) - 1;
  const KernelSpec& k = s.kernels.back();
  if (k.kind != KernelSpec::Kind::Loop || !k.reductions.empty() || !k.inner.empty()) return;
  std::vector<int> load_of(k.accesses.size(), -1);
  for (std::size_t i = 0; i < k.code.size(); ++i)
    if (k.code[i].kind == Instr::Kind::Load)
      load_of[static_cast<std::size_t>(k.code[i].access)] = static_cast<int>(i);
  std::vector<char> taken(s.slots.size(), 0);
  for (std::size_t li = 0; li < s.slots.size(); ++li) {
    const Slot& leaf = s.slots[li];
    if (leaf.kind != Slot::Kind::Leaf || escapes[li] || last[li] != kl || leaf.layout.offset != 0 ||
        leaf.layout.strides != core::contiguous_strides(leaf.shape))
      continue;
    // outputs every read of the leaf could be written over (eval({x, y, z}) of three
    // updates each reading all three leaves: any of the three, so each leaf gets one)
    std::vector<int> cand;
    bool ok = true, first = true;
    for (std::size_t a = 0; ok && a < k.accesses.size(); ++a) {
      const Access& ra = k.accesses[a];
      if (ra.slot < 0 || view_root(s, ra.slot) != static_cast<int>(li)) continue;
      ok = ra.slot == static_cast<int>(li) && load_of[a] >= 0 && !ra.indirect;
      std::vector<int> match;
      for (std::size_t j = 0; ok && j < k.stores.size(); ++j) {
        const Access& sa = k.accesses[static_cast<std::size_t>(k.stores[j].access)];
        if (sa.offset == ra.offset && sa.strides == ra.strides && depends(k, k.stores[j].value, load_of[a]))
          match.push_back(sa.slot);
      }
      if (!first)
        std::erase_if(match, [&](int o) { return std::find(cand.begin(), cand.end(), o) == cand.end(); });
      cand = std::move(match);
      first = false;
    }
    if (!ok) continue;
    int out = -1;
    for (int o : cand) {
      const Slot& os = s.slots[static_cast<std::size_t>(o)];
      if (os.kind == Slot::Kind::Temp && escapes[static_cast<std::size_t>(o)] &&
          !taken[static_cast<std::size_t>(o)] && os.dtype == leaf.dtype &&
          core::numel(os.shape) == core::numel(leaf.shape)) {
        out = o;
        break;
      }
    }
    if (out < 0) continue;
    taken[static_cast<std::size_t>(out)] = 1;
    m.reuse.emplace_back(out, static_cast<int>(li));
  }
}

}  // namespace

MemoryPlan plan_memory(const Schedule& s) {
  const std::size_t ns = s.slots.size(), nk = s.kernels.size();
  MemoryPlan m;
  m.offset.assign(ns, -1);
  m.view_of_arena.assign(ns, -1);
  m.release.assign(nk, {});
  auto root = [&](int i) { return view_root(s, i); };
  std::vector<char> escapes(ns, 0);
  for (auto& [node, slot] : s.outputs) escapes[static_cast<std::size_t>(root(slot))] = 1;
  std::vector<int> writer(ns, -1), last(ns, -1);
  auto use = [&](int slot, int k) {
    int r = root(slot);
    if (r >= 0) last[static_cast<std::size_t>(r)] = std::max(last[static_cast<std::size_t>(r)], k);
  };
  for (std::size_t k = 0; k < nk; ++k) {
    const KernelSpec& ks = s.kernels[k];
    const int ki = static_cast<int>(k);
    if (ks.kind == KernelSpec::Kind::Loop) {
      for (auto& st : ks.stores)
        writer[static_cast<std::size_t>(ks.accesses[static_cast<std::size_t>(st.access)].slot)] = ki;
      for (auto& a : ks.accesses)
        if (a.slot >= 0) use(a.slot, ki);
    } else {
      writer[static_cast<std::size_t>(ks.out_slot)] = ki;
      use(ks.out_slot, ki);
      for (int sl : ks.in_slots) use(sl, ki);
    }
  }
  // Which intermediates the arena holds; the others a library routine allocates.
  std::vector<char> planned(ns, 0);
  for (std::size_t i = 0; i < ns; ++i) {
    if (s.slots[i].kind != Slot::Kind::Temp || escapes[i] || writer[i] < 0) continue;
    const KernelSpec& w = s.kernels[static_cast<std::size_t>(writer[i])];
    if (w.kind == KernelSpec::Kind::Loop || w.kind == KernelSpec::Kind::Gemm) {
      planned[i] = 1;
      m.intermediate_bytes += aligned_bytes(s.slots[i]);
    } else {
      m.release[static_cast<std::size_t>(last[i])].push_back(static_cast<int>(i));
      for (std::size_t v = 0; v < ns; ++v)  // views of it hold the buffer too
        if (s.slots[v].kind == Slot::Kind::View && root(static_cast<int>(v)) == static_cast<int>(i))
          m.release[static_cast<std::size_t>(last[i])].push_back(static_cast<int>(v));
    }
  }
  std::vector<Block> live;  // sorted by offset
  for (std::size_t k = 0; k < nk; ++k) {
    const KernelSpec& ks = s.kernels[k];
    const int ki = static_cast<int>(k);
    std::erase_if(live, [&](const Block& b) { return b.end < ki; });
    std::vector<int> outs;
    if (ks.kind == KernelSpec::Kind::Loop) {
      for (auto& st : ks.stores) outs.push_back(ks.accesses[static_cast<std::size_t>(st.access)].slot);
    } else {
      outs.push_back(ks.out_slot);
    }
    for (int o : outs) {
      const auto oi = static_cast<std::size_t>(o);
      if (!planned[oi]) continue;
      const int64_t size = aligned_bytes(s.slots[oi]);
      // In place over an input that dies here (see plan_memory.h for the conditions).
      if (ks.kind == KernelSpec::Kind::Loop && ks.stores.size() == 1 && ks.reductions.empty() &&
          ks.inner.empty()) {
        const Access& sa = ks.accesses[static_cast<std::size_t>(ks.stores[0].access)];
        for (Block& b : live) {
          const auto xi = static_cast<std::size_t>(b.slot);
          if (b.end != ki || b.size != size || s.slots[xi].dtype != s.slots[oi].dtype) continue;
          // Every read of the buffer counts, through a view of it too (a transpose): until
          // 2026-12-07 a view's read was not seen, so `x - x.T` of a dying intermediate x was
          // written over x while its transposed elements were still to be read (wrong values).
          int reads = 0;
          bool same_index = true;
          for (std::size_t a = 0; a < ks.accesses.size(); ++a) {
            const Access& acc = ks.accesses[a];
            if (acc.slot < 0 || root(acc.slot) != b.slot) continue;
            ++reads;
            same_index = same_index && acc.slot == b.slot && !acc.indirect && acc.offset == sa.offset &&
                         acc.strides == sa.strides;
          }
          if (reads != 1 || !same_index) continue;
          m.in_place.emplace_back(o, b.slot);
          m.offset[oi] = b.off;
          b.slot = o;
          b.end = last[oi];
          break;
        }
        if (m.offset[oi] >= 0) continue;
      }
      // First fit between the live blocks.
      int64_t at = 0;
      for (const Block& b : live) {
        if (b.off - at >= size) break;
        at = std::max(at, b.off + b.size);
      }
      m.offset[oi] = at;
      live.push_back({at, size, o, last[oi]});
      std::sort(live.begin(), live.end(), [](const Block& x, const Block& y) { return x.off < y.off; });
      m.arena_bytes = std::max(m.arena_bytes, at + size);
    }
  }
  for (std::size_t v = 0; v < ns; ++v)  // a view of an arena slot reads it where it is
    if (s.slots[v].kind == Slot::Kind::View && root(static_cast<int>(v)) >= 0)
      m.view_of_arena[v] =
          m.offset[static_cast<std::size_t>(root(static_cast<int>(v)))] >= 0 ? root(static_cast<int>(v)) : -1;
  if (nk > 0) plan_reuse(s, m, escapes, last);
  return m;
}

std::string describe(const MemoryPlan& m, const Schedule& s) {
  std::ostringstream os;
  os << "  memory: arena " << m.arena_bytes << " bytes for " << m.intermediate_bytes
     << " bytes of intermediates\n";
  for (std::size_t i = 0; i < m.offset.size(); ++i)
    if (m.offset[i] >= 0 && m.view_of_arena[i] < 0)
      os << "    slot " << i << " " << dtype_name(s.slots[i].dtype) << shape_str(s.slots[i].shape) << " at +"
         << m.offset[i] << "\n";
  for (auto& [o, x] : m.in_place)
    os << "    slot " << o << " written in place over slot " << x << " (it dies there)\n";
  for (auto& [o, x] : m.reuse)
    os << "    slot " << o << " written over leaf slot " << x << " when nothing outside the graph holds it\n";
  return os.str();
}

}  // namespace cgrad::schedule
