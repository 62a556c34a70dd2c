// Node construction: shapes stay exact when make_node reuses the shape buffers of destroyed
// nodes (ir/node.cpp), including buffers of a different rank, and nodes destroyed after their
// thread's buffer cache is gone (thread-exit and static destructors) are still freed cleanly.
#include "ir/node.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <memory>
#include <thread>
#include <vector>

namespace {

using namespace cgrad;

Tensor ones_of(const Shape& s) { return full(s, 1.0, f32); }

TEST(Node, ShapesStayExactWhenBuffersAreReused) {
  // Rank 4, then 1, then 0, then 3 again, each destroyed before the next is built: every node
  // gets a buffer that held another shape.
  const std::vector<Shape> shapes = {{2, 3, 4, 5}, {7}, {}, {6, 1, 2}, {2, 3, 4, 5, 6, 7, 8, 9, 10}, {3}};
  for (int round = 0; round < 3; ++round) {
    for (const Shape& s : shapes) {
      Tensor x = ones_of(s);
      Tensor y = exp(x) + x;  // two element-wise nodes on kept buffers
      Tensor r = sum(y);      // a reduction's rule assigns too
      EXPECT_EQ(y.shape(), s);
      EXPECT_EQ(r.shape(), Shape{});
      Tensor p = s.size() >= 2 ? y.permute([&] {
        std::vector<int64_t> perm;
        for (std::size_t i = s.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
        return perm;
      }())
                               : y;
      Shape rev(s.rbegin(), s.rend());
      EXPECT_EQ(p.shape(), s.size() >= 2 ? rev : s);
    }
  }
  // Many nodes alive at once (more than the cache keeps), then freed, then rebuilt.
  std::vector<Tensor> keep;
  Tensor x = ones_of({4, 4});
  for (int i = 0; i < 1000; ++i) keep.push_back(x * static_cast<double>(i));
  keep.clear();
  for (int i = 0; i < 1000; ++i) keep.push_back(x.reshape({16}) + static_cast<double>(i));
  for (const Tensor& t : keep) ASSERT_EQ(t.shape(), Shape{16});
  EXPECT_EQ(keep[999].to_vector<float>()[3], 1000.0f);
}

thread_local std::vector<Tensor> t_late;  // destroyed at thread exit, possibly after the cache

TEST(Node, NodesDestroyedAtThreadExitAreFreed) {
  std::vector<std::weak_ptr<ir::Node>> late;
  std::thread th([&late] {
    t_late.reserve(2);           // constructed before this thread's buffer cache, so destroyed after it
    Tensor x = ones_of({3, 2});  // the first node built on this thread: creates the cache
    t_late.push_back(exp(x) * 2.0);
    t_late.push_back(x - 1.0);
    for (const Tensor& t : t_late) late.push_back(t.node());
  });
  th.join();  // t_late is destroyed at the thread's exit; AddressSanitizer checks the order
  ASSERT_EQ(late.size(), 2u);
  for (auto& w : late) EXPECT_TRUE(w.expired());
}

}  // namespace
