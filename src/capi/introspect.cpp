// C entry points for graphs: merging, freeing, node queries, topological order, printing and
// DOT export, plus the small helpers (op names, uuids, counters). Output is rendered from the C
// graph (which keeps every edge in slot order even after the core dropped the inputs of
// realized nodes), numbered %0, %1, ... in topological order so dumps diff cleanly.
#include "capi/capi_internal.h"

#include <cerrno>
#include <cstring>
#include <sstream>

namespace cgrad::capi {
namespace {

const char* backend_name(int b) {
  switch (b) {
    case CGRAD_STORAGE_BACKEND_F32_CPU: return "f32_cpu";
    case CGRAD_STORAGE_BACKEND_F64_CPU: return "f64_cpu";
    case CGRAD_STORAGE_BACKEND_F32_CUDA: return "f32_cuda";
    case CGRAD_STORAGE_BACKEND_F64_CUDA: return "f64_cuda";
    default: return "?";
  }
}

std::string layout_str(const cgrad_storage_layout& l) {
  std::string s = std::string(backend_name(raw_enum(l.backend_type))) + "(";
  for (int i = 0; i < l.ndim; ++i) s += (i ? ", " : "") + std::to_string(l.shape[i]);
  return s + (l.ndim == 1 ? ",)" : ")");
}

template <class T>
std::string list(const T* v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(static_cast<int64_t>(v[i]));
  return s + "]";
}

// Metadata as `perm=[1, 0]` text; ndim values are clamped so a user-made struct cannot make us
// read past the arrays.
std::string meta_str(const cgrad_op_info& op) {
  const cgrad_op_metadata& m = op.metadata;
  auto clamp = [](int n) { return n < 0 ? 0 : (n > CGRAD_TENSOR_DIM ? CGRAD_TENSOR_DIM : n); };
  std::ostringstream s;
  switch (op.type) {
    case CGRAD_OP_TRANSPOSE: s << "perm=" << list(m.transpose.perm, clamp(m.transpose.ndim)); break;
    case CGRAD_OP_RESHAPE: s << "shape=" << list(m.reshape.new_shape, clamp(m.reshape.ndim)); break;
    case CGRAD_OP_REDUCE_SUM:
    case CGRAD_OP_REDUCE_MEAN:
    case CGRAD_OP_REDUCE_MAX:
    case CGRAD_OP_REDUCE_MIN: s << "mask=" << list(m.reduce.mask, clamp(m.reduce.ndim)); break;
    case CGRAD_OP_SOFTMAX:
    case CGRAD_OP_LOG_SOFTMAX: s << "axis=" << m.softmax.axis; break;
    case CGRAD_OP_ADD_SCALAR:
    case CGRAD_OP_MUL_SCALAR:
    case CGRAD_OP_POW_SCALAR: s << "scalar=" << m.scalar; break;
    case CGRAD_OP_CAST: s << "to=" << backend_name(raw_enum(m.cast.backend_type)); break;
    case CGRAD_OP_ELEMENTWISE: s << "fn=" << elementwise_fn(m.elementwise.fn, true).name(); break;
    default: break;
  }
  return s.str();
}

cgrad_graph_node describe(const NodeRec& n) {
  cgrad_graph_node d{};
  d.node_id = n.uuid;
  d.op_info = n.op;
  d.layout = layout_of(n);
  // Opaque: identifies the node's record; never dereferenced by users (incomplete type).
  d.storage = n.value.is_evaluated() ? reinterpret_cast<cgrad_storage*>(const_cast<NodeRec*>(&n)) : nullptr;
  d.num_inputs = static_cast<int>(n.inputs.size());
  return d;
}

std::string graph_text(GraphImpl& g, const cgrad_compute_graph* h) {
  std::unordered_map<const NodeRec*, std::size_t> num;
  std::ostringstream s;
  s << "compute graph " << uuid_str(h->graph_id) << ": " << g.nodes.size() << " nodes\n";
  for (auto& [serial, n] : g.nodes) {
    const std::size_t i = num.size();
    num[n.get()] = i;
    s << "  %" << i << " = " << cgrad_op_name(n->op.type) << "(";
    for (std::size_t k = 0; k < n->inputs.size(); ++k) s << (k ? ", " : "") << "%" << num[n->inputs[k]];
    s << ")";
    std::string meta = meta_str(n->op);
    if (!meta.empty()) s << " {" << meta << "}";
    s << " : " << layout_str(layout_of(*n));
    if (n->value.is_evaluated()) s << " [materialized]";
    s << "  id=" << uuid_str(n->uuid) << "\n";
  }
  return s.str();
}

std::string dot_text(GraphImpl& g) {
  std::unordered_map<const NodeRec*, std::size_t> num;
  std::ostringstream s, edges;
  s << "digraph cgrad {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (auto& [serial, n] : g.nodes) {
    const std::size_t i = num.size();
    num[n.get()] = i;
    std::string meta = meta_str(n->op);
    s << "  n" << i << " [label=\"%" << i << " " << cgrad_op_name(n->op.type);
    if (!meta.empty()) s << "\\n" << meta;
    s << "\\n" << layout_str(layout_of(*n)) << "\", id=\"" << uuid_str(n->uuid) << "\"";
    if (n->value.is_evaluated()) s << ", style=filled, fillcolor=\"#dde8f5\"";
    s << "];\n";
    for (std::size_t k = 0; k < n->inputs.size(); ++k)
      edges << "  n" << num[n->inputs[k]] << " -> n" << i << " [label=\"" << k << "\", slot=\"" << k
            << "\"];\n";
  }
  return s.str() + edges.str() + "}\n";
}

void write_stream(FILE* f, const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size())
    fail(CGRAD_ERR_IO, std::string("write failed: ") + std::strerror(errno));
}

