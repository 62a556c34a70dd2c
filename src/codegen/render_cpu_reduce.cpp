// CPU renderer, reduction kernels: every kernel with reductions except scans. The accumulators
// of an outer element (a row) come from one reduction loop per stage (templates/cpu_range*.inc
// with OpenMP reduction clauses), then the epilogue and the stores: outer stores (sum, mean) and
// inner stores of row kernels (softmax's second loop). Single-stage kernels (cpu_reduce.inc,
// cpu_reduce_rows.inc) also export _part/_merge/_fin so the pool can split a long row (rows of
// kCpuSplitRowsFrom elements and more; shorter rows keep them static); staged ones
// (cpu_reduce_staged.inc, a reduction reading another's result) run whole rows only. The
// functions of whole rows come from cpu_row_fn.inc.
#include "codegen/kernel_parts.h"
#include "codegen/render_cpu.h"
#include "codegen/render_cpu_loops.h"
#include "codegen/render_scalar.h"
#include "core/shape.hpp"
#include "ir/op_table.h"

#include <algorithm>
#include <set>

namespace cgrad::codegen::cpu {

using schedule::Access;
using schedule::Instr;
using schedule::KernelSpec;

namespace {

// Per-row scratch of the row kernels (Reduce::scratch_for): at most this many values per inner
// element, this many inner elements (2 x 8192 doubles: 128 KiB of stack per thread).
constexpr std::size_t kMaxScratchValues = 2;
constexpr int64_t kScratchElements = 8192;
// f32 sums accumulate blocks of this many elements in float (Reduce::reduction_loop).
constexpr int64_t kRedBlock = 512;
// argmax/argmin (argmax group): the vector loop stages blocks of kArgBlock values (a kernel with
// f32 sums too uses kRedBlock for both) for scalar.hpp's arg_lanes: 8 KiB of f64, in L1. Both
// are multiples of the lanes' step (64 f32, 32 f64 values).
constexpr int64_t kArgBlock = 1024;
static_assert(kArgBlock % 64 == 0 && kRedBlock % 64 == 0, "arg_lanes::feed takes whole steps");
// Column mode (Reduce::col_mode): outer elements computed together, one accumulator each: at most
// kColTile, and at most kColStack bytes of accumulators on the stack (per output and reduction at
// most 16 bytes: an 8-byte accumulator and a 4-byte float block, or an argmax group's value and
// 8-byte index).
constexpr int64_t kColTile = 1024;
constexpr int64_t kColStack = 65536;
// Column mode's f32 sums add kColBlock consecutive elements of an output in float (as many as a
// SIMD lane adds in a block of the row loop: 512 / 16), then the block sum in double: the error
// bound of the row loop's blocks, at the float loop's speed.
constexpr int64_t kColBlock = 32;
// Column mode reads this many rows per vector loop over the tile (the order of each accumulator's
// additions is unchanged). sum(x, 0) of 4096 x 4096 f32 on one thread of the Zen 5 VM, a C++ loop
// of this shape: 3.4-3.6 ms for one row per loop, 2.3 for 2, 1.9-2.0 for 4, 2.2-2.3 for 8 (each row
// of a 1024-wide tile is one 4 KiB page, and the prefetchers start again at every page).
constexpr int64_t kColRows = 4;
// Order-free reductions (walk_free: the argmax group, max, min, integer sums) over rows of at most
// this many elements, lying along memory: column mode too (its loads then move by the row's
// length across the tile), since the row loop's fixed cost per row (arg_lanes' padding to a step
// and the combine of its lanes; a vector max's combine and scalar remainder) is most of a short
// row's time. Measured from Python, 2^22 elements as rows of n, one thread of the Emerald Rapids
// VM, ms, argmax in column mode / arg_lanes: f32 n = 16: 3.5 / 5.2, 24: 3.8 / 7.3, 32: 5.0 / 2.8,
// 48: 4.2 / 2.2, 64: 6.5 / 1.3, 128: 6.4 / 1.1 (i32 alike; f64 already 7.4 / 6.9 at 16, 7.6 / 3.3
// at 32); max: docs/fusion.md. With the former argmax row loop (a vector max per block, a search
// of the winning block) the bound was 128.
constexpr int64_t kShortRow = 31;

// `text` (whole lines) two spaces further in.
std::string indented(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::size_t stop = end == std::string::npos ? text.size() : end + 1;
    if (stop - at > 1) out += "  ";
    out.append(text, at, stop - at);
    at = stop;
  }
  return out;
}

// Whether a reduction is an f32 sum into a double accumulator, which both loop forms add in float
// blocks (kRedBlock in the row loop, kColBlock in column mode) and then in double.
bool float_blocks(const schedule::Reduction& red) {
  return ir::info(red.op).reduce.combine == ir::Op::Add && red.in_dtype == DType::f32 &&
         acc_dtype(red) == DType::f64;
}

// any/all (and max/min of bool, the same or and and): bool accumulators combined with || and &&
// kept GCC's vector loop scalar (a compare, `seta` and `or` per element: any(x < 0) of 1e6 f32
// 0.6 ms where sum(x < 0) took 0.19 and NumPy's any 0.14; b8 max/min had no vector form at all,
// 0.82 ms for 2^20 bools; 2026-12-08), so each block of the row (of the rows, in column mode)
// or-s (and-s) 32-bit lanes instead (the same result: no order to keep). LogicLanes spells them.
bool logic_blocks(const schedule::Reduction& red) {
  const ir::Op c = ir::info(red.op).reduce.combine;
  return !indexed(red) && acc_dtype(red) == DType::b8 &&
         (c == ir::Op::LogicalOr || c == ir::Op::LogicalAnd || c == ir::Op::Maximum || c == ir::Op::Minimum);
}
struct LogicLanes {
  bool any;  // or (any, max), else and (all, min)
  std::string start() const { return any ? "0u" : "1u"; }
  std::string update(const std::string& lanes, const std::string& v) const {  // lanes |= v
    return lanes + (any ? " |= " : " &= ") + v;
  }
  std::string omp(const std::string& lanes) const {
    return std::string(" reduction(") + (any ? "|" : "&") + ":" + lanes + ")";
  }
  std::string join(const std::string& acc, const std::string& lanes) const {  // acc = acc || lanes
    return acc + " = " + acc + (any ? " || " : " && ") + lanes + " != 0u";
  }
};
LogicLanes logic_lanes(const schedule::Reduction& red) {
  const ir::Op c = ir::info(red.op).reduce.combine;
  return {c == ir::Op::LogicalOr || c == ir::Op::Maximum};
}

// The OpenMP reduction identifier that lets `#pragma omp simd` vectorize a reduction loop, from
// the combining row of the reduction's op-table row; empty when there is none (the loop stays
// scalar, still correct). Max and min take OpenMP's own, with vector_extreme's NaN flag.
std::string omp_reduction_id(const schedule::Reduction& red) {
  const DType a = acc_dtype(red);
  const ir::Op c = ir::info(red.op).reduce.combine;
  if (is_complex(a)) return "";  // complex group: a struct accumulator, summed in a scalar loop
  if (c == ir::Op::Add) return "+";
  if (c == ir::Op::Mul) return a == DType::b8 ? "" : "*";
  if (logic_blocks(red)) return logic_lanes(red).any ? "||" : "&&";  // (b8 max/min too)
  if ((c == ir::Op::Maximum || c == ir::Op::Minimum) && a != DType::b8)
    return c == ir::Op::Maximum ? "max" : "min";
  return "";
}

// Whether a reduction's result is the same whichever order its row is walked in: the argmax
// group (the first extreme), max and min (of a -0 and a +0 either may come back, as from SIMD
// lanes already), integer and bool sums and products (wrapping), any and all. Float sums and
// products are not: the row loop's order of additions is documented (docs/semantics.md).
bool walk_free(const schedule::Reduction& red) {
  const ir::Op c = ir::info(red.op).reduce.combine;
  if (indexed(red) || c == ir::Op::Maximum || c == ir::Op::Minimum || c == ir::Op::LogicalOr ||
      c == ir::Op::LogicalAnd)
    return true;
  return (c == ir::Op::Add || c == ir::Op::Mul) && !is_floating(acc_dtype(red));
}

// The values an argmax group's arg_lanes holds (scalar.hpp): its accumulator's type, integers
// narrower than 32 bits as int32_t (the same order).
std::string lane_ctype(const schedule::Reduction& red) {
  const DType a = acc_dtype(red);
  return is_floating(a) || dtype_size(a) >= 4 ? acc_ctype(red) : "int32_t";
}

// A max or min reduction of `v` into `acc` in a vector loop: OpenMP's own `max` / `min` reduction
// (GCC combines its lanes in a tree), and for floating types a NaN flag beside it that makes the
// result NaN after the loop (`start` declares it, `finish` applies it). scalar.hpp's
// NaN-propagating `maximum` as a declared reduction (`omp declare reduction`, until 2026-12-06:
// the argmax and max rows of bench/RESULTS.md) cost a masked move on the loop's
// chain and a combine of the lanes one by one: one thread of the Rocket Lake VM, max(x, 1) of 64 x
// 4096 f32 (from L2) 0.042-0.044 -> 0.023-0.025 ms (NumPy 0.022-0.024), argmax of 4096 x 4096
// f32 7.2 -> 5.5 ms. The sign of a zero extreme may differ between the two (as it may between
// SIMD lanes already); every comparison treats -0 and +0 as equal.
struct Extreme {
  std::string combine, pragma, start, finish;
};
Extreme vector_extreme(const schedule::Reduction& red, const std::string& acc, const std::string& v,
                       const std::string& flag) {
  const bool hi = ir::info(red.op).reduce.combine == ir::Op::Maximum;
  Extreme e;
  e.combine = "        " + acc + " = " + v + (hi ? " > " : " < ") + acc + " ? " + v + " : " + acc + ";\n";
  e.pragma = " reduction(" + omp_reduction_id(red) + ":" + acc + ")";
  if (is_floating(acc_dtype(red))) {
    e.start = "      int " + flag + " = 0;\n";
    e.combine += "        " + flag + " |= " + v + " != " + v + ";\n";
    e.pragma += " reduction(|:" + flag + ")";
    e.finish = "      if (" + flag + ") " + acc + " = cgrad::scalar::quiet_nan<" + acc_ctype(red) + ">();\n";
  }
  return e;
}

// The code of an argmax group's reduction `i` in the row loop, through scalar.hpp's arg_lanes:
// the values go to the lanes straight from their buffer when they are one contiguous load of the
// lanes' type (a last piece of less than a step copied and padded), else the vector loop stages
// them block by block (`B` values; `open`, `combine`, `close`). Per run (`run_open`, `run_close`):
// the lanes' first extreme (or first NaN) becomes the pair when it beats it (an equal one comes
// later: the pair's index is smaller), its index computed from the loop's values (`loop`) there.
struct ArgLanes {
  std::string start, run_open, open, combine, close, run_close;
};
ArgLanes arg_lanes(const schedule::KernelSpec& k, const Loops& r, const schedule::Reduction& red,
                   std::size_t i, const std::string& B, const std::string& loop) {
  const std::string I = std::to_string(i), T = lane_ctype(red), A = acc_ctype(red), al = "al" + I,
                    stg = "stg" + I, cnt = "n" + I + "_", n = "acc" + I, v = "v" + std::to_string(red.value);
  const ir::Op c = ir::info(red.op).reduce.combine;
  const schedule::Instr& in = k.code[static_cast<std::size_t>(red.value)];
  const bool direct =
      in.kind == schedule::Instr::Kind::Load && T == A && in.dtype == acc_dtype(red) &&
      !k.accesses[static_cast<std::size_t>(in.access)].indirect &&
      stride_class(k.accesses[static_cast<std::size_t>(in.access)], r.rank - 1) == schedule::StrideClass::One;
  ArgLanes out;
  out.start = "    alignas(64) " + T + " " + stg + "[" + (direct ? "64" : B) + "];\n";
  out.run_open = "      cgrad::scalar::arg_lanes<" + T + ", " + (c == ir::Op::Maximum ? "true" : "false") +
                 "> " + al + "((" + T + ")" + acc_identity(red) + ");\n";
  if (direct) {
    const std::string P = "p" + std::to_string(in.access) + " + o" + std::to_string(in.access);
    out.run_open += "      {\n        const int64_t w_ = len_ / " + al + ".kStep * " + al +
                    ".kStep;\n        " + al + ".feed(" + P +
                    ", w_, 0);\n        if (w_ < len_) {\n          const int64_t " + cnt + " = " + al +
                    ".pad(" + stg + ", len_ - w_);\n          for (int64_t q_ = w_; q_ < len_; ++q_) " + stg +
                    "[q_ - w_] = (" + P + ")[q_];\n          " + al + ".feed(" + stg + ", " + cnt +
                    ", w_);\n        }\n      }\n";
  } else {
    out.open = "      const int64_t " + cnt + " = " + al + ".pad(" + stg + ", je_ - jb_);\n";
    out.combine = "        " + stg + "[j - jb_] = (" + T + ")" + v + ";\n";
    out.close = "      " + al + ".feed(" + stg + ", " + cnt + ", jb_);\n";
  }
  out.run_close = "      {\n        " + T + " bv_;\n        int64_t bj_;\n        " + al +
                  ".finish(bv_, bj_);\n        if (cgrad::scalar::beats_" + ir::op_name(c) + "((" + A +
                  ")bv_, " + n + ")) {\n          " + n + " = (" + A +
                  ")bv_;\n          const int64_t j = bj_;\n" + indented(indented(loop)) + "          " + n +
                  "i = " + value_name(red.index) + ";\n        }\n      }\n";
  return out;
}

// Whole rows: when the inner stores need values the (last) reduction loop computes too (softmax:
// exp(x - max)), the reduction loop keeps them in a per-row scratch and the store loop reads
// them back, so they are computed once per element. Only values the store loop reads directly
// (the frontier of what both loops share) are kept, and only when one of them is computed
// (re-reading a loaded value from its buffer costs the same as from the scratch). One kept value
// that an inner store writes (softmax: exp(x - max), stored as e * (1/sum)) is kept in that
// store's own output element instead (`in_output`): the store loop reads it back from there and
// overwrites it, as a hand-written softmax does. This saves the scratch row's traffic (about 10%
// of a 4096-wide f32 softmax) and has no row-length limit. It needs the store loop to read no
// buffer (a row kernel's output never aliases its inputs: in-place writes are for element-wise
// kernels only, docs/plans.md) and the store to move along every inner dim (each element of the
// row has its own output element).
struct Scratch {
  bool used = false, in_output = false;
  std::string params, args, decl, keep, reload;
  std::vector<int> rest;  // the store loop's instructions not read back
};

// The source text of the accumulators, one line per reduction in each list.
struct Accumulators {
  std::string fields, init, save, merge, load;
};

class Reduce {
 public:
  explicit Reduce(const KernelSpec& k)
      : k_(k), r_(k), parts_(split_kernel(k)), na_(std::to_string(k.accesses.size())) {
    for (std::size_t d = 0; d < r_.ri; ++d)
      ni_ += (d ? " * " : "") + std::string("a->inner[") + std::to_string(d) + "]";
    for (std::size_t i = 0; i < k.reductions.size(); ++i) {
      const auto& red = k.reductions[i];
      for (const AccVar& v : acc_vars(red)) {  // (an indexed reduction's index too: argmax group)
        const std::string n = "acc" + std::to_string(i) + v.suffix;
        acc_.fields += "  " + v.type + " " + n + ";\n";
        acc_.init += "  " + v.type + " " + n + " = " + v.identity + ";\n";
        acc_.save += "  r->" + n + " = " + n + ";\n";
        acc_.load += "  const " + v.type + " " + n + " = r->" + n + ";\n";
      }
      acc_.merge +=
          "  " + acc_combine(red, "dst->acc" + std::to_string(i), "src->acc" + std::to_string(i)) + ";\n";
    }
    sc_ = scratch_for(parts_.stage_loop.back());
  }

