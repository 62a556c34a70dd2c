// The C API from several threads (docs/capi.md, "Thread safety"; docs/semantics.md "Threads"):
// calls are serialized by one lock, so threads may build on a shared graph, merge their own
// graphs into it and execute nodes of it. Results are compared with a single-threaded run.
#include "threads.h"

#include <cgrad.h>

namespace {

using ct::run_threads;

#define C_OK(call) ASSERT_EQ((call), CGRAD_SUCCESS) << #call << ": " << cgrad_last_error()

// (shared + own) * k + 1, executed and read.
std::vector<float> compute(const cgrad_tensor& shared, const std::vector<float>& own, float k) {
  const uint32_t shape[] = {2, 3};
  cgrad_tensor a{}, s{}, m{}, r{};
  std::vector<float> out(6, -1);
  auto run = [&] {
    C_OK(cgrad_tensor_init_from_data(&a, shape, 2, CGRAD_STORAGE_BACKEND_F32_CPU, own.data(), own.size()));
    C_OK(cgrad_tensor_add(&shared, &a, &s));  // merges a's graph into the shared one
    C_OK(cgrad_tensor_mul_scalar(&s, k, &m));
    C_OK(cgrad_tensor_add_scalar(&m, 1.0f, &r));
    C_OK(cgrad_tensor_execute(&r));
    C_OK(cgrad_tensor_read(&r, out.data(), out.size()));
    C_OK(cgrad_compute_graph_free(a.graph));  // one free per init: the merged graph lives on
  };
  run();
  return out;
}

TEST(ThreadsCapi, BuildOnSharedGraphFromSeveralThreads) {
  const uint32_t shape[] = {2, 3};
  const std::vector<float> base = {1, 2, 3, 4, 5, 6};
  auto own = [](int t, int k) {
    std::vector<float> v(6);
    for (int i = 0; i < 6; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(t * 10 + k + i);
    return v;
  };
  constexpr int kThreads = 4, kCalls = 30;
  std::vector<std::vector<std::vector<float>>> ref(kThreads, std::vector<std::vector<float>>(kCalls));
  {
    cgrad_tensor shared{};
    C_OK(cgrad_tensor_init_from_data(&shared, shape, 2, CGRAD_STORAGE_BACKEND_F32_CPU, base.data(),
                                     base.size()));
    for (int t = 0; t < kThreads; ++t)
      for (int k = 0; k < kCalls; ++k)
        ref[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] =
            compute(shared, own(t, k), static_cast<float>(t + 1));
    C_OK(cgrad_compute_graph_free(shared.graph));
  }
  cgrad_tensor shared{};
  C_OK(cgrad_tensor_init_from_data(&shared, shape, 2, CGRAD_STORAGE_BACKEND_F32_CPU, base.data(),
                                   base.size()));
  std::vector<std::vector<std::vector<float>>> got(kThreads, std::vector<std::vector<float>>(kCalls));
  run_threads(kThreads, [&](int t) {
    for (int k = 0; k < kCalls; ++k)
      got[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] =
          compute(shared, own(t, k), static_cast<float>(t + 1));
  });
  EXPECT_EQ(got, ref);
  int count = 0;
  C_OK(cgrad_compute_graph_get_node_count(shared.graph, &count));
  EXPECT_EQ(count, 1 + kThreads * kCalls * 4);  // the shared leaf, then 4 nodes per call
  C_OK(cgrad_compute_graph_free(shared.graph));
}

// Threads with graphs of their own, each also reading the thread-local last error.
TEST(ThreadsCapi, IndependentGraphsAndLastError) {
  run_threads(4, [&](int t) {
    for (int k = 0; k < 25; ++k) {
      const uint32_t shape[] = {4};
      const float data[] = {1, 2, 3, static_cast<float>(t + k)};
      cgrad_tensor a{}, e{};
      C_OK(cgrad_tensor_init_from_data(&a, shape, 1, CGRAD_STORAGE_BACKEND_F32_CPU, data, 4));
      C_OK(cgrad_tensor_exp(&a, &e));
      float out[4];
      C_OK(cgrad_tensor_read(&e, out, 4));
      for (int i = 0; i < 4; ++i) ASSERT_NEAR(out[i], std::exp(data[i]), 1e-5 * std::exp(data[i]));
      ASSERT_EQ(cgrad_tensor_read(&e, nullptr, 4), CGRAD_ERR_NULL_POINTER);
      ASSERT_NE(std::string(cgrad_last_error()).find("NULL"), std::string::npos) << cgrad_last_error();
      C_OK(cgrad_compute_graph_free(a.graph));
    }
  });
}

}  // namespace
