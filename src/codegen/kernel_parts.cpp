// Shared pieces of the CPU and CUDA renderers (see kernel_parts.h).
#include "codegen/kernel_parts.h"

#include "codegen/render_scalar.h"
#include "ir/op_table.h"

#include <algorithm>
#include <cstdio>

namespace cgrad::codegen {

using schedule::Instr;
using schedule::KernelSpec;

void fill(std::string& text, const std::string& key, const std::string& value) {
  const std::string k = "{{" + key + "}}";
  for (std::size_t p = text.find(k); p != std::string::npos; p = text.find(k, p + value.size()))
    text.replace(p, k.size(), value);
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

schedule::StrideClass stride_class(const schedule::Access& a, std::size_t dim) {
  int64_t s = a.strides[dim];
  return s == 0   ? schedule::StrideClass::Zero
         : s == 1 ? schedule::StrideClass::One
                  : schedule::StrideClass::Any;
}

std::string stride_term(const schedule::Access& a, std::size_t dim, const std::string& var,
                        const std::string& step) {
  switch (stride_class(a, dim)) {
    case schedule::StrideClass::Zero: return "";
    case schedule::StrideClass::One: return " + " + var;
    default: return " + " + var + " * " + step;
  }
}

std::string kernel_name(const KernelSpec& k, const std::string& body) {
  // Kind and ranks, plus a hash of the code; sizes are arguments, never part of the name.
  const bool red = !k.reductions.empty();
  char name[64];
  std::snprintf(name, sizeof name, "%s_r%zu%s_%08llx", red ? "R" : "E", k.outer.size(),
                red ? ("i" + std::to_string(k.inner.size())).c_str() : "",
                static_cast<unsigned long long>(fnv1a(body) & 0xffffffffULL));
  return name;
}

namespace {

// Instructions needed by `roots`, in SSA order.
std::vector<int> needed(const KernelSpec& k, const std::vector<int>& roots) {
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

template <class Pred>
std::vector<int> pick(const KernelSpec& k, const std::vector<int>& roots, Pred pred) {
  std::vector<int> res;
  for (int i : needed(k, roots))
    if (pred(static_cast<std::size_t>(i))) res.push_back(i);
  return res;
}

std::vector<int> concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

KernelParts split_kernel(const KernelSpec& k) {
  KernelParts p;
  const std::size_t ro = k.outer.size(), rank = ro + k.inner.size();
  p.inner.assign(k.code.size(), 0);
  p.post.assign(k.code.size(), 0);
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const Instr& in = k.code[i];
    if (in.access >= 0)
      for (std::size_t d = ro; d < rank; ++d)
        if (k.accesses[static_cast<std::size_t>(in.access)].strides[d] != 0) p.inner[i] = 1;
    if (in.kind == Instr::Kind::Acc) p.post[i] = 1;
    for (int a : in.args) {
      p.inner[i] |= p.inner[static_cast<std::size_t>(a)];
      p.post[i] |= p.post[static_cast<std::size_t>(a)];
    }
  }
  for (auto& red : k.reductions) {
    p.reduce_roots.push_back(red.value);
    if (red.index >= 0) p.reduce_roots.push_back(red.index);  // argmax group: the position too
  }
  for (auto& s : k.stores) (s.inner ? p.inner_roots : p.outer_roots).push_back(s.value);
  if (k.reductions.empty()) {
    p.elementwise = needed(k, concat(p.outer_roots, p.inner_roots));
    return p;
  }
  const auto all = concat(concat(p.reduce_roots, p.outer_roots), p.inner_roots);
  // stages: an instruction's level is 1 + the highest stage of the accumulators it reads
  std::vector<int> level(k.code.size(), 0);
  p.red_stage.assign(k.reductions.size(), 0);
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const Instr& in = k.code[i];
    if (in.kind == Instr::Kind::Acc) level[i] = 1 + p.red_stage[static_cast<std::size_t>(in.reduction)];
    for (int a : in.args) level[i] = std::max(level[i], level[static_cast<std::size_t>(a)]);
    for (std::size_t r = 0; r < k.reductions.size(); ++r)
      if (k.reductions[r].value == static_cast<int>(i)) p.red_stage[r] = level[i];
  }
  int nstages = 1;
  for (int s : p.red_stage) nstages = std::max(nstages, s + 1);
  auto roots_of = [&](int s) {
    std::vector<int> r;
    for (std::size_t j = 0; j < k.reductions.size(); ++j)
      if (p.red_stage[j] == s) {
        r.push_back(k.reductions[j].value);
        if (k.reductions[j].index >= 0) r.push_back(k.reductions[j].index);
      }
    return r;
  };
  // outer-level values that do not need the accumulators: computed once per outer element
  p.pre = pick(k, all, [&](std::size_t i) { return !p.inner[i] && !p.post[i]; });
  std::vector<char> done(k.code.size(), 0);
  p.stage_pre.resize(static_cast<std::size_t>(nstages));
  p.stage_loop.resize(static_cast<std::size_t>(nstages));
  p.stage_loop[0] = pick(k, roots_of(0), [&](std::size_t i) { return p.inner[i] && !p.post[i]; });
  for (int s = 1; s < nstages; ++s) {
    const auto roots = roots_of(s);
    p.stage_pre[static_cast<std::size_t>(s)] =
        pick(k, roots, [&](std::size_t i) { return !p.inner[i] && p.post[i] && !done[i]; });
    for (int i : p.stage_pre[static_cast<std::size_t>(s)]) done[static_cast<std::size_t>(i)] = 1;
    p.stage_loop[static_cast<std::size_t>(s)] = pick(k, roots, [&](std::size_t i) { return p.inner[i]; });
  }
  p.epilogue = pick(k, concat(p.outer_roots, p.inner_roots),
                    [&](std::size_t i) { return !p.inner[i] && p.post[i] && !done[i]; });
  p.loop2 = pick(k, p.inner_roots, [&](std::size_t i) { return p.inner[i]; });
  return p;
}

std::string value_name(int i) { return "v" + std::to_string(i); }

std::string emit_instrs(const KernelSpec& k, const std::vector<int>& which, const std::string& indent,
                        const std::function<std::string(int)>& addr,
                        const std::function<std::string(int)>& index, const std::string& suffix) {
  std::string out;
  auto var = [&](int j) { return value_name(j) + suffix; };
  for (int i : which) {
    const Instr& in = k.code[static_cast<std::size_t>(i)];
    out += indent + "const " + ctype(in.dtype) + " " + var(i) + " = " + render_instr(k, i, var, addr, index) +
           ";\n";
  }
  return out;
}

std::string const_decls(const KernelSpec& k, const std::string& indent,
                        const std::function<std::string(int)>& fexpr,
                        const std::function<std::string(int)>& iexpr) {
  std::string out;
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const Instr& in = k.code[i];
    if (in.arg < 0) continue;
    // complex group: a complex constant is real, passed as its double
    bool f = in.kind == Instr::Kind::Const && (is_floating(in.dtype) || is_complex(in.dtype));
    const std::string c = "c" + std::to_string(i);
    out += indent + "const " + (f ? "double " : "int64_t ") + c + " = " +
           (f ? fexpr(in.arg) : iexpr(in.arg)) + "; (void)" + c + ";\n";
  }
  return out;
}

void normalize(KernelSpec& k) {
  if (k.kind != KernelSpec::Kind::Loop) return;
  k.fconsts.clear();
  k.iconsts.clear();
  for (auto& in : k.code) {
    if (in.kind == Instr::Kind::Const) {
      if (is_floating(in.dtype) || is_complex(in.dtype)) {  // (complex group: a real constant)
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

bool is_scan(const KernelSpec& k) {
  return !k.reductions.empty() && ir::info(k.reductions[0].op).kind == ir::OpKind::Scan;
}

std::string scan_body(const KernelSpec& k, const std::string& indent,
                      const std::function<std::string(int)>& addr,
                      const std::function<std::string(int)>& index) {
  std::string out;
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const Instr& in = k.code[i];
    if (in.kind == Instr::Kind::Acc) {
      const auto& red = k.reductions[static_cast<std::size_t>(in.reduction)];
      out += indent + acc_combine(red, "acc" + std::to_string(in.reduction), value_name(red.value)) + ";\n";
    }
    out += emit_instrs(k, {static_cast<int>(i)}, indent, addr, index);
  }
  for (auto& s : k.stores) out += indent + addr(s.access) + " = " + value_name(s.value) + ";\n";
  return out;
}

bool is_stored(const KernelSpec& k, int a) {
  for (auto& s : k.stores)
    if (s.access == a) return true;
  return false;
}

}  // namespace cgrad::codegen