  Rendered render() const { return parts_.stages() > 1 ? staged() : one_stage(); }

 private:
  const KernelSpec& k_;
  const Loops r_;
  const KernelParts parts_;
  const std::string na_;
  std::string ni_;  // the number of inner elements, as an expression
  Accumulators acc_;
  Scratch sc_;

  // A reduction loop over [jb, je) accumulating the reductions of `stage` (-1: all of them)
  // after `loop`; `keep` runs after the accumulation. f32 sums accumulate in double, but
  // converting every element halves the vector width and made sum(a*b) f32 run at half the
  // memory bandwidth; so each block of kRedBlock elements sums in float (per SIMD lane:
  // kRedBlock / lanes terms) and only the block sums are added in double (docs/semantics.md).
  std::string reduction_loop(const std::string& what, const std::string& loop, int stage,
                             const std::string& keep) const {
    if (complex_values(stage) && stageable(stage)) return staged_loop(what, loop, stage, keep);
    std::string pragma = "#pragma omp simd", combine, run_open, run_close;
    Blocks blocks;
    bool vector = true, sums = false;
    auto in_stage = [&](std::size_t i) { return stage < 0 || parts_.red_stage[i] == stage; };
    for (std::size_t i = 0; i < k_.reductions.size(); ++i)
      sums |= in_stage(i) && float_blocks(k_.reductions[i]);
    const std::string B = std::to_string(sums ? kRedBlock : kArgBlock);
    for (std::size_t i = 0; i < k_.reductions.size(); ++i) {
      const auto& red = k_.reductions[i];
      if (!in_stage(i)) continue;
      const std::string n = "acc" + std::to_string(i), v = "v" + std::to_string(red.value);
      const ir::ReduceRule& rule = ir::info(red.op).reduce;
      if (float_blocks(red)) {
        const std::string b = "blk" + std::to_string(i);
        blocks.open += "      float " + b + " = 0.0f;\n";
        blocks.close += "      " + n + " = cgrad::scalar::add(" + n + ", (double)" + b + ");\n";
        combine += "        " + b + " = cgrad::scalar::add(" + b + ", " + v + ");\n";
        pragma += " reduction(+:" + b + ")";
        continue;
      }
      if (logic_blocks(red)) {
        const LogicLanes l = logic_lanes(red);
        const std::string b = "lgc" + std::to_string(i);
        blocks.open += "      uint32_t " + b + " = " + l.start() + ";\n";
        blocks.close += "      " + l.join(n, b) + ";\n";
        combine += "        " + l.update(b, "(uint32_t)" + v) + ";\n";
        pragma += l.omp(b);
        continue;
      }
      if (indexed(red)) {  // argmax group
        const std::string id = omp_reduction_id(red);
        if (id.empty()) {  // (b8: no vector max declared) the pair in a scalar loop
          combine += "        " + acc_combine(red, n, v, value_name(red.index)) + ";\n";
          vector = false;
          continue;
        }
        const ArgLanes l = arg_lanes(k_, r_, red, i, B, loop);
        blocks.start += l.start;
        run_open += l.run_open;
        blocks.open += l.open;
        combine += l.combine;
        blocks.close += l.close;
        run_close += l.run_close;
        continue;
      }
      const std::string id = omp_reduction_id(red);
      if (!id.empty() && (rule.combine == ir::Op::Maximum || rule.combine == ir::Op::Minimum)) {
        const Extreme e = vector_extreme(red, n, v, "nan" + std::to_string(i));
        combine += e.combine;
        pragma += e.pragma;
        blocks.start += e.start;
        blocks.finish += e.finish;
        continue;
      }
      combine += "        " + acc_combine(red, n, v) + ";\n";
      if (id.empty())
        vector = false;  // no vector form declared: a scalar loop
      else
        pragma += " reduction(" + id + ":" + n + ")";
    }
    if (!blocks.open.empty()) {
      blocks.open = run_open + "      for (int64_t jb_ = 0; jb_ < len_; jb_ += " + B +
                    ") {\n      const int64_t je_ = len_ - jb_ < " + B + " ? len_ : jb_ + " + B + ";\n" +
                    blocks.open;
      blocks.close += "      }\n" + run_close;
      blocks.jb = "jb_";
      blocks.je = "je_";
    } else {
      blocks.open = run_open;  // (arg_lanes reading their buffers alone: no blocks)
      blocks.close = run_close;
    }
    // Nothing left for the element loop (argmax groups reading their buffers): none, since GCC at
    // the kernels' level keeps an empty loop's count (half of a 4096 x 4096 f32 argmax's time).
    blocks.loop = !combine.empty() || !keep.empty();
    return r_.range(what, r_.ro, r_.ri, "a->inner", "jb", "je", loop + combine + keep,
                    vector ? pragma : std::string(), blocks);
  }

