// The C API's registry of graphs and handles: ids, lookups, merging and freeing, error codes
// and messages. Everything here runs under State::mu (see guard() in capi_internal.h).
#include "capi/capi_internal.h"

#include <cstdio>
#include <cstring>

namespace cgrad::capi {

namespace {
thread_local std::string t_last_error;

cgrad_uuid make_uuid(uint64_t hi, uint64_t lo) {
  cgrad_uuid u{};
  for (int i = 0; i < 8; ++i) {
    u.bytes[i] = static_cast<unsigned char>(hi >> (56 - 8 * i));
    u.bytes[8 + i] = static_cast<unsigned char>(lo >> (56 - 8 * i));
  }
  return u;
}

uint64_t low_half(const cgrad_uuid& u) {
  uint64_t v = 0;
  for (int i = 8; i < 16; ++i) v = (v << 8) | u.bytes[i];
  return v;
}

uint64_t high_half(const cgrad_uuid& u) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | u.bytes[i];
  return v;
}
}  // namespace

void fail(int code, const std::string& msg) { throw CError{code, msg}; }

State& state() {
  // Never destroyed: graphs still alive at exit stay reachable (leak checkers do not report them)
  // and are not torn down after the engine's own statics are gone.
  static State* s = new State;
  return *s;
}

void set_last_error(const std::string& msg) { t_last_error = msg; }

int report(const char* fn, const char* msg, int code) noexcept {
  try {
    t_last_error = std::string(fn) + ": " + msg;
  } catch (...) {
    t_last_error.clear();
  }
  return code;
}

int map_code(ErrorCode c) {
  switch (c) {
    case ErrorCode::ShapeMismatch: return CGRAD_GRAPH_ERR_SHAPE_MISMATCH;
    case ErrorCode::InvalidArgument: return CGRAD_ERR_INVALID_ARGUMENT;
    case ErrorCode::InvalidOperation: return CGRAD_GRAPH_ERR_INVALID_OPERATION;
    case ErrorCode::DTypeMismatch: return CGRAD_ERR_DTYPE;
    case ErrorCode::DeviceError: return CGRAD_ERR_BACKEND_UNAVAILABLE;
    case ErrorCode::OutOfMemory: return CGRAD_ERR_OUT_OF_MEMORY;
    case ErrorCode::CompileError:
    case ErrorCode::ExecutionFailed: return CGRAD_GRAPH_ERR_EXECUTION_FAILED;
    case ErrorCode::Internal: return CGRAD_ERR_INTERNAL;
  }
  return CGRAD_ERR_INTERNAL;
}

std::string uuid_str(const cgrad_uuid& id) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += hex[id.bytes[i] >> 4];
    s += hex[id.bytes[i] & 15];
  }
  return s;
}

GraphImpl& graph_of(const cgrad_compute_graph* g, const char* what) {
  if (!g) fail(CGRAD_ERR_NULL_POINTER, std::string(what) + " is NULL");
  auto it = state().handles.find(g);
  if (it == state().handles.end())
    fail(CGRAD_ERR_FREED,
         std::string(what) + " is not a live graph (it was freed, or never created by cgrad)");
  return *it->second;
}

NodeRec* find_node(GraphImpl& g, const cgrad_uuid& id) {
  auto it = g.nodes.find(low_half(id));
  if (it == g.nodes.end() || std::memcmp(it->second->uuid.bytes, id.bytes, 16) != 0) return nullptr;
  return it->second.get();
}

Ref resolve(const cgrad_tensor* t, const char* what) {
  if (!t) fail(CGRAD_ERR_NULL_POINTER, std::string(what) + " is NULL");
  if (t->magic == CGRAD_TENSOR_FREED)
    fail(CGRAD_ERR_FREED, std::string(what) + " was freed (cgrad_tensor_free)");
  if (t->magic != CGRAD_TENSOR_MAGIC)
    fail(CGRAD_ERR_INVALID_ARGUMENT, std::string(what) + " is not an initialized tensor");
  if (!t->graph) fail(CGRAD_ERR_INVALID_ARGUMENT, std::string(what) + " has no graph");
  auto it = state().handles.find(t->graph);
  if (it == state().handles.end())
    fail(CGRAD_ERR_FREED, std::string(what) + ": its graph was freed (cgrad_compute_graph_free)");
  NodeRec* n = find_node(*it->second, t->node_id);
  if (!n) {
    // The node is in another live graph (a struct whose `graph` field was pointed at the wrong
    // graph): NODE_NOT_FOUND. Otherwise its graph was freed and the handle's address reused
    // for a new graph: FREED. Error path only, so scanning every live graph is fine.
    for (const auto& [impl, owned] : state().graphs)
      if (impl != it->second && find_node(*impl, t->node_id))
        fail(CGRAD_ERR_NODE_NOT_FOUND,
             std::string(what) + ": its node " + uuid_str(t->node_id) +
                 " is not in the graph its `graph` field names (it belongs to another graph)");
    fail(CGRAD_ERR_FREED, std::string(what) + ": its node " + uuid_str(t->node_id) + " no longer exists");
  }
  return {t->graph, it->second, n};
}

