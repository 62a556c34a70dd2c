// CPU renderer: fills the loop templates (templates/cpu_*.inc) with the SSA of a KernelSpec.
// One file per kernel kind: render_cpu_elementwise.cpp (no reduction), render_cpu_reduce.cpp
// (reductions, row kernels, staged reductions), render_cpu_scan.cpp (running combinations). This
// file picks the kind and holds the loop pieces they share (render_cpu_loops.h).
#include "codegen/render_cpu.h"

#include "codegen/kernel_parts.h"
#include "codegen/render_cpu_loops.h"
#include "codegen/render_scalar.h"

#include <cgrad/scalar.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

namespace cgrad::codegen {

using schedule::KernelSpec;

namespace cpu {

// The bands of cpu_range_band.inc: rows per band and columns per tile. A transposed access then
// reads 16 cache lines (and pages) for a row of the band, and the next rows read the same lines
// (16 f32 rows to a line); the best of 32-128 rows by 8-64 columns measured (docs/fusion.md).
constexpr int kBandRows = 128;
constexpr int kBandColumns = 16;

std::string Loops::off(int a, int64_t lead) const {
  std::string o = "o" + std::to_string(a);
  if (lead == 0 || k.accesses[static_cast<std::size_t>(a)].strides[0] == 0) return o;
  return "(" + o + " + " + std::to_string(lead) + " * d" + std::to_string(a) + ")";
}

std::string Loops::addr(int a, bool loop, int64_t lead) const {
  std::string p = "p" + std::to_string(a), o = off(a, lead), s = "s" + std::to_string(a);
  if (!loop) return p + "[base[" + std::to_string(a) + "]]";
  if (lead == 0 && is_staged(a)) return "f" + std::to_string(a) + "_[j - jb_]";
  return p + "[" + o + stride_term(k.accesses[static_cast<std::size_t>(a)], rank - 1, "j", s) + "]";
}

std::string Loops::index(int a, bool loop, int64_t lead) const {
  std::string o = off(a, lead), s = "s" + std::to_string(a);
  if (!loop) return "base[" + std::to_string(a) + "]";
  const std::string t = stride_term(k.accesses[static_cast<std::size_t>(a)], rank - 1, "j", s);
  return t.empty() ? o : "(" + o + t + ")";
}

std::string Loops::emit(const std::vector<int>& which, bool loop, const std::string& indent) const {
  return emit_instrs(
      k, which, indent, [&](int a) { return addr(a, loop); }, [&](int a) { return index(a, loop); });
}

std::string Loops::ptrs() const {
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

std::string Loops::hoist() const {
  std::string out;
  for (std::size_t a = 0; a < k.accesses.size(); ++a)
    out += "      const int64_t o" + std::to_string(a) + " = off_[" + std::to_string(a) +
           "]; const int64_t s" + std::to_string(a) + " = st[" + std::to_string(a) + "][" +
           std::to_string(rank - 1) + "]; (void)o" + std::to_string(a) + "; (void)s" + std::to_string(a) +
           ";\n";
  return out;
}

std::string Loops::tile_steps(const std::string& base, const std::string& indent) const {
  const std::string last = std::to_string(ro - 1), in = std::to_string(rank - 1);
  std::string out;
  for (std::size_t a = 0; a < k.accesses.size(); ++a) {
    const std::string A = std::to_string(a);
    out += indent + "const int64_t kb" + A + " = " + base + "[" + A + "], kt" + A + " = st[" + A + "][" +
           last + "], kj" + A + " = st[" + A + "][" + in + "];\n" + indent + "(void)kb" + A + ";\n" + indent +
           "(void)kt" + A + ";\n" + indent + "(void)kj" + A + ";\n";
  }
  return out;
}

std::string Loops::tile_index(int a, bool inner) const {
  const schedule::Access& acc = k.accesses[static_cast<std::size_t>(a)];
  const std::string A = std::to_string(a);
  return "(kb" + A + stride_term(acc, ro - 1, "t_", "kt" + A) +
         (inner ? stride_term(acc, rank - 1, "j", "kj" + A) : std::string()) + ")";
}

std::string Loops::range(const std::string& what, std::size_t first, std::size_t r, const std::string& sizes,
                         const std::string& begin, const std::string& end, const std::string& body,
                         const std::string& pragma, const Blocks& blocks, bool band) const {
  std::string t = template_text(r == 1 ? "cpu_range1" : "cpu_range");
  if (r >= 2)
    fill(t, "RUNS", template_text(band ? "cpu_range_band" : "cpu_range_runs"));  // (first: it has fields)
  fill(t, "TR", std::to_string(kBandRows));
  fill(t, "TC", std::to_string(kBandColumns));
  fill(t, "BLOCK_OPEN", blocks.open);
  fill(t, "BLOCK_CLOSE", blocks.close);
  fill(t, "BLOCK_START", blocks.start);
  fill(t, "BLOCK_FINISH", blocks.finish);
  fill(t, "LOOP",
       blocks.loop ? pragma + "\n      for (int64_t j = " + blocks.jb + "; j < " + blocks.je + "; ++j) {\n" +
                         body + "\n      }\n"
                   : std::string());
  fill(t, "WHAT", what);
  fill(t, "R", std::to_string(r));
  fill(t, "FIRST", std::to_string(first));
  fill(t, "SIZES", sizes);
  fill(t, "BASE", "base");
  fill(t, "BEGIN", begin);
  fill(t, "END", end);
  fill(t, "HOIST", hoist());
  return t;
}

std::string Loops::stores(bool inner_stores, bool loop, const std::string& indent) const {
  std::string out;
  for (auto& s : k.stores) {
    if (s.inner != inner_stores) continue;
    // A staged f16 store of a cast to f16 from a value held in float stores that value: the
    // block's conversion rounds it once, as the cast does (the cast is then dead code).
    int v = s.value;
    const schedule::Instr& in = k.code[static_cast<std::size_t>(v)];
    if (loop && is_staged(s.access) && in.kind == schedule::Instr::Kind::Op && in.op == ir::Op::Cast &&
        in.dtype == DType::f16 && compute_dtype(in.in_dtype) == DType::f32)
      v = in.args[0];
    out += indent + addr(s.access, loop) + " = " + value_name(v) + ";\n";
  }
  return out;
}

Rendered named(const KernelSpec& k, std::string body, Rendered out) {
  out.symbol = kernel_name(k, body);
  fill(body, "NAME", out.symbol);
  out.source = std::move(body);
  return out;
}

}  // namespace cpu

Rendered render_cpu(const KernelSpec& k) {
  if (is_scan(k)) return cpu::render_scan(k);
  if (k.reductions.empty()) return cpu::render_elementwise(k);
  return cpu::render_reduce(k);
}

namespace {
// The names the kernels call as cgrad::scalar::NAME: what the unit's prelude is chosen by.
std::set<std::string> called_helpers(const std::vector<std::string_view>& sources) {
  constexpr std::string_view kScalar = "cgrad::scalar::";
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  std::set<std::string> names;
  for (const std::string_view src : sources)
    for (std::size_t p = src.find(kScalar); p != std::string_view::npos; p = src.find(kScalar, p + 1)) {
      const std::size_t b = p + kScalar.size();
      std::size_t e = b;
      while (e < src.size() && word(src[e])) ++e;
      names.emplace(src.substr(b, e - b));
    }
  return names;
}
}  // namespace

// The unit defines CGRAD_KERNEL_USES_SIN (COS, TAN) when a kernel calls that function on f32
// values (sin_lanes: render_scalar.cpp), CGRAD_KERNEL_USES_SIN_F64 (...) on f64 values
// (sin_lanes_f64): include/cgrad/scalar.hpp then compiles the function's vector variants into the
// unit, and only then (about 40 ms each in a cold compile: docs/jit.md). It defines
// CGRAD_SCALAR_LEAN when every helper called is in the header's own CGRAD_SCALAR_LEAN_NAMES and no
// kernel names a complex type (dtypes.def writes them as cgrad::complex64_t and
// cgrad::complex128_t): the header's lean part, 6-9 ms less of a cold compile (2026-12-02;
// docs/jit.md, "The lean part of the header").
std::string cpu_prelude(const std::vector<std::string_view>& sources) {
  const std::set<std::string> called = called_helpers(sources);
  std::string uses;
  for (ir::Op op : kLanesOps)
    for (const LanesName& l : kLanesNames) {
      const char* f = ir::op_name(op);
      if (called.count(std::string(f) + l.suffix)) {
        std::string name = f;
        for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        uses += "#define CGRAD_KERNEL_USES_" + name + l.uses + " 1\n";
      }
    }
  constexpr std::string_view kLean = CGRAD_SCALAR_LEAN_NAMES;
  const bool lean =
      std::none_of(
          sources.begin(), sources.end(),
          [](std::string_view src) { return src.find("cgrad::complex") != std::string_view::npos; }) &&
      std::all_of(called.begin(), called.end(),
                  [&](const std::string& n) { return kLean.find(" " + n + " ") != std::string_view::npos; });
  if (lean) uses += "#define CGRAD_SCALAR_LEAN 1\n";
  return uses + template_text("cpu_prelude");
}

}  // namespace cgrad::codegen
