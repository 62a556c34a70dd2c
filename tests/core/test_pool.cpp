// core::PoolAllocator: blocks are reused on one thread, cross the threads that free them, and
// graphs built and freed on different threads keep their values. The runtime's host pool:
// huge-page alignment on request, blocks faulted in ahead of a first run (HostPrefault).
#include "core/env.hpp"
#include "core/pool.hpp"
#include "runtime/backend.h"

#include <cgrad/cgrad.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

using namespace cgrad;

namespace {
struct Block {
  double v[5];
};
}  // namespace

TEST(Pool, FreedBlocksAreReusedAndSizesRoundUp) {
  core::PoolAllocator<Block> alloc;
  EXPECT_EQ(core::PoolAllocator<Block>::kSize % 16, 0u);
  EXPECT_GE(core::PoolAllocator<Block>::kSize, sizeof(Block));
  Block* a = alloc.allocate(1);
  a->v[4] = 1.0;
  alloc.deallocate(a, 1);
  Block* b = alloc.allocate(1);
  if (core::pool_detail::kPooled) {
    EXPECT_EQ(a, b) << "the block just freed comes back first";
  }
  alloc.deallocate(b, 1);
  Block* many = alloc.allocate(3);  // arrays bypass the pool
  many[2].v[0] = 2.0;
  alloc.deallocate(many, 3);
}

TEST(Pool, SharedObjectsCrossThreads) {
  std::vector<std::shared_ptr<Block>> made;
  std::thread maker([&] {
    for (int i = 0; i < 1000; ++i) {
      made.push_back(std::allocate_shared<Block>(core::PoolAllocator<Block>{}));
      made.back()->v[0] = i;
    }
  });
  maker.join();  // the maker's free list is gone: these are freed into this thread's list
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(made[static_cast<std::size_t>(i)]->v[0], i);
  made.clear();
  std::thread freer([&] {
    std::vector<std::shared_ptr<Block>> mine;
    for (int i = 0; i < 100; ++i) mine.push_back(std::allocate_shared<Block>(core::PoolAllocator<Block>{}));
  });
  freer.join();
}

TEST(Pool, GraphsBuiltAndFreedOnDifferentThreadsKeepTheirValues) {
  Tensor a = arange(8, f64), b = full({8}, 2.0, f64);
  std::vector<Tensor> built(4);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      Tensor y = a;
      for (int k = 0; k < 50; ++k) y = y * 1.0 + b * static_cast<double>(t);
      built[static_cast<std::size_t>(t)] = y;
    });
  for (auto& t : ts) t.join();
  for (int t = 0; t < 4; ++t) {
    auto v = built[static_cast<std::size_t>(t)].to_vector<double>();
    for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(v[static_cast<std::size_t>(i)], i + 50.0 * 2.0 * t);
  }
  built.clear();  // freed here, built there
}

// CGRAD_HUGE_PAGES=1: host buffers of 4 MiB and more start on a 2 MiB boundary (the unit of a
// transparent huge page) and hold what is written to them; smaller ones are unchanged.
TEST(HostPool, LargeBuffersAreHugePageAlignedWhenAsked) {
  const bool saved = core::env().huge_pages;
  core::env_mut().huge_pages = true;
  runtime::host_pool_trim();  // fresh blocks, not cached ones
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  {
    auto big = runtime::allocate_host(5 * (std::size_t{1} << 20) + 3);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big->data) % kHuge, 0u);
    auto* bytes = static_cast<unsigned char*>(big->data);
    for (std::size_t i = 0; i < big->nbytes; i += 4096) bytes[i] = static_cast<unsigned char>(i >> 12);
    EXPECT_EQ(bytes[big->nbytes - 1 - (big->nbytes - 1) % 4096],
              static_cast<unsigned char>((big->nbytes - 1) >> 12));
    auto small = runtime::allocate_host(1 << 20);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small->data) % 64, 0u);
  }
  const int64_t n = int64_t{1} << 21;  // 8 MiB of f32
  Tensor x = arange(n) * 0.5f + 1.0f;
  const std::vector<float> v = x.to_vector<float>();
  core::env_mut().huge_pages = saved;
  runtime::host_pool_trim();
  const std::vector<float> w = (arange(n) * 0.5f + 1.0f).to_vector<float>();
  EXPECT_EQ(v, w);
  EXPECT_EQ(v[static_cast<std::size_t>(n - 1)], static_cast<float>(n - 1) * 0.5f + 1.0f);
}

// HostPrefault (runtime/backend.h): start() takes blocks of the sizes asked for, 1 MiB and more,
// and the destructor leaves them in the pool, touched or not; without start() nothing is taken;
// what exceeds half the pool's limit is left out. The pool then hands the blocks out as usual.
TEST(HostPool, PrefaultedBlocksWaitInThePool) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  runtime::host_pool_trim();
  { runtime::HostPrefault unused({8 * kMiB}); }
  EXPECT_EQ(runtime::host_pool_cached_bytes(), 0u) << "never started: nothing taken";
  {
    runtime::HostPrefault p({5 * kMiB + 3, kMiB / 2, 3 * kMiB});
    p.start();
    p.start();  // a second call does nothing
  }
  const std::size_t five = 5 * kMiB + 4096;  // rounded up to whole pages
  EXPECT_EQ(runtime::host_pool_cached_bytes(), five + 3 * kMiB) << "the 512 KiB block is left out";
  {
    auto big = runtime::allocate_host(5 * kMiB + 3);  // one of them comes back
    EXPECT_EQ(runtime::host_pool_cached_bytes(), 3 * kMiB);
    auto* bytes = static_cast<unsigned char*>(big->data);
    for (std::size_t i = 0; i < big->nbytes; i += 4096) bytes[i] = 7;
    EXPECT_EQ(bytes[4096], 7);
  }
  runtime::host_pool_trim();
  const auto limit = static_cast<std::size_t>(core::env().pool_bytes);
  {
    runtime::HostPrefault p({limit / 2 + kMiB, 2 * kMiB});
    p.start();
  }
  EXPECT_EQ(runtime::host_pool_cached_bytes(), 0u) << "past half the pool's limit: nothing after it";
}
