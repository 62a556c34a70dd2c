// Rule 7 of docs/fusion.md: library routines and cats.
//
// > 7. **GEMM is Mat and its operands are in memory** (Mat, or a View of memory).
// >    **A `cat` fuses when its axis splits into at most 8 equal parts that each lie inside one
// >    input.** [...] A cat read across its parts along a loop dim (through a transpose, say) is
// >    computed by its own kernel, stored part by part; a cat of more than 8 parts is a library
// >    copy of its operands, which are then in memory.
//
// A fused cat is read in one of two ways: within one part (KernelLowering::cat: that input,
// shifted), or by a kernel that stores its root one part at a time (unroll_dim). A Mat cat that
// no kernel can store part by part becomes a library copy (demote_unstorable_cat).
#include "schedule/builder.h"

#include "ir/op_table.h"

#include <numeric>
#include <string>

namespace cgrad::schedule::detail {

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

// GEMM, a collective, a sort (each output row reads its whole input row, in any order), a
// scatter_add (each output element sums the values whose index names it, in index order) and a cat
// that cannot fuse: a library routine over whole buffers (rule 7).
bool Builder::library(const Node* n) const {
  OpKind k = ir::info(n->op).kind;
  return k == OpKind::Gemm || k == OpKind::Collective || k == OpKind::Sort || k == OpKind::Scatter ||
         (k == OpKind::Concat && (!fusable_cat(*n) || library_cats.count(n)));
}

void Builder::library_operands(const Node* n) {
  for (auto& in : n->inputs)
    set(in.get(), ir::info(in->op).kind == OpKind::Movement ? State::View : State::Mat,
        "rule 7 (library-operand): operand of GEMM/cat must be in memory");
}

// The fusable cats that the root reaches through same-shaped element-wise ops (the root
// itself, or `s + h * cat(...)`): the kernel stores the root one part of the first one's
// axis at a time, the parts as long as every such cat's inputs allow, so each store reads
// each cat inside one input.
void Builder::unroll_dim(const Node* root, Mode& m) const {
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
      if (fused(in.get()) && in->shape == root->shape && seen.insert(in.get()).second)
        stack.push_back(in.get());
  }
  if (axis < 0) return;
  const int64_t len = root->shape[static_cast<std::size_t>(axis)];
  if (len / part > kMaxCatParts) part = first;  // the others read across parts: they become Mat
  m.unroll = axis;
  m.parts = len / part;
  m.outer[static_cast<std::size_t>(axis)] = part;
}

// A Mat cat is a loop kernel only when it is stored one index of its axis at a time; otherwise
// it becomes a library copy and its operands go to memory. True when a state changed.
bool Builder::demote_unstorable_cat(std::size_t i, const Mode& m) {
  const Node* nd = g.order[i];
  if (nd->op != Op::Cat || m.unroll == static_cast<int>(nd->attrs.axis)) return false;
  library_cats.insert(nd);
  why[i] =
      "rule 7 (library-op): cat whose kernel cannot store it one part of its axis at a time: a library copy";
  const std::vector<State> before = state;
  library_operands(nd);
  return state != before;
}

// The kernel of a library node: the routine runs over whole buffers of its operands.
void Builder::library_kernel(std::size_t i, std::vector<std::vector<const Node*>>& members) {
  const Node* nd = g.order[i];
  const OpKind k = ir::info(nd->op).kind;
  KernelSpec ks;
  ks.kind = k == OpKind::Gemm         ? KernelSpec::Kind::Gemm
            : k == OpKind::Collective ? KernelSpec::Kind::Collective
            : k == OpKind::Sort       ? KernelSpec::Kind::Sort
            : k == OpKind::Scatter    ? KernelSpec::Kind::Scatter
                                      : KernelSpec::Kind::Cat;
  ks.proto = proto_of(*nd);
  for (auto& in : nd->inputs) ks.in_slots.push_back(slot(in.get()));
  ks.out_slot = slot(nd);
  ks.why = std::string(ir::op_name(nd->op)) + "#" + std::to_string(i) + ": " + why[i];
  out.kernels.push_back(std::move(ks));
  members.push_back({nd});
  out.kernel_of[i] = static_cast<int>(out.kernels.size()) - 1;
}

// A fused cat read within one input along its axis: that input, shifted.
int KernelLowering::cat(const Node* n, const Map& m) {
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
  return fail(
      b.set(
          n, State::Mat,
          "rule 7 (cat-across-inputs): cat read across its inputs along a loop dim: its own kernel stores it "
          "one part at a time"),
      "a cat read across its inputs");
}

}  // namespace cgrad::schedule::detail