  // Whether the loop of `stage` (-1: the one stage) computes complex values. Under `#pragma omp
  // simd` GCC 12 makes each complex temporary (a struct) an "omp simd array" and then vectorizes
  // nothing: sum(abs(z)) of 2^20 c64 took 14.6 ms (a scalar loop, each vsqrtsd waiting on the last
  // through its register) where abs(z) alone, an element-wise kernel without the pragma, took 1.45;
  // complex sums ran scalar too (a struct accumulator). Such loops are staged (staged_loop).
  bool complex_values(int stage) const {
    return any_complex(parts_.stage_loop[static_cast<std::size_t>(stage < 0 ? 0 : stage)]);
  }

  bool any_complex(const std::vector<int>& instrs) const {
    for (int i : instrs)
      if (is_complex(k_.code[static_cast<std::size_t>(i)].dtype)) return true;
    return false;
  }

  // Whether every reduction of `stage` can be staged: not the argmax group's pairs, and of complex
  // accumulators only sums (their parts summed apart).
  bool stageable(int stage) const {
    for (std::size_t i = 0; i < k_.reductions.size(); ++i) {
      const auto& red = k_.reductions[i];
      if (stage >= 0 && parts_.red_stage[i] != stage) continue;
      if (indexed(red) || (!complex_sum(red) && omp_reduction_id(red).empty())) return false;
    }
    return true;
  }

