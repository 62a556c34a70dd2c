// Rules 1, 2, 3 and 9 of docs/fusion.md: the states every node starts from.
//
// > 1. **Requested outputs are Mat** (or View when the output is itself a movement op: `x.T()` of
// >    an evaluated `x` launches nothing).
// > 2. **Element-wise ops, constants (`full`), `arange`, `rand`/`randn` and movement ops fuse into
// >    their consumer.**
// > 3. **A reshape that index math cannot fold** (one that regroups non-unit dims) is a View over
// >    its materialized input.
// > 9. **Fused chains are cut after 128 ops.**
//
// Rule 7's library ops (GEMM, collectives, cats of many parts) and their operands are also
// placed here, since they are known from the op alone.
#include "schedule/builder.h"

#include "ir/op_table.h"

#include <algorithm>
#include <string>

namespace cgrad::schedule::detail {

namespace {

Shape squeeze(const Shape& s) {
  Shape r;
  for (int64_t d : s)
    if (d != 1) r.push_back(d);
  return r;
}

bool is_unit_reshape(const Node& n) { return squeeze(n.shape) == squeeze(n.inputs[0]->shape); }

}  // namespace

void Builder::initial_states() {
  const std::size_t n = g.order.size();
  state.assign(n, State::Fused);
  why.assign(n, "rule 2 (fuse): fused into its consumer");
  std::vector<int> depth(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Node* nd = g.order[i];
    OpKind k = ir::info(nd->op).kind;
    if (g.is_output[i]) {
      if (nd->op == Op::Full)
        set(nd, State::Const, "rule 1 (output): requested constant: one element with zero strides");
      else
        set(nd, k == OpKind::Movement ? State::View : State::Mat, "rule 1 (output): requested output");
    }
    if (library(nd)) {
      set(nd, State::Mat,
          "rule 7 (library-op): GEMM, and cat of more than " + std::to_string(kMaxCatParts) +
              " equal parts, run as a library routine over whole buffers");
      library_operands(nd);
    }
    if (k == OpKind::Scan)  // scan group: a scan kernel stores every element of its row
      set(nd, State::Mat, "scan: a scan is the root of its own kernel (its producers fuse into it)");
    if (nd->op == Op::Reshape && !is_unit_reshape(*nd) && state[i] == State::Fused)
      set(nd, State::View,
          "rule 3 (unfoldable-reshape): reshape that index math cannot fold: a view of its materialized "
          "input");
    // Cut very long fused chains.
    int d = 0;
    for (auto& in : nd->inputs)
      if (fused(in.get())) d = std::max(d, depth[static_cast<std::size_t>(index(in.get()))]);
    depth[i] = d + 1;
    if (depth[i] > kMaxFusedDepth && state[i] == State::Fused && k != OpKind::Movement) {
      set(nd, State::Mat,
          "rule 9 (max-depth): fused chain longer than " + std::to_string(kMaxFusedDepth) + " ops is cut");
      depth[i] = 0;
    }
  }
  propagate_views();
}

// A View reads its input's memory: that input cannot stay Fused.
void Builder::propagate_views() {
  for (std::size_t i = g.order.size(); i-- > 0;) {
    if (state[i] != State::View) continue;
    for (auto& in : g.order[i]->inputs)
      if (fused(in.get()))
        set(in.get(), ir::info(in->op).kind == OpKind::Movement ? State::View : State::Mat,
            "rule 3 (view-input): input of a view must be in memory");
  }
}

}  // namespace cgrad::schedule::detail
