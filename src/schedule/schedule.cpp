// The fusing scheduler (see schedule.h for the states and docs/fusion.md for the rules).
//
// Invariants of the result: every Mat node is the store of exactly one kernel; kernels are in
// an order where each reads only slots written by earlier kernels or leaves; a Fused node never
// holds a reduction that runs once per element of its consumer (such a reduction is either an
// inner reduction of the kernel, run once per outer element, or Mat).
#include "schedule/schedule.h"

#include "ir/op_table.h"
#include "ir/view.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace cgrad::schedule {

using ir::Node;
using ir::Op;
using ir::OpKind;

namespace {

constexpr int kMaxFusedDepth = 128;   // longer fused chains are cut (compile time, stack depth)
constexpr int kRecomputeCost = 8;     // a shared value cheaper than this is recomputed per kernel
constexpr int kMaxStages = 3;         // staged row reductions per kernel (Options::staged_reductions)
constexpr int64_t kMinStagedRows = 8; // fewer rows: keep rule 6 (a lone long row splits across threads)
constexpr int64_t kMaxCatParts = 8;   // a cat of at most this many equal parts fuses (rule 7)

enum class State : uint8_t { Fused, Mat, View, Const };

// One dim of an index map: node index along the dim = coeff * loop[l] + off (l < 0: just off).
struct Dim {
  int l;
  int64_t coeff;
  int64_t off;
  auto operator<=>(const Dim&) const = default;
};
using Map = std::vector<Dim>;

Shape squeeze(const Shape& s) {
  Shape r;
  for (int64_t d : s)
    if (d != 1) r.push_back(d);
  return r;
}

bool is_unit_reshape(const Node& n) { return squeeze(n.shape) == squeeze(n.inputs[0]->shape); }

// The length every input of a cat is a multiple of along its axis (the gcd of the lengths).
int64_t cat_part(const Node& n) {
  int64_t g = 0;
  for (auto& in : n.inputs) g = std::gcd(g, in->shape[static_cast<std::size_t>(n.attrs.axis)]);
  return g;
}

// A cat that fuses: its axis splits into at most kMaxCatParts equal parts, each inside one
// input, so a kernel that reads it within one part (a slice of it) or stores it one part at a
// time (Mode::unroll) reads each part from its input directly and never copies it.
bool fusable_cat(const Node& n) {
  if (n.op != Op::Cat || core::numel(n.shape) == 0) return false;
  return n.shape[static_cast<std::size_t>(n.attrs.axis)] / cat_part(n) <= kMaxCatParts;
}

int op_cost(Op op) {
  switch (op) {
    case Op::Exp: case Op::Log: case Op::Sin: case Op::Cos: case Op::Tanh: case Op::Sigmoid: case Op::Pow:
    case Op::Rand: case Op::Randn: return 4;
    default: return 1;
  }
}

// A detached copy of a node for library kernels: inputs become placeholders with their shape.
std::shared_ptr<Node> proto_of(const Node& n) {
  auto p = std::make_shared<Node>();
  p->op = n.op;
  p->dtype = n.dtype;
  p->device = n.device;
  p->shape = n.shape;
  p->attrs = n.attrs;
  for (auto& in : n.inputs) {
    auto ph = std::make_shared<Node>();
    ph->dtype = in->dtype;
    ph->device = in->device;
    ph->shape = in->shape;
    p->inputs.push_back(std::move(ph));
  }
  return p;
}

// How a group of roots iterates: plain element-wise, a reduction per outer element (P1), or a
// reduction per row broadcast back over the row (P2).
struct Mode {
  enum Kind { Elementwise, PerOuter, BroadcastBack } kind = Elementwise;
  Shape outer, inner;
  std::vector<int64_t> axes;      // BroadcastBack: root dims that form the inner loop
  int unroll = -1;                // Elementwise: a root dim (a fused cat's axis) stored one part at a time ...
  int64_t parts = 1;              // ... in this many equal parts (the loop runs over one part)
  bool operator==(const Mode&) const = default;
};

struct Builder {
  const ir::Subgraph& g;
  Options opt;
  std::unordered_map<const Node*, int> pos;
  std::vector<State> state;
  std::vector<std::string> why;
  Schedule out;
  std::unordered_map<const Node*, int> slot_of;
  std::unordered_set<const Node*> library_cats;  ///< fusable cats that must run as a library copy after all

  Builder(const ir::Subgraph& sg, const Options& o) : g(sg), opt(o) {
    for (std::size_t i = 0; i < g.order.size(); ++i) pos[g.order[i]] = static_cast<int>(i);
  }

