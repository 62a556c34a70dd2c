// to_dot, print_graph and value printing.
#include "frontend/build.h"
#include "ir/graph.h"
#include "ir/printer.h"
#include "runtime/realize.h"
#include "schedule/schedule.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace cgrad {

namespace {
std::vector<ir::Node*> roots_of(const std::vector<Tensor>& ts, const char* op) {
  std::vector<ir::Node*> r;
  for (const Tensor& t : ts) r.push_back(frontend::node_of(t, op).get());
  return r;
}
}  // namespace

// Pending nodes are grouped into the kernels the scheduler would cut them into (as clusters);
// realized nodes are drawn as filled boxes outside any cluster.
// Both walk input lists, which a realize on another thread may rewrite: under the realize lock.
std::string to_dot_string(const std::vector<Tensor>& outputs) {
  runtime::RealizeLock lock;
  std::vector<ir::Node*> roots = roots_of(outputs, "to_dot");
  std::vector<ir::Node*> pending;
  for (ir::Node* r : roots)
    if (!r->realized()) pending.push_back(r);
  std::vector<int> clusters;
  if (!pending.empty()) {
    ir::Subgraph g = ir::make_subgraph(pending);
    // the clusters of the backend that would run it (the CPU JIT stages row reductions)
    schedule::Schedule s =
        schedule::make_schedule(g, schedule::Options{.staged_reductions = !pending[0]->device.is_cuda()});
    // to_dot numbers all reachable nodes; map the subgraph's kernel ids onto that order
    std::vector<ir::Node*> all = ir::topo_order(roots, false);
    std::unordered_map<const ir::Node*, int> k;
    for (std::size_t i = 0; i < g.order.size(); ++i)
      k[g.order[i]] = s.kernel_of.empty() ? -1 : s.kernel_of[i];
    for (ir::Node* n : all) clusters.push_back(k.count(n) ? k[n] : -1);
  }
  return ir::to_dot(roots, clusters.empty() ? nullptr : &clusters);
}

void to_dot(const std::vector<Tensor>& outputs, const std::string& path) {
  std::string text = to_dot_string(outputs);
  std::ofstream f(path);
  if (!f) throw Error(ErrorCode::InvalidArgument, "to_dot: cannot open " + path + " for writing");
  f << text;
  if (!f) throw Error(ErrorCode::InvalidArgument, "to_dot: cannot write " + path);
}

void print_graph(const Tensor& t, std::ostream& os) {
  runtime::RealizeLock lock;
  ir::print(roots_of({t}, "print_graph"), os);
}
void print_graph(const Tensor& t) { print_graph(t, std::cout); }

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "tensor(undefined)";
  const Shape& s = t.shape();
  std::vector<double> v = t.to_vector<double>();
  const bool integral = !is_floating(t.dtype());
  constexpr int64_t kMaxShown = 1000;
  std::ostringstream out;
  out << "tensor(";
  if (static_cast<int64_t>(v.size()) > kMaxShown) {
    out << "[";
    for (int i = 0; i < 3; ++i) out << (i ? ", " : "") << v[static_cast<std::size_t>(i)];
    out << ", ..., " << v.back() << "]";
  } else if (s.empty()) {
    out << v[0];
  } else {
    // Row-major walk emitting brackets at dimension boundaries.
    std::vector<int64_t> dims(s.begin(), s.end());
    std::size_t r = dims.size();
    std::vector<int64_t> idx(r, 0);
    for (std::size_t k = 0; k < r; ++k) out << "[";
    for (std::size_t e = 0; e < v.size(); ++e) {
      if (integral)
        out << static_cast<int64_t>(v[e]);
      else
        out << v[e];
      std::size_t d = r;
      while (d-- > 0) {
        if (++idx[d] < dims[d]) break;
        idx[d] = 0;
        out << "]";
        if (d == 0) break;
      }
      if (e + 1 < v.size()) {
        out << ", ";
        for (std::size_t k = d + 1; k < r; ++k) out << "[";
      }
    }
    if (v.empty())
      for (std::size_t k = 0; k < r; ++k) out << "]";
  }
  out << ", shape=" << shape_str(s) << ", dtype=" << dtype_name(t.dtype()) << ")";
  return os << out.str();
}

}  // namespace cgrad
