// What the CPU and CUDA renderers share beyond the scalar renderer: how a KernelSpec's SSA splits
// into the parts of a kernel (values computed once per outer element, the reduction loop, the
// epilogue after the accumulators, the second inner loop of row kernels), the declarations of
// the constant arguments, instruction emission, template filling and kernel names. A backend's
// renderer only decides where the loops run (a thread pool range, a CUDA grid) and how an
// access becomes an address.
#pragma once

#include "schedule/kernel.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace cgrad::codegen {

/// Replaces every `{{key}}` in `text` by `value`.
void fill(std::string& text, const std::string& key, const std::string& value);
/// 64-bit FNV-1a (kernel name hashes).
uint64_t fnv1a(const std::string& s);
/// How access `a` moves along loop dim `dim`.
schedule::StrideClass stride_class(const schedule::Access& a, std::size_t dim);
/// What loop variable `var` adds to access `a`'s element offset along loop dim `dim`: nothing
/// (stride 0), ` + var` (stride 1), or ` + var * step` (`step` names the stride).
std::string stride_term(const schedule::Access& a, std::size_t dim, const std::string& var,
                        const std::string& step);
/// `E_r1_3f2a9c1b` (element-wise, ranks) or `R_r1i1_ec9c6422` (reduction), hashed over `body`.
std::string kernel_name(const schedule::KernelSpec& k, const std::string& body);

/// The SSA of a kernel split by where each instruction runs. Every list is in SSA order.
struct KernelParts {
  std::vector<char> inner;       ///< per instruction: depends on an inner loop index
  std::vector<char> post;        ///< per instruction: depends on a finished accumulator
  std::vector<int> elementwise;  ///< element-wise kernel: everything the stores need
  std::vector<int> pre;          ///< reduction kernel: per outer element, before the loops
  std::vector<int> epilogue;     ///< per outer element, after the accumulators are final
  std::vector<int> loop2;        ///< the second inner loop (inner stores of row kernels)
  std::vector<int> reduce_roots, outer_roots, inner_roots;
  /// Reduction kernels: per reduction, its stage (0: reads no accumulator; s: reads stage
  /// s-1's; staged reductions, a row kernel whose reduction reads another's result: softmax's
  /// sum of exp(x - max)). Stage s runs `stage_pre[s]` (per outer element, once the
  /// accumulators before it are final; empty for stage 0) then the reduction loop
  /// `stage_loop[s]` (its body: the inputs of the stage's accumulators). Most reduction kernels
  /// have one stage; element-wise kernels have none. `epilogue` holds the rest.
  std::vector<int> red_stage;
  std::vector<std::vector<int>> stage_pre, stage_loop;
  std::size_t stages() const { return stage_loop.size(); }
};
KernelParts split_kernel(const schedule::KernelSpec& k);

/// A scan kernel (scan group): its reductions are Scan rows (cumulative_sum/prod); every
/// instruction runs in the sequential row loop and the accumulators are stored at each element.
bool is_scan(const schedule::KernelSpec& k);
/// The row loop's body of a scan kernel: every instruction in SSA order, each accumulator folded
/// in (`acc<r> = combine(acc<r>, value)`) just before the instruction reading it, then the stores.
std::string scan_body(const schedule::KernelSpec& k, const std::string& indent,
                      const std::function<std::string(int)>& addr,
                      const std::function<std::string(int)>& index);

/// `indent const T vI = expr;` for each instruction of `which`; `addr(a)` and `index(a)` render
/// access a's element and element index where the code runs. Values are named `vI<suffix>`
/// (a suffix per lane when one thread computes several elements).
std::string emit_instrs(const schedule::KernelSpec& k, const std::vector<int>& which,
                        const std::string& indent, const std::function<std::string(int)>& addr,
                        const std::function<std::string(int)>& index, const std::string& suffix = "");
/// `v<i>`: the value of instruction i in generated code.
std::string value_name(int i);
/// Declarations of the constants and seeds that are kernel arguments (`c<i>`), reading the
/// floating ones from `fexpr(arg)` and the integer ones from `iexpr(arg)`.
std::string const_decls(const schedule::KernelSpec& k, const std::string& indent,
                        const std::function<std::string(int)>& fexpr,
                        const std::function<std::string(int)>& iexpr);
/// Pads empty loop dims so every kernel has at least one outer dim (and one inner dim when it
/// reduces), and turns constants and seeds into kernel arguments. Call before rendering and
/// before binding arguments.
void normalize(schedule::KernelSpec& k);
/// Whether access a is written by a store of the kernel.
bool is_stored(const schedule::KernelSpec& k, int a);

/// One translation unit: `prelude`, then each distinct kernel's source once (kernels of one
/// schedule can render identically; `R` has `symbol` and `source`).
template <class R>
std::string unique_sources(std::string prelude, const std::vector<R>& kernels) {
  std::set<std::string> seen;
  for (const auto& k : kernels)
    if (seen.insert(k.symbol).second) prelude += k.source;
  return prelude;
}

}  // namespace cgrad::codegen
