// Shared by the CPU renderer's files (render_cpu*.cpp), one per kernel kind: the loop-level
// pieces every CPU kernel is made of (element addresses, pointer declarations, a range loop from
// templates/cpu_range*.inc, stores), and the entry point of each kind. render_cpu() in
// render_cpu.cpp picks the kind.
#pragma once

#include "codegen/kernel_parts.h"
#include "codegen/render_cpu.h"
#include "schedule/kernel.h"

#include <string>
#include <vector>

namespace cgrad::codegen::cpu {

// How the innermost loop of a range is split into blocks (reduction loops with blocked
// accumulators, render_cpu_reduce.cpp): code opening and closing a block, and its bounds; code
// before the range's first block and after its last, each empty or whole lines; empty, the
// range's text is as without them. A run's own code (argmax's lanes) opens `open` and closes
// `close`, around the block loop, where the run's hoisted offsets are in scope.
struct Blocks {
  std::string open, close, jb = "0", je = "len_", start, finish;
  bool loop = true;  // false: no element loop (what the blocks' code does is all there is)
};

// The loops of one kernel: `ro` outer dims (split over threads), then `ri` inner (reduced) dims.
struct Loops {
  const schedule::KernelSpec& k;
  std::size_t ro, ri, rank;

  /// Per access: read or written in the loop through a float array of its block, `f<a>_`
  /// (f16 blocks of element-wise kernels, render_cpu_elementwise.cpp); empty: none is.
  std::vector<char> staged;
  bool is_staged(int a) const {
    return static_cast<std::size_t>(a) < staged.size() && staged[static_cast<std::size_t>(a)];
  }

  explicit Loops(const schedule::KernelSpec& ks)
      : k(ks), ro(ks.outer.size()), ri(ks.inner.size()), rank(ro + ri) {}

  // Element and index expressions: inside a range loop (`loop`) or at the outer level.
  // `lead` > 0: the element `lead` indices further along dim 0 (the unrolled copies of the
  // lead-dim kernels; `d<a>` holds the access's dim-0 stride).
  std::string off(int a, int64_t lead) const;
  std::string addr(int a, bool loop, int64_t lead = 0) const;
  std::string index(int a, bool loop, int64_t lead = 0) const;
  /// The instructions `which`, one `const T vN = ...;` line each.
  std::string emit(const std::vector<int>& which, bool loop, const std::string& indent) const;
  /// Declarations of the buffer pointers p<a> and of the constants the kernel reads.
  std::string ptrs() const;
  /// A range loop (templates/cpu_range.inc, cpu_range1.inc for one dim) over dims
  /// [first, first + r) running `body` per element of the innermost dim, run by run
  /// (cpu_range_runs.inc), or with `band` (r >= 2) by bands of rows and tiles of columns
  /// (cpu_range_band.inc).
  std::string range(const std::string& what, std::size_t first, std::size_t r, const std::string& sizes,
                    const std::string& begin, const std::string& end, const std::string& body,
                    const std::string& pragma, const Blocks& blocks = Blocks(), bool band = false) const;
  /// Column mode (a tile of outer elements along the last outer dim, one inner dim; reductions and
  /// scans over a leading axis): per access, its tile's start `kb<a>` (`base`[a]) and its steps
  /// along the tile `kt<a>` and along the inner dim `kj<a>`, declared at `indent`.
  std::string tile_steps(const std::string& base, const std::string& indent) const;
  /// In column mode, the element index of access `a`: element `t_` of the tile, and `j` of the
  /// inner dim when `inner` (else the outer level, an output's own element).
  std::string tile_index(int a, bool inner) const;
  /// The stores at the inner level (`inner_stores`) or the outer one.
  std::string stores(bool inner_stores, bool loop, const std::string& indent) const;

 private:
  std::string hoist() const;
};

// The kernel kinds (KernelSpec -> functions of the translation unit).
Rendered render_elementwise(const schedule::KernelSpec& k);  // render_cpu_elementwise.cpp
Rendered render_reduce(const schedule::KernelSpec& k);       // render_cpu_reduce.cpp
Rendered render_scan(const schedule::KernelSpec& k);         // render_cpu_scan.cpp

/// `out` with its symbol named after `body` (kernel_name) and its source, `body` with {{NAME}} filled.
Rendered named(const schedule::KernelSpec& k, std::string body, Rendered out = Rendered());

}  // namespace cgrad::codegen::cpu
