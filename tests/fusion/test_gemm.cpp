// cgrad's own GEMM kernels (backends/cpu/gemm_kernel.inc) against the interpreter's loops, on
// every instruction set this CPU has and on the BLAS (CGRAD_GEMM, docs/jit.md "GEMM"), and the
// kernels of the two instruction sets against each other, bit for bit.
#include <cgrad/cgrad.hpp>

#include "oracle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace cgrad;
using namespace cgrad::test;

namespace {

// GEMMs that reach every edge of the kernels: tiles cut by m and n, depths past one packed panel
// (256) and B panels past 2048 columns, a few columns (n <= 16: narrow), transposed, sliced,
// broadcast (stride 0), reversed and batched operands, k = 1, and the same in f64. Matrices times
// vectors (n = 1: rows not a multiple of the four strips of lanes, a transposed matrix, a batch)
// and vectors times matrices (m = 1: columns past whole groups of four vectors and a part of one,
// and a transposed matrix, which takes the tiles). Row-major A in whole packed blocks (229 rows:
// two blocks of 112 rows on AVX-512, four of 48 on AVX2, and a part) at depth 512 (two whole
// panels), where pack_a's transposes write the last strip of the block up to its end.
std::vector<Tensor> gemms(DType dt) {
  manual_seed(21);
  auto r = [&](Shape s) { return (rand(std::move(s), dt) - 0.5).eval(); };
  Tensor a = r({29, 385}), b = r({385, 33});
  Tensor c = r({15, 800}), d = r({800, 17});
  Tensor e = r({3, 50}), f = r({50, 2100});
  Tensor g = r({300, 200}), h = r({200, 10});
  Tensor x = r({1, 1}), y = r({1, 1}), u = r({37, 1}), v = r({1, 5});
  Tensor bt = r({3, 40, 70}), bw = r({70, 90});
  Tensor row = r({1, 200});
  Tensor mv = r({150, 700}), vk = r({700, 1}), vm = r({1, 600}), mw = r({600, 300});
  Tensor s8 = r({300, 8, 8}), s3 = r({40, 3, 5}), s5 = r({5, 7});
  return {matmul(s8, s8),  // a batch of small products
          matmul(s3, s5),  // ... with a broadcast right operand
          matmul(s8.slice(0, 0, 2).transpose(1, 2), s8.slice(0, 2, 4)),
          matmul(r({20, 30}), r({30, 24})),  // small: one or two vectors of columns
          matmul(mv, vk),
          matmul(mv.slice(1, 100, 700), vk.slice(0, 0, 600)),  // rows 700 apart
          matmul(mw.T(), vm.T()),                              // a transposed matrix times a vector
          matmul(r({3, 40, 70}), r({70, 1})),                  // batched
          matmul(vm, mw),
          matmul(vm.slice(1, 0, 300), mw.T().slice(1, 0, 300)),  // columns of B contiguous: tiles
          matmul(vm.slice(1, 0, 20), r({20, 5})),
          matmul(a, b),
          matmul(r({229, 512}), r({512, 40})),  // whole packed blocks of row-major A
          matmul(c, d),
          matmul(e, f),  // 3 rows: cut by columns
          matmul(g, h),
          matmul(x, y),
          matmul(u, v),
          matmul(a.T(), a.slice(1, 0, 40)),  // transposed left operand, sliced right one
          matmul(g.slice(0, 100, 300).slice(1, 7, 107),
                 c.slice(1, 0, 300).T().slice(0, 0, 100)),  // sliced, transposed
          matmul(row.expand({64, 200}), g.T()),             // a broadcast row: stride 0
          matmul(bt, bw),                                   // batched
          matmul(g.T(), g),                                 // 200 x 200 from k = 300
          matmul(flip(g, {1}), flip(h, {0, 1}))};           // reversed operands
}

std::vector<std::vector<double>> values_with(const char* gemm, DType dt) {
  auto& e = core::env_mut();
  const std::string saved = e.gemm;
  e.gemm = gemm;
  std::vector<std::vector<double>> out;
  for (auto& t : gemms(dt)) out.push_back(t.to_vector<double>());
  e.gemm = saved;
  return out;
}

void expect_near(const std::vector<std::vector<double>>& got, const std::vector<std::vector<double>>& ref,
                 double rel, const char* what) {
  ASSERT_EQ(got.size(), ref.size());
  for (std::size_t o = 0; o < got.size(); ++o) {
    ASSERT_EQ(got[o].size(), ref[o].size()) << what << " output " << o;
    for (std::size_t i = 0; i < got[o].size(); ++i)
      ASSERT_NEAR(got[o][i], ref[o][i], rel * (1 + std::fabs(ref[o][i])))
          << what << " output " << o << " elem " << i;
  }
}

// Runs `check(dtype)` with each instruction set's kernels (CGRAD_GEMM; the AVX2 ones where the CPU
// has no AVX-512) for f32 and f64, the result cache off.
template <class Check>
void for_each_kernel_set(const Check& check) {
  ResultCacheOff no_cache;
  auto& e = core::env_mut();
  const std::string saved = e.gemm;
  for (const char* set : {"avx512", "avx2"})
    for (DType dt : {f32, f64}) {
      SCOPED_TRACE(std::string(set) + (dt == f32 ? " f32" : " f64"));
      e.gemm = set;
      check(dt);
    }
  e.gemm = saved;
}

// Both results have the same shape and the same bits.
void expect_same_bits(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  const auto g = got.to_vector<double>(), w = want.to_vector<double>();
  EXPECT_EQ(std::memcmp(g.data(), w.data(), g.size() * sizeof(double)), 0);
}

bool same_bits(const std::vector<std::vector<double>>& p, const std::vector<std::vector<double>>& q) {
  if (p.size() != q.size()) return false;
  for (std::size_t o = 0; o < p.size(); ++o)
    if (p[o].size() != q[o].size() ||
        std::memcmp(p[o].data(), q[o].data(), p[o].size() * sizeof(double)) != 0)
      return false;
  return true;
}

}  // namespace

