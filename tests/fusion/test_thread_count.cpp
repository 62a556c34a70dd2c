// Results do not depend on the thread pool's size (CGRAD_NUM_THREADS, docs/env.md): the same
// program run with 1, 2 and 3 threads gives the same bits. Each count needs its own process (the
// pool is sized at start-up), so ThreadCount.SameBitsForEveryPoolSize runs this binary again as
// ThreadCount.Child with CGRAD_NUM_THREADS set and compares what the children print.
#include <cgrad/cgrad.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace cgrad;

namespace {

// FNV-1a over the bit patterns of the values (f32 values are exact as doubles).
uint64_t hash_bits(const Tensor& t) {
  uint64_t h = 1469598103934665603ull;
  for (double v : t.to_vector<double>()) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    for (int i = 0; i < 8; ++i) h = (h ^ ((b >> (8 * i)) & 0xff)) * 1099511628211ull;
  }
  return h;
}

// Work that the pool splits: GEMMs cut in bands (by rows, by columns, transposed, batched f64),
// long and row-wise reductions, row kernels, an indexed reduction, a scan, one training step, and
// sorts of rows on each path (radix, network, merges), a transposed element-wise kernel.
std::vector<Tensor> workload() {
  manual_seed(11);
  Tensor a = rand({1000, 64}, f32) - 0.5, w = rand({64, 64}, f32) - 0.5;
  Tensor g = rand({12, 400}, f32) - 0.5, h = rand({400, 300}, f32) - 0.5;
  Tensor e = rand({3, 90, 70}, f64) - 0.5, f = rand({70, 90}, f64) - 0.5;
  Tensor x = rand({1 << 20}, f32) - 0.5, y = rand({1 << 20}, f32), m = randn({300, 1000}, f32);
  Tensor p = rand({301, 333}, f32) - 0.5;  // p.T(): bands of rows, a thread's range from mid-row
  eval({a, w, g, h, e, f, x, y, m, p});
  Tensor w1 = (w * 1.0).eval().requires_grad(true);
  Tensor loss = cross_entropy(matmul(relu(matmul(a, w1)), w.slice(1, 0, 10)), argmax(a.slice(1, 0, 10), 1));
  loss.backward();
  Tensor s16 = floor(randn({1100, 16}, f32) * 4.0), s100 = floor(randn({300, 100}, f64) * 4.0);  // ties
  return {
      matmul(a, w),  matmul(g, h),          matmul(a.T(), a), matmul(e, f),         sum(x * y), mean(m, {1}),
      var(x),        softmax(m, 1),         argmax(x),        cumulative_sum(m, 1), loss,       w1.grad(),
      argsort(m, 1), argsort(s16, 1, true), sort(s100, 1),    p.T() * 3.0 - 1.0};
}

}  // namespace

TEST(ThreadCount, Child) {
  const char* out = std::getenv("CGRAD_TEST_BITS_OUT");
  if (!out) GTEST_SKIP() << "run by ThreadCount.SameBitsForEveryPoolSize";
  std::vector<Tensor> r = workload();
  eval(r);
  FILE* file = std::fopen(out, "w");
  ASSERT_NE(file, nullptr) << out;
  for (const Tensor& t : r) std::fprintf(file, "%016llx\n", static_cast<unsigned long long>(hash_bits(t)));
  std::fclose(file);
}

TEST(ThreadCount, SameBitsForEveryPoolSize) {
  char self[4096] = {};
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(len, 0);
  std::vector<std::string> prints;
  for (int threads : {1, 2, 3}) {
    const std::string file = ::testing::TempDir() + "cgrad_bits_" + std::to_string(::getpid()) + "_" +
                             std::to_string(threads) + ".txt";
    const std::string cmd = "CGRAD_NUM_THREADS=" + std::to_string(threads) + " CGRAD_TEST_BITS_OUT='" + file +
                            "' '" + self + "' --gtest_filter=ThreadCount.Child > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    FILE* in = std::fopen(file.c_str(), "r");
    ASSERT_NE(in, nullptr) << file;
    std::string text;
    char buf[256];
    while (std::fgets(buf, sizeof buf, in)) text += buf;
    std::fclose(in);
    std::remove(file.c_str());
    ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 16) << text;  // one line per output of workload()
    prints.push_back(text);
  }
  EXPECT_EQ(prints[0], prints[1]) << "1 thread against 2";
  EXPECT_EQ(prints[0], prints[2]) << "1 thread against 3";
}
