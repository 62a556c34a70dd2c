// CPU renderer: fills the loop templates with the SSA of a KernelSpec.
#include "codegen/render_cpu.h"

#include "codegen/kernel_parts.h"
#include "codegen/render_scalar.h"

#include <set>

namespace cgrad::codegen {

using schedule::Access;
using schedule::KernelSpec;
using schedule::StrideClass;

namespace {

struct Renderer {
  const KernelSpec& k;
  std::size_t ro, ri, rank;

  explicit Renderer(const KernelSpec& ks) : k(ks), ro(ks.outer.size()), ri(ks.inner.size()), rank(ro + ri) {}

  // Element and index expressions: inside a range loop (`loop`) or at the outer level.
  std::string addr(int a, bool loop) const {
    std::string p = "p" + std::to_string(a), o = "o" + std::to_string(a), s = "s" + std::to_string(a);
    if (!loop) return p + "[base[" + std::to_string(a) + "]]";
    switch (stride_class(k.accesses[static_cast<std::size_t>(a)], rank - 1)) {
      case StrideClass::Zero: return p + "[" + o + "]";
      case StrideClass::One: return p + "[" + o + " + j]";
      default: return p + "[" + o + " + j * " + s + "]";
    }
  }
  std::string index(int a, bool loop) const {
    std::string o = "o" + std::to_string(a), s = "s" + std::to_string(a);
    if (!loop) return "base[" + std::to_string(a) + "]";
    switch (stride_class(k.accesses[static_cast<std::size_t>(a)], rank - 1)) {
      case StrideClass::Zero: return o;
      case StrideClass::One: return "(" + o + " + j)";
      default: return "(" + o + " + j * " + s + ")";
    }
  }

  std::string emit(const std::vector<int>& which, bool loop, const std::string& indent) const {
    return emit_instrs(k, which, indent, [&](int a) { return addr(a, loop); }, [&](int a) { return index(a, loop); });
  }

  std::string ptrs() const {
    std::string out;
    for (std::size_t a = 0; a < k.accesses.size(); ++a) {
      if (k.accesses[a].slot < 0) continue;
      std::string T = ctype(k.accesses[a].dtype);
      bool w = is_stored(k, static_cast<int>(a));
      out += std::string("  ") + (w ? "" : "const ") + T + "* __restrict p" + std::to_string(a) + " = static_cast<" +
             (w ? "" : "const ") + T + "*>(a->bufs[" + std::to_string(a) + "]);\n";
    }
    out += const_decls(
        k, "  ", [](int arg) { return "a->fconsts[" + std::to_string(arg) + "]"; },
        [](int arg) { return "a->iconsts[" + std::to_string(arg) + "]"; });
    return out + "  (void)a;\n";
  }

  std::string hoist() const {
    std::string out;
    for (std::size_t a = 0; a < k.accesses.size(); ++a)
      out += "      const int64_t o" + std::to_string(a) + " = off_[" + std::to_string(a) + "]; const int64_t s" +
             std::to_string(a) + " = st[" + std::to_string(a) + "][" + std::to_string(rank - 1) + "]; (void)o" +
             std::to_string(a) + "; (void)s" + std::to_string(a) + ";\n";
    return out;
  }

  std::string range(const std::string& what, std::size_t first, std::size_t r, const std::string& sizes,
                    const std::string& begin, const std::string& end, const std::string& body,
                    const std::string& pragma) const {
    std::string t = template_text("cpu_range");
    fill(t, "WHAT", what);
    fill(t, "R", std::to_string(r));
    fill(t, "FIRST", std::to_string(first));
    fill(t, "SIZES", sizes);
    fill(t, "BASE", "base");
    fill(t, "BEGIN", begin);
    fill(t, "END", end);
    fill(t, "HOIST", hoist());
    fill(t, "PRAGMA", pragma);
    fill(t, "BODY", body);
    return t;
  }

