// libFuzzer target for the C API: the input bytes are read as a sequence of calls (create, fill,
// operations with good and bad arguments, execute, read, free in any order, merge, topological
// sort, printing) on a small pool of tensor slots, including freed, stale and garbage ones.
// Besides the sanitizers, it checks the API's own promises: a known error code for every
// failure (never CGRAD_ERR_INTERNAL), a last-error message exactly when a call failed, valid
// tensors from successful operations, and topological orders with inputs before users.
// Shapes stay small (dims <= 4, rank <= 4) so every execution fits in memory.
//
// Build (clang only): -DCGRAD_BUILD_FUZZ=ON, see tests/capi/CMakeLists.txt; run e.g.
//   ./fuzz_capi -max_total_time=180 -max_len=512
#include <cgrad.h>

#include <fuzzer/FuzzedDataProvider.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kSlots = 8;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_capi: broken promise: %s (last error: %s)\n", what, cgrad_last_error());
    std::abort();
  }
}

bool known_code(int rc) {
  switch (rc) {
    case CGRAD_SUCCESS:
    case CGRAD_ERR_NULL_POINTER:
    case CGRAD_ERR_INVALID_ARGUMENT:
    case CGRAD_ERR_FREED:
    case CGRAD_ERR_TOO_MANY_DIMS:
    case CGRAD_ERR_DTYPE:
    case CGRAD_ERR_OUT_OF_MEMORY:
    case CGRAD_ERR_BACKEND_UNAVAILABLE:
    case CGRAD_ERR_NODE_NOT_FOUND:
    case CGRAD_ERR_BUFFER_TOO_SMALL:
    case CGRAD_ERR_IO:
    case CGRAD_GRAPH_ERR_SHAPE_MISMATCH:
    case CGRAD_GRAPH_ERR_INVALID_OPERATION:
    case CGRAD_GRAPH_ERR_GRAPH_MERGE_FAILED:
    case CGRAD_GRAPH_ERR_TOPOLOGICAL_SORT_FAILED:
    case CGRAD_GRAPH_ERR_EXECUTION_FAILED: return true;
    default: return false;
  }
}

// Checks the contract every call shares and returns rc.
int checked(int rc) {
  require(known_code(rc), "unknown or internal error code");
  const char* msg = cgrad_last_error();
  require(msg != nullptr, "cgrad_last_error returned NULL");
  require((rc == CGRAD_SUCCESS) == (msg[0] == 0), "last error set exactly when a call fails");
  require(std::strcmp(cgrad_error_string(rc), "unknown error code") != 0, "error string for a known code");
  return rc;
}

void check_tensor(const cgrad_tensor& t) {
  require(t.magic == CGRAD_TENSOR_MAGIC, "a successful call returns a valid tensor");
  require(t.graph != nullptr, "a valid tensor has a graph");
  require(t.layout.ndim >= 0 && t.layout.ndim <= CGRAD_TENSOR_DIM, "layout rank in range");
  uint64_t n = 1;
  for (int i = 0; i < t.layout.ndim; ++i) n *= t.layout.shape[i];
  require(n == t.layout.size, "layout size is the product of the shape");
}

struct Fuzz {
  FuzzedDataProvider in;
  cgrad_tensor slot[kSlots];
  std::vector<cgrad_compute_graph*> graphs;  // every graph pointer seen (freed at the end)

  Fuzz(const uint8_t* data, size_t size) : in(data, size) { std::memset(slot, 0, sizeof slot); }

  cgrad_tensor* pick() {
    int i = in.ConsumeIntegralInRange(-1, kSlots - 1);
    return i < 0 ? nullptr : &slot[i];
  }
  // Records a produced tensor's graph. A result with more than 4096 elements (broadcasting and
  // reshapes can grow sizes quadratically) is dropped from its slot so it is never executed.
  void produced(int rc, cgrad_tensor* out) {
    if (rc == CGRAD_SUCCESS && out) {
      check_tensor(*out);
      graphs.push_back(out->graph);
      if (out->layout.size > 4096) std::memset(out, 0, sizeof *out);
    }
  }
  int ndim_arg() {
    int r = in.ConsumeIntegralInRange(0, 20);
    if (r == 0) return -1;
    if (r == 1) return 9;
    return r % 5;  // 0..4
  }
  cgrad_storage_backend_type backend_arg() {
    int r = in.ConsumeIntegralInRange(0, 12);
    if (r == 10) return CGRAD_STORAGE_BACKEND_F32_CUDA;
    if (r == 11) return static_cast<cgrad_storage_backend_type>(7);
    if (r == 12) return static_cast<cgrad_storage_backend_type>(-1);
    return r < 5 ? CGRAD_STORAGE_BACKEND_F32_CPU : CGRAD_STORAGE_BACKEND_F64_CPU;
  }
  std::vector<uint32_t> shape_arg(int ndim) {
    std::vector<uint32_t> s(static_cast<size_t>(ndim > 0 ? ndim : 0));
    for (auto& d : s) d = in.ConsumeIntegralInRange<uint32_t>(0, 4);
    return s;
  }
  std::vector<float> data_arg(size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = in.ConsumeFloatingPointInRange<float>(-4.0f, 4.0f);
    return v;
  }
  uint64_t size_of(const cgrad_tensor* t) {
    return t && t->magic == CGRAD_TENSOR_MAGIC && t->layout.size <= 4096 ? t->layout.size : 16;
  }

