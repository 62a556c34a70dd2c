/*
 * cgrad.h: the C interface of cgrad, usable from C11 and C++.
 *
 * It implements the "Lazy Compute Graph Design for cgrad" document: a tensor is a reference to
 * a node of a compute graph; operations add nodes lazily; operations on tensors of different
 * graphs merge the graphs; cgrad_tensor_execute materializes a node (and caches every
 * intermediate result in its node). The C++ engine (include/cgrad/cgrad.hpp) does the work.
 *
 * Every function returns CGRAD_SUCCESS or a negative error code and never aborts the process;
 * no C++ exception escapes. cgrad_last_error() gives the message of the last failure on the
 * calling thread. Ownership, error codes and the design decisions are described in docs/capi.md.
 */
#ifndef CGRAD_H
#define CGRAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Limits and error codes
 * ------------------------------------------------------------------------------------------- */

/** Most dimensions a tensor may have. */
#define CGRAD_TENSOR_DIM 8
#ifndef TENSOR_DIM
#define TENSOR_DIM CGRAD_TENSOR_DIM
#endif
#if TENSOR_DIM != CGRAD_TENSOR_DIM
#error "TENSOR_DIM is defined to a value other than CGRAD_TENSOR_DIM (8) before including cgrad.h"
#endif

#define CGRAD_SUCCESS 0
/* Argument and resource errors (the document leaves these to the implementation). */
#define CGRAD_ERR_NULL_POINTER (-1000) /**< a required pointer argument is NULL */
#define CGRAD_ERR_INVALID_ARGUMENT \
  (-1001) /**< bad value: ndim < 0, not a permutation, mask not 0/1, uninitialized tensor, ... */
#define CGRAD_ERR_FREED (-1002)               /**< the tensor was freed, or its graph was freed */
#define CGRAD_ERR_TOO_MANY_DIMS (-1003)       /**< more than TENSOR_DIM dimensions */
#define CGRAD_ERR_DTYPE (-1004)               /**< operands have different element types (cast first) */
#define CGRAD_ERR_OUT_OF_MEMORY (-1005)       /**< an allocation failed (outside execution) */
#define CGRAD_ERR_BACKEND_UNAVAILABLE (-1006) /**< the storage backend (CUDA) is not available */
#define CGRAD_ERR_NODE_NOT_FOUND (-1007)      /**< no node with this id in the graph */
#define CGRAD_ERR_BUFFER_TOO_SMALL (-1008)    /**< an output array is shorter than the result */
#define CGRAD_ERR_IO (-1009)                  /**< a file could not be written */
#define CGRAD_ERR_INTERNAL (-1010)            /**< a bug in cgrad; please report it */
/* Graph errors, as named in the design document. */
#define CGRAD_GRAPH_ERR_SHAPE_MISMATCH (-1400) /**< incompatible shapes */
#define CGRAD_GRAPH_ERR_INVALID_OPERATION \
  (-1401) /**< e.g. filling a non-leaf tensor; graph at its node limit */
#define CGRAD_GRAPH_ERR_GRAPH_MERGE_FAILED (-1402)      /**< merged graph would exceed the node limit */
#define CGRAD_GRAPH_ERR_TOPOLOGICAL_SORT_FAILED (-1403) /**< the output array cannot hold every node */
#define CGRAD_GRAPH_ERR_EXECUTION_FAILED (-1404)        /**< computing a value failed (e.g. out of memory) */

/** A static English description of an error code ("unknown error code" for others). */
const char* cgrad_error_string(int code);
/** The message of the last failed call on this thread ("" after a successful call). Valid until
 *  the next cgrad call on this thread. */
const char* cgrad_last_error(void);

/* ---------------------------------------------------------------------------------------------
 * Identifiers
 * ------------------------------------------------------------------------------------------- */

/** 16 bytes identifying a graph or a node. Deterministic per process: bytes 0-7 are the serial
 *  number of the graph that created it (big-endian), bytes 8-15 the node's serial number (0 for
 *  a graph id). Not an RFC 4122 UUID. */
typedef struct cgrad_uuid {
  unsigned char bytes[16];
} cgrad_uuid;

/* The document names the type uuid_t. cgrad does not depend on libuuid: uuid_t is defined as
 * cgrad_uuid unless a system uuid_t is already visible (libuuid's <uuid/uuid.h>, macOS or BSD
 * headers) or CGRAD_NO_UUID_T is defined. Every prototype below uses cgrad_uuid, so the ABI is
 * the same either way; include <uuid/uuid.h> before cgrad.h if you need both. */
