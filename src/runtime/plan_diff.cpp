// Why-recompiled: structured plan keys and the first component in which two differ.
#include "runtime/plan_diff.h"

#include "ir/op_table.h"

#include <deque>
#include <limits>
#include <mutex>
#include <unordered_map>

namespace cgrad::runtime {

namespace {

constexpr std::size_t kHistory = 64;

struct NodeKey {
  ir::Op op;
  DType dtype;
  Device device;
  Shape shape;
  ir::Attrs attrs;
  std::vector<int64_t> inputs;  // position in the graph, or -1 - leaf index
};

struct LeafKey {
  DType dtype;
  Device device;
  Shape shape;
  core::Strides strides;
  int64_t offset;
};

struct Key {
  std::string backend;
  std::vector<NodeKey> nodes;
  std::vector<LeafKey> leaves;
  std::vector<int64_t> roots;
};

std::string str(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// 0 = zero, 1 = unit, 2 = other, per dim: what the generated code specializes on.
std::vector<int64_t> stride_classes(const core::Strides& st) {
  std::vector<int64_t> c;
  for (int64_t x : st) c.push_back(x == 0 ? 0 : x == 1 ? 1 : 2);
  return c;
}

std::string node_name(const Key& k, std::size_t i) {
  return std::string(ir::op_name(k.nodes[i].op)) + " %" + std::to_string(i);
}

// The first difference of `now` from `before`, and how many components differ (for "nearest").
std::pair<std::string, int> compare(const Key& before, const Key& now) {
  std::string first;
  int count = 0;
  auto note = [&](std::string what) {
    if (first.empty()) first = std::move(what);
    ++count;
  };
  if (before.backend != now.backend) note("backend " + now.backend + " (was " + before.backend + ")");
  if (before.nodes.size() != now.nodes.size()) {
    note("structure: " + std::to_string(now.nodes.size()) + " pending nodes (was " +
         std::to_string(before.nodes.size()) + ")");
    count += 100;  // graphs of another size are far apart
  }
  const std::size_t n = std::min(before.nodes.size(), now.nodes.size());
  for (std::size_t i = 0; i < n; ++i) {
    const NodeKey &a = before.nodes[i], &b = now.nodes[i];
    if (a.op != b.op)
      note("structure: " + node_name(now, i) + " (was " + ir::op_name(a.op) + ")");
    else if (a.inputs != b.inputs)
      note("structure: inputs of " + node_name(now, i));
  }
  if (before.leaves.size() != now.leaves.size())
    note("structure: " + std::to_string(now.leaves.size()) + " inputs (was " +
         std::to_string(before.leaves.size()) + ")");
  for (std::size_t i = 0; i < std::min(before.leaves.size(), now.leaves.size()); ++i) {
    const LeafKey &a = before.leaves[i], &b = now.leaves[i];
    std::string leaf = "input " + std::to_string(i) + " ";
    if (a.dtype != b.dtype)
      note(leaf + "dtype " + dtype_name(b.dtype) + " (was " + dtype_name(a.dtype) + ")");
    if (a.device != b.device) note(leaf + "device " + b.device.str() + " (was " + a.device.str() + ")");
    if (a.shape != b.shape)
      note(leaf + "shape " + shape_str(b.shape) + " (was " + shape_str(a.shape) + ")");
    else if (stride_classes(a.strides) != stride_classes(b.strides))
      note(leaf + "stride class " + str(stride_classes(b.strides)) + " (was " +
           str(stride_classes(a.strides)) + "; 0 zero, 1 unit, 2 other)");
    else if (a.strides != b.strides || a.offset != b.offset)
      note(leaf + "layout: strides " + str(b.strides) + " offset " + std::to_string(b.offset) + " (was " +
           str(a.strides) + " offset " + std::to_string(a.offset) + ")");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const NodeKey &a = before.nodes[i], &b = now.nodes[i];
    if (a.op != b.op) continue;
    if (a.dtype != b.dtype)
      note(std::string("dtype of ") + node_name(now, i) + ": " + dtype_name(b.dtype) + " (was " +
           dtype_name(a.dtype) + ")");
    if (a.device != b.device)
      note("device of " + node_name(now, i) + ": " + b.device.str() + " (was " + a.device.str() + ")");
    if (a.shape != b.shape)
      note("shape of " + node_name(now, i) + ": " + shape_str(b.shape) + " (was " + shape_str(a.shape) + ")");
    if (a.attrs.fvalue != b.attrs.fvalue || a.attrs.ivalue != b.attrs.ivalue)
      note("constant of " + node_name(now, i) + ": " + std::to_string(b.attrs.fvalue) + " (was " +
           std::to_string(a.attrs.fvalue) + ")");
    else if (a.attrs.seed != b.attrs.seed)
      note("random seed of " + node_name(now, i));
    else if (!(a.attrs == b.attrs))
      note("attributes of " + node_name(now, i) + " (axes, slice bounds, target shape or dtype)");
  }
  if (before.roots != now.roots)
    note("structure: requested outputs " + str(now.roots) + " (was " + str(before.roots) + ")");
  if (first.empty()) first = "nothing (same key: the earlier plan was evicted or not replayable)";
  return {first, count};
}

std::mutex g_mu;
std::deque<Key>& history() {
  static std::deque<Key> h;
  return h;
}

}  // namespace

std::string why_new_plan(const std::vector<ir::Node*>& order, const std::vector<const ir::Node*>& leaves,
                         const std::vector<ir::Node*>& roots, const char* backend) {
  Key k;
  k.backend = backend;
  std::unordered_map<const ir::Node*, int64_t> pos, leaf;
  for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int64_t>(i);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    leaf[leaves[i]] = static_cast<int64_t>(i);
    const ir::Node& l = *leaves[i];
    k.leaves.push_back({l.dtype, l.device, l.shape, l.value.strides, l.value.offset});
  }
  for (const ir::Node* n : order) {
    NodeKey nk{n->op, n->dtype, n->device, n->shape, n->attrs, {}};
    for (auto& in : n->inputs) {
      auto p = pos.find(in.get());
      auto l = leaf.find(in.get());
      nk.inputs.push_back(p != pos.end()    ? p->second
                          : l != leaf.end() ? -1 - l->second
                                            : std::numeric_limits<int64_t>::min());
    }
    k.nodes.push_back(std::move(nk));
  }
  for (const ir::Node* r : roots) k.roots.push_back(pos.count(r) ? pos[r] : -1);

  std::lock_guard<std::mutex> lock(g_mu);
  auto& h = history();
  std::string why = "first plan";
  int best = std::numeric_limits<int>::max();
  std::size_t nearest = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    auto [what, count] = compare(h[i], k);
    if (count < best) best = count, why = what, nearest = i + 1;
  }
  if (!h.empty()) why += " [nearest: the plan built " + std::to_string(nearest) + " plan(s) ago]";
  h.push_front(std::move(k));
  if (h.size() > kHistory) h.pop_back();
  return why;
}

}  // namespace cgrad::runtime
