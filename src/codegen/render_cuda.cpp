// CUDA renderer: fills the cuda_*.inc templates with the SSA of a KernelSpec (render_cuda.h).
#include "codegen/render_cuda.h"

#include "codegen/render_cpu.h"
#include "codegen/render_scalar.h"
#include "core/dtype.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace cgrad::codegen {

using schedule::KernelSpec;
using schedule::StrideClass;

namespace {

std::string str(std::size_t v) { return std::to_string(v); }

struct CudaRenderer {
  const KernelSpec& k;
  std::size_t ro, ri, rank, na;

  explicit CudaRenderer(const KernelSpec& ks)
      : k(ks), ro(ks.outer.size()), ri(ks.inner.size()), rank(ro + ri), na(ks.accesses.size()) {}

  // Element and index of access a: `x<a>` inside a loop, `base[a]` at the outer level.
  std::string addr(int a, bool loop) const { return "p" + std::to_string(a) + "[" + index(a, loop) + "]"; }
  std::string index(int a, bool loop) const {
    return loop ? "x" + std::to_string(a) : "base[" + std::to_string(a) + "]";
  }
  std::string emit(const std::vector<int>& which, bool loop, const std::string& indent) const {
    return emit_instrs(
        k, which, indent, [&](int a) { return addr(a, loop); }, [&](int a) { return index(a, loop); });
  }

  std::string ptrs() const {
    std::string out;
    for (std::size_t a = 0; a < na; ++a) {
      if (k.accesses[a].slot < 0) continue;
      const std::string T = storage_ctype(k.accesses[a].dtype);
      const bool w = is_stored(k, static_cast<int>(a));
      out += std::string("  ") + (w ? "" : "const ") + T + "* __restrict__ p" + str(a) + " = static_cast<" +
             (w ? "" : "const ") + T + "*>(a.bufs[" + str(a) + "]);\n";
    }
    return out + const_decls(
                     k, "  ", [](int arg) { return "a.fc[" + std::to_string(arg) + "]"; },
                     [](int arg) { return "a.ic[" + std::to_string(arg) + "]"; });
  }

  // Unravels the flat index `flat` over `r` loop dims starting at `first` (sizes `sizes`) and
  // sets `target<a>` = `start(a)` + sum of index * stride for every access. The innermost dim
  // of the whole nest uses the access's stride class (0: no term, 1: no multiply).
  std::string offsets(const std::string& flat, std::size_t first, std::size_t r, const std::string& sizes,
                      const std::string& target, const std::function<std::string(std::size_t)>& start,
                      const std::string& indent) const {
    std::string out = indent + "long long r_ = " + flat + ";\n";
    for (std::size_t d = r; d-- > 0;) {
      const std::string id = "i" + str(d) + "_";
      if (d == 0) {
        out += indent + "const long long " + id + " = r_;\n";
      } else {
        const std::string n = sizes + "[" + str(d) + "]";
        out += indent + "const long long " + id + " = r_ % " + n + ";\n" + indent + "r_ /= " + n + ";\n";
      }
    }
    for (std::size_t a = 0; a < na; ++a) {
      std::string e = start(a);
      for (std::size_t d = 0; d < r; ++d) {
        const std::size_t dim = first + d;
        const std::string id = "i" + str(d) + "_";
        if (dim == rank - 1) {
          StrideClass c = stride_class(k.accesses[a], dim);
          if (c == StrideClass::Zero) continue;
          if (c == StrideClass::One) {
            e += " + " + id;
            continue;
          }
        }
        e += " + " + id + " * a.st[" + str(a) + "][" + str(dim) + "]";
      }
      out += indent + "const long long " + target + str(a) + " = " + e + "; (void)" + target + str(a) + ";\n";
    }
    return out;
  }

