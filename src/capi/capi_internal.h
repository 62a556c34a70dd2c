// Internals of the C API (include/cgrad.h): the graph registry, node records and the guard that
// turns every failure into an error code.
//
// Model. A C graph is a GraphImpl: a map from node serial to NodeRec, in creation order (which
// is a topological order, since a node's inputs exist before it). A NodeRec keeps its C
// description (op_info, inputs in slot order) and its value as a cgrad::Tensor; the C++ core
// computes and caches the value. The cgrad_compute_graph structs users hold are handles: the
// registry maps each live handle to its GraphImpl, and merging re-points every handle of the
// absorbed graph, so no handle dangles. A freed handle leaves the registry, and every pointer is
// looked up there before it is dereferenced: a stale pointer is reported, never followed.
//
// Invariants: every NodeRec's inputs live in the same GraphImpl; NodeRec serials are unique in
// the process; all state is touched under State::mu (held by guard()).
#pragma once

#include <cgrad.h>
#include <cgrad/cgrad.hpp>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace cgrad::capi {

struct NodeRec {
  uint64_t serial = 0;
  cgrad_uuid uuid{};
  cgrad_op_info op{};            ///< CGRAD_OP_NONE for leaves
  std::vector<NodeRec*> inputs;  ///< slot order; same GraphImpl
  cgrad_storage_backend_type backend = CGRAD_STORAGE_BACKEND_F32_CPU;
  Tensor value;  ///< the core value (realized once executed; always for leaves)
};

struct GraphImpl {
  std::map<uint64_t, std::unique_ptr<NodeRec>> nodes;  ///< by serial = topological order
  std::vector<cgrad_compute_graph*> handles;           ///< every live handle denoting this graph
};

/// A failure with its C error code; thrown inside guard() and turned into the return value.
struct CError {
  int code;
  std::string msg;
};
[[noreturn]] void fail(int code, const std::string& msg);

/// The one lock and the registry.
struct State {
  std::recursive_mutex mu;
  std::unordered_map<const cgrad_compute_graph*, GraphImpl*> handles;
  std::unordered_map<GraphImpl*, std::unique_ptr<GraphImpl>> graphs;
  uint64_t next_graph = 1;
  uint64_t next_node = 1;
  int max_nodes = 0x7fffffff;
};
State& state();

/// Sets the thread's last error message.
void set_last_error(const std::string& msg);
/// Maps a core error code to a C code.
int map_code(ErrorCode c);

/// Records "fn: msg" as the thread's last error and returns `code`; never throws.
int report(const char* fn, const char* msg, int code) noexcept;

/// Runs `f` (returning an int code) under the lock; every exception becomes an error code and
/// the thread's last-error message. `fn` prefixes messages.
template <class F>
int guard(const char* fn, F&& f) noexcept {
  try {
    std::lock_guard<std::recursive_mutex> lock(state().mu);
    set_last_error("");
    return f();
  } catch (const CError& e) {
    return report(fn, e.msg.c_str(), e.code);
  } catch (const Error& e) {
    return report(fn, e.what(), map_code(e.code()));
  } catch (const std::bad_alloc&) {
    return report(fn, "out of memory", CGRAD_ERR_OUT_OF_MEMORY);
  } catch (const std::exception& e) {
    return report(fn, e.what(), CGRAD_ERR_INTERNAL);
  } catch (...) {
    return report(fn, "unknown exception", CGRAD_ERR_INTERNAL);
  }
}

// ---- lookups (fail() on every bad pointer) ----
/// The graph behind a handle; CGRAD_ERR_NULL_POINTER / CGRAD_ERR_FREED.
GraphImpl& graph_of(const cgrad_compute_graph* g, const char* what);
/// The node with this id in `g`, or nullptr.
NodeRec* find_node(GraphImpl& g, const cgrad_uuid& id);

/// A validated tensor: its graph handle, graph and node.
struct Ref {
  cgrad_compute_graph* handle;
  GraphImpl* graph;
  NodeRec* node;
};
Ref resolve(const cgrad_tensor* t, const char* what);

// ---- graph building ----
/// A new graph with one leaf holding `value`; returns the handle and the leaf.
Ref new_graph_with_leaf(Tensor value, cgrad_storage_backend_type backend);
/// Merges `from` into `into` (no-op when they are the same). Throws MERGE_FAILED on the limit.
void merge_graphs(GraphImpl& into, GraphImpl& from);
/// Appends an op node to `g` (inputs must be in `g`); respects the node limit.
NodeRec* add_node(GraphImpl& g, const cgrad_op_info& op, std::vector<NodeRec*> inputs, Tensor value,
                  cgrad_storage_backend_type backend);
/// Frees the handle; frees the graph with its last handle.
void free_handle(cgrad_compute_graph* h);

// ---- values ----
/// A tensor of `shape` with every element `value` (one element of storage once evaluated).
Tensor constant(const Shape& shape, double value, cgrad_storage_backend_type b);
/// Builds the core value of an op from its inputs' values. Metadata must already be validated.
Tensor build_value(const cgrad_op_info& op, const std::vector<Tensor>& inputs);
DType dtype_of_backend(cgrad_storage_backend_type b);
Device device_of_backend(cgrad_storage_backend_type b);
/// The integer in an enum object that came from C. C may store any int in an enum; in C++,
/// reading a value outside the enumerators' range as the enum type is undefined, so the bytes
/// are copied instead.
template <class E>
int raw_enum(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}
/// Throws for an unknown value or an unavailable backend.
void check_backend(int b, const char* what);
/// The C layout of a node.
cgrad_storage_layout layout_of(const NodeRec& n);
/// Fills a tensor struct referring to `n` in graph handle `h`.
void write_tensor(cgrad_tensor* out, cgrad_compute_graph* h, const NodeRec& n);
/// Materializes `n` and every unmaterialized node it depends on (one schedule).
void execute(NodeRec& n);

std::string uuid_str(const cgrad_uuid& id);

// ---- user element-wise functions (elementwise.cpp) ----
/// The function behind a live handle (not freed); fail() otherwise.
const ElementwiseFn& elementwise_fn(const cgrad_elementwise_fn* fn, bool allow_freed);
/// The value of a CGRAD_OP_ELEMENTWISE node (handles stay valid for nodes after being freed).
Tensor elementwise_value(const cgrad_op_metadata& m, const std::vector<Tensor>& in);

}  // namespace cgrad::capi
