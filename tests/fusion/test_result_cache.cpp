// The result cache: a graph evaluated again on the same input buffers launches nothing; any
// write to an input, a new input or the bound makes it compute again.
#include "ir/node.h"
#include "oracle.h"
#include "runtime/result_cache.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace cgrad;

namespace {

// Sets CGRAD_RESULT_CACHE_BYTES for one test and empties the cache before and after.
struct CacheBytes {
  int64_t saved;
  explicit CacheBytes(int64_t bytes) : saved(core::env().result_cache_bytes) {
    core::env_mut().result_cache_bytes = bytes;
    runtime::result_cache().clear();
  }
  ~CacheBytes() {
    core::env_mut().result_cache_bytes = saved;
    runtime::result_cache().clear();
  }
};

Tensor step(const Tensor& a, const Tensor& b) { return exp(a) * b - sum(a); }

}  // namespace

TEST(ResultCache, SameGraphOnSameBuffersLaunchesNothing) {
  CacheBytes on(1 << 20);
  Tensor a = tensor(std::vector<float>{0, 1, 2}, {3}), b = tensor(std::vector<float>{1, 2, 3}, {3});
  auto first = step(a, b).to_vector<float>();
  reset_stats();
  Tensor again = step(a, b).eval();
  EXPECT_EQ(stats().kernels_launched, 0u);
  EXPECT_EQ(stats().result_cache_hits, 1u);
  EXPECT_EQ(again.to_vector<float>(), first);
  EXPECT_EQ(first, test::with_backend("interpreter", [&] { return step(a, b).to_vector<float>(); }));
}

TEST(ResultCache, AssignToAnInputInvalidates) {
  CacheBytes on(1 << 20);
  Tensor a = tensor(std::vector<float>{0, 1, 2}, {3}), b = tensor(std::vector<float>{1, 2, 3}, {3});
  step(a, b).eval();
  a.assign(a + 1.0);
  a.eval();
  reset_stats();
  auto v = step(a, b).to_vector<float>();
  EXPECT_EQ(stats().result_cache_hits, 0u);
  EXPECT_GT(stats().kernels_launched, 0u);
  EXPECT_EQ(v, test::with_backend("interpreter", [&] { return step(a, b).to_vector<float>(); }));
}

TEST(ResultCache, InPlaceWriteBumpsTheVersionAndInvalidates) {
  CacheBytes on(1 << 20);
  Tensor a = tensor(std::vector<float>{1, 2, 3}, {3});
  EXPECT_EQ((a * 2.0).to_vector<float>(), (std::vector<float>{2, 4, 6}));
  // A writer that changes a storage in place (what the C API or a device copy would do) bumps
  // its version; the cached result must not be returned.
  ir::Storage& s = *a.node()->value.storage;
  const float nine = 9;
  std::memcpy(static_cast<float*>(s.data) + 1, &nine, sizeof nine);
  ++s.version;
  reset_stats();
  EXPECT_EQ((a * 2.0).to_vector<float>(), (std::vector<float>{2, 18, 6}));
  EXPECT_EQ(stats().result_cache_hits, 0u);
}

TEST(ResultCache, OtherBuffersWithTheSameStructureCompute) {
  CacheBytes on(1 << 20);
  Tensor b = tensor(std::vector<float>{1, 2, 3}, {3});
  for (float v : {1.0f, 2.0f}) {
    Tensor a = full({3}, v).eval();
    reset_stats();
    EXPECT_EQ(step(a, b).to_vector<float>(),
              test::with_backend("interpreter", [&] { return step(a, b).to_vector<float>(); }));
    EXPECT_EQ(stats().result_cache_hits, 0u);
  }
}

TEST(ResultCache, ZeroBytesTurnsItOff) {
  CacheBytes off(0);
  Tensor a = tensor(std::vector<float>{1, 2}, {2});
  (a * 3.0).eval();
  reset_stats();
  (a * 3.0).eval();
  EXPECT_EQ(stats().result_cache_hits, 0u);
  EXPECT_EQ(stats().kernels_launched, 1u);
  EXPECT_EQ(runtime::result_cache().size(), 0u);
}

TEST(ResultCache, BoundedLeastRecentlyUsedByBytes) {
  const int64_t n = 1024;  // 4 KiB of f32 per result
  CacheBytes two(2 * n * 4);
  Tensor x = arange(n).eval(), y = (arange(n) * 2.0).eval(), z = (arange(n) * 3.0).eval();
  for (Tensor* t : {&x, &y, &z}) (*t + 1.0).eval();  // x's result is the least recently used: out
  EXPECT_LE(runtime::result_cache().bytes(), static_cast<std::size_t>(2 * n * 4));
  reset_stats();
  (z + 1.0).eval();
  (y + 1.0).eval();
  EXPECT_EQ(stats().result_cache_hits, 2u);
  auto v = (x + 1.0).to_vector<float>();
  EXPECT_EQ(stats().result_cache_hits, 2u) << "x's entry was evicted";
  EXPECT_EQ(v[10], 11.0f);
  CacheBytes tiny(64);  // a result larger than the whole bound is not cached
  (x * 5.0).eval();
  EXPECT_EQ(runtime::result_cache().size(), 0u);
}