  // Element-wise kernels over one flat dim: unit-stride accesses of 4- and 8-byte elements are
  // read and written 16 bytes at a time (float4, int4; two double2 or longlong2), four elements
  // a thread, when every such address is 16-byte aligned (checked once per launch); the rest,
  // and the tail, run element by element.
  static constexpr int kLanes = 4;
  bool vectorizable(std::size_t a) const {
    const auto& acc = k.accesses[a];
    return acc.slot >= 0 && !acc.indirect && acc.dtype != DType::b8 &&
           !is_complex(acc.dtype) &&  // (complex group)
           dtype_size(acc.dtype) >= 4 && stride_class(acc, rank - 1) == StrideClass::One;
  }
  // The 16-byte vector type of an access and how many elements one holds.
  std::string vtype(std::size_t a) const {
    switch (k.accesses[a].dtype) {
      case DType::f32: return "float4";
      case DType::i32: return "int4";
      case DType::u32: return "uint4";
      case DType::f64: return "double2";
      case DType::u64: return "ulonglong2";
      default: return "longlong2";  // i64 (vectorizable() admits 4- and 8-byte dtypes only)
    }
  }
  int per_vector(std::size_t a) const { return 16 / static_cast<int>(dtype_size(k.accesses[a].dtype)); }
  // Vector `j` of access a in one iteration: q<a>_<j>.
  static std::string qname(std::size_t a, int j) { return "q" + std::to_string(a) + "_" + std::to_string(j); }
  std::string vector_loop(const std::vector<int>& body) const {
    if (ro != 1 || ri != 0) return "";
    std::vector<std::size_t> vec;
    std::vector<char> loaded(na, 0);
    for (int i : body)
      if (k.code[static_cast<std::size_t>(i)].kind == schedule::Instr::Kind::Load)
        loaded[static_cast<std::size_t>(k.code[static_cast<std::size_t>(i)].access)] = 1;
    std::string align;
    for (std::size_t a = 0; a < na; ++a)
      if (vectorizable(a) && (loaded[a] || is_stored(k, static_cast<int>(a)))) {
        vec.push_back(a);
        align += " | reinterpret_cast<unsigned long long>(p" + str(a) + " + a.off[" + str(a) + "])";
      }
    if (vec.empty()) return "";
    auto is_vec = [&](std::size_t a) { return std::find(vec.begin(), vec.end(), a) != vec.end(); };
    const char* lane_field[kLanes] = {"x", "y", "z", "w"};
    std::string out = "  if (((0ULL" + align + ") & 15ULL) == 0) {\n";
    out += "    const long long nv_ = n_ / " + std::to_string(kLanes) + ";\n";
    out += "    for (long long t_ = tid_; t_ < nv_; t_ += step_) {\n";
    out += "      const long long e0_ = t_ * " + std::to_string(kLanes) + ";\n";
    for (std::size_t a : vec)
      if (loaded[a])
        for (int j = 0; j < kLanes / per_vector(a); ++j)
          out += "      const " + vtype(a) + " " + qname(a, j) + " = *reinterpret_cast<const " + vtype(a) +
                 "*>(p" + str(a) + " + a.off[" + str(a) + "] + e0_ + " + std::to_string(j * per_vector(a)) +
                 ");\n";
    for (int l = 0; l < kLanes; ++l) {
      const std::string lane = "_" + std::to_string(l), e = "(e0_ + " + std::to_string(l) + ")";
      for (std::size_t a = 0; a < na; ++a) {
        const std::string x =
            "a.off[" + str(a) + "]" + stride_term(k.accesses[a], 0, e, "a.st[" + str(a) + "][0]");
        out += "      const long long x" + str(a) + lane + " = " + x + "; (void)x" + str(a) + lane + ";\n";
      }
      out += emit_instrs(
          k, body, "      ",
          [&](int a) {
            const auto ua = static_cast<std::size_t>(a);
            if (!is_vec(ua)) return "p" + str(ua) + "[x" + str(ua) + lane + "]";
            return qname(ua, l / per_vector(ua)) + "." + lane_field[l % per_vector(ua)];
          },
          [&](int a) { return "x" + std::to_string(a) + lane; }, lane);
      for (auto& st : k.stores)
        if (!is_vec(static_cast<std::size_t>(st.access)))
          out += "      p" + std::to_string(st.access) + "[x" + std::to_string(st.access) + lane +
                 "] = " + value_name(st.value) + lane + ";\n";
    }
    for (auto& st : k.stores) {
      const auto a = static_cast<std::size_t>(st.access);
      if (!is_vec(a)) continue;
      const int pv = per_vector(a);
      for (int j = 0; j < kLanes / pv; ++j) {
        std::string vals;
        for (int l = j * pv; l < (j + 1) * pv; ++l)
          vals += (l > j * pv ? ", " : "") + value_name(st.value) + "_" + std::to_string(l);
        out += "      *reinterpret_cast<" + vtype(a) + "*>(p" + str(a) + " + a.off[" + str(a) + "] + e0_ + " +
               std::to_string(j * pv) + ") = make_" + vtype(a) + "(" + vals + ");\n";
      }
    }
    out += "    }\n    start_ = nv_ * " + std::to_string(kLanes) + ";\n  }\n";
    return out;
  }