TEST(Gemm, EveryPathMatchesTheInterpreter) {
  ResultCacheOff no_cache;
  for (DType dt : {f32, f64}) {
    const double rel = dt == f32 ? 2e-5 : 1e-12;
    auto ref = with_backend("interpreter", [&] { return values_with("auto", dt); });
    for (const char* path : {"avx512", "avx2", "blas"}) {
      SCOPED_TRACE(std::string(path) + (dt == f32 ? " f32" : " f64"));
      expect_near(values_with(path, dt), ref, rel, path);
    }
  }
}

// Each element is one chain of FMAs per block of depth 256 (kKc), whatever the register tile: AVX2
// (6 x 16 f32) and AVX-512 (14 x 32) give the same bits, and so does the default path. On a CPU
// without AVX-512 both runs take the AVX2 kernels.
TEST(Gemm, InstructionSetsGiveTheSameBits) {
  ResultCacheOff no_cache;
  for (DType dt : {f32, f64}) {
    auto wide = values_with("avx512", dt), narrow = values_with("avx2", dt), def = values_with("auto", dt);
    EXPECT_TRUE(same_bits(wide, narrow)) << (dt == f32 ? "f32" : "f64");
    EXPECT_TRUE(same_bits(wide, def)) << (dt == f32 ? "f32" : "f64");
  }
}

