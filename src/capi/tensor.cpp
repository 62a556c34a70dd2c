// C entry points for tensors: creation and filling of leaves, the lazy operations (argument
// checks here, values in values.cpp), execution, reading values back and freeing.
//
// Every operation first validates everything and builds the core value; only then are graphs
// merged and the node added, so a failing call leaves every object as it was.
#include "capi/capi_internal.h"
#include "core/shape.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace cgrad::capi {
namespace {

std::string num(int64_t v) { return std::to_string(v); }

void check_ndim(int ndim, const char* what) {
  if (ndim < 0) fail(CGRAD_ERR_INVALID_ARGUMENT, std::string(what) + " is negative (" + num(ndim) + ")");
  if (ndim > CGRAD_TENSOR_DIM)
    fail(CGRAD_ERR_TOO_MANY_DIMS,
         std::string(what) + " is " + num(ndim) + ", more than TENSOR_DIM (" + num(CGRAD_TENSOR_DIM) + ")");
}

void check_out(const cgrad_tensor* out) {
  if (!out) fail(CGRAD_ERR_NULL_POINTER, "out_tensor is NULL");
}

// Adds an op node fed by `ins` (in slot order) and writes the result tensor. The first input's
// graph receives the others.
int finish_op(const cgrad_op_info& op, const std::vector<Ref>& ins, cgrad_tensor* out) {
  std::vector<Tensor> values;
  for (const Ref& r : ins) values.push_back(r.node->value);
  Tensor v = build_value(op, values);
  GraphImpl& g = *ins[0].graph;
  std::size_t extra = 0;
  for (std::size_t i = 1; i < ins.size(); ++i)
    if (ins[i].graph != &g) extra += ins[i].graph->nodes.size();
  if (extra && g.nodes.size() + extra + 1 > static_cast<std::size_t>(state().max_nodes))
    fail(CGRAD_GRAPH_ERR_GRAPH_MERGE_FAILED,
         "merging the operands' graphs would exceed the node limit of " + num(state().max_nodes));
  for (std::size_t i = 1; i < ins.size(); ++i) merge_graphs(g, *ins[i].graph);
  std::vector<NodeRec*> nodes;
  for (const Ref& r : ins) nodes.push_back(r.node);
  NodeRec* n = add_node(g, op, std::move(nodes), std::move(v), ins[0].node->backend);
  write_tensor(out, ins[0].handle, *n);
  return CGRAD_SUCCESS;
}

int binary(const char* fn, cgrad_op_type type, const cgrad_tensor* a, const cgrad_tensor* b,
           cgrad_tensor* out) {
  return guard(fn, [&] {
    Ref ra = resolve(a, "a");
    Ref rb = resolve(b, "b");
    check_out(out);
    if (ra.node->backend != rb.node->backend)
      fail(CGRAD_ERR_DTYPE, "operands have different backend types (" + num(ra.node->backend) + " and " +
                                num(rb.node->backend) + "); cast one with cgrad_tensor_cast");
    if (type == CGRAD_OP_GEMM && (ra.node->value.ndim() < 2 || rb.node->value.ndim() < 2))
      fail(CGRAD_GRAPH_ERR_SHAPE_MISMATCH, "operands need at least 2 dimensions, got shapes " +
                                               shape_str(ra.node->value.shape()) + " and " +
                                               shape_str(rb.node->value.shape()));
    cgrad_op_info op{};
    op.type = type;
    return finish_op(op, {ra, rb}, out);
  });
}

int unary(const char* fn, cgrad_op_info op, const cgrad_tensor* x, cgrad_tensor* out) {
  return guard(fn, [&] {
    Ref r = resolve(x, "tensor");
    check_out(out);
    return finish_op(op, {r}, out);
  });
}

int unary(const char* fn, cgrad_op_type type, const cgrad_tensor* x, cgrad_tensor* out) {
  cgrad_op_info op{};
  op.type = type;
  return unary(fn, op, x, out);
}

int scalar_op(const char* fn, cgrad_op_type type, const cgrad_tensor* x, float s, cgrad_tensor* out) {
  cgrad_op_info op{};
  op.type = type;
  op.metadata.scalar = s;
  return unary(fn, op, x, out);
}

int reduce(const char* fn, cgrad_op_type type, const cgrad_tensor* x, const uint8_t* mask, int ndim,
           cgrad_tensor* out) {
  return guard(fn, [&] {
    Ref r = resolve(x, "tensor");
    check_out(out);
    check_ndim(ndim, "ndim");
    if (ndim > 0 && !mask) fail(CGRAD_ERR_NULL_POINTER, "mask is NULL");
    const int64_t rank = r.node->value.ndim();
    if (ndim > rank)
      fail(CGRAD_GRAPH_ERR_SHAPE_MISMATCH, "mask has " + num(ndim) + " entries, tensor of shape " +
                                               cgrad::shape_str(r.node->value.shape()) + " has " + num(rank) +
                                               " dims");
    cgrad_op_info op{};
    op.type = type;
    for (int i = 0; i < ndim; ++i) {
      if (mask[i] > 1)
        fail(CGRAD_ERR_INVALID_ARGUMENT, "mask[" + num(i) + "] is " + num(mask[i]) + ", not 0 or 1");
      op.metadata.reduce.mask[i] = mask[i];
    }
    op.metadata.reduce.ndim = ndim;
    return finish_op(op, {r}, out);
  });
}

int softmax_op(const char* fn, cgrad_op_type type, const cgrad_tensor* x, int axis, cgrad_tensor* out) {
  return guard(fn, [&] {
    Ref r = resolve(x, "tensor");
    check_out(out);
    const int64_t rank = r.node->value.ndim();
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (rank == 0 || a < 0 || a >= rank)
      fail(CGRAD_ERR_INVALID_ARGUMENT,
           "axis " + num(axis) + " out of range for shape " + shape_str(r.node->value.shape()));
    cgrad_op_info op{};
    op.type = type;
    op.metadata.softmax.axis = static_cast<int>(a);
    return finish_op(op, {r}, out);
  });
}

// Gives `leaf` a new value; every node computed from it gets a rebuilt (unevaluated) value, so
// cached results never go stale. All values are built before any is replaced.
void replace_leaf(GraphImpl& g, NodeRec& leaf, Tensor v) {
  std::unordered_map<const NodeRec*, Tensor> fresh;
  fresh.emplace(&leaf, std::move(v));
  for (auto it = g.nodes.upper_bound(leaf.serial); it != g.nodes.end(); ++it) {
    NodeRec* n = it->second.get();
    bool dirty = false;
    for (NodeRec* in : n->inputs) dirty = dirty || fresh.count(in);
    if (!dirty) continue;
    std::vector<Tensor> ins;
    for (NodeRec* in : n->inputs) {
      auto f = fresh.find(in);
      ins.push_back(f != fresh.end() ? f->second : in->value);
    }
    fresh.emplace(n, build_value(n->op, ins));
  }
  for (auto& [n, t] : fresh) const_cast<NodeRec*>(n)->value = std::move(t);
}

// A leaf of `tensor` (must not be an op node) for the fill functions.
Ref leaf_of(cgrad_tensor* t) {
  Ref r = resolve(t, "tensor");
  if (r.node->op.type != CGRAD_OP_NONE)
    fail(CGRAD_GRAPH_ERR_INVALID_OPERATION,
         std::string("only leaves (cgrad_tensor_init) can be filled; this tensor is the "
                     "result of operation '") +
             cgrad_op_name(r.node->op.type) + "'");
  return r;
}

template <class T>
Tensor host_value(const Shape& shape, cgrad_storage_backend_type b, const T* data, std::size_t count) {
  const int64_t n = core::checked_numel(shape, "data");
  if (static_cast<uint64_t>(n) != count)
    fail(CGRAD_GRAPH_ERR_SHAPE_MISMATCH, num(static_cast<int64_t>(count)) + " values do not fill shape " +
                                             shape_str(shape) + " (" + num(n) + " elements)");
  if (count && !data) fail(CGRAD_ERR_NULL_POINTER, "data is NULL");
  Tensor t = dtype_of_backend(b) == DType::f64 ? tensor(std::vector<double>(data, data + count), shape)
                                               : tensor(std::vector<float>(data, data + count), shape);
  return t.to(device_of_backend(b));
}

template <class T>
int fill_data(const char* fn, cgrad_tensor* t, const T* data, std::size_t count) {
  return guard(fn, [&] {
    Ref r = leaf_of(t);
    replace_leaf(*r.graph, *r.node, host_value(r.node->value.shape(), r.node->backend, data, count));
    return CGRAD_SUCCESS;
  });
}

Shape shape_arg(const uint32_t* shape, int ndim) {
  check_ndim(ndim, "ndim");
  if (ndim > 0 && !shape) fail(CGRAD_ERR_NULL_POINTER, "shape is NULL");
  return Shape(shape, shape + ndim);
}

template <class T>
int read_values(const char* fn, const cgrad_tensor* t, T* out, std::size_t count) {
  return guard(fn, [&] {
    Ref r = resolve(t, "tensor");
    const auto n = static_cast<std::size_t>(r.node->value.numel());
    if (n && !out) fail(CGRAD_ERR_NULL_POINTER, "out is NULL");
    if (count < n)
      fail(CGRAD_ERR_BUFFER_TOO_SMALL, "the tensor has " + num(static_cast<int64_t>(n)) +
                                           " elements, the buffer " + num(static_cast<int64_t>(count)));
    execute(*r.node);
    std::vector<T> v;
    try {
      v = r.node->value.to(Device::cpu()).template to_vector<T>();
    } catch (const Error& e) {
      fail(CGRAD_GRAPH_ERR_EXECUTION_FAILED, e.what());
    }
    std::copy(v.begin(), v.end(), out);
    return CGRAD_SUCCESS;
  });
}

}  // namespace

}  // namespace cgrad::capi

