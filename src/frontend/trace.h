// The trace log of compile(): while a compiled function runs for the first time with some
// input signature, every tensor handle an op reads and every handle assign() rebinds is noted
// here, so that replays can read captured tensors' current values and repeat the assigns.
// One log per thread; null when no trace is running (the hooks then cost one load).
#pragma once

#include <cgrad/tensor.hpp>

#include "ir/node.h"

#include <cstdint>
#include <unordered_set>
#include <vector>

namespace cgrad::frontend {

struct TraceLog {
  uint64_t watermark = 0;               ///< nodes with a smaller id existed before the trace
  std::vector<Tensor> reads;            ///< handles read by ops whose node existed before the trace
  std::vector<ir::NodePtr> read_nodes;  ///< parallel to reads: the node each was read at
  std::vector<Tensor> assigned;         ///< handles assign() rebound (each once, in order)
  std::unordered_set<const void*> seen_assigned;
  std::unordered_set<const ir::Node*> seen_reads;
  /// What fn did that a plan cannot repeat, or null: "calls backward()" (its accumulation into
  /// leaves' grad()), "draws random numbers" (a replay would give the same ones again). The
  /// signature then runs eagerly.
  const char* side_effect = nullptr;
};

/// The log of the trace running on this thread, or nullptr.
TraceLog*& active_trace();

/// Hooks called by node_of() and Tensor::assign().
void note_read(TraceLog& log, const Tensor& t);
void note_assign(TraceLog& log, const Tensor& t);

}  // namespace cgrad::frontend
