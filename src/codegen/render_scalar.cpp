// Scalar renderer: every element-wise op becomes a call of its cgrad::scalar helper.
#include "codegen/render_scalar.h"

#include "ir/op_table.h"
#include "ir/user_fn.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace cgrad::codegen {

using schedule::Instr;

const char* ctype(DType t) {
  switch (t) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::i32: return "int32_t";
    case DType::i64: return "int64_t";
    case DType::b8: return "bool";
  }
  return "void";
}

namespace {
const ir::ReduceRule& rule_of(const schedule::Reduction& r) { return ir::info(r.op).reduce; }
}  // namespace

DType acc_dtype(const schedule::Reduction& r) {
  switch (rule_of(r).acc) {
    case ir::RedAcc::Input: return r.in_dtype;
    case ir::RedAcc::Wide: return is_floating(r.in_dtype) ? DType::f64 : DType::i64;  // scalar::acc
  }
  return r.in_dtype;
}

std::string acc_ctype(const schedule::Reduction& r) { return ctype(acc_dtype(r)); }

std::string literal(DType t, double f, int64_t i) {
  char buf[64];
  switch (t) {
    case DType::f32:
    case DType::f64: {
      const char* cast = t == DType::f32 ? "(float)" : "";
      const std::string T = ctype(t);
      if (std::isnan(f)) return "cgrad::scalar::quiet_nan<" + T + ">()";
      if (std::isinf(f)) return (f < 0 ? "(-cgrad::scalar::inf<" : "(cgrad::scalar::inf<") + T + ">())";
      std::snprintf(buf, sizeof buf, "%s%a", cast, t == DType::f32 ? static_cast<double>(static_cast<float>(f)) : f);
      return std::string("(") + buf + ")";
    }
    case DType::i32: std::snprintf(buf, sizeof buf, "((int32_t)%lldLL)", static_cast<long long>(static_cast<int32_t>(i))); return buf;
    case DType::i64:
      if (i == INT64_MIN) return "(-9223372036854775807LL - 1)";
      std::snprintf(buf, sizeof buf, "((int64_t)%lldLL)", static_cast<long long>(i));
      return buf;
    case DType::b8: return i ? "true" : "false";
  }
  return "0";
}

std::string acc_identity(const schedule::Reduction& r) {
  const DType a = acc_dtype(r);
  switch (rule_of(r).identity) {
    case ir::RedIdentity::Zero: return a == DType::f64 ? "0.0" : a == DType::i64 ? "(int64_t)0" : literal(a, 0, 0);
    case ir::RedIdentity::One: return literal(a, 1, 1);
    case ir::RedIdentity::Lowest:
    case ir::RedIdentity::Highest: {
      const bool hi = rule_of(r).identity == ir::RedIdentity::Highest;
      switch (a) {
        case DType::f32:
        case DType::f64: return literal(a, hi ? HUGE_VAL : -HUGE_VAL, 0);
        case DType::i32: return hi ? "((int32_t)2147483647)" : "((int32_t)(-2147483647 - 1))";
        case DType::i64: return hi ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)";
        case DType::b8: return hi ? "true" : "false";
      }
    }
  }
  return "0";
}

std::string acc_combine(const schedule::Reduction& r, const std::string& acc, const std::string& x) {
  // The combining row's scalar helper; a wide accumulator converts the element first.
  const std::string fn = std::string("cgrad::scalar::") + ir::op_name(rule_of(r).combine);
  const std::string xa = acc_dtype(r) == r.in_dtype ? x : "(" + acc_ctype(r) + ")(" + x + ")";
  return acc + " = " + fn + "(" + acc + ", " + xa + ")";
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
      case ir::UserExpr::Kind::Literal: s[i] = literal(in.dtype, e.value, static_cast<int64_t>(e.value)); break;
      case ir::UserExpr::Kind::Call:
        s[i] = std::string("cgrad::scalar::") + ir::op_name(e.op) + "(" + a(0) + (e.args.size() > 1 ? ", " + a(1) : "") + ")";
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
                         const std::function<std::string(int)>& addr, const std::function<std::string(int)>& index) {
  const Instr& in = k.code[static_cast<std::size_t>(i)];
  const std::string T = ctype(in.dtype);
  switch (in.kind) {
    case Instr::Kind::Load: return addr(in.access);
    case Instr::Kind::Index: return "(int64_t)(" + index(in.access) + ")";
    case Instr::Kind::Const:
      if (in.arg >= 0) return "((" + T + ")c" + std::to_string(i) + ")";  // a kernel argument
      return literal(in.dtype, in.fvalue, in.ivalue);
    case Instr::Kind::Acc: return "(" + T + ")(acc" + std::to_string(in.reduction) + ")";
    case Instr::Kind::Op: break;
  }
  auto a = [&](std::size_t j) { return var(in.args[j]); };
  const char* name = ir::op_name(in.op);
  // The ops whose helper call differs from `helper(args...)` (an if chain, not a switch
  // with a default: this file compiles with -Wswitch-enum).
  if (in.op == ir::Op::Arange) return "(" + T + ")(" + a(0) + ")";
  if (in.op == ir::Op::User) return render_user(in, var);
  if (in.op == ir::Op::Rand || in.op == ir::Op::Randn) {
    std::string seed = in.arg >= 0 ? "(uint64_t)c" + std::to_string(i) : std::to_string(in.seed) + "ULL";
    return std::string(in.op == ir::Op::Rand ? "cgrad::scalar::rand_uniform<" : "cgrad::scalar::rand_normal<") + T +
           ">(" + seed + ", (uint64_t)" + a(0) + ")";
  }
  if (in.op == ir::Op::Cast) return "cgrad::scalar::cast<" + T + ">(" + a(0) + ")";
  std::string r = std::string("cgrad::scalar::") + name + "(";
  for (std::size_t j = 0; j < in.args.size(); ++j) r += (j ? ", " : "") + a(j);
  return r + ")";
}

}  // namespace cgrad::codegen