#if !defined(CGRAD_NO_UUID_T) && !defined(_UUID_UUID_H) && !defined(_UUID_T) && !defined(_SYS_UUID_H_) && \
    !defined(_UUID_H_)
typedef cgrad_uuid uuid_t;
#define CGRAD_HAS_UUID_T 1
#endif

/** Writes `id` as 36 characters plus NUL ("00000000-0000-0001-0000-000000000002") to `out`. */
int cgrad_uuid_to_string(cgrad_uuid id, char out[37]);
/** memcmp-style comparison: 0 when equal. */
int cgrad_uuid_compare(cgrad_uuid a, cgrad_uuid b);

/* ---------------------------------------------------------------------------------------------
 * Storage backends and layouts
 * ------------------------------------------------------------------------------------------- */

/** Element type and device of a tensor's storage. */
typedef enum {
  CGRAD_STORAGE_BACKEND_F32_CPU = 0,
  CGRAD_STORAGE_BACKEND_F64_CPU = 1,
  CGRAD_STORAGE_BACKEND_F32_CUDA = 2, /**< CGRAD_ERR_BACKEND_UNAVAILABLE while CUDA is unavailable */
  CGRAD_STORAGE_BACKEND_F64_CUDA = 3, /**< CGRAD_ERR_BACKEND_UNAVAILABLE while CUDA is unavailable */
  CGRAD_STORAGE_BACKEND_MAX_ENUM =
      0x7FFFFFFF /**< not a value: makes the enum as wide as int, so any int a caller passes can be checked */
} cgrad_storage_backend_type;

/** Element types: the values of cgrad::DType (include/cgrad/dtypes.def; docs/semantics.md has the
 * promotion and cast rules). The storage backends above hold f32 or f64; this enum names every
 * element type of the library for callers that exchange data with the C++ API or other tools. */
typedef enum {
  CGRAD_DTYPE_F32 = 0,
  CGRAD_DTYPE_F64 = 1,
  CGRAD_DTYPE_I32 = 2,
  CGRAD_DTYPE_I64 = 3,
  CGRAD_DTYPE_B8 = 4,
  CGRAD_DTYPE_I8 = 5,
  CGRAD_DTYPE_I16 = 6,
  CGRAD_DTYPE_U8 = 7,
  CGRAD_DTYPE_U16 = 8,
  CGRAD_DTYPE_U32 = 9,
  CGRAD_DTYPE_U64 = 10,
  CGRAD_DTYPE_F16 = 11,  /**< IEEE binary16 */
  CGRAD_DTYPE_BF16 = 12, /**< bfloat16 */
  CGRAD_DTYPE_C64 = 13,  /**< complex of two f32 (re, im), as C's float _Complex */
  CGRAD_DTYPE_C128 = 14, /**< complex of two f64 (re, im), as C's double _Complex */
  CGRAD_DTYPE_MAX_ENUM =
      0x7FFFFFFF /**< not a value: makes the enum as wide as int, so any int a caller passes can be checked */
} cgrad_dtype;

/** Bytes per element and name ("f32", "u8", ...) of `dtype`; either output may be NULL.
 * CGRAD_ERR_INVALID_ARGUMENT for a value that is not a cgrad_dtype. */
int cgrad_dtype_info(cgrad_dtype dtype, size_t* size, const char** name);

/** Shape of a tensor. Dimensions are left-aligned: shape[0..ndim-1]; unused entries are 1. */
typedef struct {
  int ndim;                         /**< number of dimensions, 0..TENSOR_DIM */
  uint32_t shape[CGRAD_TENSOR_DIM]; /**< size of each dimension */
  uint64_t
      strides[CGRAD_TENSOR_DIM]; /**< row-major strides in elements (the order cgrad_tensor_read writes) */
  uint64_t size;                 /**< number of elements (product of shape) */
  cgrad_storage_backend_type backend_type; /**< element type and device */
} cgrad_storage_layout;

/** Opaque: the materialized value of a node. Users never look inside. */
typedef struct cgrad_storage cgrad_storage;

/* ---------------------------------------------------------------------------------------------
 * Operations
 * ------------------------------------------------------------------------------------------- */