int count_arg(int max, const void* out, const char* what) {
  if (max < 0) fail(CGRAD_ERR_INVALID_ARGUMENT, std::string(what) + " is negative");
  if (max > 0 && !out) fail(CGRAD_ERR_NULL_POINTER, "the output array is NULL");
  return max;
}

}  // namespace
}  // namespace cgrad::capi

using namespace cgrad::capi;

extern "C" {

const char* cgrad_op_name(cgrad_op_type type) {
  static const char* const names[CGRAD_OP_COUNT] = {
      "leaf",       "add",     "sub",         "gemm",       "transpose",  "reshape",     "reduce_sum",
      "mul",        "div",     "pow",         "maximum",    "minimum",    "neg",         "exp",
      "log",        "sqrt",    "rsqrt",       "abs",        "sin",        "cos",         "tanh",
      "sigmoid",    "relu",    "add_scalar",  "mul_scalar", "pow_scalar", "reduce_mean", "reduce_max",
      "reduce_min", "softmax", "log_softmax", "cast",       "elementwise"};
  const int t = raw_enum(type);
  return t >= 0 && t < CGRAD_OP_COUNT ? names[t] : "?";
}

int cgrad_uuid_to_string(cgrad_uuid id, char out[37]) {
  return guard("cgrad_uuid_to_string", [&] {
    if (!out) fail(CGRAD_ERR_NULL_POINTER, "out is NULL");
    std::string s = uuid_str(id);
    std::memcpy(out, s.c_str(), 37);
    return CGRAD_SUCCESS;
  });
}

// cgrad_dtype mirrors cgrad::DType value for value (cgrad/dtypes.def).
#define CGRAD_DTYPE(E, Kind, bytes, Host, ctype, Compute) \
  static_assert(static_cast<int>(cgrad::DType::E) == static_cast<int>(CGRAD_DTYPE_##E##_C));
#define CGRAD_DTYPE_f32_C CGRAD_DTYPE_F32
#define CGRAD_DTYPE_f64_C CGRAD_DTYPE_F64
#define CGRAD_DTYPE_i32_C CGRAD_DTYPE_I32
#define CGRAD_DTYPE_i64_C CGRAD_DTYPE_I64
#define CGRAD_DTYPE_b8_C CGRAD_DTYPE_B8
#define CGRAD_DTYPE_i8_C CGRAD_DTYPE_I8
#define CGRAD_DTYPE_i16_C CGRAD_DTYPE_I16
#define CGRAD_DTYPE_u8_C CGRAD_DTYPE_U8
#define CGRAD_DTYPE_u16_C CGRAD_DTYPE_U16
#define CGRAD_DTYPE_u32_C CGRAD_DTYPE_U32
#define CGRAD_DTYPE_u64_C CGRAD_DTYPE_U64
#define CGRAD_DTYPE_f16_C CGRAD_DTYPE_F16
#define CGRAD_DTYPE_bf16_C CGRAD_DTYPE_BF16
#define CGRAD_DTYPE_c64_C CGRAD_DTYPE_C64
#define CGRAD_DTYPE_c128_C CGRAD_DTYPE_C128
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE

int cgrad_dtype_info(cgrad_dtype dtype, size_t* size, const char** name) {
  return guard("cgrad_dtype_info", [&] {
    const int v = static_cast<int>(dtype);
    if (v < 0 || v >= cgrad::kNumDTypes)
      fail(CGRAD_ERR_INVALID_ARGUMENT, "not a cgrad_dtype: " + std::to_string(v));
    if (size) *size = cgrad::dtype_size(static_cast<cgrad::DType>(v));
    if (name) *name = cgrad::dtype_name(static_cast<cgrad::DType>(v));
    return CGRAD_SUCCESS;
  });
}

int cgrad_uuid_compare(cgrad_uuid a, cgrad_uuid b) {
  const int c = std::memcmp(a.bytes, b.bytes, 16);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int cgrad_compute_graph_merge(cgrad_compute_graph* graph1, cgrad_compute_graph* graph2) {
  return guard("cgrad_compute_graph_merge", [&] {
    GraphImpl& g1 = graph_of(graph1, "graph1");
    GraphImpl& g2 = graph_of(graph2, "graph2");
    merge_graphs(g1, g2);
    return CGRAD_SUCCESS;
  });
}

int cgrad_compute_graph_get_node(const cgrad_compute_graph* graph, cgrad_uuid node_id,
                                 cgrad_graph_node* out_node_info) {
  return guard("cgrad_compute_graph_get_node", [&] {
    GraphImpl& g = graph_of(graph, "graph");
    if (!out_node_info) fail(CGRAD_ERR_NULL_POINTER, "out_node_info is NULL");
    NodeRec* n = find_node(g, node_id);
    if (!n) fail(CGRAD_ERR_NODE_NOT_FOUND, "no node " + uuid_str(node_id) + " in this graph");
    *out_node_info = describe(*n);
    return CGRAD_SUCCESS;
  });
}

int cgrad_compute_graph_get_inputs(const cgrad_compute_graph* graph, cgrad_uuid node_id,
                                   cgrad_uuid* out_input_node_ids, int max_inputs, int* out_num_inputs) {
  return guard("cgrad_compute_graph_get_inputs", [&] {
    GraphImpl& g = graph_of(graph, "graph");
    if (!out_num_inputs) fail(CGRAD_ERR_NULL_POINTER, "out_num_inputs is NULL");
    count_arg(max_inputs, out_input_node_ids, "max_inputs");
    NodeRec* n = find_node(g, node_id);
    if (!n) fail(CGRAD_ERR_NODE_NOT_FOUND, "no node " + uuid_str(node_id) + " in this graph");
    const int count = static_cast<int>(n->inputs.size());
    *out_num_inputs = count;
    if (!out_input_node_ids && max_inputs == 0) return CGRAD_SUCCESS;
    if (max_inputs < count)
      fail(CGRAD_ERR_BUFFER_TOO_SMALL, "the node has " + std::to_string(count) + " inputs, the array holds " +
                                           std::to_string(max_inputs));
    for (int i = 0; i < count; ++i) out_input_node_ids[i] = n->inputs[static_cast<std::size_t>(i)]->uuid;
    return CGRAD_SUCCESS;
  });
}

int cgrad_compute_graph_topological_sort(const cgrad_compute_graph* graph, cgrad_uuid* out_sorted_node_ids,
                                         int max_nodes, int* out_num_nodes) {
  return guard("cgrad_compute_graph_topological_sort", [&] {
    GraphImpl& g = graph_of(graph, "graph");
    if (!out_num_nodes) fail(CGRAD_ERR_NULL_POINTER, "out_num_nodes is NULL");
    count_arg(max_nodes, out_sorted_node_ids, "max_nodes");
    const int count = static_cast<int>(g.nodes.size());
    *out_num_nodes = count;
    if (!out_sorted_node_ids && max_nodes == 0) return CGRAD_SUCCESS;
    if (max_nodes < count)
      fail(CGRAD_GRAPH_ERR_TOPOLOGICAL_SORT_FAILED,
           "the graph has " + std::to_string(count) + " nodes, the array holds " + std::to_string(max_nodes));
    // Creation order is topological: a node's inputs always exist before it.
    int i = 0;
    for (auto& [serial, n] : g.nodes) out_sorted_node_ids[i++] = n->uuid;
    return CGRAD_SUCCESS;
  });
}

int cgrad_compute_graph_get_node_count(const cgrad_compute_graph* graph, int* out_count) {
  return guard("cgrad_compute_graph_get_node_count", [&] {
    GraphImpl& g = graph_of(graph, "graph");
    if (!out_count) fail(CGRAD_ERR_NULL_POINTER, "out_count is NULL");
    *out_count = static_cast<int>(g.nodes.size());
    return CGRAD_SUCCESS;
  });
}

int cgrad_compute_graph_free(cgrad_compute_graph* graph) {
  return guard("cgrad_compute_graph_free", [&] {
    graph_of(graph, "graph");
    free_handle(graph);
    return CGRAD_SUCCESS;
  });
}

int cgrad_set_max_graph_nodes(int max_nodes) {
  return guard("cgrad_set_max_graph_nodes", [&] {
    if (max_nodes < 1)
      fail(CGRAD_ERR_INVALID_ARGUMENT, "max_nodes must be at least 1, got " + std::to_string(max_nodes));
    state().max_nodes = max_nodes;
    return CGRAD_SUCCESS;
  });
}

int cgrad_compute_graph_to_dot(const cgrad_compute_graph* graph, const char* filename) {
  return guard("cgrad_compute_graph_to_dot", [&] {
    GraphImpl& g = graph_of(graph, "graph");
    if (!filename) fail(CGRAD_ERR_NULL_POINTER, "filename is NULL");
    std::string text = dot_text(g);
    FILE* f = std::fopen(filename, "w");
    if (!f) fail(CGRAD_ERR_IO, std::string("cannot open '") + filename + "': " + std::strerror(errno));
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const int err = errno;
    if (std::fclose(f) != 0 || !ok)
      fail(CGRAD_ERR_IO, std::string("cannot write '") + filename + "': " + std::strerror(ok ? errno : err));
    return CGRAD_SUCCESS;
  });
}

int cgrad_compute_graph_fprint(const cgrad_compute_graph* graph, FILE* stream) {
  return guard("cgrad_compute_graph_fprint", [&] {
    GraphImpl& g = graph_of(graph, "graph");
    if (!stream) fail(CGRAD_ERR_NULL_POINTER, "stream is NULL");
    write_stream(stream, graph_text(g, graph));
    return CGRAD_SUCCESS;
  });
}

int cgrad_graph_node_fprint(const cgrad_graph_node* node, FILE* stream) {
  return guard("cgrad_graph_node_fprint", [&] {
    if (!node) fail(CGRAD_ERR_NULL_POINTER, "node is NULL");
    if (!stream) fail(CGRAD_ERR_NULL_POINTER, "stream is NULL");
    const int type = raw_enum(node->op_info.type);
    if (type < 0 || type >= CGRAD_OP_COUNT || node->layout.ndim < 0 || node->layout.ndim > CGRAD_TENSOR_DIM)
      fail(CGRAD_ERR_INVALID_ARGUMENT, "node is not a node description (bad op type or ndim)");
    std::ostringstream s;
    s << "node " << uuid_str(node->node_id) << ": " << cgrad_op_name(static_cast<cgrad_op_type>(type));
    std::string meta = meta_str(node->op_info);
    if (!meta.empty()) s << " {" << meta << "}";
    s << " : " << layout_str(node->layout) << ", " << node->num_inputs
      << (node->num_inputs == 1 ? " input" : " inputs");
    if (node->storage) s << " [materialized]";
    s << "\n";
    write_stream(stream, s.str());
    return CGRAD_SUCCESS;
  });
}

void cgrad_compute_graph_print(const cgrad_compute_graph* graph) {
  (void)cgrad_compute_graph_fprint(graph, stdout);
}

void cgrad_graph_node_print(const cgrad_graph_node* node) { (void)cgrad_graph_node_fprint(node, stdout); }

int cgrad_stats_get(cgrad_stats* out_stats) {
  return guard("cgrad_stats_get", [&] {
    if (!out_stats) fail(CGRAD_ERR_NULL_POINTER, "out_stats is NULL");
    cgrad::Stats s = cgrad::stats();
    out_stats->kernels_launched = s.kernels_launched;
    out_stats->kernels_compiled = s.kernels_compiled;
    out_stats->kernel_cache_hits = s.kernel_cache_hits;
    out_stats->disk_cache_hits = s.disk_cache_hits;
    out_stats->plans_built = s.plans_built;
    out_stats->plan_cache_hits = s.plan_cache_hits;
    out_stats->bytes_allocated = s.bytes_allocated;
    return CGRAD_SUCCESS;
  });
}

int cgrad_stats_reset(void) {
  return guard("cgrad_stats_reset", [&] {
    cgrad::reset_stats();
    return CGRAD_SUCCESS;
  });
}

}  // extern "C"