using namespace cgrad::capi;
using cgrad::Shape;
using cgrad::Tensor;

extern "C" {

int cgrad_tensor_init(cgrad_tensor* tensor, const uint32_t* shape, int ndim,
                      cgrad_storage_backend_type backend_type) {
  return guard("cgrad_tensor_init", [&] {
    if (!tensor) fail(CGRAD_ERR_NULL_POINTER, "tensor is NULL");
    Shape s = shape_arg(shape, ndim);
    check_backend(raw_enum(backend_type), "backend_type");
    // A zero constant costs one element of storage, however large the shape.
    Tensor v = constant(s, 0.0, backend_type);
    v.eval();
    Ref r = new_graph_with_leaf(std::move(v), backend_type);
    write_tensor(tensor, r.handle, *r.node);
    return CGRAD_SUCCESS;
  });
}

int cgrad_tensor_init_from_data(cgrad_tensor* tensor, const uint32_t* shape, int ndim,
                                cgrad_storage_backend_type backend_type, const float* data, size_t count) {
  return guard("cgrad_tensor_init_from_data", [&] {
    if (!tensor) fail(CGRAD_ERR_NULL_POINTER, "tensor is NULL");
    Shape s = shape_arg(shape, ndim);
    check_backend(raw_enum(backend_type), "backend_type");
    Ref r = new_graph_with_leaf(host_value(s, backend_type, data, count), backend_type);
    write_tensor(tensor, r.handle, *r.node);
    return CGRAD_SUCCESS;
  });
}

int cgrad_tensor_fill(cgrad_tensor* tensor, float value) {
  return guard("cgrad_tensor_fill", [&] {
    Ref r = leaf_of(tensor);
    Tensor v = constant(r.node->value.shape(), static_cast<double>(value), r.node->backend);
    v.eval();
    replace_leaf(*r.graph, *r.node, std::move(v));
    return CGRAD_SUCCESS;
  });
}

int cgrad_tensor_fill_rand(cgrad_tensor* tensor) {
  return guard("cgrad_tensor_fill_rand", [&] {
    Ref r = leaf_of(tensor);
    Tensor v = cgrad::rand(r.node->value.shape(), dtype_of_backend(r.node->backend),
                           device_of_backend(r.node->backend));
    v.eval();
    replace_leaf(*r.graph, *r.node, std::move(v));
    return CGRAD_SUCCESS;
  });
}

int cgrad_tensor_fill_data(cgrad_tensor* tensor, const float* data, size_t count) {
  return fill_data("cgrad_tensor_fill_data", tensor, data, count);
}

int cgrad_tensor_fill_data_f64(cgrad_tensor* tensor, const double* data, size_t count) {
  return fill_data("cgrad_tensor_fill_data_f64", tensor, data, count);
}

int cgrad_manual_seed(uint64_t seed) {
  return guard("cgrad_manual_seed", [&] {
    cgrad::manual_seed(seed);
    return CGRAD_SUCCESS;
  });
}

#define CGRAD_C_BINARY(name, TYPE)                                                                  \
  int cgrad_tensor_##name(const cgrad_tensor* a, const cgrad_tensor* b, cgrad_tensor* out_tensor) { \
    return binary("cgrad_tensor_" #name, TYPE, a, b, out_tensor);                                   \
  }
CGRAD_C_BINARY(add, CGRAD_OP_ADD)
CGRAD_C_BINARY(sub, CGRAD_OP_SUB)
CGRAD_C_BINARY(mul, CGRAD_OP_MUL)
CGRAD_C_BINARY(div, CGRAD_OP_DIV)
CGRAD_C_BINARY(pow, CGRAD_OP_POW)
CGRAD_C_BINARY(maximum, CGRAD_OP_MAXIMUM)
CGRAD_C_BINARY(minimum, CGRAD_OP_MINIMUM)
CGRAD_C_BINARY(gemm, CGRAD_OP_GEMM)
#undef CGRAD_C_BINARY

#define CGRAD_C_UNARY(name, TYPE)                                                 \
  int cgrad_tensor_##name(const cgrad_tensor* tensor, cgrad_tensor* out_tensor) { \
    return unary("cgrad_tensor_" #name, TYPE, tensor, out_tensor);                \
  }
CGRAD_C_UNARY(neg, CGRAD_OP_NEG)
CGRAD_C_UNARY(exp, CGRAD_OP_EXP)
CGRAD_C_UNARY(log, CGRAD_OP_LOG)
CGRAD_C_UNARY(sqrt, CGRAD_OP_SQRT)
CGRAD_C_UNARY(rsqrt, CGRAD_OP_RSQRT)
CGRAD_C_UNARY(abs, CGRAD_OP_ABS)
CGRAD_C_UNARY(sin, CGRAD_OP_SIN)
CGRAD_C_UNARY(cos, CGRAD_OP_COS)
CGRAD_C_UNARY(tanh, CGRAD_OP_TANH)
CGRAD_C_UNARY(sigmoid, CGRAD_OP_SIGMOID)
CGRAD_C_UNARY(relu, CGRAD_OP_RELU)
#undef CGRAD_C_UNARY

int cgrad_tensor_add_scalar(const cgrad_tensor* tensor, float scalar, cgrad_tensor* out_tensor) {
  return scalar_op("cgrad_tensor_add_scalar", CGRAD_OP_ADD_SCALAR, tensor, scalar, out_tensor);
}
int cgrad_tensor_mul_scalar(const cgrad_tensor* tensor, float scalar, cgrad_tensor* out_tensor) {
  return scalar_op("cgrad_tensor_mul_scalar", CGRAD_OP_MUL_SCALAR, tensor, scalar, out_tensor);
}
int cgrad_tensor_pow_scalar(const cgrad_tensor* tensor, float scalar, cgrad_tensor* out_tensor) {
  return scalar_op("cgrad_tensor_pow_scalar", CGRAD_OP_POW_SCALAR, tensor, scalar, out_tensor);
}

int cgrad_tensor_transpose(const cgrad_tensor* tensor, const uint32_t* perm, int ndim,
                           cgrad_tensor* out_tensor) {
  return guard("cgrad_tensor_transpose", [&] {
    Ref r = resolve(tensor, "tensor");
    check_out(out_tensor);
    check_ndim(ndim, "ndim");
    if (ndim > 0 && !perm) fail(CGRAD_ERR_NULL_POINTER, "perm is NULL");
    const int64_t rank = r.node->value.ndim();
    if (ndim > rank)
      fail(CGRAD_GRAPH_ERR_SHAPE_MISMATCH, "perm has " + num(ndim) + " entries, tensor of shape " +
                                               cgrad::shape_str(r.node->value.shape()) + " has " + num(rank) +
                                               " dims");
    cgrad_op_info op{};
    op.type = CGRAD_OP_TRANSPOSE;
    bool seen[CGRAD_TENSOR_DIM] = {};
    for (int i = 0; i < ndim; ++i) {
      if (perm[i] >= static_cast<uint32_t>(ndim) || seen[perm[i]]) {
        std::string p;
        for (int k = 0; k < ndim; ++k) p += (k ? ", " : "") + std::to_string(perm[k]);
        fail(CGRAD_ERR_INVALID_ARGUMENT, "{" + p + "} is not a permutation of 0.." + num(ndim - 1));
      }
      seen[perm[i]] = true;
      op.metadata.transpose.perm[i] = perm[i];
    }
    op.metadata.transpose.ndim = ndim;
    return finish_op(op, {r}, out_tensor);
  });
}

int cgrad_tensor_reshape(const cgrad_tensor* tensor, const int32_t* new_shape, int ndim,
                         cgrad_tensor* out_tensor) {
  return guard("cgrad_tensor_reshape", [&] {
    Ref r = resolve(tensor, "tensor");
    check_out(out_tensor);
    check_ndim(ndim, "ndim");
    if (ndim > 0 && !new_shape) fail(CGRAD_ERR_NULL_POINTER, "new_shape is NULL");
    const Shape& from = r.node->value.shape();
    const int64_t total = r.node->value.numel();
    int infer = -1;
    int64_t known = 1;
    bool overflow = false;
    std::string want;
    for (int i = 0; i < ndim; ++i) want += (i ? ", " : "") + std::to_string(new_shape[i]);
    want = "(" + want + ")";
    for (int i = 0; i < ndim; ++i) {
      const int32_t d = new_shape[i];
      if (d == -1) {
        if (infer >= 0) fail(CGRAD_ERR_INVALID_ARGUMENT, "more than one -1 in " + want);
        infer = i;
      } else if (d < 0) {
        fail(CGRAD_ERR_INVALID_ARGUMENT, "negative dimension in " + want);
      } else if (!overflow) {
        if (d != 0 && known > (int64_t(1) << 56) / d)
          overflow = true;
        else
          known *= d;
      }
    }
    cgrad_op_info op{};
    op.type = CGRAD_OP_RESHAPE;
    op.metadata.reshape.ndim = ndim;
    for (int i = 0; i < ndim; ++i) op.metadata.reshape.new_shape[i] = new_shape[i];
    const std::string msg =
        "cannot reshape " + cgrad::shape_str(from) + " (" + num(total) + " elements) to " + want;
    if (infer >= 0) {
      if (overflow || known == 0 || total % known != 0) fail(CGRAD_GRAPH_ERR_SHAPE_MISMATCH, msg);
      const int64_t d = total / known;
      if (d > INT32_MAX)
        fail(CGRAD_ERR_INVALID_ARGUMENT, msg + ": the inferred dimension does not fit int32");
      op.metadata.reshape.new_shape[infer] = static_cast<int32_t>(d);
    } else if (overflow || known != total) {
      fail(CGRAD_GRAPH_ERR_SHAPE_MISMATCH, msg);
    }
    return finish_op(op, {r}, out_tensor);
  });
}

int cgrad_tensor_reduce_sum(const cgrad_tensor* tensor, const uint8_t* mask, int ndim,
                            cgrad_tensor* out_tensor) {
  return reduce("cgrad_tensor_reduce_sum", CGRAD_OP_REDUCE_SUM, tensor, mask, ndim, out_tensor);
}
int cgrad_tensor_reduce_mean(const cgrad_tensor* tensor, const uint8_t* mask, int ndim,
                             cgrad_tensor* out_tensor) {
  return reduce("cgrad_tensor_reduce_mean", CGRAD_OP_REDUCE_MEAN, tensor, mask, ndim, out_tensor);
}
int cgrad_tensor_reduce_max(const cgrad_tensor* tensor, const uint8_t* mask, int ndim,
                            cgrad_tensor* out_tensor) {
  return reduce("cgrad_tensor_reduce_max", CGRAD_OP_REDUCE_MAX, tensor, mask, ndim, out_tensor);
}
int cgrad_tensor_reduce_min(const cgrad_tensor* tensor, const uint8_t* mask, int ndim,
                            cgrad_tensor* out_tensor) {
  return reduce("cgrad_tensor_reduce_min", CGRAD_OP_REDUCE_MIN, tensor, mask, ndim, out_tensor);
}

int cgrad_tensor_softmax(const cgrad_tensor* tensor, int axis, cgrad_tensor* out_tensor) {
  return softmax_op("cgrad_tensor_softmax", CGRAD_OP_SOFTMAX, tensor, axis, out_tensor);
}
int cgrad_tensor_log_softmax(const cgrad_tensor* tensor, int axis, cgrad_tensor* out_tensor) {
  return softmax_op("cgrad_tensor_log_softmax", CGRAD_OP_LOG_SOFTMAX, tensor, axis, out_tensor);
}

int cgrad_tensor_cast(const cgrad_tensor* tensor, cgrad_storage_backend_type backend_type,
                      cgrad_tensor* out_tensor) {
  return guard("cgrad_tensor_cast", [&] {
    Ref r = resolve(tensor, "tensor");
    check_out(out_tensor);
    check_backend(raw_enum(backend_type), "backend_type");
    cgrad_op_info op{};
    op.type = CGRAD_OP_CAST;
    op.metadata.cast.backend_type = backend_type;
    std::vector<Tensor> values{r.node->value};
    Tensor v = build_value(op, values);
    NodeRec* n = add_node(*r.graph, op, {r.node}, std::move(v), backend_type);
    write_tensor(out_tensor, r.handle, *n);
    return CGRAD_SUCCESS;
  });
}

int cgrad_tensor_elementwise(const cgrad_elementwise_fn* fn, const cgrad_tensor* inputs, int n_inputs,
                             const double* params, int n_params, cgrad_tensor* out_tensor) {
  return guard("cgrad_tensor_elementwise", [&] {
    const cgrad::ElementwiseFn& f = elementwise_fn(fn, false);
    check_out(out_tensor);
    const auto want_in = static_cast<int>(f.num_inputs()), want_p = static_cast<int>(f.num_params());
    if (n_inputs != want_in)
      fail(CGRAD_ERR_INVALID_ARGUMENT,
           f.name() + " takes " + num(want_in) + " input(s), got " + num(n_inputs));
    if (n_params != want_p)
      fail(CGRAD_ERR_INVALID_ARGUMENT,
           f.name() + " takes " + num(want_p) + " parameter(s), got " + num(n_params));
    if (!inputs) fail(CGRAD_ERR_NULL_POINTER, "inputs is NULL");
    if (n_params > 0 && !params) fail(CGRAD_ERR_NULL_POINTER, "params is NULL");
    std::vector<Ref> refs;
    for (int i = 0; i < n_inputs; ++i) {
      refs.push_back(resolve(&inputs[i], ("inputs[" + num(i) + "]").c_str()));
      if (refs.back().node->backend != refs[0].node->backend)
        fail(CGRAD_ERR_DTYPE, "inputs have different backend types (" + num(refs[0].node->backend) + " and " +
                                  num(refs.back().node->backend) + "); cast one with cgrad_tensor_cast");
    }
    cgrad_op_info op{};
    op.type = CGRAD_OP_ELEMENTWISE;
    op.metadata.elementwise.fn = fn;
    op.metadata.elementwise.n_params = n_params;
    for (int i = 0; i < n_params; ++i) op.metadata.elementwise.params[i] = params[i];
    return finish_op(op, refs, out_tensor);
  });
}

int cgrad_tensor_execute(cgrad_tensor* tensor) {
  return guard("cgrad_tensor_execute", [&] {
    Ref r = resolve(tensor, "tensor");
    execute(*r.node);
    return CGRAD_SUCCESS;
  });
}

int cgrad_tensor_read(const cgrad_tensor* tensor, float* out, size_t count) {
  return read_values("cgrad_tensor_read", tensor, out, count);
}

int cgrad_tensor_read_f64(const cgrad_tensor* tensor, double* out, size_t count) {
  return read_values("cgrad_tensor_read_f64", tensor, out, count);
}

int cgrad_tensor_free(cgrad_tensor* tensor) {
  return guard("cgrad_tensor_free", [&] {
    if (!tensor) fail(CGRAD_ERR_NULL_POINTER, "tensor is NULL");
    if (tensor->magic == CGRAD_TENSOR_FREED) fail(CGRAD_ERR_FREED, "tensor was already freed");
    if (tensor->magic != CGRAD_TENSOR_MAGIC)
      fail(CGRAD_ERR_INVALID_ARGUMENT, "tensor is not an initialized tensor");
    cgrad_tensor zero{};
    *tensor = zero;
    tensor->magic = CGRAD_TENSOR_FREED;
    return CGRAD_SUCCESS;
  });
}

}  // extern "C"
