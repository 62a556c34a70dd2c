// CPU renderer: fills the loop templates with the SSA of a KernelSpec.
#include "codegen/render_cpu.h"

#include "codegen/kernel_parts.h"
#include "codegen/render_scalar.h"
#include "ir/op_table.h"

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
// f32 sums accumulate blocks of this many elements in float (red_loop in render_cpu).
constexpr int64_t kRedBlock = 512;

// The OpenMP reduction identifier that lets `#pragma omp simd` vectorize a reduction loop, from
// the combining row of the reduction's op-table row; empty when none is declared (the loop stays
// scalar, still correct). cgmax_T / cgmin_T are declared in templates/cpu_prelude.inc.
std::string omp_reduction_id(const schedule::Reduction& red) {
  const DType a = acc_dtype(red);
  const ir::Op c = ir::info(red.op).reduce.combine;
  if (is_complex(a)) return "";  // complex group: a struct accumulator, summed in a scalar loop
  if (c == ir::Op::Add) return "+";
  if (c == ir::Op::Mul) return a == DType::b8 ? "" : "*";
  if (c == ir::Op::LogicalOr) return "||";
  if (c == ir::Op::LogicalAnd) return "&&";
  if ((c == ir::Op::Maximum || c == ir::Op::Minimum) && a != DType::b8)
    return std::string(c == ir::Op::Maximum ? "cgmax_" : "cgmin_") + ctype(a);
  return "";
}

// How the innermost loop of a range is split into blocks (reduction loops with blocked
// accumulators, red_loop in render_cpu): code opening and closing a block, and its bounds.
struct Blocks {
  std::string open, close, jb = "0", je = "len_";
};

struct Renderer {
  const KernelSpec& k;
  std::size_t ro, ri, rank;

  explicit Renderer(const KernelSpec& ks) : k(ks), ro(ks.outer.size()), ri(ks.inner.size()), rank(ro + ri) {}

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
    return emit_instrs(
        k, which, indent, [&](int a) { return addr(a, loop); }, [&](int a) { return index(a, loop); });
  }

  std::string ptrs() const {
    std::string out;
    for (std::size_t a = 0; a < k.accesses.size(); ++a) {
      if (k.accesses[a].slot < 0) continue;
      std::string T = storage_ctype(k.accesses[a].dtype);
      bool w = is_stored(k, static_cast<int>(a));
      out += std::string("  ") + (w ? "" : "const ") + T + "* __restrict p" + std::to_string(a) +
             " = static_cast<" + (w ? "" : "const ") + T + "*>(a->bufs[" + std::to_string(a) + "]);\n";
    }
    out += const_decls(
        k, "  ", [](int arg) { return "a->fconsts[" + std::to_string(arg) + "]"; },
        [](int arg) { return "a->iconsts[" + std::to_string(arg) + "]"; });
    return out + "  (void)a;\n";
  }

  std::string hoist() const {
    std::string out;
    for (std::size_t a = 0; a < k.accesses.size(); ++a)
      out += "      const int64_t o" + std::to_string(a) + " = off_[" + std::to_string(a) +
             "]; const int64_t s" + std::to_string(a) + " = st[" + std::to_string(a) + "][" +
             std::to_string(rank - 1) + "]; (void)o" + std::to_string(a) + "; (void)s" + std::to_string(a) +
             ";\n";
    return out;
  }

  std::string range(const std::string& what, std::size_t first, std::size_t r, const std::string& sizes,
                    const std::string& begin, const std::string& end, const std::string& body,
                    const std::string& pragma, const Blocks& blocks = Blocks()) const {
    std::string t = template_text(r == 1 ? "cpu_range1" : "cpu_range");
    fill(t, "BLOCK_OPEN", blocks.open);
    fill(t, "BLOCK_CLOSE", blocks.close);
    fill(t, "JB", blocks.jb);
    fill(t, "JE", blocks.je);
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
      auto var = [&](int j) {
        return dep[static_cast<std::size_t>(j)] ? value_name(j) + "_" + std::to_string(c) : value_name(j);
      };
      for (int i : each)
        out += indent + "const " + ctype(k.code[static_cast<std::size_t>(i)].dtype) + " " + var(i) + " = " +
               render_instr(
                   k, i, var, [&](int a) { return addr(a, true, c); },
                   [&](int a) { return index(a, true, c); }) +
               ";\n";
      for (auto& st : k.stores) out += indent + addr(st.access, true, c) + " = " + var(st.value) + ";\n";
    }
    return out;
  }

  std::string stores(bool inner_stores, bool loop, const std::string& indent) const {
    std::string out;
    for (auto& s : k.stores)
      if (s.inner == inner_stores) out += indent + addr(s.access, loop) + " = " + value_name(s.value) + ";\n";
    return out;
  }
};

