// split_units: the CPU JIT's translation units (backends/cpu/jit_units.h). Every distinct kernel
// lands in exactly one part, in schedule order, and no part is empty -- including when a large
// kernel late in the order reaches the last share at once (a crash found by the breadth fuzz:
// tests/fusion/test_differential_breadth.cpp).
#include "backends/cpu/jit_units.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace cgrad;
using backends::cpu::kPartBytes;
using backends::cpu::split_units;

namespace {

runtime::Program program(const std::vector<std::size_t>& kib) {
  runtime::Program p;
  for (std::size_t i = 0; i < kib.size(); ++i) {
    runtime::KernelCode c;
    c.symbol = "k" + std::to_string(i);
    c.source = "// " + c.symbol + "\n" + std::string(kib[i] * 1024, ' ') + "\n";
    p.code.push_back(c);
  }
  p.code.push_back(p.code.front());  // a kernel used twice is compiled once
  p.source = "whole program";
  return p;
}

std::vector<std::string> symbols(const std::vector<backends::cpu::Part>& parts) {
  std::vector<std::string> all;
  for (const auto& part : parts) {
    EXPECT_FALSE(part.symbols.empty());
    EXPECT_FALSE(part.source.empty());
    all.insert(all.end(), part.symbols.begin(), part.symbols.end());
  }
  return all;
}

}  // namespace

TEST(JitUnits, SmallProgramIsOneUnitWithTheWholeSource) {
  const auto parts = split_units(program({1, 2, 3}));
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].source, "whole program");
  EXPECT_EQ(symbols(parts), (std::vector<std::string>{"k0", "k1", "k2"}));
}

TEST(JitUnits, LargeKernelLastLeavesNoEmptyPart) {
  // 60 KiB in 3 shares of 20: k0+k1 close the first share, k2 alone passes the second.
  const auto parts = split_units(program({10, 10, 40}));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(symbols(parts), (std::vector<std::string>{"k0", "k1", "k2"}));
  for (const auto& part : parts) EXPECT_NE(part.source, "whole program");
}

TEST(JitUnits, EveryKernelOnceInOrderForManyShapes) {
  const std::vector<std::vector<std::size_t>> shapes = {
      {20, 20},
      {1, 1, 1, 60},
      {60, 1, 1, 1},
      {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5},
      {33, 0, 33, 0},
      {100, 100, 1},
      {17, 17, 17, 17, 17},
      {2, 2, 2, 2, 2, 2, 2, 2, 2, 200}};
  for (const auto& kib : shapes) {
    const auto parts = split_units(program(kib));
    std::vector<std::string> want;
    for (std::size_t i = 0; i < kib.size(); ++i) want.push_back("k" + std::to_string(i));
    EXPECT_EQ(symbols(parts), want);
    EXPECT_LE(parts.size(), backends::cpu::kMaxParts);
    std::size_t total = 0;
    for (std::size_t k : kib) total += k * 1024;
    if (total < 2 * kPartBytes) {
      EXPECT_EQ(parts.size(), 1u);
    }
  }
}

// Each part of a split program has the prelude a unit of its own kernels would have: the defines
// for trigonometric vector variants where its kernels call them, and scalar.hpp's lean part
// where every helper they call is in it (codegen::translation_unit, as for a whole program).
TEST(JitUnits, EachPartHasThePreludeOfItsKernels) {
  runtime::Program p;
  const char* calls[] = {"cgrad::scalar::sin_lanes(x)", "cgrad::scalar::add(x, cgrad::scalar::exp(y))"};
  for (int i = 0; i < 2; ++i) {
    runtime::KernelCode c;
    c.symbol = "k" + std::to_string(i);
    c.source = "// " + c.symbol + "\n" + calls[i] + ";\n" + std::string((2 - i) * kPartBytes, ' ') + "\n";
    p.code.push_back(c);
  }
  p.source = "whole program";
  const auto parts = split_units(p);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_NE(parts[0].source.find("#define CGRAD_KERNEL_USES_SIN 1\n"), std::string::npos);
  EXPECT_EQ(parts[0].source.find("#define CGRAD_SCALAR_LEAN 1\n"), std::string::npos);
  EXPECT_EQ(parts[1].source.find("#define CGRAD_KERNEL_USES_SIN 1\n"), std::string::npos);
  EXPECT_NE(parts[1].source.find("#define CGRAD_SCALAR_LEAN 1\n"), std::string::npos);
  for (const auto& part : parts)
    EXPECT_NE(part.source.find("#include \"cgrad/scalar.hpp\""), std::string::npos);
}