// A matrix times a vector and a vector times a matrix run on loops of their own (gemm_n1, gemm_m1),
// whose elements are the same chains of FMAs as the tiles': each is bit for bit the column (row)
// of a wider product that the tiles compute, on every instruction set.
TEST(Gemm, VectorProductsGiveTheBitsOfTheWiderProduct) {
  for_each_kernel_set([](DType dt) {
    manual_seed(5);
    Tensor a = (rand({133, 900}, dt) - 0.5).eval(), v = (rand({900, 2}, dt) - 0.5).eval();
    Tensor u = (rand({2, 900}, dt) - 0.5).eval(), b = (rand({900, 77}, dt) - 0.5).eval();
    expect_same_bits(matmul(a, v.slice(1, 0, 1)), matmul(a, v).slice(1, 0, 1));
    expect_same_bits(matmul(u.slice(0, 0, 1), b), matmul(u, b).slice(0, 0, 1));
    // rows 8 KiB apart (AVX-512's f32 reads them 8 at a time, not 16: rows_fit_l1_sets), and 16
    // rows plus a block of 8 to 15 (f32 rows 3600 bytes apart: 16 at a time, the rest copied)
    Tensor w = (rand({45, static_cast<int64_t>(8192 / dtype_size(dt))}, dt) - 0.5).eval();
    Tensor x = (rand({w.shape()[1], 2}, dt) - 0.5).eval();
    expect_same_bits(matmul(w, x.slice(1, 0, 1)), matmul(w, x).slice(1, 0, 1));
    expect_same_bits(matmul(a.slice(0, 0, 27), v.slice(1, 1, 2)),
                     matmul(a.slice(0, 0, 27), v).slice(1, 1, 2));
  });
}

// A few rows times a matrix whose rows are contiguous (m <= 8: gemm_few, in groups of up to 4 rows,
// B read where it lies) give the bits of the same rows of a product taller than that (the tiles):
// depths past one block and not a multiple of 4, columns past one pass over the accumulators and
// not a multiple of a vector.
TEST(Gemm, FewRowsGiveTheBitsOfTheTiles) {
  for_each_kernel_set([](DType dt) {
    manual_seed(8);
    Tensor a = (rand({40, 701}, dt) - 0.5).eval(), b = (rand({701, 2100}, dt) - 0.5).eval();
    for (int64_t m : {2, 3, 4, 5, 7, 8})
      expect_same_bits(matmul(a.slice(0, 0, m), b), matmul(a, b).slice(0, 0, m));
    expect_same_bits(matmul(a.slice(0, 3, 9).slice(1, 0, 600), b.slice(0, 0, 600)),
                     matmul(a.slice(1, 0, 600), b.slice(0, 0, 600)).slice(0, 3, 9));
    // one or two rows times a transposed matrix (x @ W.T: W times each row, gemm_n1)
    Tensor w = (rand({333, 701}, dt) - 0.5).eval();
    for (int64_t m : {1, 2})
      expect_same_bits(matmul(a.slice(0, 5, 5 + m), w.T()), matmul(a, w.T()).slice(0, 5, 5 + m));
  });
}

// Products with at most 16 columns (12 with AVX2) run with C's rows in lanes (narrow: a classifier's
// last layer and its weights' gradient), and so do up to 16 rows times a matrix, as their transpose
// (x @ W.T from 2 rows, x @ W from 9): each gives the bits of the same columns or rows of a product
// too wide for that path (the tiles), for A row-major, transposed, sliced and broadcast, depths past
// one block, rows past whole pairs of lane blocks.
TEST(Gemm, NarrowProductsGiveTheBitsOfTheTiles) {
  for_each_kernel_set([](DType dt) {
    manual_seed(9);
    Tensor a = (rand({77, 600}, dt) - 0.5).eval(), b = (rand({600, 40}, dt) - 0.5).eval();
    Tensor at = (rand({600, 77}, dt) - 0.5).eval(), bt = (rand({40, 600}, dt) - 0.5).eval();
    const Tensor wide = matmul(a, b), wide_t = matmul(at.T(), b), wide_bt = matmul(a, bt.T());
    const Tensor sliced = a.slice(1, 0, 600, 2), wide_s = matmul(sliced, b.slice(0, 0, 300));
    for (int64_t n : {2, 4, 5, 9, 10, 13, 16}) {
      SCOPED_TRACE("n = " + std::to_string(n));
      expect_same_bits(matmul(a, b.slice(1, 0, n)), wide.slice(1, 0, n));
      expect_same_bits(matmul(at.T(), b.slice(1, 0, n)), wide_t.slice(1, 0, n));
      expect_same_bits(matmul(a, bt.slice(0, 0, n).T()), wide_bt.slice(1, 0, n));
      expect_same_bits(matmul(sliced, b.slice(0, 0, 300).slice(1, 0, n)), wide_s.slice(1, 0, n));
    }
    const Tensor row = a.slice(0, 3, 4);
    expect_same_bits(matmul(row.expand({40, 600}), b.slice(1, 0, 10)),
                     matmul(row.expand({40, 600}), b).slice(1, 0, 10));
    // a few rows: x @ W.T and x @ W as W^T x^T, x @ W x^T's rows in lanes
    Tensor x = (rand({40, 600}, dt) - 0.5).eval(), w = (rand({600, 333}, dt) - 0.5).eval();
    const Tensor wt = w.T().clone(), tall = matmul(x, w), tall_t = matmul(x, wt.T());
    for (int64_t m : {2, 3, 5, 9, 12, 16}) {
      SCOPED_TRACE("m = " + std::to_string(m));
      expect_same_bits(matmul(x.slice(0, 0, m), wt.T()), tall_t.slice(0, 0, m));
      expect_same_bits(matmul(x.slice(0, 0, m), w), tall.slice(0, 0, m));
    }
  });
}