  static bool complex_sum(const schedule::Reduction& red) {
    return is_complex(acc_dtype(red)) && ir::info(red.op).reduce.combine == ir::Op::Add;
  }

  // Whether column mode's loops hold complex values (its accumulators, a row's values, the
  // epilogue's): they run without `#pragma omp simd` then (complex_values).
  bool cols_complex() const {
    for (const auto& red : k_.reductions)
      if (is_complex(acc_dtype(red))) return true;
    return any_complex(parts_.pre) || any_complex(parts_.stage_loop[0]) || any_complex(parts_.epilogue);
  }

  // A reduction loop in two passes per block of kRedBlock elements: a plain loop computes each
  // element's value into a block array (vectorized as an element-wise kernel is), then an `omp
  // simd` loop per reduction folds the block array into its block accumulator: f32 sums and the
  // parts of c64 sums in float (then double, as float_blocks), c128's in double, any/all in
  // 32-bit lanes, the others as the one-pass loop combines them.
  std::string staged_loop(const std::string& what, const std::string& loop, int stage,
                          const std::string& keep) const {
    const std::string B = std::to_string(kRedBlock);
    Blocks blocks;
    std::string open, into, folds, close;
    for (std::size_t i = 0; i < k_.reductions.size(); ++i) {
      const auto& red = k_.reductions[i];
      if (stage >= 0 && parts_.red_stage[i] != stage) continue;
      const std::string I = std::to_string(i), n = "acc" + I, v = "v" + std::to_string(red.value);
      auto block_array = [&](const std::string& name, const std::string& T, const std::string& value) {
        open += "      alignas(64) " + T + " " + name + "[" + B + "];\n";
        into += "        " + name + "[j - jb_] = " + value + ";\n";
      };
      auto fold = [&](const std::string& pragma, const std::string& body) {
        folds += "#pragma omp simd" + pragma + "\n      for (int64_t t_ = 0; t_ < je_ - jb_; ++t_) {\n" +
                 body + "      }\n";
      };
      const std::string t = "tv" + I + "_", at = t + "[t_]";
      if (is_complex(acc_dtype(red))) {  // a sum: its parts apart
        const std::string R = red.in_dtype == DType::c64 ? "float" : "double", br = "br" + I, bi = "bi" + I;
        block_array("tr" + I + "_", R, v + ".re");
        block_array("ti" + I + "_", R, v + ".im");
        open += "      " + R + " " + br + " = 0, " + bi + " = 0;\n";
        fold(" reduction(+:" + br + ", " + bi + ")",
             "        " + br + " += tr" + I + "_[t_];\n        " + bi + " += ti" + I + "_[t_];\n");
        close += "      " + n + " = cgrad::scalar::add(" + n + ", " + acc_ctype(red) + "{" + br + ", " + bi +
                 "});\n";
      } else if (float_blocks(red)) {
        block_array(t, "float", v);
        open += "      float blk" + I + " = 0.0f;\n";
        fold(" reduction(+:blk" + I + ")", "        blk" + I + " += " + at + ";\n");
        close += "      " + n + " = cgrad::scalar::add(" + n + ", (double)blk" + I + ");\n";
      } else if (logic_blocks(red)) {
        const LogicLanes l = logic_lanes(red);
        block_array(t, "uint32_t", "(uint32_t)" + v);
        open += "      uint32_t lgc" + I + " = " + l.start() + ";\n";
        fold(l.omp("lgc" + I), "        " + l.update("lgc" + I, at) + ";\n");
        close += "      " + l.join(n, "lgc" + I) + ";\n";
      } else {
        block_array(t, ctype(compute_dtype(red.in_dtype)), v);
        const ir::Op c = ir::info(red.op).reduce.combine;
        if (c == ir::Op::Maximum || c == ir::Op::Minimum) {
          const Extreme e = vector_extreme(red, n, at, "nan" + I);
          fold(e.pragma, e.combine);
          blocks.start += e.start;
          blocks.finish += e.finish;
        } else {
          fold(" reduction(" + omp_reduction_id(red) + ":" + n + ")",
               "        " + acc_combine(red, n, at) + ";\n");
        }
      }
    }
    blocks.open = "      for (int64_t jb_ = 0; jb_ < len_; jb_ += " + B +
                  ") {\n      const int64_t je_ = len_ - jb_ < " + B + " ? len_ : jb_ + " + B + ";\n" + open;
    blocks.close = folds + close + "      }\n";
    blocks.jb = "jb_";
    blocks.je = "je_";
    return r_.range(what, r_.ro, r_.ri, "a->inner", "jb", "je", loop + into + keep, std::string(), blocks);
  }

