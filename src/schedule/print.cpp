// The schedule printer (see print.h for the naming). Everything a renderer reads is printed,
// so two schedules that print the same render the same kernels.
#include "schedule/print.h"

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/printer.h"

#include <sstream>
#include <unordered_map>

namespace cgrad::schedule {

namespace {

template <typename T>
std::string list(const std::vector<T>& v) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

const char* kernel_kind(KernelSpec::Kind k) {
  switch (k) {
    case KernelSpec::Kind::Loop: return "loop";
    case KernelSpec::Kind::Gemm: return "gemm";
    case KernelSpec::Kind::Cat: return "cat";
    case KernelSpec::Kind::Copy: return "copy";
    case KernelSpec::Kind::Collective: return "collective";
    case KernelSpec::Kind::Sort: return "sort";
    case KernelSpec::Kind::Scatter: return "scatter";
  }
  return "?";
}

const char* slot_kind(Slot::Kind k) {
  switch (k) {
    case Slot::Kind::Leaf: return "leaf";
    case Slot::Kind::Temp: return "temp";
    case Slot::Kind::View: return "view";
    case Slot::Kind::Const: return "const";
  }
  return "?";
}

void print_instr(std::ostream& os, const Instr& in, std::size_t i) {
  os << "    v" << i << " = ";
  switch (in.kind) {
    case Instr::Kind::Load: os << "load a" << in.access; break;
    case Instr::Kind::Index: os << "index a" << in.access; break;
    case Instr::Kind::Const:
      os << "const "
         << (is_floating(in.dtype) || is_complex(in.dtype) ? in.fvalue : static_cast<double>(in.ivalue));
      if (in.arg >= 0) os << " (arg " << in.arg << ")";
      break;
    case Instr::Kind::Acc: os << "acc r" << in.reduction; break;
    case Instr::Kind::Op:
      os << ir::op_name(in.op);
      for (std::size_t a = 0; a < in.args.size(); ++a) os << (a ? ", v" : " v") << in.args[a];
      if (in.op == ir::Op::Rand || in.op == ir::Op::Randn) os << " seed=" << in.seed;
      if (in.in_dtype != in.dtype) os << " from " << dtype_name(in.in_dtype);
      break;
  }
  os << " : " << dtype_name(in.dtype) << "\n";
}

}  // namespace

std::string to_string(const KernelSpec& k) {
  std::ostringstream os;
  os << kernel_kind(k.kind);
  if (!k.name.empty()) os << " " << k.name;
  if (k.kind != KernelSpec::Kind::Loop) {
    os << " " << list(k.in_slots) << " -> s" << k.out_slot;
    if (k.proto) os << " " << ir::op_name(k.proto->op) << " {" << ir::attrs_str(*k.proto) << "}";
    os << "\n";
    return os.str();
  }
  os << " outer=" << shape_str(k.outer) << " inner=" << shape_str(k.inner) << "\n";
  for (std::size_t a = 0; a < k.accesses.size(); ++a) {
    const Access& x = k.accesses[a];
    os << "    a" << a << " = " << (x.slot < 0 ? std::string("index") : "s" + std::to_string(x.slot)) << " "
       << dtype_name(x.dtype) << " +" << x.offset << " " << list(x.strides) << "\n";
  }
  for (std::size_t i = 0; i < k.code.size(); ++i) print_instr(os, k.code[i], i);
  for (std::size_t r = 0; r < k.reductions.size(); ++r) {
    const Reduction& x = k.reductions[r];
    os << "    r" << r << " = " << ir::op_name(x.op) << " v" << x.value << " : " << dtype_name(x.dtype)
       << " from " << dtype_name(x.in_dtype) << "\n";
  }
  for (const Store& st : k.stores)
    os << "    store a" << st.access << " = v" << st.value << (st.inner ? " (per inner element)" : "")
       << "\n";
  if (!k.fconsts.empty() || !k.iconsts.empty())
    os << "    args " << list(k.fconsts) << " " << list(k.iconsts) << "\n";
  return os.str();
}

std::string to_string(const Schedule& s, const ir::Subgraph& g, const std::vector<ir::Node*>& roots) {
  std::unordered_map<const ir::Node*, int> pos;
  const std::vector<ir::Node*> order = roots.empty() ? g.order : ir::topo_order(roots, false);
  for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int>(i);
  auto node = [&](const ir::Node* n) {
    auto it = pos.find(n);
    return it == pos.end() ? std::string("?") : "%" + std::to_string(it->second);
  };
  std::ostringstream os;
  os << "schedule: " << s.kernels.size() << " kernels, " << s.slots.size() << " slots"
     << (s.interpret ? ", interpreted" : "") << "\n";
  for (std::size_t i = 0; i < s.slots.size(); ++i) {
    const Slot& sl = s.slots[i];
    os << "  s" << i << " " << slot_kind(sl.kind) << " " << dtype_name(sl.dtype) << shape_str(sl.shape)
       << " +" << sl.layout.offset << " " << list(sl.layout.strides);
    if (sl.kind == Slot::Kind::Leaf) os << " L" << sl.leaf;
    if (sl.node && (sl.kind != Slot::Kind::Leaf || !roots.empty())) os << " " << node(sl.node);
    if (sl.kind == Slot::Kind::View) os << " of s" << sl.base;
    os << "\n";
  }
  for (std::size_t i = 0; i < s.kernels.size(); ++i) {
    os << "  k" << i << " " << to_string(s.kernels[i]);
    os << "    why: " << s.kernels[i].why << "\n";
  }
  for (std::size_t i = 0; i < g.order.size() && i < s.reasons.size(); ++i) {
    os << "  " << node(g.order[i]) << " " << ir::op_name(g.order[i]->op);
    if (i < s.kernel_of.size() && s.kernel_of[i] >= 0) os << " k" << s.kernel_of[i];
    os << ": " << s.reasons[i] << "\n";
  }
  for (auto& [n, slot] : s.outputs) os << "  out " << node(n) << " = s" << slot << "\n";
  return os.str();
}

}  // namespace cgrad::schedule
