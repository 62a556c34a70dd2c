// Memory planning: where each intermediate buffer of a schedule lives, decided once when the
// plan is built, so a replay makes no memory decisions and the plan's arena size is known
// before it runs.
//
// What: intermediates (Temp slots no output depends on, even through a view) written by a loop kernel
// or a GEMM get an offset in one arena; two intermediates whose lifetimes (first write to last
// read, in kernel order) do not overlap share bytes. An element-wise kernel whose input dies
// in it writes its output over that input (in place) when it is safe: same dtype and byte
// size, the input read by exactly one access, at the very index the single output is stored
// at, and no reduction in the kernel. Intermediates a library routine allocates itself (copy,
// cat) are released after their last reader (through views too).
// A view of an arena intermediate reads it at the intermediate's offset.
// Outputs of the last kernel may also take over a leaf's buffer (MemoryPlan::reuse): when the
// kernel reads the leaf only at the very indices it stores the output at, each store depending
// on that read, and nothing else in the plan reads the leaf. Whether the leaf is free (nothing
// outside the graph can read it after this evaluation: `x = f(x)` in a loop) is only known
// when the plan runs (runtime::free_leaves()).
// Why: without it every intermediate of a plan is allocated and kept until the plan ends; with
// it the peak is the largest set of buffers alive at one kernel. Writing a loop's new state
// over the old one halves the memory it touches (a 2^20-system RK4 step: 1.4x faster).
// Invariants: outputs, leaves and what an output views are never in the arena; a buffer is written only by
// its kernel and never while something alive reads the same bytes (the in-place rule is the
// one exception and reads each element before writing it, in the same iteration).
#pragma once

#include "schedule/schedule.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cgrad::schedule {

struct MemoryPlan {
  std::vector<int64_t> offset;                ///< per slot: byte offset in the arena, or -1 (not in it)
  std::vector<int> view_of_arena;             ///< per View slot: the arena slot it views, or -1
  std::vector<std::vector<int>> release;      ///< per kernel: own-allocation slots dead after it runs
  std::vector<std::pair<int, int>> in_place;  ///< (output slot, input slot) sharing bytes
  /// (output slot, leaf slot): outputs of the last kernel that may be written over the leaf's
  /// buffer when the leaf is free at run time.
  std::vector<std::pair<int, int>> reuse;
  int64_t arena_bytes = 0;         ///< the arena's size
  int64_t intermediate_bytes = 0;  ///< the arena's slots each in its own buffer (for comparison)
};

/// Plans the intermediates of `s` (a schedule of the JIT backend).
MemoryPlan plan_memory(const Schedule& s);

/// One line per arena slot and in-place pair (CGRAD_DEBUG=2).
std::string describe(const MemoryPlan& m, const Schedule& s);

}  // namespace cgrad::schedule
