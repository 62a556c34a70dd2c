// core/shape: checked element counts, NumPy broadcasting, axis normalization, strides.
#include "core/shape.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace cgrad;

template <class F>
ErrorCode code_of(F&& f, std::string* msg = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (msg) *msg = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no cgrad::Error thrown";
  return ErrorCode::Internal;
}

TEST(Shape, ShapeStr) {
  EXPECT_EQ(shape_str({}), "()");
  EXPECT_EQ(shape_str({3}), "(3,)");
  EXPECT_EQ(shape_str({2, 3}), "(2, 3)");
  EXPECT_EQ(shape_str({0, 1, 5}), "(0, 1, 5)");
  EXPECT_EQ(core::vec_str({}), "[]");
  EXPECT_EQ(core::vec_str({1, -2}), "[1, -2]");
}

TEST(Shape, CheckedNumel) {
  EXPECT_EQ(core::checked_numel({}, "t"), 1);
  EXPECT_EQ(core::checked_numel({0}, "t"), 0);
  EXPECT_EQ(core::checked_numel({2, 3, 4}, "t"), 24);
  EXPECT_EQ(core::checked_numel({3, 0, 5}, "t"), 0);
  // A zero dim makes any shape empty, however large its other dims.
  EXPECT_EQ(core::checked_numel({int64_t{1} << 62, 0, int64_t{1} << 62}, "t"), 0);
  EXPECT_EQ(core::checked_numel({core::kMaxNumel}, "t"), core::kMaxNumel);
  EXPECT_EQ(core::checked_numel({int64_t{1} << 28, int64_t{1} << 28}, "t"), int64_t{1} << 56);

  std::string msg;
  EXPECT_EQ(code_of(
                [] {
                  core::checked_numel({int64_t{1} << 40, int64_t{1} << 40}, "zeros");
                },
                &msg),
            ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("zeros"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(1099511627776, 1099511627776)"), std::string::npos) << msg;
  EXPECT_EQ(code_of([] { core::checked_numel({core::kMaxNumel + 1}, "t"); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { core::checked_numel({INT64_MAX, 2}, "t"); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] {
              core::checked_numel({3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
                                   3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
                                  "t");
            }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { core::checked_numel({2, -1}, "reshape"); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("reshape"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(2, -1)"), std::string::npos) << msg;
  // A negative dim is reported even next to a zero.
  EXPECT_EQ(code_of([] { core::checked_numel({0, -3}, "t"); }), ErrorCode::InvalidArgument);
}

TEST(Shape, Broadcast) {
  struct Case {
    Shape a, b, want;
  };
  const Case ok[] = {
      {{}, {}, {}},
      {{}, {3}, {3}},
      {{3}, {}, {3}},
      {{1}, {4}, {4}},
      {{2, 3}, {3}, {2, 3}},
      {{2, 1}, {1, 3}, {2, 3}},
      {{5, 1, 4}, {3, 1}, {5, 3, 4}},
      {{1, 1, 1}, {7}, {1, 1, 7}},
      {{0}, {1}, {0}},
      {{2, 0}, {2, 1}, {2, 0}},
      {{1, 0}, {5, 1}, {5, 0}},
      {{8, 1, 6, 1}, {7, 1, 5}, {8, 7, 6, 5}},
  };
  for (const Case& c : ok) {
    EXPECT_EQ(core::broadcast_shapes(c.a, c.b, "add"), c.want)
        << shape_str(c.a) << " with " << shape_str(c.b);
    EXPECT_EQ(core::broadcast_shapes(c.b, c.a, "add"), c.want)
        << shape_str(c.b) << " with " << shape_str(c.a);
  }
  const std::pair<Shape, Shape> bad[] = {
      {{2}, {3}}, {{2, 3}, {3, 2}}, {{0}, {2}}, {{4, 3}, {4}}, {{2, 1, 3}, {4, 3, 1}},
  };
  for (const auto& ab : bad) {
    const Shape& a = ab.first;
    const Shape& b = ab.second;
    std::string msg;
    EXPECT_EQ(code_of([&] { core::broadcast_shapes(a, b, "mul"); }, &msg), ErrorCode::ShapeMismatch);
    EXPECT_NE(msg.find("mul"), std::string::npos) << msg;
    EXPECT_NE(msg.find(shape_str(a)), std::string::npos) << msg;
    EXPECT_NE(msg.find(shape_str(b)), std::string::npos) << msg;
  }
}

TEST(Shape, NormalizeAxis) {
  EXPECT_EQ(core::normalize_axis(0, 3, "sum"), 0);
  EXPECT_EQ(core::normalize_axis(2, 3, "sum"), 2);
  EXPECT_EQ(core::normalize_axis(-1, 3, "sum"), 2);
  EXPECT_EQ(core::normalize_axis(-3, 3, "sum"), 0);
  std::string msg;
  EXPECT_EQ(code_of([] { core::normalize_axis(3, 3, "sum"); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("sum"), std::string::npos) << msg;
  EXPECT_NE(msg.find('3'), std::string::npos) << msg;
  EXPECT_EQ(code_of([] { core::normalize_axis(-4, 3, "sum"); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { core::normalize_axis(0, 0, "sum"); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { core::normalize_axis(INT64_MIN, 2, "sum"); }), ErrorCode::InvalidArgument);
}

TEST(Shape, NormalizeAxes) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(core::normalize_axes({}, 3, "sum"), (V{0, 1, 2}));
  EXPECT_EQ(core::normalize_axes({}, 0, "sum"), V{});
  EXPECT_EQ(core::normalize_axes({-1, 0}, 3, "sum"), (V{0, 2}));
  EXPECT_EQ(core::normalize_axes({2, 1}, 3, "sum"), (V{1, 2}));
  std::string msg;
  EXPECT_EQ(code_of([] { core::normalize_axes({1, -2}, 3, "max"); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("max"), std::string::npos) << msg;
  EXPECT_EQ(code_of([] { core::normalize_axes({0, 0}, 3, "max"); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { core::normalize_axes({5}, 3, "max"); }), ErrorCode::InvalidArgument);
}

TEST(Shape, AxisErrorsNameTheShape) {
  EXPECT_EQ(core::normalize_axis(-1, Shape{2, 3}, "softmax"), 1);
  EXPECT_EQ(core::normalize_axes({-1, 0}, Shape{2, 3, 4}, "sum"), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(core::normalize_axes({}, Shape{2, 3}, "sum"), (std::vector<int64_t>{0, 1}));
  std::string msg;
  EXPECT_EQ(code_of(
                [] {
                  core::normalize_axis(2, Shape{2, 3}, "softmax");
                },
                &msg),
            ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("softmax"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(2, 3)"), std::string::npos) << msg;
  EXPECT_EQ(code_of([] { core::normalize_axis(-3, Shape{2, 3}, "t"); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { core::normalize_axis(0, Shape{}, "t"); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("()"), std::string::npos) << msg;
  EXPECT_EQ(code_of(
                [] {
                  core::normalize_axes({1, 5}, Shape{2, 3}, "max");
                },
                &msg),
            ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("max"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(2, 3)"), std::string::npos) << msg;
  EXPECT_EQ(code_of(
                [] {
                  core::normalize_axes({1, -1}, Shape{2, 3}, "max");
                },
                &msg),
            ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("repeated"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(2, 3)"), std::string::npos) << msg;
}

TEST(Shape, ContiguousStrides) {
  using S = core::Strides;
  EXPECT_EQ(core::contiguous_strides({}), S{});
  EXPECT_EQ(core::contiguous_strides({5}), S{1});
  EXPECT_EQ(core::contiguous_strides({2, 3, 4}), (S{12, 4, 1}));
  EXPECT_EQ(core::contiguous_strides({2, 1, 4}), (S{4, 4, 1}));
  EXPECT_EQ(core::contiguous_strides({3, 0, 2}), (S{0, 2, 1}));

  EXPECT_TRUE(core::is_contiguous({}, {}));
  EXPECT_TRUE(core::is_contiguous({2, 3, 4}, {12, 4, 1}));
  EXPECT_TRUE(core::is_contiguous({2, 1, 4}, {4, 99, 1})) << "size-1 dims have any stride";
  EXPECT_FALSE(core::is_contiguous({2, 3}, {1, 2})) << "transposed";
  EXPECT_FALSE(core::is_contiguous({2, 3}, {6, 2})) << "strided slice";
  EXPECT_FALSE(core::is_contiguous({2, 3}, {0, 1})) << "expanded";
  EXPECT_TRUE(core::is_contiguous({1, 1}, {0, 0}));
}

TEST(Shape, Numel) {
  EXPECT_EQ(core::numel({}), 1);
  EXPECT_EQ(core::numel({4, 0}), 0);
  EXPECT_EQ(core::numel({4, 5}), 20);
}

}  // namespace