// A scan kernel (scan group): the thread pool splits outer elements; each runs its row
// sequentially (normalize() gives every reduction kernel one inner dim), keeping the running
// accumulators in registers and storing them at every element.
Rendered render_cpu_scan(const KernelSpec& k) {
  Renderer r(k);
  const std::size_t last = r.rank - 1;
  auto at = [&](int a) {
    const std::string o = "off_[" + std::to_string(a) + "]";
    switch (stride_class(k.accesses[static_cast<std::size_t>(a)], last)) {
      case StrideClass::Zero: return o;
      case StrideClass::One: return "(" + o + " + j)";
      default: return "(" + o + " + j * st[" + std::to_string(a) + "][" + std::to_string(last) + "])";
    }
  };
  std::string init;
  for (std::size_t i = 0; i < k.reductions.size(); ++i)
    init += "    " + acc_ctype(k.reductions[i]) + " acc" + std::to_string(i) + " = " +
            acc_identity(k.reductions[i]) + ";\n";
  const std::string na = std::to_string(k.accesses.size()), rank = std::to_string(r.rank);
  std::string body = "\n// Scan kernel: outer elements [begin, end) of " + std::to_string(r.ro) +
                     " dims, each a sequential running combination along the inner dim.\n"
                     "CGRAD_EXPORT void {{NAME}}(const cgrad_kargs* a, int64_t begin, int64_t end) {\n"
                     "  constexpr int NA = " +
                     na + ";\n  constexpr int RANK = " + rank + ";\n" + r.ptrs() +
                     "  int64_t st[NA][RANK];\n  for (int k = 0; k < NA; ++k)\n"
                     "    for (int d = 0; d < RANK; ++d) st[k][d] = a->strides[k * RANK + d];\n"
                     "  const int64_t n_ = a->inner[0];\n"
                     "  for (int64_t o_ = begin; o_ < end; ++o_) {\n"
                     "    int64_t off_[NA];\n    for (int k = 0; k < NA; ++k) off_[k] = a->offsets[k];\n"
                     "    int64_t rem_ = o_;\n    for (int d = " +
                     std::to_string(r.ro) +
                     " - 1; d >= 0; --d) {\n"
                     "      const int64_t id_ = rem_ % a->outer[d];\n      rem_ /= a->outer[d];\n"
                     "      for (int k = 0; k < NA; ++k) off_[k] += id_ * st[k][d];\n    }\n" +
                     init + "    for (int64_t j = 0; j < n_; ++j) {\n" +
                     scan_body(
                         k, "      ", [&](int a) { return "p" + std::to_string(a) + "[" + at(a) + "]"; },
                         [&](int a) { return at(a); }) +
                     "    }\n  }\n}\n";
  Rendered out;  // has_reductions stays false: the entry takes whole outer elements only
  out.symbol = kernel_name(k, body);
  fill(body, "NAME", out.symbol);
  out.source = std::move(body);
  return out;
}

}  // namespace