  int index(const Node* n) const {
    auto it = pos.find(n);
    return it == pos.end() ? -1 : it->second;
  }
  bool fused(const Node* n) const {
    int i = index(n);
    return i >= 0 && state[static_cast<std::size_t>(i)] == State::Fused;
  }
  // GEMM, and a cat that cannot fuse: a library routine over whole buffers (rule 7).
  bool library(const Node* n) const {
    OpKind k = ir::info(n->op).kind;
    return k == OpKind::Gemm || (k == OpKind::Concat && (!fusable_cat(*n) || library_cats.count(n)));
  }
  void library_operands(const Node* n) {
    for (auto& in : n->inputs)
      set(in.get(), ir::info(in->op).kind == OpKind::Movement ? State::View : State::Mat,
          "rule 7 (library-operand): operand of GEMM/cat must be in memory");
  }

  void set(const Node* n, State s, const std::string& reason) {
    int i = index(n);
    if (i < 0 || state[static_cast<std::size_t>(i)] == s) return;
    if (state[static_cast<std::size_t>(i)] == State::Const) return;  // already in memory
    state[static_cast<std::size_t>(i)] = s;
    why[static_cast<std::size_t>(i)] = reason;
  }

  // ---- states ----
  void initial_states() {
    const std::size_t n = g.order.size();
    state.assign(n, State::Fused);
    why.assign(n, "rule 2 (fuse): fused into its consumer");
    std::vector<int> depth(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      const Node* nd = g.order[i];
      OpKind k = ir::info(nd->op).kind;
      if (g.is_output[i]) {
        if (nd->op == Op::Full) set(nd, State::Const, "rule 1 (output): requested constant: one element with zero strides");
        else set(nd, k == OpKind::Movement ? State::View : State::Mat, "rule 1 (output): requested output");
      }
      if (library(nd)) {
        set(nd, State::Mat, "rule 7 (library-op): GEMM, and cat of more than " + std::to_string(kMaxCatParts) +
                                " equal parts, run as a library routine over whole buffers");
        library_operands(nd);
      }
      if (nd->op == Op::Reshape && !is_unit_reshape(*nd) && state[i] == State::Fused)
        set(nd, State::View, "rule 3 (unfoldable-reshape): reshape that index math cannot fold: a view of its materialized input");
      // Cut very long fused chains.
      int d = 0;
      for (auto& in : nd->inputs)
        if (fused(in.get())) d = std::max(d, depth[static_cast<std::size_t>(index(in.get()))]);
      depth[i] = d + 1;
      if (depth[i] > kMaxFusedDepth && state[i] == State::Fused && k != OpKind::Movement) {
        set(nd, State::Mat, "rule 9 (max-depth): fused chain longer than " + std::to_string(kMaxFusedDepth) + " ops is cut");
        depth[i] = 0;
      }
    }
    propagate_views();
  }

  // A View reads its input's memory: that input cannot stay Fused.
  void propagate_views() {
    for (std::size_t i = g.order.size(); i-- > 0;) {
      if (state[i] != State::View) continue;
      for (auto& in : g.order[i]->inputs)
        if (fused(in.get()))
          set(in.get(), ir::info(in->op).kind == OpKind::Movement ? State::View : State::Mat,
              "rule 3 (view-input): input of a view must be in memory");
    }
  }

  // ---- reductions reachable from a root through Fused nodes (not looking inside them) ----
  void reductions_below(const Node* root, std::vector<const Node*>& found) {
    std::vector<const Node*> stack{root};
    std::unordered_map<const Node*, bool> seen;
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      for (auto& in : n->inputs) {
        const Node* c = in.get();
        if (!fused(c) || seen[c]) continue;
        seen[c] = true;
        if (ir::info(c->op).kind == OpKind::Reduce) found.push_back(c);
        else stack.push_back(c);
      }
    }
    std::sort(found.begin(), found.end(), [&](const Node* a, const Node* b) { return index(a) < index(b); });
  }

  static Shape reduced_sizes(const Node& r) {
    Shape s;
    for (int64_t a : r.attrs.axes) s.push_back(r.inputs[0]->shape[static_cast<std::size_t>(a)]);
    return s;
  }

