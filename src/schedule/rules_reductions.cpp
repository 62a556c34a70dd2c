// Rules 4, 5 and 6 of docs/fusion.md: which loop structure (Mode) a kernel runs, and where
// its reductions go.
//
// > 4. **A reduction fuses with its element-wise input** (the *prologue*) **and with element-wise
// >    consumers that read it at its own index** (the *epilogue*).
// > 5. **A reduction whose result is broadcast back over the reduced axes** (softmax, layer norm:
// >    `e / sum(e, 1)`) runs as a *row kernel*.
// > 6. **A reduction inside another reduction's input, or read at another index than its own, is
// >    Mat**, with one exception on the CPU: **staged row reductions.**
//
// mode_of picks the Mode of a kernel root from the first reduction it reaches (rules 4, 5);
// stage_or_mat and KernelLowering::reduce apply rule 6.
#include "schedule/builder.h"

#include "ir/op_table.h"

#include <algorithm>

namespace cgrad::schedule::detail {

Shape reduced_sizes(const Node& r) {
  Shape s;
  for (int64_t a : r.attrs.axes) s.push_back(r.inputs[0]->shape[static_cast<std::size_t>(a)]);
  return s;
}

namespace {

// Whether reduction `r`'s rows run along the last axis of its input (only size-1 dims after its
// last reduced axis): along memory in a row-major layout. Rows over leading axes (`sum(x, 0)`)
// run in the CPU's column mode, which takes one-stage kernels without inner stores (rules 5, 6
// "leading-axis").
bool along_last_axis(const Node& r) {
  const Shape& in = r.inputs[0]->shape;
  if (r.attrs.axes.empty()) return true;  // (a 0-d input: nothing is reduced)
  const int64_t last = *std::max_element(r.attrs.axes.begin(), r.attrs.axes.end());
  for (std::size_t d = static_cast<std::size_t>(last) + 1; d < in.size(); ++d)
    if (in[d] != 1) return false;
  return true;
}

}  // namespace

void Builder::reductions_below(const Node* root, std::vector<const Node*>& found) {
  std::vector<const Node*> stack{root};
  std::unordered_map<const Node*, bool> seen;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (auto& in : n->inputs) {
      const Node* c = in.get();
      if (!fused(c) || seen[c]) continue;
      seen[c] = true;
      if (ir::info(c->op).kind == OpKind::Reduce)
        found.push_back(c);
      else
        stack.push_back(c);
    }
  }
  std::sort(found.begin(), found.end(), [&](const Node* a, const Node* b) { return index(a) < index(b); });
}

// Picks the mode of a root; reductions that fit no mode become Mat. Returns false when a
// state changed (the caller restarts).
bool Builder::mode_of(const Node* root, Mode& m) {
  std::vector<const Node*> reds;
  bool changed = false;
  if (ir::info(root->op).kind == OpKind::Reduce) {
    m.kind = Mode::PerOuter;
    m.outer = root->shape;
    m.inner = reduced_sizes(*root);
    return stage_or_mat(root, 1);
  }
  if (ir::info(root->op).kind == OpKind::Scan) {
    // A scan root (scan group): its element-wise producers fuse into the row loop; reductions
    // among them are Mat (a row of the scan would otherwise nest a reduction per element).
    m.kind = Mode::Scan;
    m.axes = {root->attrs.axis};
    for (std::size_t d = 0; d < root->shape.size(); ++d)
      (static_cast<int64_t>(d) == root->attrs.axis ? m.inner : m.outer).push_back(root->shape[d]);
    reductions_below(root, reds);
    for (const Node* r : reds)
      changed |= set(r, State::Mat, "scan: a reduction inside a scan's input is materialized");
    return !changed;
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
      if (!along_last_axis(*r)) {  // a row kernel would walk each row one element per cache line
        changed |=
            set(r, State::Mat,
                "rule 5 (leading-axis): reduction over leading axes broadcast back: its own kernel, in "
                "column mode");
        continue;
      }
      cand.kind = Mode::BroadcastBack;
      cand.axes = r->attrs.axes;
      for (std::size_t d = 0; d < root->shape.size(); ++d) {
        bool ax = std::find(cand.axes.begin(), cand.axes.end(), static_cast<int64_t>(d)) != cand.axes.end();
        (ax ? cand.inner : cand.outer).push_back(root->shape[d]);
      }
    } else {
      changed |=
          set(r, State::Mat, "rule 6 (reduction-reshaped): reduction whose result is read at another shape");
      continue;
    }
    if (!have) {
      m = cand;
      have = true;
    } else if (!(cand == m)) {
      changed |=
          set(r, State::Mat,
              "rule 6 (loop-structure): second reduction with another loop structure in the same kernel");
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
bool Builder::stage_or_mat(const Node* r, int depth) {
  std::vector<const Node*> nested;
  reductions_below(r, nested);
  bool changed = false;
  for (const Node* x : nested) {
    const bool same_rows = x->attrs.axes == r->attrs.axes && x->inputs[0]->shape == r->inputs[0]->shape &&
                           core::numel(x->shape) >= kMinStagedRows;
    const bool leading = same_rows && !along_last_axis(*x);
    if (opt.staged_reductions && same_rows && !leading && depth < kMaxStages) {
      if (!stage_or_mat(x, depth + 1)) changed = true;
    } else if (leading) {
      changed |= set(x, State::Mat,
                     "rule 6 (leading-axis): reduction over leading axes inside another's input: its own "
                     "kernel, in column mode");
    } else {
      changed |= set(x, State::Mat, "rule 6 (nested-reduction): reduction inside another reduction's input");
    }
  }
  return !changed;
}

// An inner reduction: valid only when `n` is read at its own outer index (once per outer element).
int KernelLowering::reduce(const Node* r, const Map& m) {
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
  if (!ok)
    return fail(
        b.set(r, State::Mat,
              "rule 6 (reduction-reindexed): reduction read at another index than its own (would run per "
              "element)"),
        "a reduction read at another index");
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
  if (ir::info(r->op).reduce.acc == ir::RedAcc::Indexed) {
    // argmax group: each element's position, row-major over the reduced axes, is index math on
    // the inner loop dims (an Index access, as arange's), so it fuses and vectorizes like one
    Access pos;
    pos.dtype = DType::i64;
    pos.strides.assign(static_cast<std::size_t>(rank()), 0);
    int64_t step = 1;
    for (std::size_t q = red.size(); q-- > 0;) {
      pos.strides[ro + q] = step;
      step *= red[q];
    }
    k.accesses.push_back(std::move(pos));
    Instr idx;
    idx.kind = Instr::Kind::Index;
    idx.dtype = DType::i64;
    idx.access = static_cast<int>(k.accesses.size()) - 1;
    red_spec.index = emit(std::move(idx));
  }
  k.reductions.push_back(red_spec);
  Instr acc;
  acc.kind = Instr::Kind::Acc;
  acc.dtype = r->dtype;
  acc.reduction = static_cast<int>(k.reductions.size()) - 1;
  return emit(std::move(acc));
}

}  // namespace cgrad::schedule::detail