  std::string stores(bool inner_stores, bool loop, const std::string& indent) const {
    std::string out;
    for (auto& s : k.stores)
      if (s.inner == inner_stores) out += indent + addr(s.access, loop) + " = " + value_name(s.value) + ";\n";
    return out;
  }
};

}  // namespace

Rendered render_cpu(const KernelSpec& k) {
  Renderer r(k);
  const KernelParts parts = split_kernel(k);
  Rendered out;
  out.has_reductions = !k.reductions.empty();
  std::string body;
  const std::string na = std::to_string(k.accesses.size());
  if (!out.has_reductions) {
    std::string loop_body = r.emit(parts.elementwise, true, "        ") + r.stores(false, true, "        ");
    body = template_text("cpu_elementwise");
    fill(body, "RANGE", r.range("elements", 0, r.ro, "a->outer", "begin", "end", loop_body, "#pragma omp simd"));
    fill(body, "RO", std::to_string(r.ro));
    fill(body, "NA", na);
    fill(body, "RANK", std::to_string(r.rank));
    fill(body, "PTRS", r.ptrs());
  } else {
    std::string fields, init, save, merge, load, combine;

    for (std::size_t i = 0; i < k.reductions.size(); ++i) {
      const auto& red = k.reductions[i];
      std::string A = acc_ctype(red), n = "acc" + std::to_string(i);
      fields += "  " + A + " " + n + ";\n";
      init += "  " + A + " " + n + " = " + acc_identity(red) + ";\n";
      save += "  r->" + n + " = " + n + ";\n";
      load += "  const " + A + " " + n + " = r->" + n + ";\n";
      std::string m = acc_combine(red, "dst->" + n, "src->" + n);
      merge += "  " + m + ";\n";
      combine += "        " + acc_combine(red, n, "v" + std::to_string(red.value)) + ";\n";
    }
    std::string pragma = "#pragma omp simd";
    for (std::size_t i = 0; i < k.reductions.size(); ++i) {
      const auto& red = k.reductions[i];
      std::string n = "acc" + std::to_string(i);
      if (red.op == ir::Op::Sum) pragma += " reduction(+:" + n + ")";
      else if (red.in_dtype == DType::b8) pragma = "";  // no vector form declared for bool
      else pragma += std::string(" reduction(") + (red.op == ir::Op::Max ? "cgmax_" : "cgmin_") + acc_ctype(red) + ":" + n + ")";
      if (pragma.empty()) break;
    }
    std::string l1 = r.range("reduction loop", r.ro, r.ri, "a->inner", "jb", "je",
                             r.emit(parts.loop1, true, "        ") + combine, pragma);
    std::string l2 = parts.inner_roots.empty()
                         ? std::string()
                         : r.range("inner stores", r.ro, r.ri, "a->inner", "jb", "je",
                                   r.emit(parts.loop2, true, "        ") + r.stores(true, true, "        "), "#pragma omp simd");
    std::string ni;
    for (std::size_t d = 0; d < r.ri; ++d) ni += (d ? " * " : "") + std::string("a->inner[") + std::to_string(d) + "]";
    body = template_text("cpu_reduce");
    fill(body, "LOOP1", l1);
    fill(body, "LOOP2", l2);
    fill(body, "PRE", r.emit(parts.pre, false, "  "));
    fill(body, "POST", r.emit(parts.epilogue, false, "  "));
    fill(body, "OUTER_STORES", r.stores(false, false, "    "));
    fill(body, "ACC_FIELDS", fields);
    fill(body, "ACC_INIT", init);
    fill(body, "ACC_SAVE", save);
    fill(body, "ACC_MERGE", merge);
    fill(body, "ACC_LOAD", load);
    fill(body, "NI_EXPR", ni);
    fill(body, "NRED", std::to_string(k.reductions.size()));
    fill(body, "RO", std::to_string(r.ro));
    fill(body, "RI", std::to_string(r.ri));
    fill(body, "NA", na);
    fill(body, "RANK", std::to_string(r.rank));
    fill(body, "PTRS", r.ptrs());
  }
  out.symbol = kernel_name(k, body);
  fill(body, "NAME", out.symbol);
  out.source = std::move(body);
  return out;
}

std::string translation_unit(const std::vector<Rendered>& kernels) {
  std::string tu = template_text("cpu_prelude");
  std::set<std::string> seen;
  for (const auto& k : kernels)
    if (seen.insert(k.symbol).second) tu += k.source;
  return tu;
}

}  // namespace cgrad::codegen
