// CPU renderer, scan kernels (cumulative_sum/prod, issue #15; templates/cpu_scan.inc): the thread
// pool splits outer elements; each runs its row sequentially (normalize() gives every reduction
// kernel one inner dim), keeping the running accumulators in registers and storing them at every
// element (scan_body in kernel_parts.cpp). Rows that lie across memory (a scan over a leading
// axis) run in column mode (templates/cpu_scan_cols.inc): a tile of outer elements at a time, one
// vector loop over the tile per inner element, each element's additions in its row's order.
#include "codegen/kernel_parts.h"
#include "codegen/render_cpu_loops.h"
#include "codegen/render_scalar.h"

namespace cgrad::codegen::cpu {

using schedule::KernelSpec;

namespace {

// `s` without its last newline (the template puts each piece on its own line).
std::string chomp(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// Outer elements per column-mode tile: each reduction keeps one accumulator per element of the
// tile (8 bytes for the wide ones: 4 KiB for an f32 cumulative sum), read and written in L1.
constexpr int64_t kScanTile = 512;

// Column mode (cpu_scan_cols.inc) when the rows lie across memory: some access moves by one
// element along the last outer dim, none along the scanned one (the row loop reads one element per
// cache line of such rows: cumulative_sum(x, 0) of a 4096 x 4096 f32 took 131 ms, NumPy 255,
// 2^20 x 16 88-110 against NumPy's 66-75).
bool scan_cols(const KernelSpec& k, const Loops& r) {
  if (r.ro == 0 || r.ri != 1) return false;
  bool across = false;
  for (const auto& a : k.accesses) {
    if (stride_class(a, r.rank - 1) == schedule::StrideClass::One) return false;
    across |= stride_class(a, r.ro - 1) == schedule::StrideClass::One;
  }
  return across;
}

Rendered render_scan_cols(const KernelSpec& k, const Loops& r) {
  auto index = [&](int a) { return r.tile_index(a, true); };
  const std::string tile = std::to_string(kScanTile);
  std::string decl, init, load, save;
  for (std::size_t i = 0; i < k.reductions.size(); ++i)
    for (const AccVar& av : acc_vars(k.reductions[i])) {
      const std::string n = "acc" + std::to_string(i) + av.suffix, c = "ca" + std::to_string(i) + av.suffix;
      decl += "  " + av.type + " " + c + "[" + tile + "];\n";
      init += "      " + c + "[t_] = " + av.identity + ";\n";
      load += "        " + av.type + " " + n + " = " + c + "[t_];\n";
      save += "        " + c + "[t_] = " + n + ";\n";
    }
  std::string body = template_text("cpu_scan_cols");
  fill(body, "RO", std::to_string(r.ro));
  fill(body, "NA", std::to_string(k.accesses.size()));
  fill(body, "RANK", std::to_string(r.rank));
  fill(body, "TILE", tile);
  fill(body, "PTRS", chomp(r.ptrs()));
  fill(body, "STEPS", chomp(r.tile_steps("off_", "    ")));
  fill(body, "ACC_DECL", chomp(decl));
  fill(body, "ACC_INIT", chomp(init));
  fill(body, "ACC_LOAD", chomp(load));
  fill(body, "ACC_SAVE", chomp(save));
  fill(body, "BODY",
       chomp(scan_body(
           k, "        ", [&](int a) { return "p" + std::to_string(a) + "[" + index(a) + "]"; }, index)));
  return named(k, std::move(body));
}

}  // namespace

Rendered render_scan(const KernelSpec& k) {
  const Loops r(k);
  if (scan_cols(k, r)) return render_scan_cols(k, r);
  const std::size_t last = r.rank - 1;
  auto at = [&](int a) {
    const std::string o = "off_[" + std::to_string(a) + "]";
    const std::string t = stride_term(k.accesses[static_cast<std::size_t>(a)], last, "j",
                                      "st[" + std::to_string(a) + "][" + std::to_string(last) + "]");
    return t.empty() ? o : "(" + o + t + ")";
  };
  std::string init;
  for (std::size_t i = 0; i < k.reductions.size(); ++i)
    init += "    " + acc_ctype(k.reductions[i]) + " acc" + std::to_string(i) + " = " +
            acc_identity(k.reductions[i]) + ";\n";
  std::string body = template_text("cpu_scan");
  fill(body, "RO", std::to_string(r.ro));
  fill(body, "NA", std::to_string(k.accesses.size()));
  fill(body, "RANK", std::to_string(r.rank));
  fill(body, "PTRS", chomp(r.ptrs()));
  fill(body, "ACC_INIT", chomp(init));
  fill(body, "BODY",
       chomp(scan_body(
           k, "      ", [&](int a) { return "p" + std::to_string(a) + "[" + at(a) + "]"; },
           [&](int a) { return at(a); })));
  // has_reductions stays false: the entry takes whole outer elements only
  return named(k, std::move(body));
}

}  // namespace cgrad::codegen::cpu
