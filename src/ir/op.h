// The op enum, generated from include/cgrad/ops.def, and the description of one op table row.
#pragma once

#include <cgrad/core.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cgrad::ir {

enum class Op : uint8_t {
#define CGRAD_OP(E, name, Kind, arity) E,
#include <cgrad/ops.def>
#undef CGRAD_OP
};

inline constexpr int kNumOps = 0
#define CGRAD_OP(E, name, Kind, arity) +1
#include <cgrad/ops.def>
#undef CGRAD_OP
    ;

/// Map: an element-wise user function (issue #23), fused like the other element-wise kinds.
/// Sort: a row kernel (sort, argsort) whose output rows along attrs.axis each read a whole input row.
/// Scan: a running reduction along attrs.axis (cumulative_sum/prod), described by a ReduceRule.
/// Gather: an indirect read (take), input 1 holds i64 positions along attrs.axis of input 0.
/// Scatter: an indirect accumulation (scatter_add): input 1 added into input 0 at the i64
/// positions input 2 holds along attrs.axis (scatter group).
enum class OpKind : uint8_t {
  Source,
  Unary,
  Binary,
  Ternary,
  Reduce,
  Movement,
  Concat,
  Gemm,
  Collective,
  Map,
  Sort,
  Scan,
  Gather,
  Scatter  // scatter group
};

/// How many of a node's inputs are value inputs (sharing the row's accepted dtypes), after
/// `first` (Where's condition is input 0): a gather's or a scatter's index input (the last) is not one.
constexpr std::size_t value_inputs_end(OpKind k, std::size_t n_inputs) {
  return k == OpKind::Gather || k == OpKind::Scatter ? n_inputs - 1 : n_inputs;
}

/// How a node's dtype follows from its inputs.
enum class DTypeRule : uint8_t {
  Given,     ///< from the builder (sources, cast)
  SameAsIn,  ///< the (common) dtype of the value inputs
  Bool,      ///< comparisons
  SumAcc,    ///< sum: signed integers and bools give i64, unsigned u64, floats keep their dtype
  Real,      ///< complex group: the real dtype of the input (c64 -> f32; abs, real, imag)
  Complex,   ///< complex group: the complex dtype of the input (f32 -> c64, f64 -> c128)
};

/// A reduction's identity: the accumulator's start value, so an empty reduction gives it.
/// Lowest and Highest are the dtype's extremes (-inf / +inf for floats, the integer limits,
/// false / true for b8).
enum class RedIdentity : uint8_t { Zero, One, Lowest, Highest };
/// A reduction's accumulator type: Wide is scalar::acc<T> (f32 -> f64, integers and bools ->
/// i64, what sums and products use); Input keeps the element type (max, min, any, all).
/// Indexed (argmax group): a (value, index) pair, the value in the element's compute type and the
/// index (i64) the element's row-major position within the reduced axes; the node's result is the
/// index. A pair takes an element when the combining row would pick it strictly (a NaN beats a
/// number) or when it is equal (NaN and NaN too) at a smaller position, so the first extreme wins
/// whatever order partial pairs are merged in (scalar::arg_maximum / arg_minimum).
enum class RedAcc : uint8_t { Wide, Input, Indexed };

/// How a Reduce row combines (the columns read by the interpreter, both renderers and the
/// printer, so no consumer has an "otherwise it is a min" branch): acc starts at `identity`
/// and each element x is folded in as acc = scalar::<combine's name>(acc, x), `combine` being
/// an element-wise Binary row. Non-reduction rows hold kNoReduce.
struct ReduceRule {
  Op combine;
  RedIdentity identity;
  RedAcc acc;
  bool empty_ok;  ///< an empty reduction gives the identity (false: max/min reject it)
};

/// Bit mask of DTypes accepted as value inputs.
using DTypeMask = uint32_t;
constexpr DTypeMask bit(DType t) { return static_cast<DTypeMask>(1u << static_cast<unsigned>(t)); }
static_assert(kNumDTypes <= 32, "DTypeMask holds one bit per dtype");
inline constexpr DTypeMask kFloat = bit(DType::f32) | bit(DType::f64) | bit(DType::f16) | bit(DType::bf16);
inline constexpr DTypeMask kSigned = bit(DType::i8) | bit(DType::i16) | bit(DType::i32) | bit(DType::i64);
inline constexpr DTypeMask kUnsigned = bit(DType::u8) | bit(DType::u16) | bit(DType::u32) | bit(DType::u64);
inline constexpr DTypeMask kInt = kSigned | kUnsigned;
inline constexpr DTypeMask kNumeric = kFloat | kInt;
inline constexpr DTypeMask kAll = kNumeric | bit(DType::b8);
/// complex group: c64 and c128. Not in kAll: each row that accepts them names kComplex.
inline constexpr DTypeMask kComplex = bit(DType::c64) | bit(DType::c128);

struct Node;
struct Attrs;

}  // namespace cgrad::ir

namespace cgrad::autograd {
struct VjpCall;
}

namespace cgrad::ir {

/// An op's derivative: given the output's gradient, adds the gradients of the inputs
/// (a vector-Jacobian product). Defined in src/autograd/derivatives.cpp; see ir/derivatives.h.
using VjpFn = void (*)(autograd::VjpCall&);

/// Computes the output shape from the inputs and attributes into `out` (assigning, so a buffer
/// `out` already has is reused: make_node passes one from a destroyed node); throws
/// cgrad::Error on bad input. `out` must not be a shape of `proto`'s inputs.
using ShapeRule = void (*)(const Node& proto, Shape& out);

/// One row of the op table. Passes, the scheduler and codegen look rows up and match on
/// `kind` and flags, never on hand-written lists of ops.
struct OpInfo {
  Op op;
  const char* name;
  OpKind kind;
  int arity;         ///< number of tensor inputs; -1 = variadic (at least one)
  DTypeMask inputs;  ///< dtypes accepted for value inputs
  DTypeRule dtype_rule;
  ShapeRule shape_rule;
  bool int_to_float;  ///< the frontend casts integer/bool inputs to f32 first (exp, /, ...)
  bool commutative;   ///< used by CSE (later) to canonicalize operand order
  VjpFn vjp;          ///< reverse-mode derivative (autograd::vjp::none where no gradient flows)
  ReduceRule reduce;  ///< Reduce and Scan rows: identity, combine, accumulator; others kNoReduce
  /// What computing one element costs, in plain arithmetic ops: the scheduler recomputes a
  /// shared fused value in each kernel while its subtree costs at most 8 (docs/fusion.md rule 8).
  /// 1 unless the row says otherwise; transcendentals and random numbers 4.
  int cost = 1;
};

const OpInfo& info(Op op);
inline const char* op_name(Op op) { return info(op).name; }
inline bool is_elementwise(OpKind k) {
  return k == OpKind::Unary || k == OpKind::Binary || k == OpKind::Ternary || k == OpKind::Map;
}

}  // namespace cgrad::ir
