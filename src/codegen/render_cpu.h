// KernelSpec -> C++ source for the CPU JIT, from the templates in templates/ (embedded at build
// time). The source depends only on ranks, dtypes, stride classes and the SSA: never on sizes.
#pragma once

#include "codegen/kernel_parts.h"
#include "schedule/kernel.h"

#include <string>
#include <string_view>
#include <vector>

namespace cgrad::codegen {

struct Rendered {
  std::string source;  ///< the kernel's functions, without the prelude

  std::string symbol;           ///< entry point: f(const cgrad_kargs*, int64_t begin, int64_t end)
  bool has_reductions = false;  ///< then also symbol_part/_merge/_fin/_acc_size/_acc_init ...
  bool whole_rows = false;      ///< ... unless the reductions are staged: only the entry point
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