  std::string stores(bool inner_stores, bool loop, const std::string& indent) const {
    std::string out;
    for (auto& s : k.stores)
      if (s.inner == inner_stores) out += indent + addr(s.access, loop) + " = " + value_name(s.value) + ";\n";
    return out;
  }
};

// The size and alignment of the dtype whose C type an accumulator field has.
std::pair<std::size_t, std::size_t> field_layout(const AccVar& v) {
  for (int d = 0; d < kNumDTypes; ++d)
    if (v.type == ctype(static_cast<DType>(d))) {
      const std::size_t sz = dtype_size(static_cast<DType>(d));
      return {sz, is_complex(static_cast<DType>(d)) ? sz / 2 : sz};  // complex group: aligned as its parts
    }
  return {0, 1};
}

// sizeof of a struct of the accumulator fields, by the C layout rules (the partials buffer).
std::size_t acc_struct_bytes(const KernelSpec& k) {
  std::size_t off = 0, align = 1;
  for (const auto& red : k.reductions)
    for (const AccVar& v : acc_vars(red)) {  // (argmax group: the index field too)
      const auto [sz, al] = field_layout(v);
      off = (off + al - 1) / al * al + sz;
      align = std::max(align, al);
    }
  return (off + align - 1) / align * align;
}

// A scan kernel (scan group, templates/cuda_scan.inc): short rows run sequentially on a thread
// each, long rows on a block each as chunked block scans (the launch picks the mode from the
// row length, as for reductions). normalize() gives every reduction kernel one inner dim.
std::string cuda_scan_body(const KernelSpec& k, const CudaRenderer& r) {
  const std::size_t last = r.rank - 1;
  auto at = [&](int a) {
    const std::string b = "b" + std::to_string(a);
    const std::string t = stride_term(k.accesses[static_cast<std::size_t>(a)], last, "j_",
                                      "a.st[" + std::to_string(a) + "][" + std::to_string(last) + "]");
    return t.empty() ? b : "(" + b + t + ")";
  };
  auto addr = [&](int a) { return "p" + std::to_string(a) + "[" + at(a) + "]"; };
  // The scans of a kernel run one after another (each ends at a barrier), so they share one
  // shared-memory buffer of 256 of the widest accumulator (at most 4 KiB, for c128), whatever the
  // number of scans fused into the kernel.
  std::size_t widest = 1;
  for (const auto& red : k.reductions)
    for (const AccVar& v : acc_vars(red)) widest = std::max(widest, field_layout(v).first);
  std::string init, carry;
  std::string scans =
      "__shared__ __align__(16) unsigned char {{NAME}}_scan_s_[" + std::to_string(256 * widest) + "];\n";
  for (std::size_t i = 0; i < k.reductions.size(); ++i) {
    const auto& red = k.reductions[i];
    const std::string A = acc_ctype(red), n = str(i);
    init += "      " + A + " acc" + n + " = " + acc_identity(red) + ";\n";
    carry += "    " + A + " carry" + n + " = " + acc_identity(red) + ";\n";
    // The inclusive scan of `v` over the block, in thread order; `total` gets the block's total.
    scans += "__device__ __forceinline__ " + A + " {{NAME}}_scan" + n + "(" + A + " v, " + A +
             "& total) {\n  " + A + "* s_ = reinterpret_cast<" + A +
             "*>({{NAME}}_scan_s_);\n"
             "  const int t_ = static_cast<int>(threadIdx.x);\n"
             "  s_[t_] = v;\n  __syncthreads();\n"
             "  for (int d_ = 1; d_ < static_cast<int>(blockDim.x); d_ <<= 1) {\n"
             "    " +
             A +
             " l_ = s_[t_ >= d_ ? t_ - d_ : t_];\n    __syncthreads();\n"
             "    if (t_ >= d_) {\n      " +
             acc_combine(red, "l_", "v") +
             ";\n      v = l_;\n      s_[t_] = v;\n    }\n    __syncthreads();\n  }\n"
             "  total = s_[blockDim.x - 1];\n  __syncthreads();  // s_ is reused by the next chunk\n"
             "  return v;\n}\n";
  }
  // The block body: scan_body's order, each Acc instruction's combine replaced by the block scan
  // of the thread's element with the carry on its left; stores only inside the row.
  std::string block;
  const std::string ind = "      ";
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const schedule::Instr& in = k.code[i];
    if (in.kind == schedule::Instr::Kind::Acc) {
      const auto& red = k.reductions[static_cast<std::size_t>(in.reduction)];
      const std::string A = acc_ctype(red), n = std::to_string(in.reduction), acc = "acc" + n;
      block += ind + A + " " + acc + " = " + acc_identity(red) + ";\n";
      block += ind + "if (in_) " + acc_combine(red, acc, value_name(red.value)) + ";\n";
      block += ind + "{\n" + ind + "  " + A + " t_;\n" + ind + "  " + acc + " = {{NAME}}_scan" + n + "(" +
               acc + ", t_);\n" + ind + "  " + A + " s_ = carry" + n + ";\n" + ind + "  " +
               acc_combine(red, "s_", acc) + ";\n" + ind + "  " + acc + " = s_;\n" + ind + "  " +
               acc_combine(red, "carry" + n, "t_") + ";\n" + ind + "}\n";
    }
    block += emit_instrs(k, {static_cast<int>(i)}, ind, addr, [&](int a) { return at(a); });
  }
  for (auto& s : k.stores) block += ind + "if (in_) " + addr(s.access) + " = " + value_name(s.value) + ";\n";
  auto start = [](std::size_t a) { return "a.off[" + std::to_string(a) + "]"; };
  std::string body = template_text("cuda_scan");
  fill(body, "SCANS", scans);
  fill(body, "PTRS", r.ptrs());
  fill(body, "OFFSETS", r.offsets("e_", 0, r.ro, "a.outer", "b", start, "    "));
  fill(body, "ACC_INIT", init);
  fill(body, "SEQ_BODY", scan_body(k, "        ", addr, [&](int a) { return at(a); }));
  fill(body, "CARRY_INIT", carry);
  fill(body, "BLOCK_BODY", block);
  fill(body, "NRED", str(k.reductions.size()));
  fill(body, "RO", str(r.ro));
  return body;
}

}  // namespace