  void step() {
    cgrad_tensor* a = pick();
    cgrad_tensor* b = pick();
    cgrad_tensor* out = pick();
    int rc = 0;
    switch (in.ConsumeIntegralInRange(0, 19)) {
      case 0: {
        int nd = ndim_arg();
        auto s = shape_arg(nd);
        rc = checked(
            cgrad_tensor_init(out, in.ConsumeBool() && nd > 0 ? nullptr : s.data(), nd, backend_arg()));
        produced(rc, out);
        break;
      }
      case 1: {
        int nd = ndim_arg();
        auto s = shape_arg(nd);
        size_t n = 1;
        for (uint32_t d : s) n *= d;
        if (nd > 4) n = 16;
        if (in.ConsumeIntegralInRange(0, 7) == 0) n += 1;
        auto v = data_arg(n);
        rc = checked(cgrad_tensor_init_from_data(out, s.data(), nd, backend_arg(), v.data(), n));
        produced(rc, out);
        break;
      }
      case 2: {
        switch (in.ConsumeIntegralInRange(0, 3)) {
          case 0: checked(cgrad_tensor_fill(a, in.ConsumeFloatingPoint<float>())); break;
          case 1: checked(cgrad_tensor_fill_rand(a)); break;
          case 2: {
            size_t n = size_of(a) + (in.ConsumeBool() ? 0 : 1);
            auto v = data_arg(n);
            checked(cgrad_tensor_fill_data(a, v.data(), n));
            break;
          }
          default: {
            size_t n = size_of(a);
            std::vector<double> v(n, 0.5);
            checked(cgrad_tensor_fill_data_f64(a, v.data(), n));
          }
        }
        break;
      }
      case 3: {
        using Fn = int (*)(const cgrad_tensor*, const cgrad_tensor*, cgrad_tensor*);
        static const Fn fns[] = {cgrad_tensor_add,     cgrad_tensor_sub, cgrad_tensor_mul,
                                 cgrad_tensor_div,     cgrad_tensor_pow, cgrad_tensor_maximum,
                                 cgrad_tensor_minimum, cgrad_tensor_gemm};
        rc = checked(fns[in.ConsumeIntegralInRange(0, 7)](a, b, out));
        produced(rc, out);
        break;
      }
      case 4: {
        using Fn = int (*)(const cgrad_tensor*, cgrad_tensor*);
        static const Fn fns[] = {cgrad_tensor_neg,     cgrad_tensor_exp,   cgrad_tensor_log,
                                 cgrad_tensor_sqrt,    cgrad_tensor_rsqrt, cgrad_tensor_abs,
                                 cgrad_tensor_sin,     cgrad_tensor_cos,   cgrad_tensor_tanh,
                                 cgrad_tensor_sigmoid, cgrad_tensor_relu};
        using Sfn = int (*)(const cgrad_tensor*, float, cgrad_tensor*);
        static const Sfn sfns[] = {cgrad_tensor_add_scalar, cgrad_tensor_mul_scalar, cgrad_tensor_pow_scalar};
        int k = in.ConsumeIntegralInRange(0, 13);
        rc = k < 11 ? checked(fns[k](a, out))
                    : checked(sfns[k - 11](a, in.ConsumeFloatingPoint<float>(), out));
        produced(rc, out);
        break;
      }
      case 5: {
        int nd = ndim_arg();
        std::vector<uint32_t> perm(static_cast<size_t>(nd > 0 ? nd : 0));
        for (size_t i = 0; i < perm.size(); ++i)
          perm[i] = in.ConsumeBool() ? static_cast<uint32_t>(perm.size() - 1 - i)
                                     : in.ConsumeIntegralInRange<uint32_t>(0, 9);
        rc = checked(cgrad_tensor_transpose(a, perm.empty() ? nullptr : perm.data(), nd, out));
        produced(rc, out);
        break;
      }
      case 6: {
        int nd = ndim_arg();
        std::vector<int32_t> s(static_cast<size_t>(nd > 0 ? nd : 0));
        for (auto& d : s) d = in.ConsumeIntegralInRange<int32_t>(-2, 6);
        rc = checked(cgrad_tensor_reshape(a, s.empty() ? nullptr : s.data(), nd, out));
        produced(rc, out);
        break;
      }
      case 7: {
        using Fn = int (*)(const cgrad_tensor*, const uint8_t*, int, cgrad_tensor*);
        static const Fn fns[] = {cgrad_tensor_reduce_sum, cgrad_tensor_reduce_mean, cgrad_tensor_reduce_max,
                                 cgrad_tensor_reduce_min};
        int nd = ndim_arg();
        std::vector<uint8_t> m(static_cast<size_t>(nd > 0 ? nd : 0));
        for (auto& x : m)
          x = in.ConsumeIntegralInRange<uint8_t>(0, in.ConsumeIntegralInRange(0, 9) == 0 ? 3 : 1);
        rc = checked(fns[in.ConsumeIntegralInRange(0, 3)](a, m.empty() ? nullptr : m.data(), nd, out));
        produced(rc, out);
        break;
      }
      case 8: {
        int axis = in.ConsumeIntegralInRange(-5, 5);
        rc = in.ConsumeBool() ? checked(cgrad_tensor_softmax(a, axis, out))
                              : checked(cgrad_tensor_log_softmax(a, axis, out));
        produced(rc, out);
        break;
      }
      case 9:
        rc = checked(cgrad_tensor_cast(a, backend_arg(), out));
        produced(rc, out);
        break;
      case 10: checked(cgrad_tensor_execute(a)); break;
      case 11: {
        size_t n = size_of(a);
        size_t count = in.ConsumeIntegralInRange<size_t>(0, n + 1);
        if (in.ConsumeBool()) {
          std::vector<float> buf(count + 1);
          checked(cgrad_tensor_read(a, in.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : buf.data(), count));
        } else {
          std::vector<double> buf(count + 1);
          checked(cgrad_tensor_read_f64(a, buf.data(), count));
        }
        break;
      }
      case 12: checked(cgrad_tensor_free(a)); break;
      case 13: {
        cgrad_compute_graph* g = a ? a->graph : nullptr;
        if (!graphs.empty() && in.ConsumeBool())
          g = graphs[in.ConsumeIntegralInRange<size_t>(0, graphs.size() - 1)];
        checked(cgrad_compute_graph_free(g));
        break;
      }
      case 14: checked(cgrad_compute_graph_merge(a ? a->graph : nullptr, b ? b->graph : nullptr)); break;
      case 15: {
        cgrad_compute_graph* g = a ? a->graph : nullptr;
        int max = in.ConsumeIntegralInRange(-1, 64);
        std::vector<cgrad_uuid> ids(static_cast<size_t>(max > 0 ? max : 1));
        int n = -1;
        rc = checked(cgrad_compute_graph_topological_sort(g, max == 0 ? nullptr : ids.data(), max, &n));
        if (rc == CGRAD_SUCCESS && max > 0) {
          for (int i = 0; i < n; ++i) {
            cgrad_uuid inputs[4];
            int m = 0;
            require(checked(cgrad_compute_graph_get_inputs(g, ids[static_cast<size_t>(i)], inputs, 4, &m)) ==
                        CGRAD_SUCCESS,
                    "get_inputs of a sorted node");
            for (int k = 0; k < m; ++k) {
              bool before = false;
              for (int j = 0; j < i; ++j)
                before = before || cgrad_uuid_compare(ids[static_cast<size_t>(j)], inputs[k]) == 0;
              require(before, "inputs come before their users");
            }
            cgrad_graph_node node;
            require(
                checked(cgrad_compute_graph_get_node(g, ids[static_cast<size_t>(i)], &node)) == CGRAD_SUCCESS,
                "get_node of a sorted node");
            require(node.num_inputs == m, "num_inputs matches get_inputs");
          }
        }
        int count = 0;
        checked(cgrad_compute_graph_get_node_count(g, &count));
        break;
      }
      case 16: {
        FILE* f = std::fopen("/dev/null", "w");
        if (!f) break;
        checked(cgrad_compute_graph_fprint(a ? a->graph : nullptr, f));
        cgrad_graph_node node;
        if (a && checked(cgrad_compute_graph_get_node(a->graph, a->node_id, &node)) == CGRAD_SUCCESS) {
          if (in.ConsumeBool()) {
            node.op_info.metadata.transpose.ndim = in.ConsumeIntegral<int>();
            node.op_info.type = static_cast<cgrad_op_type>(in.ConsumeIntegralInRange(-2, 40));
            node.layout.ndim = in.ConsumeIntegralInRange(-2, 10);
          }
          checked(cgrad_graph_node_fprint(&node, f));
        }
        std::fclose(f);
        break;
      }
      case 17: checked(cgrad_compute_graph_to_dot(a ? a->graph : nullptr, "/dev/null")); break;
      case 18:
        checked(cgrad_set_max_graph_nodes(in.ConsumeBool() ? INT_MAX : in.ConsumeIntegralInRange(-1, 12)));
        break;
      default: {
        // Corrupt or copy a slot: garbage, a copy of another slot, or a stale id.
        if (!a) break;
        switch (in.ConsumeIntegralInRange(0, 2)) {
          case 0: std::memset(a, in.ConsumeIntegral<uint8_t>(), sizeof *a); break;
          case 1:
            if (b) *a = *b;
            break;
          default: a->node_id.bytes[15] ^= in.ConsumeIntegral<uint8_t>();
        }
      }
    }
  }

  ~Fuzz() {
    for (cgrad_compute_graph* g : graphs) checked(cgrad_compute_graph_free(g));
    checked(cgrad_set_max_graph_nodes(INT_MAX));
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Fuzz f(data, size);
  for (int i = 0; i < 96 && f.in.remaining_bytes() > 0; ++i) f.step();
  return 0;
}
