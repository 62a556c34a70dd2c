// The reference interpreter driven directly: movement ops are views (no kernel, same storage,
// strides and offsets as NumPy computes them), a reshape that no strides can express copies (and
// contiguous_copy itself against a reference loop), constants take one element, and
// Interpreter::run launches one kernel per computing node and realizes exactly the requested
// outputs. The sorting networks of short rows: each build against std::sort.
#include "backends/cpu/interpreter.h"
#include "backends/cpu/sort_keys.h"
#include "backends/cpu/sort_network.h"
#include "core/dtype.hpp"
#include "core/strided.hpp"
#include "ir/graph.h"
#include "ir/node.h"
#include "runtime/backend.h"
#include "runtime/stats.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <unordered_map>

namespace {

using namespace cgrad;
using ir::NodePtr;
using ir::Op;
using ir::View;

NodePtr leaf(std::vector<float> v, Shape s) { return tensor(std::move(v), std::move(s)).node(); }
NodePtr node(Op op, std::vector<NodePtr> ins, ir::Attrs a = {}) {
  return ir::make_node(op, std::move(ins), a, Device::cpu());
}

// Interprets one node whose inputs are realized.
View run_node(const NodePtr& n, bool* launched) {
  std::vector<const View*> ins;
  for (auto& in : n->inputs) ins.push_back(&in->value);
  return backends::cpu::interpret_node(*n, ins, launched);
}

// The elements of a float view, row-major over `shape`.
std::vector<float> read(const View& v, const Shape& shape) {
  std::vector<float> out;
  const auto* p = static_cast<const float*>(v.storage->data);
  const int64_t n = core::numel(shape);
  for (int64_t k = 0; k < n; ++k) {
    int64_t rem = k, off = v.offset;
    for (std::size_t d = shape.size(); d-- > 0;) {
      off += (rem % shape[d]) * v.strides[d];
      rem /= shape[d];
    }
    out.push_back(p[off]);
  }
  return out;
}

const std::vector<float> k12 = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

TEST(Interpreter, MovementOpsAreViews) {
  NodePtr x = leaf(k12, {3, 4});
  bool launched = true;

  ir::Attrs p;
  p.axes = {1, 0};
  NodePtr t = node(Op::Permute, {x}, p);
  View vt = run_node(t, &launched);
  EXPECT_FALSE(launched);
  EXPECT_EQ(vt.storage, x->value.storage);
  EXPECT_EQ(vt.strides, (core::Strides{1, 4}));
  EXPECT_EQ(read(vt, t->shape), (std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));

  ir::Attrs s;
  s.axis = 1;
  s.start = 1;
  s.stop = 4;
  s.step = 2;
  NodePtr sl = node(Op::Slice, {x}, s);
  View vs = run_node(sl, &launched);
  EXPECT_FALSE(launched);
  EXPECT_EQ(vs.storage, x->value.storage);
  EXPECT_EQ(vs.offset, 1);
  EXPECT_EQ(vs.strides, (core::Strides{4, 2}));
  EXPECT_EQ(read(vs, sl->shape), (std::vector<float>{1, 3, 5, 7, 9, 11}));

  ir::Attrs r;
  r.shape = {1, 12};
  NodePtr row = node(Op::Reshape, {x}, r);
  View vr = run_node(row, &launched);
  EXPECT_FALSE(launched);
  EXPECT_EQ(vr.storage, x->value.storage);
  EXPECT_EQ(read(vr, row->shape), k12);

  ir::Attrs e;
  e.shape = {2, 3, 4};
  ir::Attrs r3;
  r3.shape = {1, 3, 4};
  NodePtr x3 = node(Op::Reshape, {x}, r3);
  x3->value = run_node(x3, &launched);  // realize by hand to use it as an input
  x3->inputs.clear();
  NodePtr ex = node(Op::Expand, {x3}, e);
  View ve = run_node(ex, &launched);
  EXPECT_FALSE(launched);
  EXPECT_EQ(ve.storage, x->value.storage);
  EXPECT_EQ(ve.strides[0], 0);
  std::vector<float> twice = k12;
  twice.insert(twice.end(), k12.begin(), k12.end());
  EXPECT_EQ(read(ve, ex->shape), twice);

  // An empty slice keeps a valid offset.
  s.start = s.stop = 4;
  s.step = 1;
  NodePtr none = node(Op::Slice, {x}, s);
  View vn = run_node(none, &launched);
  EXPECT_FALSE(launched);
  EXPECT_EQ(none->shape, (Shape{3, 0}));
  EXPECT_LE(vn.offset, 11);
}

TEST(Interpreter, ReshapeCopiesOnlyWhenStridesCannotExpressIt) {
  bool launched = false;
  // (4, 3) transposed to (3, 4), then flattened: no strides express it -> a contiguous copy.
  NodePtr x = leaf(k12, {4, 3});
  ir::Attrs p;
  p.axes = {1, 0};
  NodePtr t = node(Op::Permute, {x}, p);
  t->value = run_node(t, &launched);
  t->inputs.clear();
  ir::Attrs flat;
  flat.shape = {12};
  NodePtr f = node(Op::Reshape, {t}, flat);
  View vf = run_node(f, &launched);
  EXPECT_TRUE(launched);
  EXPECT_NE(vf.storage, x->value.storage);
  EXPECT_EQ(vf.strides, core::Strides{1});
  EXPECT_EQ(read(vf, f->shape), (std::vector<float>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  // Splitting a dim of the transposed view is still a view.
  ir::Attrs split;
  split.shape = {3, 2, 2};
  NodePtr sp = node(Op::Reshape, {t}, split);
  View vsp = run_node(sp, &launched);
  EXPECT_FALSE(launched);
  EXPECT_EQ(vsp.storage, x->value.storage);
  EXPECT_EQ(read(vsp, sp->shape), (std::vector<float>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  // Merging dims across a size-1 dim with an odd stride is a view as well.
  NodePtr y = leaf(k12, {12});
  ir::Attrs r;
  r.shape = {3, 1, 4};
  NodePtr y3 = node(Op::Reshape, {y}, r);
  y3->value = run_node(y3, &launched);
  y3->value.strides[1] = 77;  // a size-1 dim's stride is irrelevant
  y3->inputs.clear();
  NodePtr back = node(Op::Reshape, {y3}, flat);
  View vb = run_node(back, &launched);
  EXPECT_FALSE(launched);
  EXPECT_EQ(read(vb, back->shape), k12);
}

TEST(Interpreter, ConstantsTakeOneElement) {
  ir::Attrs a;
  a.shape = {1000, 1000};
  a.dtype = f64;
  a.fvalue = 2.5;
  NodePtr c = node(Op::Full, {}, a);
  bool launched = false;
  View v = backends::cpu::interpret_node(*c, {}, &launched);
  EXPECT_TRUE(launched);
  EXPECT_GE(v.storage->nbytes, sizeof(double));
  EXPECT_LT(v.storage->nbytes, 1000u);
  EXPECT_EQ(v.strides, (core::Strides{0, 0}));
  EXPECT_EQ(*static_cast<const double*>(v.storage->data), 2.5);
}

// A subgraph of the unrealized nodes behind `roots`, as realize() builds it.
ir::Subgraph subgraph(const std::vector<NodePtr>& roots) {
  ir::Subgraph g;
  std::vector<ir::Node*> raw;
  for (auto& r : roots) raw.push_back(r.get());
  g.order = ir::topo_order(raw, true);
  std::unordered_map<const ir::Node*, int32_t> pos;
  for (std::size_t i = 0; i < g.order.size(); ++i) pos[g.order[i]] = static_cast<int32_t>(i);
  g.is_output.assign(g.order.size(), 0);
  g.uses.assign(g.order.size(), 0);
  for (auto* r : raw) g.is_output[static_cast<std::size_t>(pos[r])] = 1;
  g.in_pos.resize(g.order.size());
  for (std::size_t i = 0; i < g.order.size(); ++i)
    for (auto& in : g.order[i]->inputs) {
      auto it = pos.find(in.get());
      int32_t p = it == pos.end() ? -1 : it->second;
      g.in_pos[i].push_back(p);
      if (p >= 0) ++g.uses[static_cast<std::size_t>(p)];
    }
  return g;
}

TEST(Interpreter, RunLaunchesOneKernelPerComputingNode) {
  NodePtr x = leaf(k12, {3, 4});
  ir::Attrs p;
  p.axes = {1, 0};
  NodePtr t = node(Op::Permute, {x}, p);  // view: no kernel
  NodePtr e = node(Op::Exp, {t});         // kernel
  ir::Attrs c;
  c.shape = {4, 3};
  c.dtype = f32;
  c.fvalue = 1;
  NodePtr one = node(Op::Full, {}, c);  // kernel
  NodePtr s = node(Op::Add, {e, one});  // kernel
  ir::Attrs ax;
  ax.axes = {0};
  NodePtr r = node(Op::Sum, {s}, ax);  // kernel
  NodePtr m = node(Op::Mul, {s, s});   // kernel

  backends::cpu::Interpreter interp;
  ir::Subgraph g = subgraph({r, m});
  ASSERT_EQ(g.order.size(), 6u);  // x is realized: not part of it
  reset_stats();
  interp.run(g);
  EXPECT_EQ(stats().kernels_launched, 5u);
  EXPECT_TRUE(r->realized());
  EXPECT_TRUE(m->realized());
  EXPECT_TRUE(r->inputs.empty()) << "a realized node drops its inputs";
  EXPECT_FALSE(s->realized()) << "intermediates are not kept";
  EXPECT_FALSE(e->realized());
  EXPECT_EQ(r->shape, (Shape{1, 3}));
  auto sums = read(r->value, r->shape);
  for (int j = 0; j < 3; ++j) {
    double want = 0;
    for (int i = 0; i < 4; ++i) want += static_cast<double>(std::exp(static_cast<float>(j * 4 + i))) + 1.0;
    EXPECT_NEAR(sums[static_cast<std::size_t>(j)], want, want * 1e-6);
  }
  EXPECT_EQ(std::string(interp.name()), "interpreter");
}

TEST(Interpreter, AllocateCountsBytes) {
  backends::cpu::Interpreter interp;
  reset_stats();
  auto st = interp.allocate(1000);
  ASSERT_NE(st, nullptr);
  EXPECT_GE(st->nbytes, 1000u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(st->data) % 64, 0u) << "64-byte aligned";
  EXPECT_GE(stats().bytes_allocated, 1000u);
  auto empty = interp.allocate(0);
  EXPECT_NE(empty->data, nullptr);
}

// The dtype whose elements are `es` bytes (the copies move bytes: one dtype per size).
DType dtype_of_size(std::size_t es) {
  return es == 1   ? DType::u8
         : es == 2 ? DType::i16
         : es == 4 ? DType::f32
         : es == 8 ? DType::i64
                   : DType::c128;
}

// A source view of `shape`, `strides` and `offset` over a buffer big enough for every element it
// reaches, byte i holding i * 7 + 3.
View patterned_source(const Shape& shape, const core::Strides& strides, int64_t offset, std::size_t es) {
  int64_t hi = offset;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 0) hi += std::max<int64_t>(0, strides[d]) * (shape[d] - 1);
  View in;
  in.storage = runtime::allocate_host(static_cast<std::size_t>(hi + 1) * es);
  auto* bytes = static_cast<unsigned char*>(in.storage->data);
  for (std::size_t i = 0; i < static_cast<std::size_t>(hi + 1) * es; ++i)
    bytes[i] = static_cast<unsigned char>(i * 7 + 3);
  in.offset = offset;
  in.strides = strides;
  return in;
}

}  // namespace

// contiguous_copy (backends/cpu/interp_copy.cpp) against a reference loop: every element size
// (1, 2, 4, 8, 16 bytes), and layouts that take each of its paths: contiguous runs, broadcast dims
// (tile, repeat), transposes (tiled, or banded where input rows are 2 KiB-multiples apart), other strides,
// negative strides, dims of size 1 between others, merged dims, blocks split over the pool, and an empty
// shape.
TEST(ContiguousCopy, EveryLayoutAndElementSizeMatchesAReferenceLoop) {
  struct Layout {
    Shape shape;
    core::Strides strides;  // in elements of the source
    int64_t offset;
  };
  const std::vector<Layout> layouts = {
      {{1000}, {1}, 0},                          // contiguous
      {{3, 5000}, {0, 1}, 0},                    // tile
      {{5000, 3}, {1, 0}, 0},                    // repeat
      {{300, 257}, {1, 300}, 0},                 // transpose
      {{257, 300, 1}, {1, 257, 5}, 0},           // transpose, a size-1 dim last
      {{4, 1, 33, 70}, {70 * 33, 7, 70, 1}, 0},  // merges to one run
      {{6, 40, 50}, {2000, 1, 40}, 0},           // transposed blocks
      {{300, 37}, {1, 2048}, 0},                 // transpose, input rows 2 KiB-multiples apart: bands
      {{3, 200, 21}, {50000, 1, 2048}, 7},       // banded blocks, a partial last band
      {{100, 99}, {-99, -1}, 100 * 99 - 1},      // flipped both ways
      {{70, 80}, {160, 2}, 3},                   // every other element of every other row
      {{2, 3, 0, 4}, {0, 0, 0, 0}, 0},           // empty
      {{64, 1024}, {0, 0}, 5},                   // one element broadcast (blocks over the pool)
  };
  for (const std::size_t es : {1, 2, 4, 8, 16}) {
    const DType t = dtype_of_size(es);
    ASSERT_EQ(dtype_size(t), es);
    for (const Layout& l : layouts) {
      const View in = patterned_source(l.shape, l.strides, l.offset, es);
      const auto* bytes = static_cast<const unsigned char*>(in.storage->data);
      const View out = backends::cpu::contiguous_copy(in, l.shape, t);
      const auto* got = static_cast<const unsigned char*>(out.storage->data);
      int64_t k = 0;  // the reference: row-major over the shape
      core::for_each_strided<1>(l.shape, {l.strides.data()}, {l.offset}, [&](int64_t src) {
        ASSERT_EQ(std::memcmp(got + k * static_cast<int64_t>(es), bytes + src * static_cast<int64_t>(es), es),
                  0)
            << "element size " << es << ", shape " << shape_str(l.shape) << ", element " << k;
        ++k;
      });
      EXPECT_EQ(k, core::numel(l.shape));
    }
  }
}

// A part of a cat's output (interp_cat): every layout above copied into the elements [2, 2 + n)
// of each axis of a buffer 5 longer along that axis; the rest of the buffer stays as it was.
TEST(CopyView, IntoAPartOfALargerBufferMatchesAReferenceLoop) {
  const std::vector<std::pair<Shape, core::Strides>> layouts = {
      {{1000}, {1}},
      {{3, 5000}, {0, 1}},
      {{300, 257}, {1, 300}},
      {{257, 300, 1}, {1, 257, 5}},
      {{6, 40, 50}, {2000, 1, 40}},
      {{70, 80}, {160, 2}},
      {{64, 1024}, {0, 0}},
      {{1, 7}, {7, 1}},
  };
  for (const std::size_t es : {1, 2, 4, 8, 16}) {
    const DType t = dtype_of_size(es);
    for (const auto& layout : layouts) {
      const Shape& shape = layout.first;  // (not a structured binding: clang 14 cannot capture one)
      const core::Strides& strides = layout.second;
      const View in = patterned_source(shape, strides, 0, es);
      const auto* bytes = static_cast<const unsigned char*>(in.storage->data);
      for (std::size_t ax = 0; ax < shape.size(); ++ax) {
        Shape big = shape;
        big[ax] += 5;
        View out = backends::cpu::alloc_contiguous(big, t);
        auto* o = static_cast<unsigned char*>(out.storage->data);
        const auto total = static_cast<std::size_t>(core::numel(big)) * es;
        std::memset(o, 0xA5, total);
        View part = out;
        part.offset = 2 * out.strides[ax];
        backends::cpu::copy_view(in, shape, t, part);
        std::vector<bool> written(static_cast<std::size_t>(core::numel(big)), false);
        int64_t k = 0;  // the reference: the source row-major, the part's element by its strides
        core::for_each_strided<2>(
            shape, {strides.data(), out.strides.data()}, {0, part.offset}, [&](int64_t src, int64_t dst) {
              ASSERT_EQ(
                  std::memcmp(o + dst * static_cast<int64_t>(es), bytes + src * static_cast<int64_t>(es), es),
                  0)
                  << "element size " << es << ", shape " << shape_str(shape) << ", axis " << ax
                  << ", element " << k;
              written[static_cast<std::size_t>(dst)] = true;
              ++k;
            });
        for (std::size_t b = 0; b < total; ++b)
          if (!written[b / es]) {
            ASSERT_EQ(o[b], 0xA5) << "byte " << b << " outside the part was written";
          }
      }
    }
  }
}

// Sort networks (sort_network.h): every build the CPU runs sorts each of the kNetworkLanes rows of
// a block on its own, as std::sort does, for every network length; keys with many ties, each word
// made distinct by its position as interp_sort.cpp makes them.
TEST(SortNetwork, EveryBuildSortsEachLaneAsStdSort) {
  using cgrad::backends::cpu::kNetworkLanes;
  using Fn = void (*)(uint64_t*, std::size_t);
  std::vector<std::pair<const char*, Fn>> builds{{"baseline", cgrad::backends::cpu::bitonic_lanes_baseline},
                                                 {"best", cgrad::backends::cpu::bitonic_lanes}};
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    builds.push_back({"avx512", cgrad::backends::cpu::bitonic_lanes_avx512});
#endif
  std::mt19937_64 rng(5);
  for (std::size_t p : {1, 2, 4, 8, 16, 32})
    for (int rep = 0; rep < 20; ++rep) {
      std::vector<uint64_t> block(p * kNetworkLanes), want(block.size());
      for (std::size_t e = 0; e < p; ++e)
        for (std::size_t r = 0; r < kNetworkLanes; ++r)
          block[e * kNetworkLanes + r] = (rng() % (rep < 10 ? 4 : 1u << 31)) << 32 | e;
      for (std::size_t r = 0; r < kNetworkLanes; ++r) {
        std::vector<uint64_t> lane(p);
        for (std::size_t e = 0; e < p; ++e) lane[e] = block[e * kNetworkLanes + r];
        std::sort(lane.begin(), lane.end());
        for (std::size_t e = 0; e < p; ++e) want[e * kNetworkLanes + r] = lane[e];
      }
      for (const auto& [name, fn] : builds) {
        std::vector<uint64_t> got = block;
        fn(got.data(), p);
        EXPECT_EQ(got, want) << name << ", length " << p << ", case " << rep;
      }
    }
}

// sort_keys of arrays of every length up to 600, 60 random longer ones and one of 2^17, each in
// every shape fill(array, shape) makes, against std::sort (for floats, -0 == +0 as values).
template <class K, class Fill>
void expect_sorts_as_std_sort(std::mt19937_64& rng, int shapes, Fill fill) {
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 600; ++n) lengths.push_back(n);
  for (int i = 0; i < 60; ++i) lengths.push_back(600 + rng() % 40000);
  lengths.push_back(std::size_t{1} << 17);
  for (std::size_t n : lengths)
    for (int shape = 0; shape < shapes; ++shape) {
      std::vector<K> key(n);
      fill(key, shape);
      std::vector<K> want = key;
      std::sort(want.begin(), want.end());
      cgrad::backends::cpu::sort_keys(key.data(), n);
      ASSERT_EQ(key, want) << sizeof(K) * 8 << "-bit " << (std::is_floating_point_v<K> ? "floats" : "keys")
                           << ", length " << n << ", shape " << shape;
    }
}

// The quicksort of keys (sort_keys.h), where the CPU has AVX-512F, 32- and 64-bit, unsigned
// (keys) and signed (Sort's integer rows): std::sort's array for every length up to 600 and random
// longer ones, in shapes that test a quicksort's partitions and its register networks (ties, one
// key, two keys, sorted, reversed, organ pipe, the extremes, the largest of which is also the
// networks' padding, Argsort's key << 32 | position words), and for one row of 2^17 of each.
template <class K>
void expect_quicksort_sorts_as_std_sort() {
  std::mt19937_64 rng(11);
  const int kShapes = 9;
  const K top = std::numeric_limits<K>::max();
  auto fill = [&](std::vector<K>& a, int shape) {
    const std::size_t n = a.size();
    for (std::size_t i = 0; i < n; ++i) switch (shape) {
        case 0: a[i] = static_cast<K>(rng()); break;
        case 1: a[i] = static_cast<K>(rng() % 3); break;
        case 2: a[i] = static_cast<K>(i); break;
        case 3: a[i] = static_cast<K>(n - i); break;
        case 4: a[i] = 7; break;
        case 5: a[i] = (rng() & 1) ? top : std::numeric_limits<K>::min(); break;
        case 6: a[i] = static_cast<K>(i < n / 2 ? i : n - i) * 1000u; break;
        case 7: a[i] = static_cast<K>(top - rng() % 40); break;
        default: a[i] = static_cast<K>((rng() % 4) << (4 * sizeof(K)) | i); break;
      }
  };
  expect_sorts_as_std_sort<K>(rng, kShapes, fill);
}

// The quicksort of floats (Sort's ascending f32/f64 rows): std::sort's values at the same lengths,
// in shapes of floats: random, ties, sorted, reversed, one value, the infinities (+inf is also
// the networks' padding), -0 mixed with +0 (equal as values: their signs may mix, sort_keys.h),
// the largest finite values, subnormals.
template <class F>
void expect_float_quicksort_sorts_as_std_sort() {
  std::mt19937_64 rng(12);
  std::normal_distribution<F> normal;
  const int kShapes = 9;
  const F inf = std::numeric_limits<F>::infinity(), big = std::numeric_limits<F>::max(),
          tiny = std::numeric_limits<F>::denorm_min();
  auto fill = [&](std::vector<F>& a, int shape) {
    const std::size_t n = a.size();
    for (std::size_t i = 0; i < n; ++i) switch (shape) {
        case 0: a[i] = normal(rng); break;
        case 1: a[i] = static_cast<F>(static_cast<int>(rng() % 3) - 1); break;
        case 2: a[i] = static_cast<F>(i); break;
        case 3: a[i] = -static_cast<F>(i); break;
        case 4: a[i] = 7; break;
        case 5: a[i] = (rng() & 1) ? inf : -inf; break;
        case 6: a[i] = rng() % 3 == 0 ? F{-0.0} : rng() % 2 ? F{0} : normal(rng); break;
        case 7:
          a[i] = (rng() & 1 ? big : -big) *
                 (F{1} - static_cast<F>(rng() % 8) * std::numeric_limits<F>::epsilon());
          break;
        default: a[i] = tiny * static_cast<F>(static_cast<int>(rng() % 64) - 32); break;
      }
  };
  expect_sorts_as_std_sort<F>(rng, kShapes, fill);
}

TEST(SortKeys, TheQuicksortGivesStdSortsArray) {
  if (!cgrad::backends::cpu::have_sort_keys()) GTEST_SKIP() << "no AVX-512F on this CPU";
  expect_quicksort_sorts_as_std_sort<uint32_t>();
  expect_quicksort_sorts_as_std_sort<uint64_t>();
  expect_quicksort_sorts_as_std_sort<int32_t>();
  expect_quicksort_sorts_as_std_sort<int64_t>();
  expect_float_quicksort_sorts_as_std_sort<float>();
  expect_float_quicksort_sorts_as_std_sort<double>();
}
