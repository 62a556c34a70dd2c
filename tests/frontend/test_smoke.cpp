#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

using namespace cgrad;

TEST(Smoke, AddMul) {
  Tensor a = tensor(std::vector<float>{1, 2, 3}, {3});
  Tensor b = tensor(std::vector<float>{4, 5, 6}, {3});
  auto v = (a * b + 1.0).to_vector<float>();
  EXPECT_EQ(v, (std::vector<float>{5, 11, 19}));
}
