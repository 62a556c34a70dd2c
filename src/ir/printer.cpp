// Graph printer and DOT writer.
#include "ir/printer.h"

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/user_fn.h"

#include <map>
#include <sstream>
#include <unordered_map>

namespace cgrad::ir {

std::string attrs_str(const Node& n) {
  const Attrs& a = n.attrs;
  std::ostringstream s;
  // By kind (an exhaustive switch: a new kind must say what it prints), so every Reduce row
  // prints its axes without a list of reduction ops here.
  switch (info(n.op).kind) {
    case OpKind::Source:
      if (n.op == Op::Full) {
        if (is_floating(n.dtype))
          s << "value=" << a.fvalue;
        else
          s << "value=" << a.ivalue;
      } else if (n.op == Op::Rand || n.op == Op::Randn) {
        s << "seed=" << a.seed;
      }
      break;
    case OpKind::Reduce: s << "axes=" << core::vec_str(a.axes); break;
    case OpKind::Scan: s << "axis=" << a.axis; break;
    case OpKind::Movement:
      if (n.op == Op::Permute)
        s << "perm=" << core::vec_str(a.axes);
      else if (n.op == Op::Flip)
        s << "axes=" << core::vec_str(a.axes);
      else if (n.op == Op::Slice)
        s << "dim=" << a.axis << " " << a.start << ":" << a.stop << ":" << a.step;
      break;
    case OpKind::Concat:
    case OpKind::Gather:
    case OpKind::Scatter: s << "dim=" << a.axis; break;
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Ternary:
    case OpKind::Gemm:
    case OpKind::Collective: break;
    case OpKind::Map: s << "fn=" << (a.fn ? a.fn->name : "?") << " out=" << a.axis; break;
    case OpKind::Sort: s << "dim=" << a.axis << (a.ivalue ? " descending" : ""); break;  // group sort
  }
  return s.str();
}

void print(const std::vector<Node*>& roots, std::ostream& os) {
  auto order = topo_order(roots, false);
  std::unordered_map<const Node*, std::size_t> num;
  for (std::size_t i = 0; i < order.size(); ++i) num[order[i]] = i;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Node& n = *order[i];
    os << "%" << i << " = " << op_name(n.op) << "(";
    for (std::size_t k = 0; k < n.inputs.size(); ++k) os << (k ? ", " : "") << "%" << num[n.inputs[k].get()];
    os << ")";
    std::string at = attrs_str(n);
    if (!at.empty()) os << " {" << at << "}";
    os << " : " << dtype_name(n.dtype) << shape_str(n.shape);
    if (n.device.is_cuda()) os << " @" << n.device.str();
    if (n.realized()) os << " [realized]";
    os << "\n";
  }
}

std::string to_string(const std::vector<Node*>& roots) {
  std::ostringstream s;
  print(roots, s);
  return s.str();
}

std::string to_dot(const std::vector<Node*>& roots, const std::vector<int>* cluster_of) {
  auto order = topo_order(roots, false);
  std::unordered_map<const Node*, std::size_t> num;
  for (std::size_t i = 0; i < order.size(); ++i) num[order[i]] = i;
  std::ostringstream s;
  s << "digraph cgrad {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  auto node_line = [&](std::size_t i, const char* indent) {
    const Node& n = *order[i];
    std::string at = attrs_str(n);
    s << indent << "n" << i << " [label=\"%" << i << " " << op_name(n.op);
    if (!at.empty()) s << "\\n" << at;
    s << "\\n" << dtype_name(n.dtype) << shape_str(n.shape) << "\"";
    if (n.realized()) s << ", style=filled, fillcolor=\"#dde8f5\"";
    s << "];\n";
  };
  std::map<int, std::vector<std::size_t>> clusters;
  for (std::size_t i = 0; i < order.size(); ++i) {
    int c = cluster_of && i < cluster_of->size() ? (*cluster_of)[i] : -1;
    if (c >= 0)
      clusters[c].push_back(i);
    else
      node_line(i, "  ");
  }
  for (auto& [c, members] : clusters) {
    s << "  subgraph cluster_" << c << " {\n    label=\"kernel " << c << "\";\n    style=rounded;\n";
    for (std::size_t i : members) node_line(i, "    ");
    s << "  }\n";
  }
  for (std::size_t i = 0; i < order.size(); ++i)
    for (std::size_t k = 0; k < order[i]->inputs.size(); ++k)
      s << "  n" << num[order[i]->inputs[k].get()] << " -> n" << i << " [label=\"" << k << "\"];\n";
  s << "}\n";
  return s.str();
}

}  // namespace cgrad::ir
