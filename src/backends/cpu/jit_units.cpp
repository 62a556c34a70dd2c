// split_units: the CPU JIT's translation units of a Program (jit_units.h).
#include "backends/cpu/jit_units.h"

#include "codegen/kernel_parts.h"
#include "codegen/render_cpu.h"

#include <algorithm>
#include <set>

namespace cgrad::backends::cpu {

std::vector<Part> split_units(const runtime::Program& p) {
  std::vector<const runtime::KernelCode*> distinct;
  std::set<std::string> seen;
  std::size_t total = 0;
  for (const auto& c : p.code)
    if (!c.symbol.empty() && seen.insert(c.symbol).second) {
      distinct.push_back(&c);
      total += c.source.size();
    }
  if (distinct.empty()) return {};
  const std::size_t n = std::clamp<std::size_t>(total / kPartBytes, 1, std::min(kMaxParts, distinct.size()));
  std::vector<Part> parts;
  std::vector<runtime::KernelCode> run;  // copies: translation_unit takes values
  auto close = [&] {
    Part part{n == 1 ? p.source : codegen::translation_unit(run), {}};
    for (const auto& c : run) part.symbols.push_back(c.symbol);
    parts.push_back(std::move(part));
    run.clear();
  };
  std::size_t done = 0;  // source bytes of the kernels in finished parts and in `run`
  for (const auto* c : distinct) {
    run.push_back(*c);
    done += c->source.size();
    // Close a part once the parts so far hold their share (k/n) of the bytes.
    const std::size_t k = parts.size() + 1;
    if (k < n && done * n >= total * k) close();
  }
  // The last kernel may have closed a part already (a large kernel late in the order reaches
  // the next share at once): then nothing is left, and an empty part would have no symbol.
  if (!run.empty()) close();
  return parts;
}

}  // namespace cgrad::backends::cpu
