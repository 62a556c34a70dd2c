// CPU renderer, scan kernels (cumulative_sum/prod, issue #15; templates/cpu_scan.inc): the thread
// pool splits outer elements; each runs its row sequentially (normalize() gives every reduction
// kernel one inner dim), keeping the running accumulators in registers and storing them at every
// element (scan_body in kernel_parts.cpp).
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

}  // namespace

Rendered render_scan(const KernelSpec& k) {
  const Loops r(k);
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