CudaRendered render_cuda(const KernelSpec& k) {
  CudaRenderer r(k);
  const KernelParts parts = split_kernel(k);
  CudaRendered out;
  const bool scan = is_scan(k);
  // A scan launches as a reduction of whole rows (mode 1: a thread a row, mode 0: a block a row).
  out.has_reductions = !k.reductions.empty();
  out.whole_rows = scan;
  std::string args = template_text("cuda_args");
  fill(args, "NA", str(r.na));
  fill(args, "RANK", str(r.rank));
  fill(args, "RO", str(r.ro));
  fill(args, "RI1", str(std::max<std::size_t>(r.ri, 1)));
  fill(args, "NF", str(std::max<std::size_t>(k.fconsts.size(), 1)));
  fill(args, "NIC", str(std::max<std::size_t>(k.iconsts.size(), 1)));
  auto start_off = [](std::size_t a) { return "a.off[" + std::to_string(a) + "]"; };
  auto start_base = [](std::size_t a) { return "base[" + std::to_string(a) + "]"; };
  std::string body;
  if (scan) {
    body = cuda_scan_body(k, r);
  } else if (!out.has_reductions) {
    body = template_text("cuda_elementwise");
    fill(body, "PTRS", r.ptrs());
    fill(body, "VECTOR", r.vector_loop(parts.elementwise));
    fill(body, "OFFSETS", r.offsets("e_", 0, r.ro, "a.outer", "x", start_off, "    "));
    fill(body, "BODY", r.emit(parts.elementwise, true, "    ") + r.stores(false, true, "    "));
    fill(body, "RO", str(r.ro));
  } else {
    std::string fields, init, merge, shfl, load;
    for (std::size_t i = 0; i < k.reductions.size(); ++i) {
      const auto& red = k.reductions[i];
      for (const AccVar& v : acc_vars(red)) {  // (argmax group: the index too)
        const std::string n = "acc" + str(i) + v.suffix;
        fields += "  " + v.type + " " + n + ";\n";
        init += "  r." + n + " = " + v.identity + ";\n";
        shfl += "  s." + n + " = cg_shfl_down(r." + n + ", d);\n";
        load += "  const " + v.type + " " + n + " = r." + n + "; (void)" + n + ";\n";
      }
      merge += "  " + acc_combine(red, "r.acc" + str(i), "s.acc" + str(i)) + ";\n";
    }
    // One accumulate function per stage: the finished accumulators of the stages before it
    // are read-only values, its own are combined over inner elements jb, jb + step, ... < je.
    // The per-outer values of every stage up to s (stage_pre) are computed again in each
    // function (a few scalar instructions), and in finish for the epilogue.
    const std::string inner_offsets = r.offsets("j_", r.ro, r.ri, "a.inner", "x", start_base, "    ");
    const std::size_t nstages = parts.stages();
    std::string accumulate, stages, upto;
    for (std::size_t st = 0; st < nstages; ++st) {
      std::string locals, back, combine, earlier;
      for (std::size_t i = 0; i < k.reductions.size(); ++i) {
        const auto& red = k.reductions[i];
        const auto stage = static_cast<std::size_t>(parts.red_stage[i]);
        for (const AccVar& v : acc_vars(red)) {
          const std::string n = "acc" + str(i) + v.suffix;
          if (stage < st) earlier += "  const " + v.type + " " + n + " = r." + n + "; (void)" + n + ";\n";
          if (stage != st) continue;
          locals += "  " + v.type + " " + n + " = r." + n + ";\n";
          back += "  r." + n + " = " + n + ";\n";
        }
        if (stage != st) continue;
        combine += "    " +
                   acc_combine(red, "acc" + str(i), value_name(red.value),
                               red.index >= 0 ? value_name(red.index) : "") +
                   ";\n";
      }
      upto += r.emit(parts.stage_pre[st], false, "  ");
      accumulate += "// Stage " + str(st) +
                    ": accumulates inner elements jb, jb + step, ... < je of one outer element.\n" +
                    "__device__ __forceinline__ void {{NAME}}_accumulate" + str(st) +
                    "(const {{NAME}}_args& a, const long long* base, long long jb,\n"
                    "    long long je, long long step, {{NAME}}_acc& r) {\n" +
                    r.ptrs() + r.emit(parts.pre, false, "  ") + earlier + upto + locals +
                    // Unrolled: the loads of four elements are issued before their combines.
                    "  #pragma unroll 4\n  for (long long j_ = jb; j_ < je; j_ += step) {\n" + inner_offsets +
                    r.emit(parts.stage_loop[st], true, "    ") + combine + "  }\n" + back + "}\n\n";
      stages += "  {{NAME}}_accumulate" + str(st) + "(a, base, jb, je, step, r);\n";
      if (st == 0) {
        stages += "  if (block) r = {{NAME}}_block_reduce(r);\n";
        continue;
      }
      std::string keep;
      for (std::size_t i = 0; i < k.reductions.size(); ++i)
        if (static_cast<std::size_t>(parts.red_stage[i]) < st)
          for (const AccVar& v : acc_vars(k.reductions[i]))
            keep += "    r.acc" + str(i) + v.suffix + " = kept.acc" + str(i) + v.suffix + ";\n";
      stages += "  if (block) {\n    const {{NAME}}_acc kept = r;\n    r = {{NAME}}_block_reduce(r);\n" +
                keep + "  }\n";
    }
    stages += "  (void)block;";
    out.whole_rows = nstages > 1;
    std::string base;
    for (std::size_t a = 0; a < r.na; ++a) base += "  base[" + str(a) + "] = a.off[" + str(a) + "];\n";
    base += "  long long r_ = o;\n";
    // (the outermost dim's index is what is left of o: no division there)
    for (std::size_t d = r.ro; d-- > 0;) {
      base += d > 0 ? "  {\n    const long long id = r_ % a.outer[" + str(d) + "];\n    r_ /= a.outer[" +
                          str(d) + "];\n"
                    : std::string("  {\n    const long long id = r_;\n");
      for (std::size_t a = 0; a < r.na; ++a)
        base += "    base[" + str(a) + "] += id * a.st[" + str(a) + "][" + str(d) + "];\n";
      base += "  }\n";
    }
    base += "  (void)r_;\n";
    body = template_text("cuda_reduce");
    fill(body, "ACC_FIELDS", fields);
    fill(body, "ACC_INIT", init);
    fill(body, "ACC_MERGE", merge);
    fill(body, "ACC_SHFL", shfl);
    fill(body, "ACCUMULATE", accumulate);
    fill(body, "STAGES", stages);
    fill(body, "ACC_LOAD", load);
    fill(body, "BASE", base);
    fill(body, "PTRS", r.ptrs());
    fill(body, "PRE", r.emit(parts.pre, false, "  "));
    fill(body, "POST", upto + r.emit(parts.epilogue, false, "  "));
    fill(body, "LOOP2", r.emit(parts.loop2, true, "    "));
    fill(body, "INNER_OFFSETS", inner_offsets);
    fill(body, "OUTER_STORES", r.stores(false, false, "    "));
    fill(body, "INNER_STORES", r.stores(true, true, "    "));
    fill(body, "NRED", str(k.reductions.size()));
    fill(body, "RO", str(r.ro));
    fill(body, "RI", str(r.ri));
    fill(body, "NA", str(r.na));
    out.acc_bytes = acc_struct_bytes(k);
  }
  body = args + "\n" + body;
  out.symbol = kernel_name(k, body);
  fill(body, "NAME", out.symbol);
  out.source = std::move(body);
  return out;
}

std::string cuda_translation_unit(const std::vector<CudaRendered>& kernels) {
  return unique_sources(template_text("cuda_prelude"), kernels);
}

std::vector<uint64_t> cuda_kernel_args(const KernelSpec& k, const std::vector<uint64_t>& bufs) {
  const std::size_t na = k.accesses.size(), rank = k.outer.size() + k.inner.size();
  std::vector<uint64_t> w;
  auto word = [&](int64_t v) { w.push_back(static_cast<uint64_t>(v)); };
  for (std::size_t a = 0; a < na; ++a) w.push_back(a < bufs.size() ? bufs[a] : 0);
  for (const auto& acc : k.accesses) word(acc.offset);
  for (const auto& acc : k.accesses)
    for (std::size_t d = 0; d < rank; ++d) word(acc.strides[d]);
  for (int64_t n : k.outer) word(n);
  for (int64_t n : k.inner) word(n);
  if (k.inner.empty()) word(1);
  for (double f : k.fconsts) {
    uint64_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    w.push_back(bits);
  }
  if (k.fconsts.empty()) word(0);
  for (int64_t i : k.iconsts) word(i);
  if (k.iconsts.empty()) word(0);
  return w;
}

}  // namespace cgrad::codegen
