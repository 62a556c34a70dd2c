// The thread pool: exact coverage, deterministic partition and reductions, exceptions, nested,
// tiny and concurrent calls, and a forked child.
#include "backends/cpu/thread_pool.h"

#include "jit_test_util.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace cgrad::testing_jit {
namespace {

using backends::cpu::Partition;
using backends::cpu::ThreadPool;

TEST(ThreadPool, PartitionIsStaticAndBalanced) {
  for (int threads : {1, 2, 3, 8})
    for (int64_t n : {0, 1, 2, 5, 7, 64, 1000, 100003})
      for (int64_t grain : {0, 1, 3, 64, 1 << 20}) {
        Partition p = backends::cpu::partition(n, grain, threads);
        const int64_t g = grain < 1 ? 1 : grain;
        EXPECT_EQ(p.chunks, n == 0 ? 0 : std::min<int64_t>(threads, (n + g - 1) / g));
        if (p.chunks == 0) continue;
        EXPECT_EQ(p.begin(0), 0);
        EXPECT_EQ(p.end(p.chunks - 1), n);
        for (int64_t c = 0; c < p.chunks; ++c) {
          int64_t size = p.end(c) - p.begin(c);
          EXPECT_TRUE(size == n / p.chunks || size == n / p.chunks + 1) << n << " " << c;
        }
      }
}

TEST(ThreadPool, CoversEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    for (int64_t n : {0, 1, 2, 3, 17, 1000, 100003}) {
      for (int64_t grain : {1, 16, 4096}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        pool.parallel_for(n, grain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << n << " " << i;
      }
    }
  }
}

TEST(ThreadPool, ChunksMatchThePartition) {
  ThreadPool pool(3);
  const int64_t n = 1001;
  Partition p = pool.partition(n, 10);
  std::vector<std::pair<int64_t, int64_t>> seen(static_cast<size_t>(p.chunks), {-1, -1});
  pool.parallel_chunks(n, 10, [&](int64_t c, int64_t b, int64_t e) {
    seen[static_cast<size_t>(c)] = {b, e};
  });
  for (int64_t c = 0; c < p.chunks; ++c)
    EXPECT_EQ(seen[static_cast<size_t>(c)], std::make_pair(p.begin(c), p.end(c)));
}

TEST(ThreadPool, ChunkOrderReductionIsBitwiseDeterministic) {
  ThreadPool pool(4);
  const int64_t n = 1 << 16;
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    x[static_cast<size_t>(i)] = 1.0f / static_cast<float>(1 + (i * 7919) % 1000);
  auto sum = [&] {
    Partition p = pool.partition(n, 1024);
    std::vector<float> partial(static_cast<size_t>(p.chunks), 0.0f);
    pool.parallel_chunks(n, 1024, [&](int64_t c, int64_t b, int64_t e) {
      float s = 0;
      for (int64_t i = b; i < e; ++i) s += x[static_cast<size_t>(i)];
      partial[static_cast<size_t>(c)] = s;
    });
    float total = 0;
    for (float v : partial) total += v;
    return total;
  };
  const float first = sum();
  for (int rep = 0; rep < 200; ++rep) {
    float again = sum();
    ASSERT_EQ(std::memcmp(&first, &again, sizeof(float)), 0) << rep;
  }
}

TEST(ThreadPool, ExceptionsReachTheCaller) {
  ThreadPool pool(4);
  // The lowest throwing chunk wins, whatever the timing; all chunks still ran.
  for (int rep = 0; rep < 20; ++rep) {
    std::atomic<int> ran{0};
    try {
      pool.parallel_chunks(400, 1, [&](int64_t c, int64_t, int64_t) {
        ++ran;
        if (c >= 1) throw std::runtime_error("chunk " + std::to_string(c));
      });
      FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "chunk 1");
    }
    EXPECT_EQ(ran.load(), 4);
  }
  // The pool is still usable afterwards.
  std::atomic<int64_t> total{0};
  pool.parallel_for(1000, 1, [&](int64_t b, int64_t e) { total += e - b; });
  EXPECT_EQ(total.load(), 1000);
}

TEST(ThreadPool, TinyRangesRunInlineOnTheCaller) {
  ThreadPool pool(4);
  const auto me = std::this_thread::get_id();
  bool inline_run = false;
  pool.parallel_for(
      1, 1, [&](int64_t b, int64_t e) { inline_run = std::this_thread::get_id() == me && b == 0 && e == 1; });
  EXPECT_TRUE(inline_run);
  inline_run = false;
  pool.parallel_for(100, 1000, [&](int64_t, int64_t) { inline_run = std::this_thread::get_id() == me; });
  EXPECT_TRUE(inline_run);
  int calls = 0;
  pool.parallel_for(0, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ThreadPool, NestedCallsRunInline) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> hits(64 * 64);
  pool.parallel_for(64, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      pool.parallel_for(64, 1, [&](int64_t b2, int64_t e2) {
        for (int64_t j = b2; j < e2; ++j) hits[static_cast<size_t>(i * 64 + j)]++;
      });
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(ThreadPool, ConcurrentCallersAndManySmallJobs) {
  ThreadPool pool(3);
  std::atomic<int64_t> total{0};
  auto hammer = [&] {
    for (int rep = 0; rep < 2000; ++rep)
      pool.parallel_for(rep % 7 + 1, 1, [&](int64_t b, int64_t e) { total += e - b; });
  };
  std::thread other(hammer);
  hammer();
  other.join();
  int64_t expect = 0;
  for (int rep = 0; rep < 2000; ++rep) expect += rep % 7 + 1;
  EXPECT_EQ(total.load(), 2 * expect);
}

TEST(ThreadPool, StdFunctionAndGlobalPool) {
  EXPECT_GE(backends::cpu::num_threads(), 1);
  std::atomic<int64_t> total{0};
  std::function<void(int64_t, int64_t)> fn = [&](int64_t b, int64_t e) { total += e - b; };
  backends::cpu::parallel_for(12345, 100, fn);
  EXPECT_EQ(total.load(), 12345);
}

TEST(ThreadPool, ForkedChildRunsInline) {
  ThreadPool pool(4);
  pool.parallel_for(100, 1, [](int64_t, int64_t) {});  // workers exist and have run
  int rc = run_in_child([&] {
    std::atomic<int64_t> total{0};
    pool.parallel_for(1000, 1, [&](int64_t b, int64_t e) { total += e - b; });
    return total.load() == 1000 ? 0 : 1;
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace
}  // namespace cgrad::testing_jit
