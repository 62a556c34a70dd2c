// CPU renderer: fills the loop templates with the SSA of a KernelSpec.
#include "codegen/render_cpu.h"

#include "codegen/render_scalar.h"

#include <cstdio>
#include <set>

namespace cgrad::codegen {

using schedule::Access;
using schedule::Instr;
using schedule::KernelSpec;
using schedule::StrideClass;

namespace {

// Per-row scratch of the row kernels (see render_cpu): at most this many values per inner
// element, this many inner elements (2 x 8192 doubles: 128 KiB of stack per thread).
constexpr std::size_t kMaxScratchValues = 2;
constexpr int64_t kScratchElements = 8192;
// Element-wise kernels whose dim 0 is at most this long may unroll it (Renderer::lead_body).
constexpr int64_t kMaxLead = 4;

void replace_all(std::string& s, const std::string& key, const std::string& value) {
  const std::string k = "{{" + key + "}}";
  for (std::size_t p = s.find(k); p != std::string::npos; p = s.find(k, p + value.size())) s.replace(p, k.size(), value);
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

StrideClass stride_class(const Access& a, std::size_t dim) {
  int64_t s = a.strides[dim];
  return s == 0 ? StrideClass::Zero : s == 1 ? StrideClass::One : StrideClass::Any;
}

struct Renderer {
  const KernelSpec& k;
  std::size_t ro, ri, rank;
  std::vector<char> inner, post;

  explicit Renderer(const KernelSpec& ks) : k(ks), ro(ks.outer.size()), ri(ks.inner.size()), rank(ro + ri) {
    inner.assign(k.code.size(), 0);
    post.assign(k.code.size(), 0);
    for (std::size_t i = 0; i < k.code.size(); ++i) {
      const Instr& in = k.code[i];
      if (in.access >= 0)
        for (std::size_t d = ro; d < rank; ++d)
          if (k.accesses[static_cast<std::size_t>(in.access)].strides[d] != 0) inner[i] = 1;
      if (in.kind == Instr::Kind::Acc) post[i] = 1;
      for (int a : in.args) {
        inner[i] |= inner[static_cast<std::size_t>(a)];
        post[i] |= post[static_cast<std::size_t>(a)];
      }
    }
  }

  // Instructions needed by `roots`, in order.
  std::vector<int> needed(const std::vector<int>& roots) const {
    std::vector<char> need(k.code.size(), 0);
    for (int r : roots) need[static_cast<std::size_t>(r)] = 1;
    for (std::size_t i = k.code.size(); i-- > 0;)
      if (need[i])
        for (int a : k.code[i].args) need[static_cast<std::size_t>(a)] = 1;
    std::vector<int> out;
    for (std::size_t i = 0; i < k.code.size(); ++i)
      if (need[i]) out.push_back(static_cast<int>(i));
    return out;
  }

  static std::string v(int i) { return "v" + std::to_string(i); }

  // Element and index expressions: inside a range loop (`loop`) or at the outer level.
  // `lead` > 0: the element `lead` indices further along dim 0 (the unrolled copies of the
  // lead-dim kernels; `d<a>` holds the access's dim-0 stride).
  std::string off(int a, int64_t lead) const {
    std::string o = "o" + std::to_string(a);
    if (lead == 0 || k.accesses[static_cast<std::size_t>(a)].strides[0] == 0) return o;
    return "(" + o + " + " + std::to_string(lead) + " * d" + std::to_string(a) + ")";
  }
  std::string addr(int a, bool loop, int64_t lead = 0) const {
    std::string p = "p" + std::to_string(a), o = off(a, lead), s = "s" + std::to_string(a);
    if (!loop) return p + "[base[" + std::to_string(a) + "]]";
    switch (stride_class(k.accesses[static_cast<std::size_t>(a)], rank - 1)) {
      case StrideClass::Zero: return p + "[" + o + "]";
      case StrideClass::One: return p + "[" + o + " + j]";
      default: return p + "[" + o + " + j * " + s + "]";
    }
  }
  std::string index(int a, bool loop, int64_t lead = 0) const {
    std::string o = off(a, lead), s = "s" + std::to_string(a);
    if (!loop) return "base[" + std::to_string(a) + "]";
    switch (stride_class(k.accesses[static_cast<std::size_t>(a)], rank - 1)) {
      case StrideClass::Zero: return o;
      case StrideClass::One: return "(" + o + " + j)";
      default: return "(" + o + " + j * " + s + ")";
    }
  }

  std::string emit(const std::vector<int>& which, bool loop, const std::string& indent) const {
    std::string out;
    for (int i : which) {
      const Instr& in = k.code[static_cast<std::size_t>(i)];
      out += indent + "const " + ctype(in.dtype) + " " + v(i) + " = " +
             render_instr(k, i, v, [&](int a) { return addr(a, loop); }, [&](int a) { return index(a, loop); }) + ";\n";
    }
    return out;
  }

  std::string ptrs() const {
    std::set<int> stored;
    for (auto& s : k.stores) stored.insert(s.access);
    std::string out;
    for (std::size_t a = 0; a < k.accesses.size(); ++a) {
      if (k.accesses[a].slot < 0) continue;
      std::string T = ctype(k.accesses[a].dtype);
      bool w = stored.count(static_cast<int>(a)) > 0;
      out += std::string("  ") + (w ? "" : "const ") + T + "* __restrict p" + std::to_string(a) + " = static_cast<" +
             (w ? "" : "const ") + T + "*>(a->bufs[" + std::to_string(a) + "]);\n";
    }
    for (std::size_t i = 0; i < k.code.size(); ++i) {
      const Instr& in = k.code[i];
      if (in.arg < 0) continue;
      bool f = in.kind == Instr::Kind::Const && (in.dtype == DType::f32 || in.dtype == DType::f64);
      out += std::string("  const ") + (f ? "double" : "int64_t") + " c" + std::to_string(i) + " = a->" +
             (f ? "fconsts[" : "iconsts[") + std::to_string(in.arg) + "]; (void)c" + std::to_string(i) + ";\n";
    }
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
    replace_all(t, "WHAT", what);
    replace_all(t, "R", std::to_string(r));
    replace_all(t, "FIRST", std::to_string(first));
    replace_all(t, "SIZES", sizes);
    replace_all(t, "BASE", "base");
    replace_all(t, "BEGIN", begin);
    replace_all(t, "END", end);
    replace_all(t, "HOIST", hoist());
    replace_all(t, "PRAGMA", pragma);
    replace_all(t, "BODY", body);
    return t;
  }

  // Lead-dim mode of an element-wise kernel (cpu_elementwise_lead): worth it when dim 0 is
  // small, every store moves along it, and more computed values ignore it than follow it.
  // Returns the loop body (values ignoring dim 0 once, the others per index of dim 0), or "".
  std::string lead_body(const std::vector<int>& which, const std::string& indent) const {
    if (ro < 2 || k.outer[0] < 2 || k.outer[0] > kMaxLead) return "";
    for (auto& st : k.stores)
      if (k.accesses[static_cast<std::size_t>(st.access)].strides[0] == 0) return "";
    std::vector<char> dep(k.code.size(), 0);
    int computed_once = 0, computed_each = 0;
    for (int i : which) {
      const Instr& in = k.code[static_cast<std::size_t>(i)];
      char d = in.access >= 0 && k.accesses[static_cast<std::size_t>(in.access)].strides[0] != 0;
      for (int a : in.args) d |= dep[static_cast<std::size_t>(a)];
      dep[static_cast<std::size_t>(i)] = d;
      if (in.kind == Instr::Kind::Op) ++(d ? computed_each : computed_once);
    }
    if (computed_once <= computed_each) return "";
    std::vector<int> once, each;
    for (int i : which) (dep[static_cast<std::size_t>(i)] ? each : once).push_back(i);
    std::string out = emit(once, true, indent);
    for (int64_t c = 0; c < k.outer[0]; ++c) {
      auto var = [&](int j) { return dep[static_cast<std::size_t>(j)] ? v(j) + "_" + std::to_string(c) : v(j); };
      for (int i : each)
        out += indent + "const " + ctype(k.code[static_cast<std::size_t>(i)].dtype) + " " + var(i) + " = " +
               render_instr(k, i, var, [&](int a) { return addr(a, true, c); }, [&](int a) { return index(a, true, c); }) +
               ";\n";
      for (auto& st : k.stores) out += indent + addr(st.access, true, c) + " = " + var(st.value) + ";\n";
    }
    return out;
  }

  std::string stores(bool inner_stores, bool loop, const std::string& indent) const {
    std::string out;
    for (auto& s : k.stores)
      if (s.inner == inner_stores) out += indent + addr(s.access, loop) + " = " + v(s.value) + ";\n";
    return out;
  }
};

}  // namespace

void normalize(KernelSpec& k) {
  if (k.kind != KernelSpec::Kind::Loop) return;
  k.fconsts.clear();
  k.iconsts.clear();
  for (auto& in : k.code) {
    if (in.kind == Instr::Kind::Const) {
      if (in.dtype == DType::f32 || in.dtype == DType::f64) {
        in.arg = static_cast<int>(k.fconsts.size());
        k.fconsts.push_back(in.fvalue);
      } else {
        in.arg = static_cast<int>(k.iconsts.size());
        k.iconsts.push_back(in.ivalue);
      }
    } else if (in.kind == Instr::Kind::Op && (in.op == ir::Op::Rand || in.op == ir::Op::Randn)) {
      in.arg = static_cast<int>(k.iconsts.size());
      k.iconsts.push_back(static_cast<int64_t>(in.seed));
    }
  }
  if (k.outer.empty()) {
    k.outer.push_back(1);
    for (auto& a : k.accesses) a.strides.insert(a.strides.begin(), 0);
  }
  if (!k.reductions.empty() && k.inner.empty()) {
    k.inner.push_back(1);
    for (auto& a : k.accesses) a.strides.push_back(0);
  }
}

Rendered render_cpu(const KernelSpec& k) {
  Renderer r(k);
  Rendered out;
  out.has_reductions = !k.reductions.empty();
  std::string body;
  const std::string na = std::to_string(k.accesses.size());
  if (!out.has_reductions) {
    std::vector<int> roots;
    for (auto& s : k.stores) roots.push_back(s.value);
    const std::string lead = r.lead_body(r.needed(roots), "        ");
    if (!lead.empty()) {
      std::string strides;
      for (std::size_t a = 0; a < k.accesses.size(); ++a)
        strides += "  const int64_t d" + std::to_string(a) + " = st[" + std::to_string(a) + "][0]; (void)d" +
                   std::to_string(a) + ";\n";
      body = template_text("cpu_elementwise_lead");
      replace_all(body, "RANGE",
                  r.range("elements of the other dims", 1, r.ro - 1, "(a->outer + 1)", "ib_", "ie_", lead, "#pragma omp simd"));
      replace_all(body, "LEAD_STRIDES", strides);
      replace_all(body, "LEAD", std::to_string(k.outer[0]));
      replace_all(body, "RO1", std::to_string(r.ro - 1));
    } else {
      std::string loop_body = r.emit(r.needed(roots), true, "        ") + r.stores(false, true, "        ");
      body = template_text("cpu_elementwise");
      replace_all(body, "RANGE", r.range("elements", 0, r.ro, "a->outer", "begin", "end", loop_body, "#pragma omp simd"));
    }
    replace_all(body, "RO", std::to_string(r.ro));
    replace_all(body, "NA", na);
    replace_all(body, "RANK", std::to_string(r.rank));
    replace_all(body, "PTRS", r.ptrs());
  } else {
    std::vector<int> red_roots, outer_roots, inner_roots;
    for (auto& red : k.reductions) red_roots.push_back(red.value);
    for (auto& s : k.stores) (s.inner ? inner_roots : outer_roots).push_back(s.value);
    std::vector<int> all_roots = red_roots;
    all_roots.insert(all_roots.end(), outer_roots.begin(), outer_roots.end());
    all_roots.insert(all_roots.end(), inner_roots.begin(), inner_roots.end());
    auto pick = [&](const std::vector<int>& roots, auto pred) {
      std::vector<int> res;
      for (int i : r.needed(roots))
        if (pred(static_cast<std::size_t>(i))) res.push_back(i);
      return res;
    };
    // outer-level values that do not need the accumulators: computed once per outer element
    auto pre = pick(all_roots, [&](std::size_t i) { return !r.inner[i] && !r.post[i]; });
    auto loop1 = pick(red_roots, [&](std::size_t i) { return r.inner[i] && !r.post[i]; });
    std::vector<int> post_roots = outer_roots;
    post_roots.insert(post_roots.end(), inner_roots.begin(), inner_roots.end());
    auto post = pick(post_roots, [&](std::size_t i) { return !r.inner[i] && r.post[i]; });
    auto loop2 = pick(inner_roots, [&](std::size_t i) { return r.inner[i]; });
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
                             r.emit(loop1, true, "        ") + combine, pragma);
    std::string l2 = inner_roots.empty()
                         ? std::string()
                         : r.range("inner stores", r.ro, r.ri, "a->inner", "jb", "je",
                                   r.emit(loop2, true, "        ") + r.stores(true, true, "        "), "#pragma omp simd");
    std::string ni;
    for (std::size_t d = 0; d < r.ri; ++d) ni += (d ? " * " : "") + std::string("a->inner[") + std::to_string(d) + "]";

    // Whole rows: when the inner stores need values the reduction loop computes too (softmax:
    // exp(x - max)), the reduction loop keeps them in a per-row scratch and the store loop reads
    // them back, so they are computed once per element. Only values the store loop reads
    // directly (the frontier of what both loops share) are kept, and only when one of them is
    // computed (re-reading a loaded value from its buffer costs the same as from the scratch).
    std::string rows = template_text("cpu_reduce_rows");
    {
      const std::set<int> in1(loop1.begin(), loop1.end());
      std::set<int> shared;
      for (int i : loop2)
        if (in1.count(i)) shared.insert(i);
      std::vector<int> frontier;
      bool computed = false;
      for (int i : shared) {
        bool read = false;
        for (auto& st : k.stores) read |= st.inner && st.value == i;
        for (int j : loop2)
          if (!shared.count(j))
            for (int a : k.code[static_cast<std::size_t>(j)].args) read |= a == i;
        if (!read) continue;
        frontier.push_back(i);
        computed |= k.code[static_cast<std::size_t>(i)].kind == Instr::Kind::Op;
      }
      if (computed && frontier.size() <= kMaxScratchValues) {
        std::string params, args, decl, keep, reload;
        for (std::size_t f = 0; f < frontier.size(); ++f) {
          const int i = frontier[f];
          const std::string T = ctype(k.code[static_cast<std::size_t>(i)].dtype), n = "scr" + std::to_string(f);
          params += ", " + T + "* __restrict " + n;
          args += ", " + n;
          decl += "  alignas(64) " + T + " " + n + "[" + std::to_string(kScratchElements) + "];\n";
          keep += "        " + n + "[i_ - jb + j] = " + Renderer::v(i) + ";\n";
          reload += "        const " + T + " " + Renderer::v(i) + " = " + n + "[i_ - jb + j];\n";
        }
        std::vector<int> rest;
        for (int i : loop2)
          if (!shared.count(i)) rest.push_back(i);
        const std::string s1 = r.range("reduction loop, keeping the shared values", r.ro, r.ri, "a->inner", "jb", "je",
                                       r.emit(loop1, true, "        ") + combine + keep, pragma);
        const std::string s2 = r.range("inner stores from the kept values", r.ro, r.ri, "a->inner", "jb", "je",
                                       reload + r.emit(rest, true, "        ") + r.stores(true, true, "        "),
                                       "#pragma omp simd");
        rows = template_text("cpu_reduce_scratch");
        replace_all(rows, "LOOP1", s1);
        replace_all(rows, "LOOP2", s2);
        replace_all(rows, "POST", r.emit(post, false, "  "));
        replace_all(rows, "OUTER_STORES", r.stores(false, false, "  "));
        replace_all(rows, "SCR_PARAMS", params);
        replace_all(rows, "SCR_ARGS", args);
        replace_all(rows, "SCR_DECL", decl);
        replace_all(rows, "SCR_N", std::to_string(kScratchElements));
      }
    }
    body = template_text("cpu_reduce");
    replace_all(body, "ROWS", rows);
    replace_all(body, "LOOP1", l1);
    replace_all(body, "LOOP2", l2);
    replace_all(body, "PRE", r.emit(pre, false, "  "));
    replace_all(body, "POST", r.emit(post, false, "  "));
    replace_all(body, "OUTER_STORES", r.stores(false, false, "    "));
    replace_all(body, "ACC_FIELDS", fields);
    replace_all(body, "ACC_INIT", init);
    replace_all(body, "ACC_SAVE", save);
    replace_all(body, "ACC_MERGE", merge);
    replace_all(body, "ACC_LOAD", load);
    replace_all(body, "NI_EXPR", ni);
    replace_all(body, "NRED", std::to_string(k.reductions.size()));
    replace_all(body, "RO", std::to_string(r.ro));
    replace_all(body, "RI", std::to_string(r.ri));
    replace_all(body, "NA", na);
    replace_all(body, "RANK", std::to_string(r.rank));
    replace_all(body, "PTRS", r.ptrs());
  }
  // Name: kind and ranks, plus a hash of the code; sizes are arguments, never part of the name.
  char name[64];
  std::snprintf(name, sizeof name, "%s_r%zu%s_%08llx", out.has_reductions ? "R" : "E", r.ro,
                out.has_reductions ? ("i" + std::to_string(r.ri)).c_str() : "",
                static_cast<unsigned long long>(fnv1a(body) & 0xffffffffULL));
  out.symbol = name;
  replace_all(body, "NAME", out.symbol);
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
