// Lowering one kernel: a group of roots with one Mode becomes a KernelSpec (accesses, SSA
// instructions, reductions, stores), plus the slots (buffers) the kernels read and write.
//
// The rules decide the states; this file only follows them: a Fused node is computed in place
// (KernelLowering::compute), a Mat node, View or leaf is loaded through an access whose strides
// are the index map of the read (rule 2: broadcasts, transposes and slices are index math).
// Reductions and cats have their own rules (rules_reductions.cpp, rules_library.cpp). The one
// rule applied here is rule 3's copy: a view whose strides cannot be expressed over a strided
// layout reads a contiguous copy.
#include "schedule/builder.h"

#include "ir/op_table.h"
#include "ir/view.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>

namespace cgrad::schedule::detail {

int Builder::slot(const Node* n) {
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
      ks.why = std::string("rule 3 (strided-reshape-copy): contiguous copy of ") + ir::op_name(in->op) + "#" +
               std::to_string(index(in)) + ": a reshape of its strided layout has no strides";
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

int64_t KernelLowering::loop_size(int l) const {
  auto u = static_cast<std::size_t>(l);
  return u < mode.outer.size() ? mode.outer[u] : mode.inner[u - mode.outer.size()];
}

int KernelLowering::access(int slot_id, const Node* n, const Map& m) {
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

// A gather's element offset: the sum over dims with a computed position of position * stride
// (strides are kernel arguments, as constants: a new shape does not recompile); -1 when none.
int KernelLowering::indirect_offset(int slot_id, const Map& m) {
  const Slot& sl = b.out.slots[static_cast<std::size_t>(slot_id)];
  int total = -1;
  for (std::size_t d = 0; d < m.size(); ++d) {
    const int64_t stride = sl.layout.strides[d] * m[d].ind_coeff;
    if (m[d].ind < 0 || stride == 0) continue;
    Instr c;
    c.kind = Instr::Kind::Const;
    c.dtype = DType::i64;
    c.ivalue = stride;
    c.fvalue = static_cast<double>(stride);
    Instr mul;
    mul.op = Op::Mul;
    mul.dtype = mul.in_dtype = DType::i64;
    mul.args = {m[d].ind, emit(std::move(c))};
    int term = emit(std::move(mul));
    if (total >= 0) {
      Instr add;
      add.op = Op::Add;
      add.dtype = add.in_dtype = DType::i64;
      add.args = {total, term};
      term = emit(std::move(add));
    }
    total = term;
  }
  return total;
}

int KernelLowering::index_access(const Node* n, const Map& m) {
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

int KernelLowering::emit(Instr in) {
  k.code.push_back(std::move(in));
  return static_cast<int>(k.code.size()) - 1;
}

int KernelLowering::value(const Node* n, const Map& m) {
  if (b.fused(n) || group_roots.count(n)) return compute(n, m);  // group roots: in registers
  auto key = std::make_pair(n, m);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  Instr in;
  in.kind = Instr::Kind::Load;
  in.dtype = n->dtype;
  const int sl = b.slot(n);
  const int dyn = indirect_offset(sl, m);
  in.access = access(sl, n, m);
  if (dyn >= 0) {
    k.accesses[static_cast<std::size_t>(in.access)].indirect = true;
    in.args = {dyn};
  }
  return memo[key] = emit(std::move(in));
}

namespace {

// The index map of a movement op's input, given the map of the op. (An if-chain, not a switch
// over every op: -Wswitch-enum covers the switch on the op's kind in compute(); a movement op
// added to the table without a case here is an internal error on its first use.)
Map through_movement(const Node& n, const Map& m) {
  const Shape& is = n.inputs[0]->shape;
  Map r(is.size(), Dim{-1, 0, 0});
  if (n.op == Op::Permute) {
    for (std::size_t i = 0; i < n.attrs.axes.size(); ++i) r[static_cast<std::size_t>(n.attrs.axes[i])] = m[i];
  } else if (n.op == Op::Expand) {
    for (std::size_t d = 0; d < is.size(); ++d) r[d] = (is[d] == 1 && n.shape[d] != 1) ? Dim{-1, 0, 0} : m[d];
  } else if (n.op == Op::Slice) {
    r = m;
    auto ax = static_cast<std::size_t>(n.attrs.axis);
    r[ax].coeff *= n.attrs.step;
    r[ax].off = r[ax].off * n.attrs.step + n.attrs.start;
    r[ax].ind_coeff *= n.attrs.step;
  } else if (n.op == Op::Flip) {  // input index = len - 1 - output index
    r = m;
    for (int64_t a : n.attrs.axes) {
      const auto ax = static_cast<std::size_t>(a);
      r[ax] = Dim{m[ax].l, -m[ax].coeff, is[ax] - 1 - m[ax].off, m[ax].ind, -m[ax].ind_coeff};
    }
  } else if (n.op == Op::Reshape) {  // unit-dim reshape only: match the non-unit dims in order
    std::size_t j = 0;
    for (std::size_t d = 0; d < is.size(); ++d) {
      if (is[d] == 1) continue;
      while (n.shape[j] == 1) ++j;
      r[d] = m[j++];
    }
  } else {
    throw Error(ErrorCode::Internal,
                std::string("scheduler: no index map for movement op ") + ir::op_name(n.op));
  }
  return r;
}

}  // namespace

int KernelLowering::compute(const Node* n, const Map& m) {
  auto key = std::make_pair(n, m);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  const ir::OpInfo& row = ir::info(n->op);
  // Rule 11 (gather): a node read at a gathered position is computed there when it is
  // element-wise or a view; reductions, cats and indexed sources (arange, rand) are Mat.
  if ((row.kind == OpKind::Reduce || row.kind == OpKind::Concat ||
       (row.kind == OpKind::Source && n->op != Op::Full)) &&
      std::any_of(m.begin(), m.end(), [](const Dim& d) { return d.ind >= 0; }))
    return fail(b.set(n, State::Mat, "rule 11 (gather-source): read at gathered positions: materialized"),
                "a gather");
  members.push_back(n);
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
    case OpKind::Ternary:
    case OpKind::Map: {
      Instr in;
      in.kind = Instr::Kind::Op;
      in.op = n->op;
      in.dtype = n->dtype;
      in.in_dtype = n->inputs[n->op == Op::Where ? 1 : 0]->dtype;
      in.fn = n->attrs.fn;
      in.fn_out = static_cast<int>(n->attrs.axis);
      for (auto& x : n->inputs) in.args.push_back(value(x.get(), m));
      result = emit(std::move(in));
      break;
    }
    case OpKind::Movement: result = value(n->inputs[0].get(), through_movement(*n, m)); break;
    case OpKind::Reduce: result = reduce(n, m); break;
    case OpKind::Concat: result = cat(n, m); break;
    case OpKind::Gather: result = gather(n, m); break;
    case OpKind::Gemm:
    case OpKind::Collective:
    case OpKind::Sort:
    case OpKind::Scan:
    case OpKind::Scatter: return fail(false, "lowering a library op or scan inside a kernel");  // always Mat
  }
  return memo[key] = result;
}

// take (index group, issue #15): the indices are read at the output's index; x is read (or
// computed, when fused) at the wrapped position along the axis; an out-of-range position reads
// position 0 and the result is 0 there (scalar::take gives -1).
int KernelLowering::gather(const Node* n, const Map& m) {
  const Node* x = n->inputs[0].get();
  const auto ax = static_cast<std::size_t>(n->attrs.axis);
  auto konst = [&](DType t, int64_t v) {
    Instr c;
    c.kind = Instr::Kind::Const;
    c.dtype = t;
    c.ivalue = v;
    c.fvalue = static_cast<double>(v);
    return emit(std::move(c));
  };
  auto op = [&](Op o, DType t, DType in_t, std::vector<int> args) {
    Instr in;
    in.op = o;
    in.dtype = t;
    in.in_dtype = in_t;
    in.args = std::move(args);
    return emit(std::move(in));
  };
  const int idx = value(n->inputs[1].get(), m);
  if (failed) return 0;
  const int pos = op(Op::Take, DType::i64, DType::i64, {idx, konst(DType::i64, x->shape[ax])});
  const int zero = konst(DType::i64, 0);
  const int safe = op(Op::Maximum, DType::i64, DType::i64, {pos, zero});
  const int ok = op(Op::Ge, DType::b8, DType::i64, {pos, zero});
  Map mx = m;
  mx[ax] = Dim{-1, 0, 0, safe, 1};
  const int v = value(x, mx);
  if (failed) return 0;
  return op(Op::Where, n->dtype, n->dtype, {ok, v, konst(n->dtype, 0)});
}

int KernelLowering::fail(bool moved, const char* where) {
  if (!moved)
    throw Error(ErrorCode::Internal,
                std::string("scheduler: ") + where + " failed without changing a state (a bug)");
  failed = true;
  return 0;
}

Map Builder::root_map(const Node* root, const Mode& m) const {
  Map r(root->shape.size());
  if (m.kind != Mode::BroadcastBack && m.kind != Mode::Scan) {
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
bool Builder::lower(const std::vector<const Node*>& roots, const Mode& mode,
                    std::vector<std::vector<const Node*>>& members) {
  KernelLowering lw{*this, {}, mode, {}, {}, false, {roots.begin(), roots.end()}};
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
    } else if (ir::info(root->op).kind == OpKind::Scan) {
      // a scan (scan group): its input computed at each element of the row, folded into the
      // running accumulator (a Reduction of the kernel), which is stored at the same element
      const int in = lw.value(root->inputs[0].get(), m);
      if (lw.failed) return false;
      Reduction red;
      red.op = root->op;
      red.dtype = root->dtype;
      red.in_dtype = root->inputs[0]->dtype;
      red.value = in;
      lw.k.reductions.push_back(red);
      Instr acc;
      acc.kind = Instr::Kind::Acc;
      acc.dtype = root->dtype;
      acc.reduction = static_cast<int>(lw.k.reductions.size()) - 1;
      v = lw.emit(std::move(acc));
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
    st.inner = mode.kind == Mode::BroadcastBack || mode.kind == Mode::Scan;
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

// Orders a reduction kernel's reduced dims by how far its loads move along them, farthest
// first, so that the innermost loop walks memory in order (NumPy's iterator does the same). A
// full reduction of a transposed view walked it column by column: sum(x.T) of a 4096 x 4096 f32
// took 63 ms against sum(x)'s 3 (2026-12-07). Not where the order could change more than the
// rounding: a store inside the inner loop (softmax-like kernels, scans) or an indexed reduction
// (argmax: its row loop keeps the earlier index of a tie by order). Index accesses (arange,
// rand, argmax positions) move with their dims, so every element keeps its logical position.
void order_reduced(KernelSpec& k) {
  const std::size_t no = k.outer.size(), ni = k.inner.size();
  if (ni < 2) return;
  for (const Store& s : k.stores)
    if (s.inner) return;
  for (const Reduction& r : k.reductions)
    if (r.index >= 0) return;
  std::vector<int64_t> reach(ni, 0);  // per reduced dim: the loads' |stride|, summed
  for (const Instr& in : k.code) {
    if (in.kind != Instr::Kind::Load) continue;
    const Access& a = k.accesses[static_cast<std::size_t>(in.access)];
    for (std::size_t d = 0; d < ni; ++d) reach[d] += std::abs(a.strides[no + d]);
  }
  std::vector<std::size_t> order(ni);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return reach[a] > reach[b]; });
  if (std::is_sorted(order.begin(), order.end())) return;
  Shape inner(ni);
  for (std::size_t d = 0; d < ni; ++d) inner[d] = k.inner[order[d]];
  k.inner = std::move(inner);
  for (Access& a : k.accesses) {
    std::vector<int64_t> st(a.strides.begin(), a.strides.begin() + static_cast<std::ptrdiff_t>(no));
    for (std::size_t d = 0; d < ni; ++d) st.push_back(a.strides[no + order[d]]);
    a.strides = std::move(st);
  }
}

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
        for (std::size_t a = 0; a < k.accesses.size(); ++a)
          nst[a].push_back(k.accesses[a].strides[first + d]);
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

}  // namespace cgrad::schedule::detail
