// The scheduler: cuts an (optimized) unrealized subgraph into as few kernels as possible.
//
// Every node of the subgraph ends up in one of three states:
//  - Mat: a kernel writes it to a contiguous buffer (outputs, GEMM/cat results and operands,
//    reductions that cannot fuse into their consumer, shared values that are costly to recompute);
//  - View: a movement op over a Mat node, a realized leaf or another View, evaluated as strides
//    without a kernel (outputs that are views; reshapes that index math cannot fold);
//  - Fused: computed inside the kernel of each Mat node that uses it;
//  - Const: a requested output that is a constant: one element with zero strides, no kernel.
// The rules and the reason for each are in docs/fusion.md; `why` strings carry them to
// CGRAD_DEBUG=2.
#pragma once

#include "ir/graph.h"
#include "schedule/kernel.h"

#include <vector>

namespace cgrad::schedule {

/// A buffer of the plan: a realized leaf's value, a kernel's output, or a view of another slot.
struct Slot {
  enum class Kind : uint8_t { Leaf, Temp, View, Const };
  Kind kind = Kind::Temp;
  const ir::Node* node = nullptr;  ///< the node whose value the slot holds (schedule time only)
  Shape shape;                     ///< the value's shape and dtype (plans keep no node pointers)
  DType dtype = DType::f32;
  int leaf = -1;                    ///< Leaf: index into Schedule::leaves
  int base = -1;                    ///< View: the slot it views
  ir::View layout;                  ///< offset and strides (no storage) known at schedule time
  std::shared_ptr<ir::Node> proto;  ///< Const: the constant (one element, zero strides: no kernel)
};

struct Schedule {
  std::vector<const ir::Node*> leaves;  ///< realized inputs, in first-use order
  std::vector<Slot> slots;
  std::vector<KernelSpec> kernels;
  /// For each output node of the subgraph (in subgraph order): its slot.
  std::vector<std::pair<ir::Node*, int>> outputs;
  /// Per subgraph position: Mat / View / Fused and why (CGRAD_DEBUG=2, to_dot clusters).
  std::vector<std::string> reasons;
  std::vector<int> kernel_of;  ///< per subgraph position: kernel index, or -1
  /// Always false: the scheduler always finds a schedule (src/schedule/builder.h says why). The
  /// backends still test it; the flag goes when they are reworked.
  bool interpret = false;
};

/// What the backend's code generation supports beyond the common rules.
struct Options {
  /// A row reduction whose input reads another row reduction of the same rows (softmax: the
  /// sum of exp(x - max)) runs in the same row kernel, one loop per stage, instead of rule 6
  /// making the inner one Mat (the CPU JIT; docs/fusion.md rule 6).
  bool staged_reductions = false;
};

/// Builds the schedule. `g` must be verified; nodes are not modified.
Schedule make_schedule(const ir::Subgraph& g, const Options& options = {});

}  // namespace cgrad::schedule