// A Gram product (X^T X, X X^T: one matrix on both sides, one side transposed) computes the upper
// triangle and copies it below (gram_matmul): the bits of the full product, which a copy of X on
// one side computes, for one band or many, on one thread or split over the pool, batched, sliced.
TEST(Gemm, GramProductsGiveTheBitsOfTheFullProduct) {
  ResultCacheOff no_cache;
  for_each_kernel_set([](DType dt) {
    manual_seed(7);
    // (depths of at least 512 and 200 to 640 rows: kGramDepth, and a task per part where the pool
    // has 2 parts, as on CI's machines; more parts take the full product for the smaller ones)
    Tensor x = (rand({600, 200}, dt) - 0.5).eval(), y = (rand({300, 533}, dt) - 0.5).eval();
    Tensor z = (rand({2, 520, 300}, dt) - 0.5).eval(), w = (rand({512, 640}, dt) - 0.5).eval();
    expect_same_bits(matmul(x.T(), x), matmul(x.T(), x.clone()));
    expect_same_bits(matmul(y, y.T()), matmul(y, y.clone().T()));
    expect_same_bits(matmul(z.transpose(1, 2), z), matmul(z.transpose(1, 2), z.clone()));
    const Tensor s = y.slice(1, 5, 530);
    expect_same_bits(matmul(s, s.T()), matmul(s, s.clone().T()));
    expect_same_bits(matmul(w.T(), w), matmul(w.T(), w.clone()));  // split over the pool
  });
}

// Small products (one block of depth, at most two vectors of columns and 64 rows) run without
// packing, and a batch of them is split over the pool by whole matrices (gemm_small, own_matmul):
// each element is still the tiles' chain, so the same bits as the columns of a product too wide
// for that path, on every instruction set.
TEST(Gemm, SmallProductsGiveTheBitsOfTheTiles) {
  for_each_kernel_set([](DType dt) {
    manual_seed(6);
    Tensor a = (rand({64, 9, 12}, dt) - 0.5).eval(), b = (rand({64, 12, 70}, dt) - 0.5).eval();
    expect_same_bits(matmul(a, b.slice(2, 0, 10)), matmul(a, b).slice(2, 0, 10));
  });
}

// The JIT backend's matmuls are its GEMM kernels' also where it interprets the rest of a graph:
// without a compiler (the ctest entry Gemm.KernelsWithoutACompiler runs this test under
// CGRAD_CXX=/nonexistent/c++) and while its kernels compile (CGRAD_JIT_ASYNC). The interpreter
// backend keeps its reference loops, which accumulate in double and so round differently.
TEST(Gemm, TheJitBackendsMatmulsAreTheKernelsEvenWhereItInterprets) {
  ResultCacheOff no_cache;
  const auto jit = values_with("avx2", f32);
  const auto ref = with_backend("interpreter", [&] { return values_with("avx2", f32); });
  expect_near(jit, ref, 2e-5, "jit against the reference");
  EXPECT_FALSE(same_bits(jit, ref)) << "the reference loops ran, not the kernels";
  EXPECT_TRUE(same_bits(jit, values_with("auto", f32))) << "each instruction set, the same bits";
}
