// KernelSpec -> C++ source for the CPU JIT, from the templates in templates/ (embedded at build
// time). The source depends only on ranks, dtypes, stride classes, the SSA and, for reductions,
// whether a row is long enough to be split into chunks (kCpuSplitRowsFrom): on no other size.
#pragma once

#include "codegen/kernel_parts.h"
#include "schedule/kernel.h"

#include <string>
#include <string_view>
#include <vector>

namespace cgrad::codegen {

/// Elements per task when the CPU backend spreads a kernel over its thread pool
/// (backends/cpu/jit_backend.cpp).
inline constexpr int64_t kCpuGrain = int64_t{1} << 15;
/// The shortest reduction row the CPU backend splits into chunks (when too few rows share the
/// threads): two tasks' worth. A reduction kernel whose rows are shorter always runs whole rows,
/// so its chunk functions (_part, _merge, _fin, _acc_size, _acc_init) are not exported, and
/// the compiler need not build them apart from the entry point (render_cpu_reduce.cpp).
inline constexpr int64_t kCpuSplitRowsFrom = 2 * kCpuGrain;

struct Rendered {
  std::string source;  ///< the kernel's functions, without the prelude

  std::string symbol;           ///< entry point: f(const cgrad_kargs*, int64_t begin, int64_t end)
  bool has_reductions = false;  ///< then also symbol_part/_merge/_fin/_acc_size/_acc_init ...
  bool whole_rows = false;      ///< ... unless rows never split (staged, or short): only the entry
};

Rendered render_cpu(const schedule::KernelSpec& k);
/// The prelude of a unit holding kernels of these sources: the defines that tell scalar.hpp
/// which vector variants to compile and whether its lean part suffices, then
/// templates/cpu_prelude.inc.
std::string cpu_prelude(const std::vector<std::string_view>& sources);
/// One translation unit: the prelude, then each distinct kernel once (kernels of one schedule
/// compile together: one compiler run per new graph, not one per kernel, or per part of a large
/// graph: backends/cpu/jit_units.cpp). `R` has `symbol` and `source`.
template <class R>
std::string translation_unit(const std::vector<R>& kernels) {
  std::vector<std::string_view> sources;
  for (const R& k : kernels) sources.push_back(k.source);
  return unique_sources(cpu_prelude(sources), kernels);
}

/// The template files, embedded by CMake (codegen_templates.cpp).
const std::string& template_text(const std::string& name);

}  // namespace cgrad::codegen