/** Every operation of the compute graph. Leaves (inputs) have type CGRAD_OP_NONE. */
typedef enum {
  CGRAD_OP_NONE = 0, /**< leaf: an input with materialized storage */
  /* the document's operations */
  CGRAD_OP_ADD = 1,        /**< element-wise a + b (broadcasting) */
  CGRAD_OP_SUB = 2,        /**< element-wise a - b (broadcasting) */
  CGRAD_OP_GEMM = 3,       /**< batched matrix product (..., m, k) x (..., k, n) */
  CGRAD_OP_TRANSPOSE = 4,  /**< permutation of the last ndim dimensions */
  CGRAD_OP_RESHAPE = 5,    /**< new shape, same number of elements */
  CGRAD_OP_REDUCE_SUM = 6, /**< sum over the masked of the last ndim dimensions (kept with size 1) */
  /* further element-wise binary operations (broadcasting) */
  CGRAD_OP_MUL = 7,
  CGRAD_OP_DIV = 8,
  CGRAD_OP_POW = 9,
  CGRAD_OP_MAXIMUM = 10,
  CGRAD_OP_MINIMUM = 11,
  /* element-wise unary operations */
  CGRAD_OP_NEG = 12,
  CGRAD_OP_EXP = 13,
  CGRAD_OP_LOG = 14,
  CGRAD_OP_SQRT = 15,
  CGRAD_OP_RSQRT = 16,
  CGRAD_OP_ABS = 17,
  CGRAD_OP_SIN = 18,
  CGRAD_OP_COS = 19,
  CGRAD_OP_TANH = 20,
  CGRAD_OP_SIGMOID = 21,
  CGRAD_OP_RELU = 22,
  /* tensor-scalar operations (metadata.scalar) */
  CGRAD_OP_ADD_SCALAR = 23, /**< x + scalar */
  CGRAD_OP_MUL_SCALAR = 24, /**< x * scalar */
  CGRAD_OP_POW_SCALAR = 25, /**< x ^ scalar */
  /* further reductions (same mask rule as REDUCE_SUM) */
  CGRAD_OP_REDUCE_MEAN = 26,
  CGRAD_OP_REDUCE_MAX = 27,
  CGRAD_OP_REDUCE_MIN = 28,
  /* composites */
  CGRAD_OP_SOFTMAX = 29,     /**< softmax along metadata.softmax.axis */
  CGRAD_OP_LOG_SOFTMAX = 30, /**< log-softmax along metadata.softmax.axis */
  CGRAD_OP_CAST = 31,        /**< conversion to metadata.cast.backend_type */
  CGRAD_OP_ELEMENTWISE = 32, /**< a user element-wise function (metadata.elementwise) */
  CGRAD_OP_COUNT = 33,       /**< number of operation types (not an operation) */
  CGRAD_OP_MAX_ENUM =
      0x7FFFFFFF /**< not a value: makes the enum as wide as int, so any int a caller passes can be checked */
} cgrad_op_type;

/** Name of an operation type ("add", "leaf", ...; "?" for others). */
const char* cgrad_op_name(cgrad_op_type type);

/** Most parameters a user element-wise function may declare in the C API. */
#define CGRAD_ELEMENTWISE_MAX_PARAMS 8

/** Operation-specific metadata; the relevant member depends on the operation type. */
typedef union {
  struct {
    uint32_t perm[CGRAD_TENSOR_DIM]; /**< Permutation for transpose */
    int ndim;                        /**< Number of dimensions to permute */
  } transpose;

  struct {
    int32_t new_shape[CGRAD_TENSOR_DIM]; /**< Target shape for reshape (a -1 is stored resolved) */
    int ndim;                            /**< Number of dimensions */
  } reshape;

  struct {
    uint8_t mask[CGRAD_TENSOR_DIM]; /**< Reduction mask (1=reduce, 0=keep) over the last ndim dims */
    int ndim;                       /**< Number of dimensions */
  } reduce_sum;

  struct {
    int axis; /**< Axis for softmax and log-softmax (stored non-negative) */
  } softmax;

  struct {
    uint8_t mask[CGRAD_TENSOR_DIM]; /**< Reduction mask */
    int ndim;                       /**< Number of dimensions */
  } mean;

  struct {
    uint8_t mask[CGRAD_TENSOR_DIM]; /**< Reduction mask: every REDUCE_* op fills this layout */
    int ndim;                       /**< Number of dimensions */
  } reduce;

  struct {
    cgrad_storage_backend_type backend_type; /**< Target of CGRAD_OP_CAST */
  } cast;

  float scalar; /**< For scalar operations */

  struct {
    const struct cgrad_elementwise_fn* fn;       /**< the user function (cgrad_elementwise_define) */
    int n_params;                                /**< number of parameter values */
    double params[CGRAD_ELEMENTWISE_MAX_PARAMS]; /**< parameter values */
  } elementwise;
} cgrad_op_metadata;