  // The loop of the inner stores, computing every value they need again ("" when none).
  std::string store_loop() const {
    if (parts_.inner_roots.empty()) return "";
    return r_.range("inner stores", r_.ro, r_.ri, "a->inner", "jb", "je",
                    r_.emit(parts_.loop2, true, "        ") + r_.stores(true, true, "        "),
                    "#pragma omp simd");
  }

  // The values the store loop reads back from the reduction loop of `loop` (see Scratch).
  Scratch scratch_for(const std::vector<int>& loop) const {
    Scratch sc;
    const std::set<int> in1(loop.begin(), loop.end());
    std::set<int> shared;
    for (int i : parts_.loop2)
      if (in1.count(i)) shared.insert(i);
    std::vector<int> frontier;
    bool computed = false;
    for (int i : shared) {
      bool read = false;
      for (auto& st : k_.stores) read |= st.inner && st.value == i;
      for (int j : parts_.loop2)
        if (!shared.count(j))
          for (int a : k_.code[static_cast<std::size_t>(j)].args) read |= a == i;
      if (!read) continue;
      frontier.push_back(i);
      computed |= k_.code[static_cast<std::size_t>(i)].kind == Instr::Kind::Op;
    }
    if (!computed || frontier.size() > kMaxScratchValues) return sc;
    sc.used = true;
    for (int i : parts_.loop2)
      if (!shared.count(i)) sc.rest.push_back(i);
    bool reads = false;
    for (int i : sc.rest) reads |= k_.code[static_cast<std::size_t>(i)].access >= 0;
    if (frontier.size() == 1 && !reads && keep_in_output(sc, frontier[0])) return sc;
    for (std::size_t f = 0; f < frontier.size(); ++f) {
      const int i = frontier[f];
      const std::string T = ctype(k_.code[static_cast<std::size_t>(i)].dtype), n = "scr" + std::to_string(f);
      sc.params += ", " + T + "* __restrict " + n;
      sc.args += ", " + n;
      sc.decl += "    alignas(64) " + T + " " + n + "[" + std::to_string(kScratchElements) + "];\n";
      sc.keep += "        " + n + "[i_ - jb + j] = " + value_name(i) + ";\n";
      sc.reload += "        const " + T + " " + value_name(i) + " = " + n + "[i_ - jb + j];\n";
    }
    return sc;
  }

