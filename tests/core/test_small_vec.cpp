// core::SmallVec (the inputs of graph nodes): inline storage up to N, the heap beyond, and the
// same element lifetimes as std::vector through copies, moves, growth and clears.
#include "core/small_vec.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

using cgrad::core::SmallVec;

namespace {
// Counts live instances, so a leaked or doubly destroyed element shows.
struct Counted {
  static int live;
  std::string s;
  explicit Counted(std::string v) : s(std::move(v)) { ++live; }
  Counted(const Counted& o) : s(o.s) { ++live; }
  Counted(Counted&& o) noexcept : s(std::move(o.s)) { ++live; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { --live; }
  bool operator==(const Counted& o) const { return s == o.s; }
};
int Counted::live = 0;

template <class V>
std::vector<std::string> strings(const V& v) {
  std::vector<std::string> r;
  for (const auto& x : v) r.push_back(x.s);
  return r;
}
}  // namespace

TEST(SmallVec, StaysInlineUpToNThenSpillsToTheHeap) {
  {
    SmallVec<Counted, 3> v;
    const Counted* inline_data = v.data();
    for (int i = 0; i < 3; ++i) v.emplace_back(std::to_string(i));
    EXPECT_EQ(v.data(), inline_data) << "three elements stay inline";
    EXPECT_EQ(v.capacity(), 3u);
    v.emplace_back("3");
    EXPECT_NE(v.data(), inline_data) << "the fourth spills to the heap";
    EXPECT_GE(v.capacity(), 4u);
    for (int i = 4; i < 40; ++i) v.push_back(Counted(std::to_string(i)));
    ASSERT_EQ(v.size(), 40u);
    for (int i = 0; i < 40; ++i) EXPECT_EQ(v[static_cast<std::size_t>(i)].s, std::to_string(i));
    EXPECT_EQ(Counted::live, 40);
    v.pop_back();
    EXPECT_EQ(v.back().s, "38");
    EXPECT_EQ(v.front().s, "0");
    v.clear();
    EXPECT_TRUE(v.empty());
    EXPECT_EQ(Counted::live, 0);
    v.emplace_back("again");  // usable after a clear
    EXPECT_EQ(Counted::live, 1);
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(SmallVec, CopiesAndMovesInlineAndOnTheHeap) {
  for (int n : {0, 2, 3, 7}) {
    SmallVec<Counted, 3> a;
    for (int i = 0; i < n; ++i) a.emplace_back("x" + std::to_string(i));
    SmallVec<Counted, 3> b = a;  // copy
    EXPECT_EQ(strings(b), strings(a));
    EXPECT_TRUE(a == b);
    SmallVec<Counted, 3> c = std::move(a);  // move: a is left empty and usable
    EXPECT_EQ(strings(c), strings(b));
    EXPECT_TRUE(a.empty());
    a.emplace_back("new");
    SmallVec<Counted, 3> d;
    d.emplace_back("old0");
    d.emplace_back("old1");
    d.emplace_back("old2");
    d.emplace_back("old3");
    d = std::move(c);  // move-assign over a heap vector
    EXPECT_EQ(strings(d), strings(b));
    d = a;  // copy-assign
    EXPECT_EQ(strings(d), std::vector<std::string>{"new"});
    const SmallVec<Counted, 3>& self = d;
    d = self;  // self-assignment keeps the elements
    EXPECT_EQ(strings(d), std::vector<std::string>{"new"});
    EXPECT_FALSE(d == b);
    EXPECT_EQ(Counted::live, static_cast<int>(a.size() + b.size() + c.size() + d.size()));
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(SmallVec, PushingAnElementOfItselfWhileGrowing) {
  SmallVec<std::shared_ptr<int>, 2> v;
  v.push_back(std::make_shared<int>(1));
  v.push_back(std::make_shared<int>(2));
  v.push_back(v[0]);  // reallocates while the argument refers into the old storage
  v.push_back(v.back());
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(*v[2], 1);
  EXPECT_EQ(*v[3], 1);
  EXPECT_EQ(v[0].use_count(), 3);
}

TEST(SmallVec, ConvertsFromAndToStdVector) {
  std::vector<std::shared_ptr<int>> src{std::make_shared<int>(1), std::make_shared<int>(2),
                                        std::make_shared<int>(3), std::make_shared<int>(4)};
  SmallVec<std::shared_ptr<int>, 3> copied = src;
  EXPECT_EQ(copied.size(), 4u);
  EXPECT_EQ(src[0].use_count(), 2);
  std::vector<std::shared_ptr<int>> back = copied;
  EXPECT_EQ(back, src);
  SmallVec<std::shared_ptr<int>, 3> moved = std::move(src);
  EXPECT_TRUE(src.empty());  // NOLINT: moved-from on purpose
  EXPECT_EQ(moved[0].use_count(), 3);
  SmallVec<std::shared_ptr<int>, 3> listed{moved[1], moved[2]};
  listed = {moved[3]};
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(*listed[0], 4);
  listed = back;
  EXPECT_EQ(listed.size(), 4u);
}