  // Picks the mode of a root; reductions that fit no mode become Mat. Returns false when a
  // state changed (the caller restarts).
  bool mode_of(const Node* root, Mode& m) {
    std::vector<const Node*> reds;
    bool changed = false;
    if (ir::info(root->op).kind == OpKind::Reduce) {
      m.kind = Mode::PerOuter;
      m.outer = root->shape;
      m.inner = reduced_sizes(*root);
      return stage_or_mat(root, 1);
    }
    m.kind = Mode::Elementwise;
    m.outer = root->shape;
    reductions_below(root, reds);
    bool have = false;
    for (const Node* r : reds) {
      Mode cand;
      if (core::numel(r->shape) == core::numel(root->shape)) {
        cand.kind = Mode::PerOuter;
        cand.outer = root->shape;
        cand.inner = reduced_sizes(*r);
      } else if (r->inputs[0]->shape == root->shape) {
        cand.kind = Mode::BroadcastBack;
        cand.axes = r->attrs.axes;
        for (std::size_t d = 0; d < root->shape.size(); ++d) {
          bool ax = std::find(cand.axes.begin(), cand.axes.end(), static_cast<int64_t>(d)) != cand.axes.end();
          (ax ? cand.inner : cand.outer).push_back(root->shape[d]);
        }
      } else {
        set(r, State::Mat, "rule 6 (reduction-reshaped): reduction whose result is read at another shape");
        changed = true;
        continue;
      }
      if (!have) {
        m = cand;
        have = true;
      } else if (!(cand == m)) {
        set(r, State::Mat, "rule 6 (loop-structure): second reduction with another loop structure in the same kernel");
        changed = true;
      }
    }
    // Reductions nested inside the chosen ones are Mat, or staged in the same row kernel.
    for (const Node* r : reds)
      if (fused(r) && m.kind != Mode::Elementwise && !stage_or_mat(r, 1)) changed = true;
    if (m.kind == Mode::Elementwise) unroll_dim(root, m);
    return !changed;
  }

  // Reductions inside `r`'s input (`depth` stages so far): staged in r's row kernel when the
  // backend allows it and they reduce the same rows the same way, else Mat (rule 6).
  // Returns false when a state changed.
  bool stage_or_mat(const Node* r, int depth) {
    std::vector<const Node*> nested;
    reductions_below(r, nested);
    bool changed = false;
    for (const Node* x : nested) {
      const bool same_rows = x->attrs.axes == r->attrs.axes && x->inputs[0]->shape == r->inputs[0]->shape &&
                             core::numel(x->shape) >= kMinStagedRows;
      if (opt.staged_reductions && same_rows && depth < kMaxStages) {
        if (!stage_or_mat(x, depth + 1)) changed = true;
      } else {
        set(x, State::Mat, "rule 6 (nested-reduction): reduction inside another reduction's input");
        changed = true;
      }
    }
    return !changed;
  }