  // Keeps value `v` in the output element of an inner store that moves along every inner dim
  // (see Scratch); false when no store qualifies.
  bool keep_in_output(Scratch& sc, int v) const {
    const Instr& kept = k_.code[static_cast<std::size_t>(v)];
    for (auto& st : k_.stores) {
      const Access& acc = k_.accesses[static_cast<std::size_t>(st.access)];
      // (not a 16-bit float output: keeping the value there would round it)
      bool moves = st.inner && acc.dtype == kept.dtype && compute_dtype(acc.dtype) == acc.dtype;
      for (std::size_t d = r_.ro; d < r_.rank; ++d) moves = moves && acc.strides[d] != 0;
      if (!moves) continue;
      sc.in_output = true;
      const std::string T = ctype(kept.dtype), name = value_name(v), at = r_.addr(st.access, true);
      sc.keep = "        " + at + " = " + name + ";\n";
      sc.reload = "        const " + T + " " + name + " = " + at + ";\n";
      return true;
    }
    return false;
  }

  // A function computing whole outer elements (rows), one loop per stage (a single-stage kernel
  // has one): with `scratch`, the last stage keeps the values the store loop shares with it and
  // the store loop reads them back; without, the store loop computes them again.
  std::string row_fn(const std::string& suffix, bool scratch) const {
    std::string body = r_.emit(parts_.pre, false, "  ") + acc_.init;
    for (std::size_t s = 0; s < parts_.stages(); ++s) {
      body += r_.emit(parts_.stage_pre[s], false, "  ");
      const bool last = s + 1 == parts_.stages();
      body += reduction_loop("stage " + std::to_string(s) + " reduction loop",
                             r_.emit(parts_.stage_loop[s], true, "        "), static_cast<int>(s),
                             last && scratch ? sc_.keep : "");
    }
    body += r_.emit(parts_.epilogue, false, "  ") + r_.stores(false, false, "  ");
    if (!parts_.inner_roots.empty())
      body +=
          scratch
              ? r_.range("inner stores from the kept values", r_.ro, r_.ri, "a->inner", "jb", "je",
                         sc_.reload + r_.emit(sc_.rest, true, "        ") + r_.stores(true, true, "        "),
                         "#pragma omp simd")
              : store_loop();
    std::string f = template_text("cpu_row_fn");  // {{NAME}} stays: the kernel's, filled last
    fill(f, "SUFFIX", suffix);
    fill(f, "PARAMS", scratch ? sc_.params : "");
    fill(f, "NA", na_);
    fill(f, "PTRS", r_.ptrs());
    fill(f, "RANK", std::to_string(r_.rank));
    fill(f, "BODY", body);
    return f;
  }

  // Rows run the row function that keeps values when it applies: always when they are kept in
  // the output, when the row fits the scratch otherwise; the other rows run `fallback`.
  std::string entry_with(const std::string& fallback) const {
    if (!sc_.used) return fallback;
    if (sc_.in_output)
      return std::string("  for (int64_t o = begin; o < end; ++o) {{NAME}}_row_kept(a, o, 0, ni);");
    return "  if (ni <= " + std::to_string(kScratchElements) + ") {\n" + sc_.decl +
           "    for (int64_t o = begin; o < end; ++o) {{NAME}}_row_kept(a, o, 0, ni" + sc_.args +
           ");\n    return;\n  }\n" + fallback;
  }

  // Column mode (templates/cpu_reduce_cols.inc): when the rows of a one-stage reduction lie across
  // memory (a reduction over a leading axis: every load moves by 1 along the last outer dim and
  // none along the inner dim), the row loop reads one element per cache line, and a 4096 x 4096
  // f32 sum(x, 0) took 65x NumPy's time. Then rows are computed a tile at a time, vectorized
  // across them; the values of a row before its loop (a bias-like operand broadcast along the
  // reduced axis) are computed in the loop, as they differ along the tile. Reductions whose rows
  // lie along memory use column mode for short rows only (kShortRow, decided at run time) when
  // each one's result is the same whichever way the row is walked (walk_free: the argmax group,
  // max, min, integer sums). Not for: inner stores (row kernels), several inner dims, reductions
  // without a vector form (complex), and float sums along memory (the row loop's order of
  // additions is theirs).
  enum class ColMode { None, Always, ShortRows };
  ColMode col_mode() const {
    if (parts_.stages() != 1 || r_.ri != 1 || r_.ro == 0 || !parts_.inner_roots.empty() || sc_.used)
      return ColMode::None;
    bool order_free = true;
    for (const auto& red : k_.reductions) {
      order_free = order_free && walk_free(red);
      if (complex_sum(red)) continue;  // (a c128 accumulator per output, in the row's order)
      if (is_complex(acc_dtype(red)) || (!indexed(red) && omp_reduction_id(red).empty()))
        return ColMode::None;
    }
    bool across = false, along = false;
    for (int i : cols_body()) {
      const Instr& in = k_.code[static_cast<std::size_t>(i)];
      if (in.kind != Instr::Kind::Load) continue;
      const Access& acc = k_.accesses[static_cast<std::size_t>(in.access)];
      along |= stride_class(acc, r_.rank - 1) == schedule::StrideClass::One;
      across |= stride_class(acc, r_.ro - 1) == schedule::StrideClass::One;
    }
    if (along) return order_free ? ColMode::ShortRows : ColMode::None;
    return across ? ColMode::Always : ColMode::None;
  }

