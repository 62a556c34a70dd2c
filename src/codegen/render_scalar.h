// The scalar renderer: one SSA instruction of a KernelSpec as a C++ expression. Shared by the
// CPU and CUDA wrappers, so both backends compute exactly what cgrad/scalar.hpp defines.
#pragma once

#include "ir/op.h"
#include "schedule/kernel.h"

#include <functional>
#include <string>
#include <vector>

namespace cgrad::codegen {

/// C++ type of a dtype's values in generated code (float, double, int32_t, ...; float for f16
/// and bf16, which compute in f32).
const char* ctype(DType t);
/// C++ type of a dtype's elements in memory (buffers): ctype but for the 16-bit floats
/// (cgrad::float16_t, cgrad::bfloat16_t, which convert to and from float implicitly).
const char* storage_ctype(DType t);
/// The dtype whose C++ type holds t's values in a kernel (cgrad/dtypes.def: f32 for f16, bf16).
DType compute_dtype(DType t);
/// The ops whose f32 and f64 calls render as `<name>_lanes` and `<name>_lanes_f64`
/// (include/cgrad/scalar.hpp's vector variants; translation_unit defines
/// CGRAD_KERNEL_USES_<NAME> and CGRAD_KERNEL_USES_<NAME>_F64 for those a unit calls).
inline constexpr ir::Op kLanesOps[] = {ir::Op::Sin, ir::Op::Cos, ir::Op::Tan};
struct LanesName {
  const char* type;    ///< the C++ type the call computes in
  const char* suffix;  ///< of the helper's name
  const char* uses;    ///< of CGRAD_KERNEL_USES_<NAME>
};
inline constexpr LanesName kLanesNames[] = {{"float", "_lanes", ""}, {"double", "_lanes_f64", "_F64"}};
/// Accumulator dtype of a reduction, from its op-table row (ir::RedAcc): f64 for float sums and
/// products (f16, bf16 too), i64 for integer and bool ones, the compute dtype for max/min/any/all.
DType acc_dtype(const schedule::Reduction& r);
/// C++ accumulator type of a reduction (ctype of acc_dtype).
std::string acc_ctype(const schedule::Reduction& r);
/// Identity of a reduction (its row's ir::RedIdentity) as a literal of its accumulator type.
std::string acc_identity(const schedule::Reduction& r);
/// `acc = combine(acc, x)` for a reduction: the scalar helper of its row's combining op. An
/// indexed reduction (argmax group) combines the pairs (acc, acc + "i") and (x, xi), xi defaulting
/// to x + "i" (merging two accumulators).
std::string acc_combine(const schedule::Reduction& r, const std::string& acc, const std::string& x,
                        const std::string& xi = "");
/// An indexed reduction's pair (acc, acc_i) taking (x, xi) when x beats it, as one branch-free
/// statement: for elements that come in index order, where a tie keeps the earlier index without
/// comparing indices (column mode, which a SIMD loop across outputs vectorizes).
std::string acc_take_if_beats(const schedule::Reduction& r, const std::string& acc, const std::string& acc_i,
                              const std::string& x, const std::string& xi);
/// Whether a reduction's accumulator is a (value, index) pair (ir::RedAcc::Indexed: argmax group).
bool indexed(const schedule::Reduction& r);
/// The variables of a reduction's accumulator: its value, and for an indexed one its index (named
/// with the suffix "i"): C type, name suffix, start value.
struct AccVar {
  std::string type, suffix, identity;
};
std::vector<AccVar> acc_vars(const schedule::Reduction& r);
/// A literal of dtype `t` (exact: floats in hex, non-finite values via builtins).
std::string literal(DType t, double f, int64_t i);

/// Expression of instruction `i`; `var(j)` names the value of an earlier instruction j,
/// `addr(a)` renders the element of access a, `index(a)` its element index.
std::string render_instr(const schedule::KernelSpec& k, int i, const std::function<std::string(int)>& var,
                         const std::function<std::string(int)>& addr,
                         const std::function<std::string(int)>& index);

}  // namespace cgrad::codegen