  // The fusable cats that the root reaches through same-shaped element-wise ops (the root
  // itself, or `s + h * cat(...)`): the kernel stores the root one part of the first one's
  // axis at a time, the parts as long as every such cat's inputs allow, so each store reads
  // each cat inside one input.
  void unroll_dim(const Node* root, Mode& m) const {
    std::vector<const Node*> stack{root};
    std::unordered_set<const Node*> seen{root};
    int axis = -1;
    int64_t part = 0, first = 0;
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (fusable_cat(*n) && !library_cats.count(n)) {
        if (axis < 0) axis = static_cast<int>(n->attrs.axis), first = cat_part(*n);
        if (axis == static_cast<int>(n->attrs.axis)) part = std::gcd(part, cat_part(*n));
        continue;
      }
      if (!ir::is_elementwise(ir::info(n->op).kind)) continue;
      for (auto& in : n->inputs)
        if (fused(in.get()) && in->shape == root->shape && seen.insert(in.get()).second) stack.push_back(in.get());
    }
    if (axis < 0) return;
    const int64_t len = root->shape[static_cast<std::size_t>(axis)];
    if (len / part > kMaxCatParts) part = first;  // the others read across parts: they become Mat
    m.unroll = axis;
    m.parts = len / part;
    m.outer[static_cast<std::size_t>(axis)] = part;
  }

  // ---- slots ----
  int slot(const Node* n) {
    auto it = slot_of.find(n);
    if (it != slot_of.end()) return it->second;
    Slot s;
    s.node = n;
    s.shape = n->shape;
    s.dtype = n->dtype;
    int i = index(n);
    if (i < 0) {
      s.kind = Slot::Kind::Leaf;
      s.leaf = static_cast<int>(out.leaves.size());
      out.leaves.push_back(n);
      s.layout.offset = n->value.offset;
      s.layout.strides = n->value.strides;
    } else if (state[static_cast<std::size_t>(i)] == State::Mat) {
      s.kind = Slot::Kind::Temp;
      s.layout.strides = core::contiguous_strides(n->shape);
    } else if (state[static_cast<std::size_t>(i)] == State::Const) {
      s.kind = Slot::Kind::Const;
      s.layout.strides.assign(n->shape.size(), 0);
      s.proto = proto_of(*n);
    } else {
      s.kind = Slot::Kind::View;
      const Node* in = n->inputs[0].get();
      s.base = slot(in);
      if (!ir::movement_view(*n, in->shape, out.slots[static_cast<std::size_t>(s.base)].layout, s.layout)) {
        // Only a reshape of a strided layout gets here: copy its input contiguous (one kernel),
        // then view the copy.
        Slot copy;
        copy.kind = Slot::Kind::Temp;
        copy.node = in;
        copy.shape = in->shape;
        copy.dtype = in->dtype;
        copy.layout.strides = core::contiguous_strides(in->shape);
        out.slots.push_back(std::move(copy));
        KernelSpec ks;
        ks.kind = KernelSpec::Kind::Copy;
        ks.in_slots = {s.base};
        ks.out_slot = static_cast<int>(out.slots.size()) - 1;
        ks.why = std::string("rule 3 (strided-reshape-copy): contiguous copy of ") + ir::op_name(in->op) + "#" + std::to_string(index(in)) +
                 ": a reshape of its strided layout has no strides";
        out.kernels.push_back(std::move(ks));
        s.base = static_cast<int>(out.slots.size()) - 1;
        ir::movement_view(*n, in->shape, out.slots[static_cast<std::size_t>(s.base)].layout, s.layout);
      }
    }
    out.slots.push_back(std::move(s));
    int id = static_cast<int>(out.slots.size()) - 1;
    slot_of[n] = id;
    return id;
  }

  // ---- lowering one kernel ----
  struct Lowering {
    Builder& b;
    KernelSpec k;
    Mode mode;
    std::map<std::pair<const Node*, Map>, int> memo;
    std::vector<const Node*> members;
    bool failed = false;
    std::unordered_set<const Node*> group_roots;  ///< stored by this kernel, read from registers

    int rank() const { return static_cast<int>(mode.outer.size() + mode.inner.size()); }
    int64_t loop_size(int l) const {
      auto u = static_cast<std::size_t>(l);
      return u < mode.outer.size() ? mode.outer[u] : mode.inner[u - mode.outer.size()];
    }

    int access(int slot_id, const Node* n, const Map& m) {
      const Slot& sl = b.out.slots[static_cast<std::size_t>(slot_id)];
      Access a;
      a.slot = slot_id;
      a.dtype = n->dtype;
      a.strides.assign(static_cast<std::size_t>(rank()), 0);
      a.offset = sl.layout.offset;
      for (std::size_t d = 0; d < m.size(); ++d) {
        a.offset += sl.layout.strides[d] * m[d].off;
        if (m[d].l >= 0) a.strides[static_cast<std::size_t>(m[d].l)] += sl.layout.strides[d] * m[d].coeff;
      }
      k.accesses.push_back(std::move(a));
      return static_cast<int>(k.accesses.size()) - 1;
    }

    int index_access(const Node* n, const Map& m) {
      Access a;
      a.slot = -1;
      a.dtype = DType::i64;
      a.strides.assign(static_cast<std::size_t>(rank()), 0);
      core::Strides st = core::contiguous_strides(n->shape);
      for (std::size_t d = 0; d < m.size(); ++d) {
        a.offset += st[d] * m[d].off;
        if (m[d].l >= 0) a.strides[static_cast<std::size_t>(m[d].l)] += st[d] * m[d].coeff;
      }
      k.accesses.push_back(std::move(a));
      return static_cast<int>(k.accesses.size()) - 1;
    }

    int emit(Instr in) {
      k.code.push_back(std::move(in));
      return static_cast<int>(k.code.size()) - 1;
    }

    int value(const Node* n, const Map& m) {
      if (b.fused(n) || group_roots.count(n)) return compute(n, m);  // group roots: in registers
      auto key = std::make_pair(n, m);
      if (auto it = memo.find(key); it != memo.end()) return it->second;
      Instr in;
      in.kind = Instr::Kind::Load;
      in.dtype = n->dtype;
      in.access = access(b.slot(n), n, m);
      return memo[key] = emit(std::move(in));
    }

    static Map through_movement(const Node& n, const Map& m) {
      const Shape& is = n.inputs[0]->shape;
      Map r(is.size(), Dim{-1, 0, 0});
      switch (n.op) {
        case Op::Permute:
          for (std::size_t i = 0; i < n.attrs.axes.size(); ++i) r[static_cast<std::size_t>(n.attrs.axes[i])] = m[i];
          break;
        case Op::Expand:
          for (std::size_t d = 0; d < is.size(); ++d) r[d] = (is[d] == 1 && n.shape[d] != 1) ? Dim{-1, 0, 0} : m[d];
          break;
        case Op::Slice: {
          r = m;
          auto ax = static_cast<std::size_t>(n.attrs.axis);
          r[ax].coeff *= n.attrs.step;
          r[ax].off = r[ax].off * n.attrs.step + n.attrs.start;
          break;
        }
        case Op::Flip:  // input index = len - 1 - output index
          r = m;
          for (int64_t a : n.attrs.axes) {
            const auto ax = static_cast<std::size_t>(a);
            r[ax] = Dim{m[ax].l, -m[ax].coeff, is[ax] - 1 - m[ax].off};
          }
          break;
        case Op::Reshape: {  // unit-dim reshape only: match the non-unit dims in order
          std::size_t j = 0;
          for (std::size_t d = 0; d < is.size(); ++d) {
            if (is[d] == 1) continue;
            while (n.shape[j] == 1) ++j;
            r[d] = m[j++];
          }
          break;
        }
        default: break;
      }
      return r;
    }

    int compute(const Node* n, const Map& m) {
      auto key = std::make_pair(n, m);
      if (auto it = memo.find(key); it != memo.end()) return it->second;
      members.push_back(n);
      const ir::OpInfo& row = ir::info(n->op);
      int result = -1;
      switch (row.kind) {
        case OpKind::Source: {
          Instr in;
          in.dtype = n->dtype;
          if (n->op == Op::Full) {
            in.kind = Instr::Kind::Const;
            in.fvalue = n->attrs.fvalue;
            in.ivalue = n->attrs.ivalue;
          } else {
            Instr idx;
            idx.kind = Instr::Kind::Index;
            idx.dtype = DType::i64;
            idx.access = index_access(n, m);
            in.args = {emit(std::move(idx))};
            in.kind = Instr::Kind::Op;
            in.op = n->op;
            in.seed = n->attrs.seed;
          }
          result = emit(std::move(in));
          break;
        }
        case OpKind::Unary:
        case OpKind::Binary:
        case OpKind::Ternary: {
          Instr in;
          in.kind = Instr::Kind::Op;
          in.op = n->op;
          in.dtype = n->dtype;
          in.in_dtype = n->inputs[n->op == Op::Where ? 1 : 0]->dtype;
          for (auto& x : n->inputs) in.args.push_back(value(x.get(), m));
          result = emit(std::move(in));
          break;
        }
        case OpKind::Movement: result = value(n->inputs[0].get(), through_movement(*n, m)); break;
        case OpKind::Reduce: result = reduce(n, m); break;
        case OpKind::Concat: result = cat(n, m); break;
        default:
          failed = true;
          return 0;
      }
      return memo[key] = result;
    }

    // A fused cat read within one input along its axis: that input, shifted.
    int cat(const Node* n, const Map& m) {
      const auto ax = static_cast<std::size_t>(n->attrs.axis);
      int64_t lo = m[ax].off, hi = m[ax].off;  // the indices of the axis this kernel reads
      if (m[ax].l >= 0) (m[ax].coeff < 0 ? lo : hi) += (loop_size(m[ax].l) - 1) * m[ax].coeff;
      int64_t start = 0;
      for (auto& in : n->inputs) {
        const int64_t len = in->shape[ax];
        if (lo < start + len) {
          if (hi >= start + len) break;
          Map r = m;
          r[ax].off -= start;
          return value(in.get(), r);
        }
        start += len;
      }
      b.set(n, State::Mat, "rule 7 (cat-across-inputs): cat read across its inputs along a loop dim: its own kernel stores it one part at a time");
      failed = true;
      return 0;
    }

    // An inner reduction: valid only when `n` is read at its own outer index (once per outer element).
    int reduce(const Node* r, const Map& m) {
      const Node& in = *r->inputs[0];
      const std::size_t ro = mode.outer.size();
      std::vector<int64_t> axes = r->attrs.axes;
      Shape red = reduced_sizes(*r);
      bool ok = mode.kind != Mode::Elementwise && red == mode.inner;
      std::vector<char> used(ro, 0);
      int64_t covered = 1;
      for (std::size_t d = 0; ok && d < r->shape.size(); ++d) {
        bool ax = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
        if (ax || r->shape[d] == 1) {
          // a size-1 dim is read at index 0: a constant, or a loop dim of size 1
          ok = m[d].off == 0 && (m[d].l < 0 || loop_size(m[d].l) == 1);
          continue;
        }
        ok = m[d].l >= 0 && static_cast<std::size_t>(m[d].l) < ro && m[d].coeff == 1 && m[d].off == 0 &&
             !used[static_cast<std::size_t>(m[d].l)];
        if (ok) {
          used[static_cast<std::size_t>(m[d].l)] = 1;
          covered *= r->shape[d];
        }
      }
      ok = ok && covered == core::numel(mode.outer);
      if (!ok) {
        b.set(r, State::Mat, "rule 6 (reduction-reindexed): reduction read at another index than its own (would run per element)");
        failed = true;
        return 0;
      }
      Map mi(in.shape.size());
      std::size_t next = 0;
      for (std::size_t d = 0; d < in.shape.size(); ++d) {
        bool ax = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
        mi[d] = ax ? Dim{static_cast<int>(ro + next++), 1, 0} : m[d];
      }
      Reduction red_spec;
      red_spec.op = r->op;
      red_spec.dtype = r->dtype;
      red_spec.in_dtype = in.dtype;
      red_spec.value = value(&in, mi);
      if (failed) return 0;
      k.reductions.push_back(red_spec);
      Instr acc;
      acc.kind = Instr::Kind::Acc;
      acc.dtype = r->dtype;
      acc.reduction = static_cast<int>(k.reductions.size()) - 1;
      return emit(std::move(acc));
    }
  };

  Map root_map(const Node* root, const Mode& m) const {
    Map r(root->shape.size());
    if (m.kind != Mode::BroadcastBack) {
      for (std::size_t d = 0; d < r.size(); ++d) r[d] = Dim{static_cast<int>(d), 1, 0};
      if (ir::info(root->op).kind == OpKind::Reduce) {  // a reduction root stores at its own index
        for (int64_t a : root->attrs.axes) r[static_cast<std::size_t>(a)] = Dim{-1, 0, 0};
      }
      return r;
    }
    int o = 0, in = static_cast<int>(m.outer.size());
    for (std::size_t d = 0; d < r.size(); ++d) {
      bool ax = std::find(m.axes.begin(), m.axes.end(), static_cast<int64_t>(d)) != m.axes.end();
      r[d] = Dim{ax ? in++ : o++, 1, 0};
    }
    return r;
  }

  // Lowers a group of roots sharing one mode into one kernel; false when states changed.
  bool lower(const std::vector<const Node*>& roots, const Mode& mode, std::vector<std::vector<const Node*>>& members) {
    Lowering lw{*this, {}, mode, {}, {}, false, {roots.begin(), roots.end()}};
    lw.k.outer = mode.outer;
    lw.k.inner = mode.inner;
    for (const Node* root : roots) {
      Map m = root_map(root, mode);
      int v;
      if (ir::info(root->op).kind == OpKind::Reduce) {
        // the root itself is the reduction: its value is the accumulator
        Map self(root->shape.size());
        for (std::size_t d = 0; d < self.size(); ++d) self[d] = m[d].l >= 0 ? m[d] : Dim{-1, 0, 0};
        v = lw.reduce(root, self);
        lw.members.push_back(root);
      } else if (mode.unroll >= 0) {
        // one store per part of the unrolled dim, each computing the root there
        const auto u = static_cast<std::size_t>(mode.unroll);
        const int64_t part = root->shape[u] / mode.parts;
        for (int64_t c = 0; c < mode.parts && !lw.failed; ++c) {
          Map mc = m;
          mc[u].off = c * part;
          Store st;
          st.value = lw.compute(root, mc);
          if (lw.failed) break;
          st.access = lw.access(slot(root), root, mc);
          lw.k.stores.push_back(st);
        }
        if (lw.failed) return false;
        continue;
      } else {
        // compute the root's own op (it is Mat, so value() would load it)
        v = lw.compute(root, m);
      }
      if (lw.failed) return false;
      Store st;
      st.value = v;
      st.inner = mode.kind == Mode::BroadcastBack;
      Map sm = m;
      st.access = lw.access(slot(root), root, sm);
      lw.k.stores.push_back(st);
    }
    std::string names;
    for (const Node* r : roots) {
      names += names.empty() ? "" : ", ";
      names += std::string(ir::op_name(r->op)) + "#" + std::to_string(index(r));
    }
    lw.k.why = "kernel for " + names + ": " + why[static_cast<std::size_t>(index(roots[0]))];
    out.kernels.push_back(std::move(lw.k));
    members.push_back(std::move(lw.members));
    return true;
  }

  // Fused nodes computed in several kernels: recompute when cheap, else materialize.
  bool check_recompute(const std::vector<std::vector<const Node*>>& members) {
    std::unordered_map<const Node*, int> count;
    for (auto& ms : members) {
      std::vector<const Node*> uniq(ms);
      std::sort(uniq.begin(), uniq.end(), [&](const Node* a, const Node* b) { return index(a) < index(b); });
      uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
      for (const Node* n : uniq) ++count[n];
    }
    bool changed = false;
    for (std::size_t i = 0; i < g.order.size(); ++i) {
      const Node* n = g.order[i];
      auto it = count.find(n);
      if (it == count.end() || it->second < 2 || !fused(n)) continue;
      // cost of the fused subtree under n
      int cost = 0;
      bool has_reduce = false;
      std::vector<const Node*> stack{n};
      std::unordered_map<const Node*, bool> seen{{n, true}};
      while (!stack.empty() && cost <= kRecomputeCost) {
        const Node* x = stack.back();
        stack.pop_back();
        OpKind k = ir::info(x->op).kind;
        if (k == OpKind::Reduce) has_reduce = true;
        if (k != OpKind::Movement) cost += op_cost(x->op);
        for (auto& in : x->inputs)
          if (fused(in.get()) && !seen[in.get()]) {
            seen[in.get()] = true;
            stack.push_back(in.get());
          }
      }
      if (has_reduce || cost > kRecomputeCost) {
        set(n, State::Mat, has_reduce ? "rule 8 (shared-reduction): shared value holding a reduction: computed once"
                                      : "rule 8 (shared-costly): shared value costing more than " + std::to_string(kRecomputeCost) +
                                            " ops: computed once rather than per consumer kernel");
        changed = true;
      }
    }
    return !changed;
  }

  // An output that only element-wise ops of one kernel group read (an optimizer's new moment,
  // read by its new parameter) joins that group: the kernel stores it and keeps using the value
  // in registers, instead of a kernel of its own whose result is loaded again.
  void join_consumed_outputs(const std::vector<Mode>& modes, std::vector<int>& group_of,
                             std::vector<std::vector<int>>& groups) {
    const std::size_t n = g.order.size();
    std::vector<std::vector<int>> users(n);
    for (std::size_t j = 0; j < n; ++j)
      for (int p : g.in_pos[j])
        if (p >= 0) users[static_cast<std::size_t>(p)].push_back(static_cast<int>(j));
    auto elementwise = [&](std::size_t j) { return ir::is_elementwise(ir::info(g.order[j]->op).kind); };
    for (std::size_t i = 0; i < n; ++i) {
      if (state[i] != State::Mat || !g.is_output[i] || g.uses[i] == 0 || modes[i].kind != Mode::Elementwise ||
          !elementwise(i) || group_of[i] < 0 || groups[static_cast<std::size_t>(group_of[i])].size() != 1)
        continue;
      int target = -1;
      bool ok = true;
      std::vector<int> stack = users[i];
      std::vector<char> seen(n, 0);
      while (ok && !stack.empty()) {
        auto j = static_cast<std::size_t>(stack.back());
        stack.pop_back();
        if (seen[j]) continue;
        seen[j] = 1;
        if (!elementwise(j)) ok = false;
        else if (state[j] == State::Mat) {
          ok = group_of[j] >= 0 && (target < 0 || target == group_of[j]);
          target = group_of[j];
        } else if (state[j] == State::Fused) {
          for (int u : users[j]) stack.push_back(u);
        } else {
          ok = false;
        }
      }
      if (!ok || target < 0) continue;
      auto& grp = groups[static_cast<std::size_t>(target)];
      if (!(modes[static_cast<std::size_t>(grp[0])] == modes[i])) continue;
      groups[static_cast<std::size_t>(group_of[i])].clear();
      grp.insert(grp.begin(), static_cast<int>(i));
      group_of[i] = target;
      why[i] = "requested output read only by the element-wise kernel it joins: stored from registers there";
    }
  }

  bool attempt() {
    out = Schedule{};
    slot_of.clear();
    const std::size_t n = g.order.size();
    // Modes of the loop roots.
    std::vector<Mode> modes(n);
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (state[i] != State::Mat || library(g.order[i])) continue;
      if (!mode_of(g.order[i], modes[i])) return false;
      // A Mat cat is a loop kernel only when it is stored one index of its axis at a time.
      const Node* nd = g.order[i];
      if (nd->op == Op::Cat && modes[i].unroll != static_cast<int>(nd->attrs.axis)) {
        library_cats.insert(nd);
        why[i] = "rule 7 (library-op): cat whose kernel cannot store it one part of its axis at a time: a library copy";
        const std::vector<State> before = state;
        library_operands(nd);
        changed |= state != before;
      }
    }
    if (changed) return false;
    // Horizontal fusion: outputs that nothing else reads, with the same loop structure,
    // share one kernel that runs at the position of the last of them.
    std::vector<int> group_of(n, -1);
    std::vector<std::vector<int>> groups;
    for (std::size_t i = 0; i < n; ++i) {
      if (state[i] != State::Mat || library(g.order[i])) continue;
      bool loose = g.is_output[i] && g.uses[i] == 0;
      int target = -1;
      if (loose)
        for (std::size_t gi = 0; gi < groups.size() && target < 0; ++gi) {
          auto first = static_cast<std::size_t>(groups[gi][0]);
          if (g.is_output[first] && g.uses[first] == 0 && modes[first] == modes[i]) target = static_cast<int>(gi);
        }
      if (target < 0) {
        groups.push_back({static_cast<int>(i)});
        target = static_cast<int>(groups.size()) - 1;
      } else {
        groups[static_cast<std::size_t>(target)].push_back(static_cast<int>(i));
        why[i] = "rule 10 (horizontal): requested output, launched together with the other outputs of its loop shape";
      }
      group_of[i] = target;
    }
    join_consumed_outputs(modes, group_of, groups);
    std::vector<std::vector<const Node*>> members;
    out.kernel_of.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
      if (state[i] != State::Mat) continue;
      const Node* nd = g.order[i];
      OpKind k = ir::info(nd->op).kind;
      if (library(nd)) {
        KernelSpec ks;
        ks.kind = k == OpKind::Gemm ? KernelSpec::Kind::Gemm : KernelSpec::Kind::Cat;
        ks.proto = proto_of(*nd);
        for (auto& in : nd->inputs) ks.in_slots.push_back(slot(in.get()));
        ks.out_slot = slot(nd);
        ks.why = std::string(ir::op_name(nd->op)) + "#" + std::to_string(i) + ": " + why[i];
        out.kernels.push_back(std::move(ks));
        members.push_back({nd});
        out.kernel_of[i] = static_cast<int>(out.kernels.size()) - 1;
        continue;
      }
      const auto& grp = groups[static_cast<std::size_t>(group_of[i])];
      if (grp.back() != static_cast<int>(i)) continue;  // the group runs at its last member
      std::vector<const Node*> roots;
      for (int r : grp) roots.push_back(g.order[static_cast<std::size_t>(r)]);
      if (!lower(roots, modes[i], members)) return false;
      for (const Node* m : members.back()) {
        int p = index(m);
        if (p >= 0 && out.kernel_of[static_cast<std::size_t>(p)] < 0)
          out.kernel_of[static_cast<std::size_t>(p)] = static_cast<int>(out.kernels.size()) - 1;
      }
      for (int r : grp) out.kernel_of[static_cast<std::size_t>(r)] = static_cast<int>(out.kernels.size()) - 1;
    }
    if (!check_recompute(members)) return false;
    for (std::size_t i = 0; i < n; ++i)
      if (g.is_output[i]) out.outputs.emplace_back(g.order[i], slot(g.order[i]));
    out.reasons = why;
    return true;
  }
};