TEST(ResultCache, EntriesOfDeadInputsAreDropped) {
  CacheBytes on(64 << 20);
  Tensor x = tensor(std::vector<float>(256, 1.0f), {256});
  for (int i = 0; i < 50; ++i) {
    x.assign(x * 0.5 + 1.0);
    x.eval();
  }
  EXPECT_LE(runtime::result_cache().size(), 2u)
      << "each step's input storage is gone: its entry can never match";
  EXPECT_NEAR(x.to_vector<float>()[0], 2.0f, 1e-5f);
}

// Issue 17 item 6: `x.assign(f(x))` with no eval, realized by the pending-depth rule. Each
// realization's entry reads the state the previous entry holds as its value: only the cache
// holds it, so the chain must not be kept. Before, one entry (and one dead state) per
// realization stayed until the byte bound.
TEST(ResultCache, LazyAssignLoopKeepsNoDeadStates) {
  CacheBytes on(64 << 20);
  auto& e = core::env_mut();
  const int64_t saved_depth = e.max_pending_depth;
  e.max_pending_depth = 16;
  constexpr int64_t kN = 1024;
  const uint64_t before = stats().bytes_in_use;
  {
    // Live entries at the old end of the LRU list, more than the tail sweep looks at.
    std::vector<Tensor> keep;
    for (int i = 0; i < 12; ++i) keep.push_back(full({4}, static_cast<double>(i), f32).eval());
    Tensor x = ones({kN}, f32).eval();
    Tensor held = (x * 3.0).eval();
    const auto realizes0 = stats().auto_realizes;
    for (int i = 0; i < 4000; ++i) x.assign(x * 0.5 + 1);
    EXPECT_GE(stats().auto_realizes - realizes0, 200u) << "the pending-depth rule realized the loop";
    EXPECT_LE(runtime::result_cache().size(), keep.size() + 4);
    EXPECT_LE(runtime::result_cache().bytes(), keep.size() * 4 * 4 + 4u * kN * 4);
    EXPECT_LE(stats().bytes_in_use - before, 8u * kN * 4) << "no dead states kept alive";
    reset_stats();
    EXPECT_EQ((x * 1.0).eval().to_vector<float>(), std::vector<float>(kN, 2.0f));
    (held * 1.0).eval();
    reset_stats();
    (held * 1.0).eval();
    EXPECT_EQ(stats().result_cache_hits, 1u) << "live entries are still found";
  }
  e.max_pending_depth = saved_depth;
}

// Found by the gpu suites (one process for a whole suite): entries whose inputs stay alive at
// the old end of the list hid the loop's dead entries from a sweep of the old end only, and the
// cache (so bytes_in_use) grew by one entry per step until its byte bound.
TEST(ResultCache, LoopsStayAtOneEntryBehindLiveOlderEntries) {
  CacheBytes on(64 << 20);
  std::vector<Tensor> kept;  // older entries whose inputs are alive: never dead
  for (int i = 0; i < 20; ++i) {
    kept.push_back(tensor(std::vector<float>(8, static_cast<float>(i)), {8}));
    (kept.back() * 2.0).eval();
  }
  const std::size_t before = runtime::result_cache().size();
  Tensor x = tensor(std::vector<float>(256, 1.0f), {256});
  for (int i = 0; i < 50; ++i) {
    Tensor next = (x * 0.5 + 1.0).eval();  // x is held during the run: cached, not taken over
    x = next;
  }
  EXPECT_LE(runtime::result_cache().size(), before + 2)
      << "each step's input storage is gone: its entry can never match";
  Tensor w = tensor(std::vector<float>(64, 1.0f), {64});
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ((w * 3.0).to_vector<float>()[0], 3.0f * static_cast<float>(i + 1));
    ir::Storage& st = *w.node()->value.storage;  // written in place: the old version never matches
    const float next = static_cast<float>(i + 2);
    std::memcpy(st.data, &next, sizeof next);
    ++st.version;
  }
  EXPECT_LE(runtime::result_cache().size(), before + 4);
  EXPECT_NEAR(x.to_vector<float>()[0], 2.0f, 1e-5f);
}

TEST(ResultCache, CompiledFunctionOnTheSameInputs) {
  CacheBytes on(1 << 20);
  auto f = compile([](const Tensor& a, const Tensor& b) { return step(a, b); });
  Tensor a = tensor(std::vector<float>{0, 1, 2}, {3}), b = tensor(std::vector<float>{1, 2, 3}, {3});
  Tensor r1 = f(a, b);
  Tensor c = tensor(std::vector<float>{5, 5, 5}, {3});
  Tensor r2 = f(a, c);  // replayed: computes
  reset_stats();
  Tensor r3 = f(a, c);
  EXPECT_EQ(stats().kernels_launched, 0u);
  EXPECT_EQ(stats().result_cache_hits, 1u);
  EXPECT_EQ(r3.to_vector<float>(), r2.to_vector<float>());
  EXPECT_EQ(r1.to_vector<float>(),
            test::with_backend("interpreter", [&] { return step(a, b).to_vector<float>(); }));
}
