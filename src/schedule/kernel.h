// KernelSpec: what one kernel computes, independent of buffer addresses and sizes.
//
// A kernel runs a loop nest of `outer` dims (split across threads) and, for kernels with
// reductions, `inner` dims (the reduced elements of each outer element). Every read or write
// is an Access: a buffer slot plus an offset and one stride per loop dim (outer then inner),
// so broadcasting, transposes and slices are only index math. The scalar computation is an
// SSA list of Instrs. Sizes, strides and offsets are run-time arguments of the generated code:
// the rendered source depends only on ranks, dtypes, stride classes (0, 1 or other in the
// innermost dim) and the SSA, so a new batch size does not recompile.
#pragma once

#include "ir/node.h"

#include <string>
#include <vector>

namespace cgrad::schedule {

/// How an access moves in the innermost loop dim; part of the generated code.
enum class StrideClass : uint8_t { Zero, One, Any };

struct Access {
  int slot = -1;  ///< buffer slot of the plan; -1: a pure element index (arange, rand)
  DType dtype = DType::f32;
  int64_t offset = 0;
  std::vector<int64_t> strides;  ///< one per loop dim: outer dims, then inner dims
  /// A gather's read (take): its Load's one argument, an i64 instruction, is added to the element
  /// index. Such an access is never vectorized nor written in place.
  bool indirect = false;
};

struct Instr {
  enum class Kind : uint8_t { Load, Index, Const, Op, Acc };
  Kind kind = Kind::Op;
  ir::Op op = ir::Op::Buffer;   ///< Op: the element-wise op (Rand/Randn/Arange apply to an Index)
  DType dtype = DType::f32;     ///< result
  DType in_dtype = DType::f32;  ///< operand dtype (Cast, comparisons, Where's values)
  std::vector<int> args;        ///< earlier instructions (Load: an indirect access's i64 offset)
  int access = -1;              ///< Load / Index
  int reduction = -1;           ///< Acc: the result of reduction `reduction`
  double fvalue = 0;            ///< Const
  int64_t ivalue = 0;           ///< Const
  uint64_t seed = 0;            ///< Rand / Randn
  int arg = -1;  ///< Const: index in KernelSpec::fconsts / iconsts; Rand/Randn: seed in iconsts
  std::shared_ptr<const ir::UserFn> fn;  ///< User: the function (ir/user_fn.h)
  int fn_out = 0;                        ///< User: which of its outputs
};

struct Reduction {
  ir::Op op = ir::Op::Sum;      ///< a Reduce row (its ReduceRule says how it combines)
  DType dtype = DType::f32;     ///< result dtype
  DType in_dtype = DType::f32;  ///< element dtype
  int value = -1;               ///< instruction giving each element
  /// An indexed reduction (argmax group): the i64 instruction giving each element's row-major
  /// position within the reduced axes (an Index of the inner loop dims); else -1.
  int index = -1;
};

struct Store {
  int access = -1;
  int value = -1;
  bool inner = false;  ///< written in the second inner loop (softmax-like), else once per outer element
};

struct KernelSpec {
  /// Sort: a row kernel (sort, argsort; group sort) run as a routine over whole rows.
  /// Scatter: scatter_add (scatter group) run as a routine over whole buffers.
  enum class Kind : uint8_t { Loop, Gemm, Cat, Copy, Collective, Sort, Scatter };
  Kind kind = Kind::Loop;
  std::string name;    ///< says what it is (E_4096x64, R_4096_r4096) plus a short hash, set by codegen
  Shape outer, inner;  ///< loop sizes (run-time arguments)
  std::vector<Access> accesses;
  std::vector<Instr> code;
  std::vector<Reduction> reductions;
  std::vector<Store> stores;
  /// Gemm / Cat / Copy / Collective / Sort / Scatter run a library routine on whole buffers: a copy of the
  /// node (its inputs are placeholders carrying shape and dtype: plans outlive the graphs they came from).
  std::shared_ptr<ir::Node> proto;
  std::vector<int> in_slots;
  int out_slot = -1;
  std::string why;  ///< CGRAD_DEBUG=2: why this kernel ends where it does
  /// Constants and random seeds are kernel arguments, not literals: a new time step, learning
  /// rate or seed reuses the compiled kernel (codegen::normalize fills these).
  std::vector<double> fconsts;
  std::vector<int64_t> iconsts;
};

}  // namespace cgrad::schedule
