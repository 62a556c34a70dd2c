// CPU renderer, element-wise kernels (no reduction): the thread pool splits the flattened outer
// elements; each range runs templates/cpu_elementwise.inc, or cpu_elementwise_lead.inc when a
// short dim 0 is worth unrolling (lead_body).
#include "codegen/kernel_parts.h"
#include "codegen/render_cpu_loops.h"
#include "codegen/render_scalar.h"

namespace cgrad::codegen::cpu {

using schedule::Instr;
using schedule::KernelSpec;

namespace {

// Element-wise kernels whose dim 0 is at most this long may unroll it (lead_body).
constexpr int64_t kMaxLead = 4;

// Lead-dim mode of an element-wise kernel (cpu_elementwise_lead): worth it when dim 0 is
// small, every store moves along it, and more computed values ignore it than follow it.
// Returns the loop body (values ignoring dim 0 once, the others per index of dim 0), or "".
std::string lead_body(const Loops& r, const std::vector<int>& which, const std::string& indent) {
  const KernelSpec& k = r.k;
  if (r.ro < 2 || k.outer[0] < 2 || k.outer[0] > kMaxLead) return "";
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
  std::string out = r.emit(once, true, indent);
  for (int64_t c = 0; c < k.outer[0]; ++c) {
    auto var = [&](int j) {
      return dep[static_cast<std::size_t>(j)] ? value_name(j) + "_" + std::to_string(c) : value_name(j);
    };
    for (int i : each)
      out += indent + "const " + ctype(k.code[static_cast<std::size_t>(i)].dtype) + " " + var(i) + " = " +
             render_instr(
                 k, i, var, [&](int a) { return r.addr(a, true, c); },
                 [&](int a) { return r.index(a, true, c); }) +
             ";\n";
    for (auto& st : k.stores) out += indent + r.addr(st.access, true, c) + " = " + var(st.value) + ";\n";
  }
  return out;
}

// Elements per block of the f16 staging below: its float arrays stay in L1 (1 KiB each).
constexpr int kF16Block = 256;

// f16 accesses that move by one element along the innermost dim are staged: each block of
// kF16Block elements is converted to (loads) or from (stores) a float array in one call of
// f16_block_load / f16_block_store (include/cgrad/scalar.hpp), which use the CPU's conversion
// instructions where it has them (F16C), and the loop reads and writes the arrays. Converted
// element by element in the loop, with integer operations (GCC 12 vectorizes no f16 conversion
// instruction without AVX512-FP16), the conversions took 40% of exp of 2^22 f16. Marks the
// staged accesses in `r.staged` and returns the blocks; empty when no access is staged.
Blocks f16_blocks(Loops& r) {
  const KernelSpec& k = r.k;
  Blocks b;
  r.staged.assign(k.accesses.size(), 0);
  std::vector<char> loaded(k.accesses.size(), 0);
  for (const Instr& in : k.code)
    if (in.kind == Instr::Kind::Load) loaded[static_cast<std::size_t>(in.access)] = 1;
  std::string loads, stores;
  for (std::size_t a = 0; a < k.accesses.size(); ++a) {
    const schedule::Access& acc = k.accesses[a];
    const bool stored = is_stored(k, static_cast<int>(a));
    if (acc.dtype != DType::f16 || acc.slot < 0 || acc.indirect || stored == static_cast<bool>(loaded[a]) ||
        stride_class(acc, r.rank - 1) != schedule::StrideClass::One)
      continue;  // (an access both read and written, were there one, is left as it is)
    r.staged[a] = 1;
    const std::string A = std::to_string(a), at = "&p" + A + "[o" + A + " + jb_]";
    b.open += "      float f" + A + "_[" + std::to_string(kF16Block) + "];\n";
    if (stored)
      stores += "      cgrad::scalar::f16_block_store(f" + A + "_, " + at + ", je_ - jb_);\n";
    else
      loads += "      cgrad::scalar::f16_block_load(" + at + ", f" + A + "_, je_ - jb_);\n";
  }
  if (b.open.empty()) {
    r.staged.clear();
    return b;
  }
  const std::string B = std::to_string(kF16Block);
  b.open = "      for (int64_t jb_ = 0; jb_ < len_; jb_ += " + B +
           ") {\n      const int64_t je_ = len_ - jb_ < " + B + " ? len_ : jb_ + " + B + ";\n" + b.open +
           loads;
  b.close = stores + "      }\n";
  b.jb = "jb_";
  b.je = "je_";
  return b;
}

// Whether the rows of an element-wise range go by bands (cpu_range_band.inc): an access moves by
// 1 along the second innermost dim and by more along the innermost (a transposed read or
// write), which row by row reads one cache line, and one page, per element (M.T + 1 of a
// 2048 x 2048 f32 matrix: 24 ms on one thread, 3.5 by bands; NumPy's copy of M.T 23).
bool banded(const Loops& r) {
  if (r.ro < 2) return false;
  for (const schedule::Access& acc : r.k.accesses)
    if (acc.slot >= 0 && !acc.indirect && stride_class(acc, r.rank - 1) == schedule::StrideClass::Any &&
        stride_class(acc, r.rank - 2) == schedule::StrideClass::One)
      return true;
  return false;
}

// `#pragma omp simd` for the element loop, except where a value is complex: GCC 12 then keeps
// each lane's complex_t in a per-lane array ("more than one data ref") and vectorizes nothing,
// where left alone it vectorizes such loops (|z| of 2^22 c64: 26.8 -> 1.3 ms with the f32 hypot).
// An access whose stride along the loop is known only at run time (a column of a matrix, every
// k-th element) is vectorized only while its elements lie under kVecStrideBytes apart: a vector
// of elements a cache line apart is built by one load and one insert per lane, and the loop ran
// at half the speed of the scalar one (2^20 f32 a column of 2^20 x 16: 6.7 -> 3.0 ms; strides of
// 4 f32: 0.44 either way). The `if(simd: ...)` clause makes GCC keep both loops and pick one.
// Not in bands of rows (`strided` false) or lead-dim kernels: their strided reads come from tiles
// in L1, where the vector loop stays faster (X + X.T of 4096 x 4096 f32: 28 ms, 39 with the clause).
constexpr int64_t kVecStrideBytes = 32;
std::string simd_pragma(const KernelSpec& k, const Loops& r, bool strided) {
  for (const Instr& in : k.code)
    if (is_complex(in.dtype)) return "";
  if (!strided) return "#pragma omp simd";
  std::string cond;
  for (std::size_t a = 0; a < k.accesses.size(); ++a) {
    const schedule::Access& acc = k.accesses[a];
    if (acc.slot < 0 || acc.indirect || stride_class(acc, r.rank - 1) != schedule::StrideClass::Any) continue;
    const std::string lim = std::to_string(kVecStrideBytes / static_cast<int64_t>(dtype_size(acc.dtype)));
    const std::string s = "s" + std::to_string(a);
    cond += std::string(cond.empty() ? "" : " && ") + s + " > -" + lim + " && " + s + " < " + lim;
  }
  return cond.empty() ? "#pragma omp simd" : "#pragma omp simd if(simd: " + cond + ")";
}

}  // namespace

Rendered render_elementwise(const KernelSpec& k) {
  Loops r(k);
  const KernelParts parts = split_kernel(k);
  std::string body;
  const std::string lead = lead_body(r, parts.elementwise, "        ");
  if (!lead.empty()) {
    std::string strides;
    for (std::size_t a = 0; a < k.accesses.size(); ++a)
      strides += "  const int64_t d" + std::to_string(a) + " = st[" + std::to_string(a) + "][0]; (void)d" +
                 std::to_string(a) + ";\n";
    body = template_text("cpu_elementwise_lead");
    fill(body, "RANGE",
         r.range("elements of the other dims", 1, r.ro - 1, "(a->outer + 1)", "ib_", "ie_", lead,
                 simd_pragma(k, r, false)));
    fill(body, "LEAD_STRIDES", strides);
    fill(body, "LEAD", std::to_string(k.outer[0]));
    fill(body, "RO1", std::to_string(r.ro - 1));
  } else {
    const Blocks blocks = f16_blocks(r);
    std::string loop_body = r.emit(parts.elementwise, true, "        ") + r.stores(false, true, "        ");
    body = template_text("cpu_elementwise");
    const bool band = banded(r);
    fill(body, "RANGE",
         r.range("elements", 0, r.ro, "a->outer", "begin", "end", loop_body, simd_pragma(k, r, !band), blocks,
                 band));
  }
  fill(body, "RO", std::to_string(r.ro));
  fill(body, "NA", std::to_string(k.accesses.size()));
  fill(body, "RANK", std::to_string(r.rank));
  fill(body, "PTRS", r.ptrs());
  return named(k, std::move(body));
}

}  // namespace cgrad::codegen::cpu