  // How many outputs a column-mode tile holds (a multiple of 64).
  std::string col_tile() const {
    int64_t per = 0;
    for (const auto& red : k_.reductions) per += indexed(red) || is_complex(acc_dtype(red)) ? 16 : 12;
    return std::to_string(std::max<int64_t>(64, std::min(kColTile, kColStack / per) / 64 * 64));
  }

  // The instructions of column mode's loop: the row's values before the loop, then the loop's.
  std::vector<int> cols_body() const {
    std::vector<int> body = parts_.pre;
    body.insert(body.end(), parts_.stage_loop[0].begin(), parts_.stage_loop[0].end());
    return body;
  }

  // Column mode's text for the accumulators (arrays ca<i>, one element per output of the tile):
  // their declarations, one row's combine, a block's opening and closing (f32 sums' float
  // blocks), and the load of one output's accumulators as the scalars acc<i> its epilogue reads.
  struct ColAccs {
    std::string init, combine, open, close, load;
    bool pairs = false;  // an argmax group's (value, index) pairs
  };
  ColAccs col_accumulators(const std::string& tile) const {
    ColAccs c;
    for (std::size_t i = 0; i < k_.reductions.size(); ++i) {
      const auto& red = k_.reductions[i];
      const std::string I = std::to_string(i), n = "ca" + I, v = "v" + std::to_string(red.value);
      for (const AccVar& av : acc_vars(red)) {
        const std::string m = n + av.suffix;
        c.init += "  " + av.type + " " + m + "[" + tile + "];\n  for (int64_t t_ = 0; t_ < n_; ++t_) " + m +
                  "[t_] = " + av.identity + ";\n";
        c.load += "    const " + av.type + " acc" + I + av.suffix + " = " + m + "[t_];\n";
      }
      if (indexed(red)) {  // rows come in order: a tie keeps the earlier index
        c.combine +=
            "        " + acc_take_if_beats(red, n + "[t_]", n + "i[t_]", v, value_name(red.index)) + "\n";
        c.pairs = true;
      } else if (float_blocks(red)) {
        const std::string b = "blk" + I;  // (see kColBlock)
        c.init += "  float " + b + "[" + tile + "];\n";
        c.open += "    for (int64_t t_ = 0; t_ < n_; ++t_) " + b + "[t_] = 0.0f;\n";
        c.combine += "        " + b + "[t_] = cgrad::scalar::add(" + b + "[t_], " + v + ");\n";
        c.close += "    for (int64_t t_ = 0; t_ < n_; ++t_) " + n + "[t_] = cgrad::scalar::add(" + n +
                   "[t_], (double)" + b + "[t_]);\n";
      } else if (logic_blocks(red)) {  // any/all: 32-bit lanes per block, as the row loop's
        const LogicLanes l = logic_lanes(red);
        const std::string b = "lgc" + I;
        c.init += "  uint32_t " + b + "[" + tile + "];\n";
        c.open += "    for (int64_t t_ = 0; t_ < n_; ++t_) " + b + "[t_] = " + l.start() + ";\n";
        c.combine += "        " + l.update(b + "[t_]", "(uint32_t)" + v) + ";\n";
        c.close += "    for (int64_t t_ = 0; t_ < n_; ++t_) " + l.join(n + "[t_]", b + "[t_]") + ";\n";
      } else {
        c.combine += "        " + acc_combine(red, n + "[t_]", v) + ";\n";
      }
    }
    return c;
  }

  // The column-mode function {{NAME}}_cols (see col_mode()): the tile's accumulators, then its
  // epilogues and outer stores in one vector loop (an outer element's loads and stores move along
  // the tile by their stride along the last outer dim).
  std::string cols_fn() const {
    const std::string tile = col_tile();
    const ColAccs accs = col_accumulators(tile);
    const Loops& r = r_;
    auto in_loop = [&r](bool inner) {
      return std::make_pair(
          [&r, inner](int a) { return "p" + std::to_string(a) + "[" + r.tile_index(a, inner) + "]"; },
          [&r, inner](int a) { return r.tile_index(a, inner); });
    };
    const auto [loop_addr, loop_index] = in_loop(true);
    const auto [out_addr, out_index] = in_loop(false);
    std::string finish = accs.load + emit_instrs(k_, parts_.pre, "    ", out_addr, out_index) +
                         emit_instrs(k_, parts_.epilogue, "    ", out_addr, out_index);
    for (const auto& st : k_.stores)  // (outer stores only: column mode has no inner ones)
      finish += "    " + out_addr(st.access) + " = " + value_name(st.value) + ";\n";
    std::string f = template_text("cpu_reduce_cols");
    fill(f, "TILE", tile);
    fill(f, "BLOCK", std::to_string(kColBlock));
    fill(f, "BLOCK_OPEN", accs.open);
    fill(f, "BLOCK_CLOSE", accs.close);
    fill(f, "NA", na_);
    fill(f, "PTRS", r_.ptrs());
    fill(f, "RANK", std::to_string(r_.rank));
    fill(f, "STEPS", r_.tile_steps("base", "  "));
    fill(f, "ACC_INIT", accs.init);
    const std::string body = emit_instrs(k_, cols_body(), "        ", loop_addr, loop_index) + accs.combine;
    // (an argmax group's pass takes one row: GCC 12 vectorizes no loop that chains two of its
    // selects, whose condition combines two comparisons)
    const int64_t per_pass = accs.pairs ? 1 : kColRows;
    std::string rows;
    for (int64_t u = 0; u < per_pass; ++u)
      rows += "        {\n          const int64_t j = j0_ + " + std::to_string(u) + ";\n" + indented(body) +
              "        }\n";
    fill(f, "ROWS", std::to_string(per_pass));
    // (the template's vector loops take no pragma where they hold complex values: GCC vectorizes
    // them then as it does element-wise loops, and gives up under `omp simd`: complex_values)
    fill(f, "SIMD", cols_complex() ? "" : "#pragma omp simd");
    fill(f, "BODY_ROWS", rows);
    fill(f, "BODY", body);
    fill(f, "FINISH", finish);
    return f;
  }