Ref new_graph_with_leaf(Tensor value, cgrad_storage_backend_type backend) {
  State& s = state();
  auto impl = std::make_unique<GraphImpl>();
  auto handle = std::make_unique<cgrad_compute_graph>();
  auto leaf = std::make_unique<NodeRec>();
  const uint64_t gid = s.next_graph;
  handle->graph_id = make_uuid(gid, 0);
  handle->node_metadata_table = impl.get();
  leaf->serial = s.next_node;
  leaf->uuid = make_uuid(gid, leaf->serial);
  leaf->op.type = CGRAD_OP_NONE;
  leaf->backend = backend;
  leaf->value = std::move(value);
  impl->handles.push_back(handle.get());
  NodeRec* lp = leaf.get();
  impl->nodes.emplace(lp->serial, std::move(leaf));
  // Commit: the registry insertions are the last steps that may throw.
  GraphImpl* ip = impl.get();
  s.graphs.emplace(ip, std::move(impl));
  try {
    s.handles.emplace(handle.get(), ip);
  } catch (...) {
    s.graphs.erase(ip);
    throw;
  }
  ++s.next_graph;
  ++s.next_node;
  return {handle.release(), ip, lp};
}

void merge_graphs(GraphImpl& into, GraphImpl& from) {
  if (&into == &from) return;
  State& s = state();
  if (into.nodes.size() + from.nodes.size() > static_cast<std::size_t>(s.max_nodes))
    fail(CGRAD_GRAPH_ERR_GRAPH_MERGE_FAILED,
         "merged graph would have " + std::to_string(into.nodes.size() + from.nodes.size()) +
             " nodes, more than the limit of " + std::to_string(s.max_nodes));
  into.handles.reserve(into.handles.size() + from.handles.size());  // the only step that may throw
  into.nodes.merge(from.nodes);  // serials are unique: moves every node, allocates nothing
  for (cgrad_compute_graph* h : from.handles) {
    into.handles.push_back(h);
    s.handles[h] = &into;
    h->node_metadata_table = &into;
  }
  s.graphs.erase(&from);
}

NodeRec* add_node(GraphImpl& g, const cgrad_op_info& op, std::vector<NodeRec*> inputs, Tensor value,
                  cgrad_storage_backend_type backend) {
  State& s = state();
  if (g.nodes.size() >= static_cast<std::size_t>(s.max_nodes))
    fail(CGRAD_GRAPH_ERR_INVALID_OPERATION, "the graph holds " + std::to_string(g.nodes.size()) +
                                                " nodes, the limit set by cgrad_set_max_graph_nodes");
  auto n = std::make_unique<NodeRec>();
  n->serial = s.next_node;
  // The creating graph's serial is the first handle's id (stable for the node's lifetime).
  n->uuid = make_uuid(high_half(g.handles.front()->graph_id), n->serial);
  n->op = op;
  n->inputs = std::move(inputs);
  n->backend = backend;
  n->value = std::move(value);
  NodeRec* p = n.get();
  g.nodes.emplace(p->serial, std::move(n));
  ++s.next_node;
  return p;
}

void free_handle(cgrad_compute_graph* h) {
  State& s = state();
  GraphImpl* g = s.handles.at(h);
  s.handles.erase(h);
  std::erase(g->handles, h);
  delete h;
  if (g->handles.empty()) s.graphs.erase(g);
}

}  // namespace cgrad::capi

using namespace cgrad::capi;

extern "C" {

const char* cgrad_error_string(int code) {
  switch (code) {
    case CGRAD_SUCCESS: return "success";
    case CGRAD_ERR_NULL_POINTER: return "a required pointer argument is NULL";
    case CGRAD_ERR_INVALID_ARGUMENT: return "invalid argument";
    case CGRAD_ERR_FREED: return "the tensor or its graph was freed";
    case CGRAD_ERR_TOO_MANY_DIMS: return "more than TENSOR_DIM dimensions";
    case CGRAD_ERR_DTYPE: return "operands have different element types";
    case CGRAD_ERR_OUT_OF_MEMORY: return "out of memory";
    case CGRAD_ERR_BACKEND_UNAVAILABLE: return "storage backend not available";
    case CGRAD_ERR_NODE_NOT_FOUND: return "no such node in the graph";
    case CGRAD_ERR_BUFFER_TOO_SMALL: return "output buffer too small";
    case CGRAD_ERR_IO: return "file could not be written";
    case CGRAD_ERR_INTERNAL: return "internal error";
    case CGRAD_GRAPH_ERR_SHAPE_MISMATCH: return "shape mismatch";
    case CGRAD_GRAPH_ERR_INVALID_OPERATION: return "invalid operation";
    case CGRAD_GRAPH_ERR_GRAPH_MERGE_FAILED: return "graph merge failed";
    case CGRAD_GRAPH_ERR_TOPOLOGICAL_SORT_FAILED: return "topological sort failed";
    case CGRAD_GRAPH_ERR_EXECUTION_FAILED: return "execution failed";
    default: return "unknown error code";
  }
}

const char* cgrad_last_error(void) { return cgrad::capi::t_last_error.c_str(); }

}  // extern "C"
