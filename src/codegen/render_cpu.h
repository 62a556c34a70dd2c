// KernelSpec -> C++ source for the CPU JIT, from the templates in templates/ (embedded at build
// time). The source depends only on ranks, dtypes, stride classes and the SSA: never on sizes.
#pragma once

#include "codegen/kernel_parts.h"
#include "schedule/kernel.h"

#include <string>

namespace cgrad::codegen {

struct Rendered {
  std::string source;  ///< the kernel's functions, without the prelude

  std::string symbol;           ///< entry point: f(const cgrad_kargs*, int64_t begin, int64_t end)
  bool has_reductions = false;  ///< then also symbol_part/_merge/_fin/_acc_size/_acc_init ...
  bool whole_rows = false;      ///< ... unless the reductions are staged: only the entry point
};

Rendered render_cpu(const schedule::KernelSpec& k);
/// One translation unit: the prelude, then each distinct kernel once (kernels of one schedule
/// compile together: one compiler run per new graph, not one per kernel).
std::string translation_unit(const std::vector<Rendered>& kernels);

/// The template files, embedded by CMake (codegen_templates.cpp).
const std::string& template_text(const std::string& name);

}  // namespace cgrad::codegen
