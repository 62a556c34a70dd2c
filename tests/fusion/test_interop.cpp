// from_blob() and memory_view() (cgrad/interop.hpp) on the default backend: a tensor over
// borrowed memory computes like any other, its release runs exactly once when the last
// reference goes, and the buffer-reuse rule never writes a result into borrowed memory.
#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <vector>

using namespace cgrad;

namespace {

TEST(Interop, FromBlobReadsStridedBorrowedMemoryAndReleasesOnce) {
  std::vector<double> mem = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  int released = 0;
  {
    // a transposed view: shape (3, 4) read column-major out of the 12 values
    Tensor t = from_blob(mem.data(), {3, 4}, {1, 3}, DType::f64, Device::cpu(), [&] { ++released; });
    EXPECT_TRUE(t.is_evaluated());
    Tensor y = t * 2.0 + 1.0;
    std::vector<double> want;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j) want.push_back(mem[static_cast<std::size_t>(i + 3 * j)] * 2 + 1);
    EXPECT_EQ(y.to_vector<double>(), want);
    EXPECT_EQ(released, 0) << "t still holds the memory";
    t = Tensor();
    EXPECT_EQ(released, 1) << "y's value is its own buffer: nothing reads the borrowed memory any more";
  }
  EXPECT_EQ(released, 1);
}

TEST(Interop, ResultsNeverReuseBorrowedMemory) {
  std::vector<float> mem(4096, 1.0f);
  const std::vector<float> before = mem;
  int released = 0;
  reset_stats();
  Tensor s = from_blob(mem.data(), {4096}, {1}, DType::f32, Device::cpu(), [&] { ++released; });
  for (int i = 0; i < 5; ++i) {
    s = s * 0.5f + 1.0f;  // the old state is free after each step: reuse would write into it
    s.eval();
  }
  EXPECT_EQ(mem, before) << "the borrowed buffer was written";
  EXPECT_EQ(released, 1) << "the first step dropped the only reference to the borrowed tensor";
  EXPECT_NEAR(s.to_vector<float>()[0], 1.96875f, 1e-6);
}

TEST(Interop, EachEvaluationReadsTheOwnersCurrentValues) {
  // The owner writes its memory between two evaluations of the same graph: the second reads the
  // new values (the result cache once returned the first sum, while x itself read the new ones).
  std::vector<double> mem(64, 1.0);
  Tensor x = from_blob(mem.data(), {64}, {1}, DType::f64, Device::cpu(), [] {});
  EXPECT_EQ(sum(x * 2.0).item<double>(), 128.0);
  std::fill(mem.begin(), mem.end(), 5.0);
  EXPECT_EQ(sum(x * 2.0).item<double>(), 640.0);
  EXPECT_EQ(x.to_vector<double>()[0], 5.0);
}

TEST(Interop, MemoryViewKeepsTheBufferAlive) {
  MemoryView v;
  {
    Tensor t = arange(6, DType::i32).reshape({2, 3}).T();
    v = memory_view(t);
  }
  ASSERT_NE(v.data, nullptr);
  EXPECT_EQ(v.shape, (Shape{3, 2}));
  EXPECT_EQ(v.dtype, DType::i32);
  const auto* p = static_cast<const int32_t*>(v.data);
  EXPECT_EQ(p[2 * v.strides[0] + 1 * v.strides[1]], 5) << "element (2, 1) of the transpose is 5";
}

TEST(Interop, FromBlobRejectsBadLayouts) {
  float x = 0;
  EXPECT_THROW(from_blob(&x, {2}, {-1}, DType::f32, Device::cpu(), nullptr), Error);
  EXPECT_THROW(from_blob(&x, {2, 2}, {1}, DType::f32, Device::cpu(), nullptr), Error);
  EXPECT_THROW(from_blob(nullptr, {2}, {1}, DType::f32, Device::cpu(), nullptr), Error);
}

}  // namespace