  // The entry of column mode: tiles of consecutive outer elements that stay within one run of the
  // last outer dim.
  std::string cols_entry() const {
    const std::string T = col_tile();
    return "  const int64_t run_ = a->outer[" + std::to_string(r_.ro - 1) +
           "];\n  for (int64_t o = begin; o < end;) {\n    int64_t n_ = end - o < " + T +
           " ? end - o : " + T +
           ";\n    if (n_ > run_ - o % run_) n_ = run_ - o % run_;\n    {{NAME}}_cols(a, o, n_, ni);\n    o "
           "+= "
           "n_;\n  }";
  }

  // Staged reductions (cpu_reduce_staged): whole rows only.
  Rendered staged() const {
    std::string body = template_text("cpu_reduce_staged");
    fill(body, "ROW_BASE", template_text("cpu_row_base"));  // (the row's offsets: one text for both kinds)
    // _row (recomputing the kept values) is only needed when not every row can keep them
    fill(body, "ROW_FUNCTIONS",
         (sc_.in_output ? std::string() : row_fn("_row", false)) +
             (sc_.used ? row_fn("_row_kept", true) : std::string()));
    fill(body, "ENTRY", entry_with("  for (int64_t o = begin; o < end; ++o) {{NAME}}_row(a, o, 0, ni);"));
    fill(body, "NSTAGES", std::to_string(parts_.stages()));
    fill(body, "SCR_N", std::to_string(kScratchElements));
    fill(body, "NI_EXPR", ni_);
    fill(body, "RO", std::to_string(r_.ro));
    fill(body, "RI", std::to_string(r_.ri));
    fill(body, "NA", na_);
    fill(body, "RANK", std::to_string(r_.rank));
    Rendered out;
    out.has_reductions = true;
    out.whole_rows = true;
    return named(k_, std::move(body), out);
  }

  // One stage: the entry runs whole rows through _part and _fin (which also serve rows split
  // into chunks), or through the row function that keeps values when it pays (the second
  // kernel of a softmax that is not staged: rule 5).
  Rendered one_stage() const {
    std::string rows = template_text("cpu_reduce_rows");
    const ColMode cols = col_mode();
    fill(rows, "ROW_FUNCTIONS",
         sc_.used                ? row_fn("_row_kept", true)
         : cols != ColMode::None ? cols_fn()
                                 : std::string());
    const std::string by_rows = entry_with(
        "  {{NAME}}_acc acc;\n  for (int64_t o = begin; o < end; ++o) {\n"
        "    {{NAME}}_part(a, o, 0, ni, &acc);\n    {{NAME}}_fin(a, o, &acc, 0, ni, 1);\n  }");
    fill(rows, "ENTRY",
         cols == ColMode::Always      ? cols_entry()
         : cols == ColMode::ShortRows ? "  if (ni <= " + std::to_string(kShortRow) + ") {\n" +
                                            indented(cols_entry()) + "\n    return;\n  }\n" + by_rows
                                      : by_rows);
    std::string body = template_text("cpu_reduce");
    fill(body, "ROW_BASE", template_text("cpu_row_base"));
    fill(body, "ROWS", rows);
    fill(body, "LOOP1",
         reduction_loop("reduction loop", r_.emit(parts_.stage_loop[0], true, "        "), -1, ""));
    fill(body, "LOOP2", store_loop());
    fill(body, "PRE", r_.emit(parts_.pre, false, "  "));
    fill(body, "POST", r_.emit(parts_.epilogue, false, "  "));
    fill(body, "OUTER_STORES", r_.stores(false, false, "    "));
    fill(body, "ACC_FIELDS", acc_.fields);
    fill(body, "ACC_INIT", acc_.init);
    fill(body, "ACC_SAVE", acc_.save);
    fill(body, "ACC_MERGE", acc_.merge);
    fill(body, "ACC_LOAD", acc_.load);
    fill(body, "NI_EXPR", ni_);
    fill(body, "NRED", std::to_string(k_.reductions.size()));
    fill(body, "RO", std::to_string(r_.ro));
    fill(body, "RI", std::to_string(r_.ri));
    fill(body, "NA", na_);
    fill(body, "RANK", std::to_string(r_.rank));
    fill(body, "PTRS", r_.ptrs());
    // Rows too short to split: the chunk functions serve only the entry (inlined there, or unused
    // in column mode), so they are not exported and not compiled apart (2026-12-02: the MLP
    // step's three units 504 -> 433 ms of compiler CPU).
    Rendered out;
    out.whole_rows = core::numel(k_.inner) < kCpuSplitRowsFrom;
    fill(body, "CHUNK_API", out.whole_rows ? "CGRAD_KERNEL_HELPER" : "CGRAD_EXPORT");
    out.has_reductions = true;
    return named(k_, std::move(body), out);
  }
};

}  // namespace

Rendered render_reduce(const KernelSpec& k) { return Reduce(k).render(); }

}  // namespace cgrad::codegen::cpu