// Merges adjacent loop dims that every access walks contiguously, and drops size-1 dims, so a
// contiguous element-wise kernel becomes one flat loop whatever the tensor's rank.
void collapse(KernelSpec& k) {
  auto run = [&](Shape& sizes, std::size_t first) {
    // work on dims [first, first + sizes.size()) of every access
    std::vector<int64_t> ns;
    std::vector<std::vector<int64_t>> nst(k.accesses.size());
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 1) continue;
      bool merge = !ns.empty();
      for (std::size_t a = 0; merge && a < k.accesses.size(); ++a)
        merge = nst[a].back() == k.accesses[a].strides[first + d] * sizes[d];
      if (merge) {
        ns.back() *= sizes[d];
        for (std::size_t a = 0; a < k.accesses.size(); ++a) nst[a].back() = k.accesses[a].strides[first + d];
      } else {
        ns.push_back(sizes[d]);
        for (std::size_t a = 0; a < k.accesses.size(); ++a) nst[a].push_back(k.accesses[a].strides[first + d]);
      }
    }
    return std::make_pair(ns, nst);
  };
  for (int64_t d : k.outer)
    if (d == 0) return;  // nothing runs
  auto [no, so] = run(k.outer, 0);
  auto [ni, si] = run(k.inner, k.outer.size());
  for (std::size_t a = 0; a < k.accesses.size(); ++a) {
    std::vector<int64_t> st = so[a];
    st.insert(st.end(), si[a].begin(), si[a].end());
    k.accesses[a].strides = std::move(st);
  }
  k.outer = std::move(no);
  k.inner = std::move(ni);
}

}  // namespace

Schedule make_schedule(const ir::Subgraph& g, const Options& options) {
  Builder b(g, options);
  b.initial_states();
  for (std::size_t tries = 0;; ++tries) {
    std::vector<State> before = b.state;
    if (b.attempt()) break;
    b.propagate_views();
    if (b.state == before || tries > g.order.size() + 8) {
      // No rule made progress: a scheduler bug. Stay correct: let the interpreter run it.
      Schedule s;
      s.interpret = true;
      s.reasons.assign(g.order.size(), "scheduler gave up: interpreted");
      s.kernel_of.assign(g.order.size(), -1);
      return s;
    }
  }
  for (auto& k : b.out.kernels)
    if (k.kind == KernelSpec::Kind::Loop) collapse(k);
  return std::move(b.out);
}

}  // namespace cgrad::schedule
