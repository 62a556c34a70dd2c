// Scalar renderer: every element-wise op becomes a call of its cgrad::scalar helper.
#include "codegen/render_scalar.h"

#include "core/dtype.hpp"
#include "ir/op_table.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

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

std::string acc_ctype(const schedule::Reduction& r) {
  if (r.op != ir::Op::Sum) return ctype(r.in_dtype);
  if (is_floating(r.in_dtype)) return "double";
  return "int64_t";
}

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
    case DType::b8:
      return i ? "true" : "false";
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
  if (r.op == ir::Op::Sum) return acc_ctype(r) == "double" ? "0.0" : "(int64_t)0";
  // max/min start from the first element in the interpreter; here from the identity, which
  // gives the same result for non-empty reductions (empty ones are rejected when built).
  bool mx = r.op == ir::Op::Max;
  switch (r.in_dtype) {
    case DType::f32:
    case DType::f16:  // computed in float
    case DType::bf16:
      return mx ? "(-cgrad::scalar::inf<float>())" : "cgrad::scalar::inf<float>()";
    case DType::f64: return mx ? "(-cgrad::scalar::inf<double>())" : "cgrad::scalar::inf<double>()";
    case DType::i32: return mx ? "((int32_t)(-2147483647 - 1))" : "((int32_t)2147483647)";
    case DType::i64: return mx ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL";
    case DType::b8: return mx ? "false" : "true";
    case DType::i8:
    case DType::i16:
    case DType::u8:
    case DType::u16:
    case DType::u32:
    case DType::u64: {
      const IInfo lim = iinfo(r.in_dtype);
      return mx ? literal(r.in_dtype, 0, lim.min) : literal(r.in_dtype, 0, static_cast<int64_t>(lim.max));
    }
  }
  return "0";
}

std::string acc_combine(const schedule::Reduction& r, const std::string& acc, const std::string& x) {
  switch (r.op) {
    case ir::Op::Sum: return acc + " = cgrad::scalar::add(" + acc + ", (" + acc_ctype(r) + ")(" + x + "))";
    case ir::Op::Max: return acc + " = cgrad::scalar::maximum(" + acc + ", " + x + ")";
    default: return acc + " = cgrad::scalar::minimum(" + acc + ", " + x + ")";
  }
}

std::string render_instr(const schedule::KernelSpec& k, int i, const std::function<std::string(int)>& var,
                         const std::function<std::string(int)>& addr, const std::function<std::string(int)>& index) {
  const Instr& in = k.code[static_cast<std::size_t>(i)];
  // Values have the compute type T (float for f16 and bf16). A result that must be rounded to
  // its dtype (a cast, a source, a reduction's result) is made as the storage type S and
  // converted to T where it is declared: S == T for every dtype but the 16-bit floats.
  const std::string T = ctype(in.dtype), S = storage_ctype(in.dtype);
  switch (in.kind) {
    case Instr::Kind::Load: return addr(in.access);
    case Instr::Kind::Index: return "(int64_t)(" + index(in.access) + ")";
    case Instr::Kind::Const:
      if (in.arg >= 0) return "((" + T + ")c" + std::to_string(i) + ")";  // a kernel argument
      return literal(in.dtype, in.fvalue, in.ivalue);
    case Instr::Kind::Acc:
      return "(" + S + ")(acc" + std::to_string(in.reduction) + ")";
    case Instr::Kind::Op: break;
  }
  auto a = [&](std::size_t j) { return var(in.args[j]); };
  const char* name = ir::op_name(in.op);
  switch (in.op) {
    case ir::Op::Arange:
      return "(" + S + ")(" + a(0) + ")";
    case ir::Op::Rand:
    case ir::Op::Randn: {
      std::string seed = in.arg >= 0 ? "(uint64_t)c" + std::to_string(i) : std::to_string(in.seed) + "ULL";
      return std::string(in.op == ir::Op::Rand ? "cgrad::scalar::rand_uniform<"
                                               : "cgrad::scalar::rand_normal<") +
             S + ">(" + seed + ", (uint64_t)" + a(0) + ")";
    }
    case ir::Op::Cast:
      return "cgrad::scalar::cast<" + S + ">(" + a(0) + ")";
    default: break;
  }
  std::string r = std::string("cgrad::scalar::") + name + "(";
  for (std::size_t j = 0; j < in.args.size(); ++j) r += (j ? ", " : "") + a(j);
  return r + ")";
}

}  // namespace cgrad::codegen
