// include/cgrad.h from C++: the header compiles as C++ (extern "C", no C-only syntax) and links
// against the library. Uses the same harness and final line as the C tests.
#include "harness.h"

#include <string>
#include <vector>

int main() {
  const uint32_t shape[] = {2, 2};
  const std::vector<float> data = {1, 2, 3, 4};
  cgrad_tensor a{}, b{};
  CHECK_OK(
      cgrad_tensor_init_from_data(&a, shape, 2, CGRAD_STORAGE_BACKEND_F32_CPU, data.data(), data.size()));
  const uint32_t perm[] = {1, 0};
  CHECK_OK(cgrad_tensor_transpose(&a, perm, 2, &b));
  CHECK_OK(cgrad_tensor_gemm(&a, &b, &b));  // a @ a^T, written over an input
  std::vector<float> out(4);
  CHECK_OK(cgrad_tensor_read(&b, out.data(), out.size()));
  CHECK(out[0] == 5 && out[1] == 11 && out[2] == 11 && out[3] == 25);
  CHECK_RC(cgrad_tensor_read(&b, nullptr, 4), CGRAD_ERR_NULL_POINTER);
  uuid_t id = b.node_id;  // the document's name for the id type
  cgrad_graph_node node{};
  CHECK_OK(cgrad_compute_graph_get_node(b.graph, id, &node));
  CHECK(node.op_info.type == CGRAD_OP_GEMM);
  CHECK_OK(cgrad_compute_graph_free(a.graph));
  CHECK_RC(cgrad_compute_graph_free(a.graph), CGRAD_ERR_FREED);
  // Element types: sizes and names of every cgrad_dtype; a bad value is an error.
  size_t size = 0;
  const char* name = nullptr;
  CHECK_OK(cgrad_dtype_info(CGRAD_DTYPE_U16, &size, &name));
  CHECK(size == 2 && std::string(name) == "u16");
  CHECK_OK(cgrad_dtype_info(CGRAD_DTYPE_I8, &size, nullptr));
  CHECK(size == 1);
  CHECK_OK(cgrad_dtype_info(CGRAD_DTYPE_U64, nullptr, &name));
  CHECK(std::string(name) == "u64");
  CHECK_OK(cgrad_dtype_info(CGRAD_DTYPE_BF16, &size, &name));
  CHECK(size == 2 && std::string(name) == "bf16");
  CHECK_RC(cgrad_dtype_info(static_cast<cgrad_dtype>(99), &size, &name), CGRAD_ERR_INVALID_ARGUMENT);
  return harness_finish();
}