/** Information about an operation and its metadata. */
typedef struct {
  cgrad_op_type type;         /**< Type of operation */
  cgrad_op_metadata metadata; /**< Operation-specific metadata */
} cgrad_op_info;

/* ---------------------------------------------------------------------------------------------
 * Graphs, nodes and tensors
 * ------------------------------------------------------------------------------------------- */

/** A node of a computation graph, as returned by cgrad_compute_graph_get_node (a copy). */
typedef struct cgrad_graph_node {
  cgrad_uuid node_id;          /**< Unique identifier for this node */
  cgrad_op_info op_info;       /**< Operation type and metadata (type CGRAD_OP_NONE for leaves) */
  cgrad_storage_layout layout; /**< Shape of the output tensor */
  cgrad_storage* storage;      /**< Opaque, non-NULL when the node holds a materialized value */
  int num_inputs;              /**< Number of input nodes (see cgrad_compute_graph_get_inputs) */
} cgrad_graph_node;

/** A computation graph. Created and owned by the library (cgrad_tensor_init creates one);
 *  users only read graph_id and pass the pointer back. Free with cgrad_compute_graph_free. */
typedef struct cgrad_compute_graph {
  cgrad_uuid graph_id;       /**< Unique identifier for this graph */
  void* node_metadata_table; /**< Internal; never dereference */
} cgrad_compute_graph;

/** A tensor: a reference to a node of a graph. A plain value; copies refer to the same node. */
typedef struct {
  cgrad_uuid node_id;          /**< ID of the node producing this tensor */
  cgrad_compute_graph* graph;  /**< Pointer to the compute graph */
  cgrad_storage_layout layout; /**< Shape and layout of the tensor */
  uint32_t magic; /**< CGRAD_TENSOR_MAGIC while valid, CGRAD_TENSOR_FREED after cgrad_tensor_free */
} cgrad_tensor;

#define CGRAD_TENSOR_MAGIC 0x43475254u /* "CGRT" */
#define CGRAD_TENSOR_FREED 0x46524545u /* "FREE" */

/* ---------------------------------------------------------------------------------------------
 * Input tensors
 * ------------------------------------------------------------------------------------------- */

/** Initializes `tensor` as a zero-filled leaf of a new graph. `shape` may be NULL when ndim is 0. */
int cgrad_tensor_init(cgrad_tensor* tensor, const uint32_t* shape, int ndim,
                      cgrad_storage_backend_type backend_type);
/** cgrad_tensor_init, then cgrad_tensor_fill_data with `count` values from `data`. */
int cgrad_tensor_init_from_data(cgrad_tensor* tensor, const uint32_t* shape, int ndim,
                                cgrad_storage_backend_type backend_type, const float* data, size_t count);
/** Sets every element of a leaf to `value`. Tensors computed from it see the new value at their
 *  next execution (cached results that depend on it are recomputed). */
int cgrad_tensor_fill(cgrad_tensor* tensor, float value);
/** Fills a leaf with uniform random values in [0, 1) (deterministic after cgrad_manual_seed). */
int cgrad_tensor_fill_rand(cgrad_tensor* tensor);
/** Copies `count` (== number of elements) row-major values into a leaf. */
int cgrad_tensor_fill_data(cgrad_tensor* tensor, const float* data, size_t count);
int cgrad_tensor_fill_data_f64(cgrad_tensor* tensor, const double* data, size_t count);
/** Seeds the random generator used by cgrad_tensor_fill_rand. */
int cgrad_manual_seed(uint64_t seed);

/* ---------------------------------------------------------------------------------------------
 * Operations (lazy: each adds one node; different graphs are merged into a's graph)
 * ------------------------------------------------------------------------------------------- */

