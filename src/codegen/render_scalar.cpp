// Scalar renderer: every element-wise op becomes a call of its cgrad::scalar helper.
#include "codegen/render_scalar.h"

#include "core/dtype.hpp"
#include "ir/op_table.h"
#include "ir/user_fn.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>

namespace cgrad::codegen {

using schedule::Instr;

const char* storage_ctype(DType t) {
  switch (t) {
#define CGRAD_DTYPE(E, Kind, bytes, Host, ctype, Compute) \
  case DType::E:                                          \
    return ctype;
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE
  }
  return "void";
}

DType compute_dtype(DType t) {
  switch (t) {
#define CGRAD_DTYPE(E, Kind, bytes, Host, ctype, Compute) \
  case DType::E:                                          \
    return DType::Compute;
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE
  }
  return t;
}

const char* ctype(DType t) { return storage_ctype(compute_dtype(t)); }

namespace {
const ir::ReduceRule& rule_of(const schedule::Reduction& r) { return ir::info(r.op).reduce; }
}  // namespace

DType acc_dtype(const schedule::Reduction& r) {
  switch (rule_of(r).acc) {
    // max/min/any/all: the element's compute dtype (f32 for f16 and bf16, as their values are).
    case ir::RedAcc::Input:
    case ir::RedAcc::Indexed:
      return compute_dtype(r.in_dtype);  // argmax group: the pair's value
    // sum/prod: scalar::acc (f64 for every float dtype, i64 for integers and b8; unsigned sums
    // and products wrap in i64 arithmetic: the same bits as u64 arithmetic).
    case ir::RedAcc::Wide:
      if (is_complex(r.in_dtype)) return DType::c128;  // complex group
      return is_floating(r.in_dtype) ? DType::f64 : DType::i64;
  }
  return r.in_dtype;
}

std::string acc_ctype(const schedule::Reduction& r) { return ctype(acc_dtype(r)); }

std::string literal(DType t, double f, int64_t i) {
  char buf[64];
  switch (t) {
    case DType::f32:
    case DType::f64:
    case DType::f16:     // a value of the compute type (float), which holds f16 and bf16 values
    case DType::bf16: {  // exactly (constants are built rounded to their dtype)
      const bool single = compute_dtype(t) == DType::f32;
      const std::string T = ctype(t);
      if (std::isnan(f)) return "cgrad::scalar::quiet_nan<" + T + ">()";
      if (std::isinf(f)) return (f < 0 ? "(-cgrad::scalar::inf<" : "(cgrad::scalar::inf<") + T + ">())";
      std::snprintf(buf, sizeof buf, "%s%a", single ? "(float)" : "",
                    single ? static_cast<double>(static_cast<float>(f)) : f);
      return std::string("(") + buf + ")";
    }
    case DType::b8: return i ? "true" : "false";
    case DType::c64:  // complex group: constants are real (Scalar holds real values)
    case DType::c128: return std::string("(") + ctype(t) + "(" + literal(real_dtype(t), f, i) + ", 0))";
    case DType::u64:
      std::snprintf(buf, sizeof buf, "((uint64_t)%lluULL)", static_cast<unsigned long long>(i));
      return buf;
    case DType::i8:
    case DType::i16:
    case DType::i32:
    case DType::i64:
    case DType::u8:
    case DType::u16:
    case DType::u32: {
      const int64_t v = core::wrap_to(i, t);  // the value as t holds it
      if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
      std::snprintf(buf, sizeof buf, "((%s)%lldLL)", ctype(t), static_cast<long long>(v));
      return buf;
    }
  }
  return "0";
}

std::string acc_identity(const schedule::Reduction& r) {
  const DType a = acc_dtype(r);
  switch (rule_of(r).identity) {
    case ir::RedIdentity::Zero:
      return a == DType::f64 ? "0.0" : a == DType::i64 ? "(int64_t)0" : literal(a, 0, 0);
    case ir::RedIdentity::One: return literal(a, 1, 1);
    case ir::RedIdentity::Lowest:
    case ir::RedIdentity::Highest: {
      const bool hi = rule_of(r).identity == ir::RedIdentity::Highest;
      switch (a) {
        case DType::f32:
        case DType::f64:
        case DType::f16:  // (not reached: acc_dtype is the compute dtype, f32)
        case DType::bf16: return literal(a, hi ? HUGE_VAL : -HUGE_VAL, 0);
        case DType::b8: return hi ? "true" : "false";
        case DType::c64:  // (not reached: no max/min reduction accepts complex)
        case DType::c128: return literal(a, 0, 0);
        case DType::i8:
        case DType::i16:
        case DType::i32:
        case DType::i64:
        case DType::u8:
        case DType::u16:
        case DType::u32:
        case DType::u64: {  // (literal writes u64's max, held as -1, as 18446744073709551615ULL)
          const IInfo lim = iinfo(a);
          return hi ? literal(a, 0, static_cast<int64_t>(lim.max)) : literal(a, 0, lim.min);
        }
      }
    }
  }
  return "0";
}

namespace {

// An element as the accumulator's type: a wide accumulator converts it first.
std::string as_acc(const schedule::Reduction& r, const std::string& x) {
  return acc_dtype(r) == compute_dtype(r.in_dtype) ? x : "(" + acc_ctype(r) + ")(" + x + ")";
}

}  // namespace

std::string acc_combine(const schedule::Reduction& r, const std::string& acc, const std::string& x,
                        const std::string& xi) {
  // The combining row's scalar helper.
  const std::string fn = std::string("cgrad::scalar::") + ir::op_name(rule_of(r).combine);
  const std::string xa = as_acc(r, x);
  if (indexed(r))  // argmax group: the helper's pair form updates both accumulators in place
    return "cgrad::scalar::arg_" + std::string(ir::op_name(rule_of(r).combine)) + "(" + acc + ", " + acc +
           "i, " + xa + ", " + (xi.empty() ? x + "i" : xi) + ")";
  return acc + " = " + fn + "(" + acc + ", " + xa + ")";
}

std::string acc_take_if_beats(const schedule::Reduction& r, const std::string& acc, const std::string& acc_i,
                              const std::string& x, const std::string& xi) {
  const std::string xa = as_acc(r, x);
  return "{ const bool b_ = cgrad::scalar::beats_" + std::string(ir::op_name(rule_of(r).combine)) + "(" + xa +
         ", " + acc + "); " + acc + " = b_ ? " + xa + " : " + acc + "; " + acc_i + " = b_ ? " + xi + " : " +
         acc_i + "; }";
}

bool indexed(const schedule::Reduction& r) { return rule_of(r).acc == ir::RedAcc::Indexed; }

std::vector<AccVar> acc_vars(const schedule::Reduction& r) {
  std::vector<AccVar> v{{acc_ctype(r), "", acc_identity(r)}};
  // argmax group: the index starts at 0, the first element's (an extreme equal to the identity
  // is only reached when every element equals it: then 0 is the answer)
  if (indexed(r)) v.push_back({ctype(DType::i64), "i", "(int64_t)0"});
  return v;
}

namespace {

// A user function's body (issue #23), re-emitted from its parsed tree: input names become the
// kernel values of the node's inputs, literals are printed by literal(), operators and calls
// become cgrad::scalar calls. No text of the body is copied into the kernel.
std::string render_user(const Instr& in, const std::function<std::string(int)>& var) {
  const ir::UserBody& b = in.fn->outputs[static_cast<std::size_t>(in.fn_out)];
  std::vector<std::string> s(b.nodes.size());
  for (std::size_t i = 0; i < b.nodes.size(); ++i) {
    const ir::UserExpr& e = b.nodes[i];
    auto a = [&](std::size_t j) -> const std::string& { return s[static_cast<std::size_t>(e.args[j])]; };
    switch (e.kind) {
      case ir::UserExpr::Kind::Input: s[i] = var(in.args[static_cast<std::size_t>(e.index)]); break;
      case ir::UserExpr::Kind::Literal:
        s[i] = literal(in.dtype, e.value, static_cast<int64_t>(e.value));
        break;
      case ir::UserExpr::Kind::Call:
        s[i] = std::string("cgrad::scalar::") + ir::op_name(e.op) + "(" + a(0) +
               (e.args.size() > 1 ? ", " + a(1) : "") + ")";
        break;
      case ir::UserExpr::Kind::Select: s[i] = "(" + a(0) + " ? " + a(1) + " : " + a(2) + ")"; break;
      case ir::UserExpr::Kind::And: s[i] = "(" + a(0) + " && " + a(1) + ")"; break;
      case ir::UserExpr::Kind::Or: s[i] = "(" + a(0) + " || " + a(1) + ")"; break;
      case ir::UserExpr::Kind::Not: s[i] = "(!" + a(0) + ")"; break;
    }
  }
  return s[static_cast<std::size_t>(b.root)];
}

}  // namespace

std::string render_instr(const schedule::KernelSpec& k, int i, const std::function<std::string(int)>& var,
                         const std::function<std::string(int)>& addr,
                         const std::function<std::string(int)>& index) {
  const Instr& in = k.code[static_cast<std::size_t>(i)];
  // Values have the compute type T (float for f16 and bf16). A result that must be rounded to
  // its dtype (a cast, a source, a reduction's result) is made as the storage type S and
  // converted to T where it is declared: S == T for every dtype but the 16-bit floats.
  const std::string T = ctype(in.dtype), S = storage_ctype(in.dtype);
  switch (in.kind) {
    case Instr::Kind::Load: {
      std::string at = addr(in.access);
      // a gather's read (take): its argument, an i64 offset, joins the element index `p[...]`
      if (!in.args.empty()) at.insert(at.size() - 1, " + " + var(in.args[0]));
      return at;
    }
    case Instr::Kind::Index: return "(int64_t)(" + index(in.access) + ")";
    case Instr::Kind::Const:
      if (in.arg >= 0) return "((" + T + ")c" + std::to_string(i) + ")";  // a kernel argument
      return literal(in.dtype, in.fvalue, in.ivalue);
    case Instr::Kind::Acc:  // an indexed reduction's result is its index (argmax group)
      return "(" + S + ")(acc" + std::to_string(in.reduction) +
             (indexed(k.reductions[static_cast<std::size_t>(in.reduction)]) ? "i)" : ")");
    case Instr::Kind::Op: break;
  }
  auto a = [&](std::size_t j) { return var(in.args[j]); };
  const char* name = ir::op_name(in.op);
  // The ops whose helper call differs from `helper(args...)` (an if chain, not a switch
  // with a default: this file compiles with -Wswitch-enum). Sources and casts are made as the
  // storage type S, so that a source or a cast rounds to a 16-bit float once.
  if (in.op == ir::Op::Arange) return "(" + S + ")(" + a(0) + ")";
  if (in.op == ir::Op::User) return render_user(in, var);
  if (in.op == ir::Op::Rand || in.op == ir::Op::Randn) {
    std::string seed = in.arg >= 0 ? "(uint64_t)c" + std::to_string(i) : std::to_string(in.seed) + "ULL";
    return std::string(in.op == ir::Op::Rand ? "cgrad::scalar::rand_uniform<"
                                             : "cgrad::scalar::rand_normal<") +
           S + ">(" + seed + ", (uint64_t)" + a(0) + ")";
  }
  if (in.op == ir::Op::Cast) return "cgrad::scalar::cast<" + S + ">(" + a(0) + ")";
  // nextafter steps the storage type's bits: for f16 and bf16 (values held in float), the
  // helper instantiated with the storage type (scalar.hpp).
  if (in.op == ir::Op::Nextafter && S != T)
    return "cgrad::scalar::nextafter<" + S + ">((" + S + ")(" + a(0) + "), (" + S + ")(" + a(1) + "))";
  // sin, cos and tan computed in f32 or f64 by the names that have the unit compile their vector
  // variants (include/cgrad/scalar.hpp, sin_lanes and sin_lanes_f64; render_cpu.cpp's
  // cpu_prelude)
  std::string r = std::string("cgrad::scalar::") + name;
  if (std::find(std::begin(kLanesOps), std::end(kLanesOps), in.op) != std::end(kLanesOps))
    for (const LanesName& l : kLanesNames)
      if (T == l.type) r += l.suffix;
  r += "(";
  for (std::size_t j = 0; j < in.args.size(); ++j) r += (j ? ", " : "") + a(j);
  return r + ")";
}

}  // namespace cgrad::codegen
