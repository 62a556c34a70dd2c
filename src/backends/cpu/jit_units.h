// How the CPU JIT cuts a Program's kernels into translation units (docs/jit.md, "First calls").
//
// A Program with many kernels compiles as several translation units at once, one compiler
// process each, so a first call uses the idle cores. The split depends only on the Program
// (kernel sources in schedule order), never on the machine: cache keys and `kernels_compiled`
// are the same everywhere. Each part is the prelude and a run of distinct kernels of at least
// kPartBytes of source; one kernel is never split, so a Program of one kernel (W1-W4) is one
// unit, the same source as Program::source. All parts compile at once, up to kMaxCompileThreads,
// also on a machine with fewer cores (the compilers share them): that changes only the wall time.
#pragma once

#include "runtime/lower.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cgrad::backends::cpu {

inline constexpr std::size_t kPartBytes = 16 * 1024;
inline constexpr std::size_t kMaxParts = 8;
inline constexpr unsigned kMaxCompileThreads = 8;

struct Part {
  std::string source;
  std::vector<std::string>
      symbols;  ///< its kernels' entry points, never empty; the first is checked on a load
};

/// The translation units of `p`'s distinct kernels, in schedule order: one part (Program::source)
/// below 2 * kPartBytes of kernel source, else up to kMaxParts of about equal size. Every part
/// holds at least one kernel.
std::vector<Part> split_units(const runtime::Program& p);

}  // namespace cgrad::backends::cpu