int cgrad_tensor_add(const cgrad_tensor* a, const cgrad_tensor* b, cgrad_tensor* out_tensor);
int cgrad_tensor_sub(const cgrad_tensor* a, const cgrad_tensor* b, cgrad_tensor* out_tensor);
int cgrad_tensor_mul(const cgrad_tensor* a, const cgrad_tensor* b, cgrad_tensor* out_tensor);
int cgrad_tensor_div(const cgrad_tensor* a, const cgrad_tensor* b, cgrad_tensor* out_tensor);
int cgrad_tensor_pow(const cgrad_tensor* a, const cgrad_tensor* b, cgrad_tensor* out_tensor);
int cgrad_tensor_maximum(const cgrad_tensor* a, const cgrad_tensor* b, cgrad_tensor* out_tensor);
int cgrad_tensor_minimum(const cgrad_tensor* a, const cgrad_tensor* b, cgrad_tensor* out_tensor);
/** Batched matrix product: a (..., m, k), b (..., k, n) -> (..., m, n); batch dims broadcast;
 *  both operands need at least 2 dimensions. */
int cgrad_tensor_gemm(const cgrad_tensor* a, const cgrad_tensor* b, cgrad_tensor* out_tensor);

int cgrad_tensor_neg(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_exp(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_log(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_sqrt(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_rsqrt(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_abs(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_sin(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_cos(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_tanh(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_sigmoid(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);
int cgrad_tensor_relu(const cgrad_tensor* tensor, cgrad_tensor* out_tensor);

int cgrad_tensor_add_scalar(const cgrad_tensor* tensor, float scalar, cgrad_tensor* out_tensor);
int cgrad_tensor_mul_scalar(const cgrad_tensor* tensor, float scalar, cgrad_tensor* out_tensor);
int cgrad_tensor_pow_scalar(const cgrad_tensor* tensor, float scalar, cgrad_tensor* out_tensor);

/** Permutes the last `ndim` dimensions: perm is a permutation of 0..ndim-1.
 *  (2,3,4,5) with perm {1,0}, ndim 2 -> (2,3,5,4). */
int cgrad_tensor_transpose(const cgrad_tensor* tensor, const uint32_t* perm, int ndim,
                           cgrad_tensor* out_tensor);
/** New shape with the same number of elements; one entry may be -1 (inferred). */
int cgrad_tensor_reshape(const cgrad_tensor* tensor, const int32_t* new_shape, int ndim,
                         cgrad_tensor* out_tensor);
/** Sums over the dimensions whose mask entry is 1, the mask (length ndim) applying to the LAST
 *  ndim dimensions; reduced dimensions are kept with size 1. (2,3,4) with mask {1,0} -> (2,1,4). */
int cgrad_tensor_reduce_sum(const cgrad_tensor* tensor, const uint8_t* mask, int ndim,
                            cgrad_tensor* out_tensor);
int cgrad_tensor_reduce_mean(const cgrad_tensor* tensor, const uint8_t* mask, int ndim,
                             cgrad_tensor* out_tensor);
int cgrad_tensor_reduce_max(const cgrad_tensor* tensor, const uint8_t* mask, int ndim,
                            cgrad_tensor* out_tensor);
int cgrad_tensor_reduce_min(const cgrad_tensor* tensor, const uint8_t* mask, int ndim,
                            cgrad_tensor* out_tensor);
/** Softmax along `axis` (negative counts from the end). */
int cgrad_tensor_softmax(const cgrad_tensor* tensor, int axis, cgrad_tensor* out_tensor);
int cgrad_tensor_log_softmax(const cgrad_tensor* tensor, int axis, cgrad_tensor* out_tensor);
/** Converts to another element type (and device). */
int cgrad_tensor_cast(const cgrad_tensor* tensor, cgrad_storage_backend_type backend_type,
                      cgrad_tensor* out_tensor);

/* User element-wise functions (docs/extending.md): a body such as "x > 0 ? x : a * (exp(x) - 1)"
 * over named inputs and scalar parameters, checked when defined (CGRAD_ERR_INVALID_ARGUMENT with
 * the reason in cgrad_last_error) and fused into the surrounding kernel when used. A parameter value
 * is a kernel argument: a new value does not recompile. */
typedef struct cgrad_elementwise_fn cgrad_elementwise_fn;
/** Defines a one-output function; `param_names` may be NULL when `n_params` is 0. */
int cgrad_elementwise_define(const char* name, const char* body, const char* const* input_names, int n_inputs,
                             const char* const* param_names, int n_params, cgrad_elementwise_fn** out_fn);
/** Releases a function handle; nodes already built with it keep working. */
int cgrad_elementwise_free(cgrad_elementwise_fn* fn);
/** Applies `fn` to `n_inputs` tensors (one backend type, broadcasting) and `n_params` values. */
int cgrad_tensor_elementwise(const cgrad_elementwise_fn* fn, const cgrad_tensor* inputs, int n_inputs,
                             const double* params, int n_params, cgrad_tensor* out_tensor);

/* ---------------------------------------------------------------------------------------------
 * Execution and reading values
 * ------------------------------------------------------------------------------------------- */

/** Materializes the tensor's node. Every node it depends on that holds no value yet is computed
 *  and cached in its node; nodes that already hold a value are not recomputed. */
int cgrad_tensor_execute(cgrad_tensor* tensor);
/** Executes if needed and copies the elements, row-major, into `out` (capacity `count`, at least
 *  layout.size), converting to float. */
int cgrad_tensor_read(const cgrad_tensor* tensor, float* out, size_t count);
int cgrad_tensor_read_f64(const cgrad_tensor* tensor, double* out, size_t count);

/* ---------------------------------------------------------------------------------------------
 * Graph management and introspection
 * ------------------------------------------------------------------------------------------- */

/** Merges graph2 into graph1. Afterwards both pointers denote the same graph; tensors of either
 *  keep working. Merging a graph with itself (or an already merged one) succeeds. */
int cgrad_compute_graph_merge(cgrad_compute_graph* graph1, cgrad_compute_graph* graph2);
/** Copies the description of a node into `out_node_info`. */
int cgrad_compute_graph_get_node(const cgrad_compute_graph* graph, cgrad_uuid node_id,
                                 cgrad_graph_node* out_node_info);
/** Input node ids of a node in slot order (slot 0 = first operand). `*out_num_inputs` is always
 *  set to the number of inputs; with out_input_node_ids NULL and max_inputs 0 only the count is
 *  returned; a shorter array gives CGRAD_ERR_BUFFER_TOO_SMALL. */
int cgrad_compute_graph_get_inputs(const cgrad_compute_graph* graph, cgrad_uuid node_id,
                                   cgrad_uuid* out_input_node_ids, int max_inputs, int* out_num_inputs);
/** Every node id of the graph, inputs before their users (creation order: deterministic).
 *  `*out_num_nodes` is always set; NULL/0 queries the count; a shorter array gives
 *  CGRAD_GRAPH_ERR_TOPOLOGICAL_SORT_FAILED. */
int cgrad_compute_graph_topological_sort(const cgrad_compute_graph* graph, cgrad_uuid* out_sorted_node_ids,
                                         int max_nodes, int* out_num_nodes);
/** Number of nodes in the graph. */
int cgrad_compute_graph_get_node_count(const cgrad_compute_graph* graph, int* out_count);
/** Releases this graph handle. The nodes are freed when every graph merged into the same graph
 *  has been freed. Tensors whose `graph` is this handle then fail with CGRAD_ERR_FREED. */
int cgrad_compute_graph_free(cgrad_compute_graph* graph);
/** Invalidates the tensor struct (CGRAD_ERR_FREED afterwards). Its node stays in the graph. */
int cgrad_tensor_free(cgrad_tensor* tensor);
/** Largest number of nodes one graph may hold (default INT_MAX). Growing past it fails with
 *  CGRAD_GRAPH_ERR_INVALID_OPERATION, merging past it with CGRAD_GRAPH_ERR_GRAPH_MERGE_FAILED. */
int cgrad_set_max_graph_nodes(int max_nodes);

/* ---------------------------------------------------------------------------------------------
 * Visualization and debugging
 * ------------------------------------------------------------------------------------------- */

/** Writes Graphviz DOT (edges carry slot="k") to `filename`. */
int cgrad_compute_graph_to_dot(const cgrad_compute_graph* graph, const char* filename);
/** Prints one line per node, in topological order, to stdout. */
void cgrad_compute_graph_print(const cgrad_compute_graph* graph);
/** Prints one node to stdout. */
void cgrad_graph_node_print(const cgrad_graph_node* node);
/** The same, to any stream, with an error code. */
int cgrad_compute_graph_fprint(const cgrad_compute_graph* graph, FILE* stream);
int cgrad_graph_node_fprint(const cgrad_graph_node* node, FILE* stream);

/** Counters of the engine (see cgrad::Stats in the C++ API). */
typedef struct {
  uint64_t kernels_launched;
  uint64_t kernels_compiled;
  uint64_t kernel_cache_hits;
  uint64_t disk_cache_hits;
  uint64_t plans_built;
  uint64_t plan_cache_hits;
  uint64_t bytes_allocated;
} cgrad_stats;
int cgrad_stats_get(cgrad_stats* out_stats);
int cgrad_stats_reset(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CGRAD_H */