Rendered render_cpu(const KernelSpec& k) {
  if (is_scan(k)) return render_cpu_scan(k);
  Renderer r(k);
  const KernelParts parts = split_kernel(k);
  Rendered out;
  out.has_reductions = !k.reductions.empty();
  std::string body;
  const std::string na = std::to_string(k.accesses.size());
  if (!out.has_reductions) {
    const std::string lead = r.lead_body(parts.elementwise, "        ");
    if (!lead.empty()) {
      std::string strides;
      for (std::size_t a = 0; a < k.accesses.size(); ++a)
        strides += "  const int64_t d" + std::to_string(a) + " = st[" + std::to_string(a) + "][0]; (void)d" +
                   std::to_string(a) + ";\n";
      body = template_text("cpu_elementwise_lead");
      fill(body, "RANGE",
           r.range("elements of the other dims", 1, r.ro - 1, "(a->outer + 1)", "ib_", "ie_", lead,
                   "#pragma omp simd"));
      fill(body, "LEAD_STRIDES", strides);
      fill(body, "LEAD", std::to_string(k.outer[0]));
      fill(body, "RO1", std::to_string(r.ro - 1));
    } else {
      std::string loop_body = r.emit(parts.elementwise, true, "        ") + r.stores(false, true, "        ");
      body = template_text("cpu_elementwise");
      fill(body, "RANGE",
           r.range("elements", 0, r.ro, "a->outer", "begin", "end", loop_body, "#pragma omp simd"));
    }
    fill(body, "RO", std::to_string(r.ro));
    fill(body, "NA", na);
    fill(body, "RANK", std::to_string(r.rank));
    fill(body, "PTRS", r.ptrs());
  } else {
    std::string fields, init, save, merge, load;

    for (std::size_t i = 0; i < k.reductions.size(); ++i) {
      const auto& red = k.reductions[i];
      std::string A = acc_ctype(red), n = "acc" + std::to_string(i);
      fields += "  " + A + " " + n + ";\n";
      init += "  " + A + " " + n + " = " + acc_identity(red) + ";\n";
      save += "  r->" + n + " = " + n + ";\n";
      load += "  const " + A + " " + n + " = r->" + n + ";\n";
      std::string m = acc_combine(red, "dst->" + n, "src->" + n);
      merge += "  " + m + ";\n";
    }
    // A reduction loop over [jb, je) accumulating the reductions of `stage` (-1: all of them)
    // after `loop`; `keep` runs after the accumulation. f32 sums accumulate in double, but
    // converting every element halves the vector width and made sum(a*b) f32 run at half the
    // memory bandwidth; so each block of kRedBlock elements sums in float (per SIMD lane:
    // kRedBlock / lanes terms) and only the block sums are added in double (docs/semantics.md).
    auto red_loop = [&](const std::string& what, const std::string& loop, int stage,
                        const std::string& keep) {
      std::string pragma = "#pragma omp simd", combine;
      Blocks blocks;
      bool vector = true;
      for (std::size_t i = 0; i < k.reductions.size(); ++i) {
        const auto& red = k.reductions[i];
        if (stage >= 0 && parts.red_stage[i] != stage) continue;
        const std::string n = "acc" + std::to_string(i), v = "v" + std::to_string(red.value);
        const ir::ReduceRule& rule = ir::info(red.op).reduce;
        if (rule.combine == ir::Op::Add && red.in_dtype == DType::f32 && acc_dtype(red) == DType::f64) {
          const std::string b = "blk" + std::to_string(i);
          blocks.open += "      float " + b + " = 0.0f;\n";
          blocks.close += "      " + n + " = cgrad::scalar::add(" + n + ", (double)" + b + ");\n";
          combine += "        " + b + " = cgrad::scalar::add(" + b + ", " + v + ");\n";
          pragma += " reduction(+:" + b + ")";
          continue;
        }
        combine += "        " + acc_combine(red, n, v) + ";\n";
        const std::string id = omp_reduction_id(red);
        if (id.empty())
          vector = false;  // no vector form declared: a scalar loop
        else
          pragma += " reduction(" + id + ":" + n + ")";
      }
      if (!blocks.open.empty()) {
        blocks.open = "      for (int64_t jb_ = 0; jb_ < len_; jb_ += " + std::to_string(kRedBlock) +
                      ") {\n      const int64_t je_ = len_ - jb_ < " + std::to_string(kRedBlock) +
                      " ? len_ : jb_ + " + std::to_string(kRedBlock) + ";\n" + blocks.open;
        blocks.close += "      }\n";
        blocks.jb = "jb_";
        blocks.je = "je_";
      }
      return r.range(what, r.ro, r.ri, "a->inner", "jb", "je", loop + combine + keep,
                     vector ? pragma : std::string(), blocks);
    };
    std::string l1 = red_loop("reduction loop", r.emit(parts.stage_loop[0], true, "        "), -1, "");
    std::string l2 = parts.inner_roots.empty()
                         ? std::string()
                         : r.range("inner stores", r.ro, r.ri, "a->inner", "jb", "je",
                                   r.emit(parts.loop2, true, "        ") + r.stores(true, true, "        "),
                                   "#pragma omp simd");
    std::string ni;
    for (std::size_t d = 0; d < r.ri; ++d)
      ni += (d ? " * " : "") + std::string("a->inner[") + std::to_string(d) + "]";

    // Whole rows: when the inner stores need values the (last) reduction loop computes too (softmax:
    // exp(x - max)), the reduction loop keeps them in a per-row scratch and the store loop reads
    // them back, so they are computed once per element. Only values the store loop reads
    // directly (the frontier of what both loops share) are kept, and only when one of them is
    // computed (re-reading a loaded value from its buffer costs the same as from the scratch).
    // One kept value that an inner store writes (softmax: exp(x - max), stored as e * (1/sum))
    // is kept in that store's own output element instead (`in_output`): the store loop reads it
    // back from there and overwrites it, as a hand-written softmax does. This saves the scratch
    // row's traffic (about 10% of a 4096-wide f32 softmax) and has no row-length limit. It needs
    // the store loop to read no buffer (a row kernel's output never aliases its inputs: in-place
    // writes are for element-wise kernels only, docs/plans.md) and the store to move along every
    // inner dim (each element of the row has its own output element).
    struct Scratch {
      bool used = false, in_output = false;
      std::string params, args, decl, keep, reload;
      std::vector<int> rest;  // the store loop's instructions not read back
    };
    auto scratch_for = [&](const std::vector<int>& loop) {
      Scratch sc;
      const std::set<int> in1(loop.begin(), loop.end());
      std::set<int> shared;
      for (int i : parts.loop2)
        if (in1.count(i)) shared.insert(i);
      std::vector<int> frontier;
      bool computed = false;
      for (int i : shared) {
        bool read = false;
        for (auto& st : k.stores) read |= st.inner && st.value == i;
        for (int j : parts.loop2)
          if (!shared.count(j))
            for (int a : k.code[static_cast<std::size_t>(j)].args) read |= a == i;
        if (!read) continue;
        frontier.push_back(i);
        computed |= k.code[static_cast<std::size_t>(i)].kind == Instr::Kind::Op;
      }
      if (!computed || frontier.size() > kMaxScratchValues) return sc;
      sc.used = true;
      for (int i : parts.loop2)
        if (!shared.count(i)) sc.rest.push_back(i);
      bool reads = false;
      for (int i : sc.rest) reads |= k.code[static_cast<std::size_t>(i)].access >= 0;
      if (frontier.size() == 1 && !reads) {
        const Instr& kept = k.code[static_cast<std::size_t>(frontier[0])];
        for (auto& st : k.stores) {
          const Access& acc = k.accesses[static_cast<std::size_t>(st.access)];
          // (not a 16-bit float output: keeping the value there would round it)
          bool moves = st.inner && acc.dtype == kept.dtype && compute_dtype(acc.dtype) == acc.dtype;
          for (std::size_t d = r.ro; d < r.rank; ++d) moves = moves && acc.strides[d] != 0;
          if (!moves) continue;
          sc.in_output = true;
          const std::string T = ctype(kept.dtype), v = value_name(frontier[0]), at = r.addr(st.access, true);
          sc.keep = "        " + at + " = " + v + ";\n";
          sc.reload = "        const " + T + " " + v + " = " + at + ";\n";
          return sc;
        }
      }
      for (std::size_t f = 0; f < frontier.size(); ++f) {
        const int i = frontier[f];
        const std::string T = ctype(k.code[static_cast<std::size_t>(i)].dtype), n = "scr" + std::to_string(f);
        sc.params += ", " + T + "* __restrict " + n;
        sc.args += ", " + n;
        sc.decl += "    alignas(64) " + T + " " + n + "[" + std::to_string(kScratchElements) + "];\n";
        sc.keep += "        " + n + "[i_ - jb + j] = " + value_name(i) + ";\n";
        sc.reload += "        const " + T + " " + value_name(i) + " = " + n + "[i_ - jb + j];\n";
      }
      return sc;
    };
    // A function computing whole outer elements (rows), one loop per stage (a single-stage kernel
    // has one): with `sc` (scratch), the last stage keeps the values the store loop shares with
    // it and the store loop reads them back; without, the store loop computes them again.
    const Scratch sc = scratch_for(parts.stage_loop.back());
    auto row_fn = [&](const std::string& suffix, bool scratch) {
      std::string f = "static inline void " + std::string("{{NAME}}") + suffix +
                      "(const cgrad_kargs* a, int64_t o, int64_t jb, int64_t je" +
                      (scratch ? sc.params : "") + ") {\n" + "  constexpr int NA = " + na + ";\n" + r.ptrs() +
                      "  int64_t st[NA][" + std::to_string(r.rank) +
                      "];\n  int64_t base[NA];\n  {{NAME}}_base(a, o, st, base);\n" +
                      r.emit(parts.pre, false, "  ") + init;
      for (std::size_t s = 0; s < parts.stages(); ++s) {
        f += r.emit(parts.stage_pre[s], false, "  ");
        const bool last = s + 1 == parts.stages();
        f += red_loop("stage " + std::to_string(s) + " reduction loop",
                      r.emit(parts.stage_loop[s], true, "        "), static_cast<int>(s),
                      last && scratch ? sc.keep : "");
      }
      f += r.emit(parts.epilogue, false, "  ") + r.stores(false, false, "  ");
      if (!parts.inner_roots.empty())
        f += scratch
                 ? r.range("inner stores from the kept values", r.ro, r.ri, "a->inner", "jb", "je",
                           sc.reload + r.emit(sc.rest, true, "        ") + r.stores(true, true, "        "),
                           "#pragma omp simd")
                 : l2;
      return f + "  (void)jb; (void)je;\n}\n\n";
    };
    // Rows run the row function that keeps values when it applies: always when they are kept in
    // the output, when the row fits the scratch otherwise; the other rows run `fallback`.
    auto entry_with = [&](const std::string& fallback) {
      if (!sc.used) return fallback;
      if (sc.in_output)
        return std::string("  for (int64_t o = begin; o < end; ++o) {{NAME}}_row_kept(a, o, 0, ni);");
      return "  if (ni <= " + std::to_string(kScratchElements) + ") {\n" + sc.decl +
             "    for (int64_t o = begin; o < end; ++o) {{NAME}}_row_kept(a, o, 0, ni" + sc.args +
             ");\n    return;\n  }\n" + fallback;
    };
    if (parts.stages() > 1) {
      // Staged reductions (cpu_reduce_staged): whole rows only.
      body = template_text("cpu_reduce_staged");
      // _row (recomputing the kept values) is only needed when not every row can keep them
      fill(body, "ROW_FUNCTIONS",
           (sc.in_output ? std::string() : row_fn("_row", false)) +
               (sc.used ? row_fn("_row_kept", true) : std::string()));
      fill(body, "ENTRY", entry_with("  for (int64_t o = begin; o < end; ++o) {{NAME}}_row(a, o, 0, ni);"));
      fill(body, "NSTAGES", std::to_string(parts.stages()));
      fill(body, "SCR_N", std::to_string(kScratchElements));
      fill(body, "NI_EXPR", ni);
      fill(body, "RO", std::to_string(r.ro));
      fill(body, "RI", std::to_string(r.ri));
      fill(body, "NA", na);
      fill(body, "RANK", std::to_string(r.rank));
      out.whole_rows = true;
      out.symbol = kernel_name(k, body);
      fill(body, "NAME", out.symbol);
      out.source = std::move(body);
      return out;
    }
    // One stage: the entry runs whole rows through _part and _fin (which also serve rows split
    // into chunks), or through the row function that keeps values when it pays (the second
    // kernel of a softmax that is not staged: rule 5).
    std::string rows = template_text("cpu_reduce_rows");
    fill(rows, "ROW_FUNCTIONS", sc.used ? row_fn("_row_kept", true) : std::string());
    fill(rows, "ENTRY",
         entry_with("  {{NAME}}_acc acc;\n  for (int64_t o = begin; o < end; ++o) {\n"
                    "    {{NAME}}_part(a, o, 0, ni, &acc);\n    {{NAME}}_fin(a, o, &acc, 0, ni, 1);\n  }"));
    body = template_text("cpu_reduce");
    fill(body, "ROWS", rows);
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
  return unique_sources(template_text("cpu_prelude"), kernels);
}

}  // namespace cgrad::codegen
