// Graph walks and printing: topological order on a diamond, deterministic text and DOT output.
#include "ir/graph.h"
#include "ir/printer.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <algorithm>
#include <sstream>

namespace {

using namespace cgrad;

TEST(TopoOrder, Diamond) {
  Tensor a = tensor(std::vector<float>{1, 2}, {2});
  Tensor b = exp(a);
  Tensor c = sin(a);
  Tensor d = b + c;
  auto order = ir::topo_order({d.node().get()}, false);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[0], a.node().get());
  EXPECT_EQ(order[1], b.node().get());
  EXPECT_EQ(order[2], c.node().get());
  EXPECT_EQ(order[3], d.node().get());

  // Realized nodes are neither returned nor walked through.
  auto pending = ir::topo_order({d.node().get()}, true);
  ASSERT_EQ(pending.size(), 3u);
  EXPECT_EQ(pending[0], b.node().get());
  EXPECT_EQ(pending[2], d.node().get());

  // Several roots sharing nodes: every node once, inputs before users.
  Tensor e = d * b;
  auto multi = ir::topo_order({e.node().get(), d.node().get(), b.node().get()}, false);
  ASSERT_EQ(multi.size(), 5u);
  EXPECT_EQ(multi.back(), e.node().get());
  std::vector<ir::Node*> seen;
  for (ir::Node* n : multi) {
    for (auto& in : n->inputs)
      EXPECT_NE(std::find(seen.begin(), seen.end(), in.get()), seen.end()) << "input after user";
    EXPECT_EQ(std::find(seen.begin(), seen.end(), n), seen.end()) << "node twice";
    seen.push_back(n);
  }

  // Once d is realized its inputs are dropped and nothing is pending.
  d.eval();
  EXPECT_TRUE(ir::topo_order({d.node().get()}, true).empty());
  auto after = ir::topo_order({d.node().get()}, false);
  ASSERT_EQ(after.size(), 1u);
}

std::string program_text() {
  Tensor x = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor y = arange(3, f32);
  Tensor z = sum(relu(x * y - 1.5), {1}).cast(f64);
  std::ostringstream s;
  print_graph(z, s);
  return s.str() + to_dot_string({z, y});
}

TEST(Printer, DeterministicAcrossRuns) {
  std::string first = program_text();
  std::string second = program_text();  // different node ids, same text
  EXPECT_EQ(first, second);
  EXPECT_NE(first.find("%0 = "), std::string::npos);
}

TEST(Printer, FormatOfOneLine) {
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = a.sum({-1}, true).cast(i64);
  std::ostringstream s;
  print_graph(b, s);
  EXPECT_EQ(s.str(),
            "%0 = buffer() : f32(2, 3) [realized]\n"
            "%1 = sum(%0) {axes=[1]} : f32(2, 1)\n"
            "%2 = cast(%1) : i64(2, 1)\n");
  EXPECT_EQ(ir::attrs_str(*b.node()->inputs[0]), "axes=[1]");
}

}  // namespace
