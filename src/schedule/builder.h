// The scheduler's working state, shared by the files that implement its rules (internal to
// src/schedule; the public entry point is make_schedule in schedule.h).
//
// Where each rule of docs/fusion.md lives:
//   rules_states.cpp      rules 1, 2, 3, 9   initial states: outputs, fusion, unfoldable reshapes, depth cut
//   rules_reductions.cpp  rules 4, 5, 6      a kernel's loop structure (Mode), nested and staged reductions
//   rules_library.cpp     rule 7             GEMM, collectives, library cats and fused cats
//   rules_recompute.cpp   rule 8             shared values: recompute when cheap, else Mat
//   rules_horizontal.cpp  rule 10            outputs sharing one kernel
//   lower_kernel.cpp      (all)              one group of roots -> one KernelSpec; slots; loop collapse
//   schedule.cpp          the driver: states, then attempts until every kernel lowers
//
// The algorithm: every node starts Fused and rules only move it up the order Fused < Mat < View
// (a View is only ever a movement op; Builder::set refuses every other step). An attempt
// builds all kernels from the current states; a rule that finds a node in the wrong state
// moves it up and the attempt starts again. Each failed attempt moves at least one node (the
// places that fail say which node they moved, and a failure that moves none is an internal
// error), so at most 2n attempts fail for n nodes: the scheduler always finishes with a
// schedule of kernels and never falls back to interpreting.
#pragma once

#include "schedule/schedule.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cgrad::schedule::detail {

using ir::Node;
using ir::Op;
using ir::OpKind;

constexpr int kMaxFusedDepth = 128;    // longer fused chains are cut (compile time, stack depth)
constexpr int kRecomputeCost = 8;      // a shared value cheaper than this is recomputed per kernel
constexpr int kMaxStages = 3;          // staged row reductions per kernel (Options::staged_reductions)
constexpr int64_t kMinStagedRows = 8;  // fewer rows: keep rule 6 (a lone long row splits across threads)
constexpr int64_t kMaxCatParts = 8;    // a cat of at most this many equal parts fuses (rule 7)

enum class State : uint8_t { Fused, Mat, View, Const };

// One dim of an index map: node index along the dim = coeff * loop[l] + off (l < 0: just off),
// plus ind_coeff * the i64 value of instruction `ind` when ind >= 0 (a gather's computed
// position: take, index group, issue #15).
struct Dim {
  int l;
  int64_t coeff;
  int64_t off;
  int ind = -1;
  int64_t ind_coeff = 0;
  auto operator<=>(const Dim&) const = default;
};
using Map = std::vector<Dim>;

// How a group of roots iterates: plain element-wise, a reduction per outer element (rule 4),
// a reduction per row broadcast back over the row (rule 5), or a scan (cumulative_sum: each
// outer element runs its row sequentially, storing the running value at every inner element).
struct Mode {
  enum Kind { Elementwise, PerOuter, BroadcastBack, Scan } kind = Elementwise;
  Shape outer, inner;
  std::vector<int64_t> axes;  // BroadcastBack, Scan: root dims that form the inner loop
  int unroll = -1;            // Elementwise: a root dim (a fused cat's axis) stored one part at a time ...
  int64_t parts = 1;          // ... in this many equal parts (the loop runs over one part)
  bool operator==(const Mode&) const = default;
};

/// The sizes of the dims `r` reduces (its inner loop).
Shape reduced_sizes(const Node& r);
/// The length every input of a cat is a multiple of along its axis (the gcd of the lengths).
int64_t cat_part(const Node& n);
/// A cat of at most kMaxCatParts equal parts along its axis, each inside one input (rule 7).
bool fusable_cat(const Node& n);
/// A detached copy of a node for library kernels: inputs become placeholders with their shape.
std::shared_ptr<Node> proto_of(const Node& n);
/// Orders a reduction's reduced dims so that the innermost loop walks memory in order.
void order_reduced(KernelSpec& k);
/// Merges adjacent loop dims that every access walks contiguously, and drops size-1 dims.
void collapse(KernelSpec& k);

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
  /// Moves `n` to state `s` when that is a step up (see the file comment); true when it moved.
  bool set(const Node* n, State s, const std::string& reason);

  // schedule.cpp: the driver
  bool attempt();

  // rules_states.cpp: rules 1, 2, 3, 9
  void initial_states();
  void propagate_views();

  // rules_reductions.cpp: rules 4, 5, 6
  void reductions_below(const Node* root, std::vector<const Node*>& found);
  bool mode_of(const Node* root, Mode& m);
  bool stage_or_mat(const Node* r, int depth);

  // rules_library.cpp: rule 7
  bool library(const Node* n) const;
  void library_operands(const Node* n);
  void unroll_dim(const Node* root, Mode& m) const;
  bool demote_unstorable_cat(std::size_t i, const Mode& m);
  void library_kernel(std::size_t i, std::vector<std::vector<const Node*>>& members);

  // rules_recompute.cpp: rule 8
  bool check_recompute(const std::vector<std::vector<const Node*>>& members);

  // rules_horizontal.cpp: rule 10
  void group_outputs(const std::vector<Mode>& modes, std::vector<int>& group_of,
                     std::vector<std::vector<int>>& groups);
  void join_consumed_outputs(const std::vector<Mode>& modes, std::vector<int>& group_of,
                             std::vector<std::vector<int>>& groups);

  // lower_kernel.cpp
  int slot(const Node* n);
  Map root_map(const Node* root, const Mode& m) const;
  bool lower(const std::vector<const Node*>& roots, const Mode& mode,
             std::vector<std::vector<const Node*>>& members);
};

// Lowers the fused expression of one kernel's roots to SSA instructions and accesses.
// `failed`: a rule moved a node (Builder::set) and the attempt starts again.
struct KernelLowering {
  Builder& b;
  KernelSpec k;
  Mode mode;
  std::map<std::pair<const Node*, Map>, int> memo;
  std::vector<const Node*> members;
  bool failed = false;
  std::unordered_set<const Node*> group_roots;  ///< stored by this kernel, read from registers

  int rank() const { return static_cast<int>(mode.outer.size() + mode.inner.size()); }
  int64_t loop_size(int l) const;
  int access(int slot_id, const Node* n, const Map& m);
  int index_access(const Node* n, const Map& m);
  int indirect_offset(int slot_id, const Map& m);
  int emit(Instr in);
  int value(const Node* n, const Map& m);
  int compute(const Node* n, const Map& m);
  /// Marks the kernel failed after `moved` (Builder::set's result); a failure that moved nothing
  /// would repeat forever, so it is an internal error.
  int fail(bool moved, const char* where);
  int cat(const Node* n, const Map& m);     // rules_library.cpp
  int reduce(const Node* r, const Map& m);  // rules_reductions.cpp
  int gather(const Node* n, const Map& m);  // lower_kernel.cpp (index group)
};

}  // namespace cgrad::schedule::detail
