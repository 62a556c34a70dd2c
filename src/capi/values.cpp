// From C descriptions to core values: backend types to dtypes and devices, the one function
// that builds an op's value from its inputs' values (used when a node is created and again when
// a leaf it depends on is refilled), layouts, and execution with caching in every node.
#include "capi/capi_internal.h"

#include <cmath>
#include <unordered_set>

namespace cgrad::capi {

DType dtype_of_backend(cgrad_storage_backend_type b) {
  return b == CGRAD_STORAGE_BACKEND_F64_CPU || b == CGRAD_STORAGE_BACKEND_F64_CUDA ? DType::f64 : DType::f32;
}

Device device_of_backend(cgrad_storage_backend_type b) {
  return b == CGRAD_STORAGE_BACKEND_F32_CUDA || b == CGRAD_STORAGE_BACKEND_F64_CUDA ? Device::cuda()
                                                                                    : Device::cpu();
}

void check_backend(int b, const char* what) {
  switch (b) {
    case CGRAD_STORAGE_BACKEND_F32_CPU:
    case CGRAD_STORAGE_BACKEND_F64_CPU: return;
    case CGRAD_STORAGE_BACKEND_F32_CUDA:
    case CGRAD_STORAGE_BACKEND_F64_CUDA:
      if (!cuda_available())
        fail(CGRAD_ERR_BACKEND_UNAVAILABLE, std::string(what) + ": CUDA is not available (no driver or GPU)");
      return;
    default:
      fail(CGRAD_ERR_INVALID_ARGUMENT, std::string(what) + ": unknown backend type " + std::to_string(b));
  }
}

namespace {

// The axes of a rank-`rank` tensor that a mask over its last `ndim` dims selects.
std::vector<int64_t> masked_axes(const uint8_t* mask, int ndim, std::size_t rank) {
  std::vector<int64_t> axes;
  for (int i = 0; i < ndim; ++i)
    if (mask[i]) axes.push_back(static_cast<int64_t>(rank) - ndim + i);
  return axes;
}

Tensor reduce(cgrad_op_type type, const Tensor& x, const cgrad_op_metadata& m) {
  std::vector<int64_t> axes = masked_axes(m.reduce.mask, m.reduce.ndim, x.shape().size());
  if (axes.empty()) return x;  // the core reads empty axes as "all axes"
  switch (type) {
    case CGRAD_OP_REDUCE_SUM: return sum(x, axes, true);
    case CGRAD_OP_REDUCE_MEAN: return mean(x, axes, true);
    case CGRAD_OP_REDUCE_MAX: return max(x, axes, true);
    default: return min(x, axes, true);
  }
}

// cgrad::Scalar (behind `x + 2.0`, cgrad::full) also converts every double to int64, which is
// undefined for values outside int64's range (a core issue, see the report); such values go in
// as 0-d tensors instead.
bool fits_scalar(double s) { return std::isfinite(s) && std::fabs(s) < 9.0e18; }

Tensor scalar_tensor(double s, DType t, Device d) {
  Tensor x = t == DType::f64 ? tensor(std::vector<double>{s}, {})
                             : tensor(std::vector<float>{static_cast<float>(s)}, {});
  return x.to(d);
}

}  // namespace

Tensor constant(const Shape& shape, double value, cgrad_storage_backend_type b) {
  // A 0-d buffer broadcast to `shape`: once evaluated, a view with zero strides, so one element
  // of storage however large the shape (a huge zero leaf costs nothing until it is computed with).
  Tensor x = scalar_tensor(value, dtype_of_backend(b), device_of_backend(b));
  return x.reshape(Shape(shape.size(), 1)).expand(shape);
}

Tensor build_value(const cgrad_op_info& op, const std::vector<Tensor>& in) {
  const cgrad_op_metadata& m = op.metadata;
  switch (op.type) {
    case CGRAD_OP_ADD: return in[0] + in[1];
    case CGRAD_OP_SUB: return in[0] - in[1];
    case CGRAD_OP_MUL: return in[0] * in[1];
    case CGRAD_OP_DIV: return in[0] / in[1];
    case CGRAD_OP_POW: return pow(in[0], in[1]);
    case CGRAD_OP_MAXIMUM: return maximum(in[0], in[1]);
    case CGRAD_OP_MINIMUM: return minimum(in[0], in[1]);
    case CGRAD_OP_GEMM: return matmul(in[0], in[1]);
    case CGRAD_OP_NEG: return -in[0];
    case CGRAD_OP_EXP: return exp(in[0]);
    case CGRAD_OP_LOG: return log(in[0]);
    case CGRAD_OP_SQRT: return sqrt(in[0]);
    case CGRAD_OP_RSQRT: return rsqrt(in[0]);
    case CGRAD_OP_ABS: return abs(in[0]);
    case CGRAD_OP_SIN: return sin(in[0]);
    case CGRAD_OP_COS: return cos(in[0]);
    case CGRAD_OP_TANH: return tanh(in[0]);
    case CGRAD_OP_SIGMOID: return sigmoid(in[0]);
    case CGRAD_OP_RELU: return relu(in[0]);
    case CGRAD_OP_ADD_SCALAR:
    case CGRAD_OP_MUL_SCALAR:
    case CGRAD_OP_POW_SCALAR: {
      const double s = m.scalar;
      if (fits_scalar(s)) {
        if (op.type == CGRAD_OP_ADD_SCALAR) return in[0] + s;
        return op.type == CGRAD_OP_MUL_SCALAR ? in[0] * s : pow(in[0], s);
      }
      Tensor c = scalar_tensor(s, in[0].dtype(), in[0].device());
      if (op.type == CGRAD_OP_ADD_SCALAR) return in[0] + c;
      return op.type == CGRAD_OP_MUL_SCALAR ? in[0] * c : pow(in[0], c);
    }
    case CGRAD_OP_TRANSPOSE: {
      const std::size_t rank = in[0].shape().size();
      const auto lead = rank - static_cast<std::size_t>(m.transpose.ndim);
      std::vector<int64_t> perm(rank);
      for (std::size_t i = 0; i < rank; ++i)
        perm[i] =
            i < lead ? static_cast<int64_t>(i) : static_cast<int64_t>(lead + m.transpose.perm[i - lead]);
      return in[0].permute(perm);
    }
    case CGRAD_OP_RESHAPE:
      return in[0].reshape(Shape(m.reshape.new_shape, m.reshape.new_shape + m.reshape.ndim));
    case CGRAD_OP_REDUCE_SUM:
    case CGRAD_OP_REDUCE_MEAN:
    case CGRAD_OP_REDUCE_MAX:
    case CGRAD_OP_REDUCE_MIN: return reduce(op.type, in[0], m);
    case CGRAD_OP_SOFTMAX: return softmax(in[0], m.softmax.axis);
    case CGRAD_OP_LOG_SOFTMAX: return log_softmax(in[0], m.softmax.axis);
    case CGRAD_OP_CAST:
      return in[0].cast(dtype_of_backend(m.cast.backend_type)).to(device_of_backend(m.cast.backend_type));
    case CGRAD_OP_ELEMENTWISE: return elementwise_value(m, in);
    case CGRAD_OP_NONE:
    case CGRAD_OP_COUNT:
    case CGRAD_OP_MAX_ENUM: break;
  }
  fail(CGRAD_ERR_INTERNAL, "no value rule for operation type " + std::to_string(static_cast<int>(op.type)));
}

cgrad_storage_layout layout_of(const NodeRec& n) {
  cgrad_storage_layout l{};
  const Shape& s = n.value.shape();
  l.ndim = static_cast<int>(s.size());
  for (int i = 0; i < CGRAD_TENSOR_DIM; ++i) {
    l.shape[i] = 1;
    l.strides[i] = 1;
  }
  uint64_t acc = 1;
  for (std::size_t i = s.size(); i-- > 0;) {
    l.shape[i] = static_cast<uint32_t>(s[i]);
    l.strides[i] = acc;
    acc *= static_cast<uint64_t>(s[i]);
  }
  l.size = acc;
  l.backend_type = n.backend;
  return l;
}

void write_tensor(cgrad_tensor* out, cgrad_compute_graph* h, const NodeRec& n) {
  cgrad_tensor t{};
  t.node_id = n.uuid;
  t.graph = h;
  t.layout = layout_of(n);
  t.magic = CGRAD_TENSOR_MAGIC;
  *out = t;
}

void execute(NodeRec& target) {
  // Walk back from the target through nodes without a value; nodes holding one stop the walk.
  std::vector<Tensor> todo;
  std::unordered_set<const NodeRec*> seen;
  std::vector<NodeRec*> stack{&target};
  while (!stack.empty()) {
    NodeRec* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second || n->value.is_evaluated()) continue;
    todo.push_back(n->value);
    for (NodeRec* in : n->inputs) stack.push_back(in);
  }
  if (todo.empty()) return;
  try {
    eval(todo);  // one schedule; every node in `todo` keeps its value (the cache)
  } catch (const Error& e) {
    fail(CGRAD_GRAPH_ERR_EXECUTION_FAILED, e.what());
  } catch (const std::bad_alloc&) {
    fail(CGRAD_GRAPH_ERR_EXECUTION_FAILED, "out of memory");
  }
}

}  // namespace cgrad::capi
