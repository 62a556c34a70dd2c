// The disk cache's size bound (CGRAD_CACHE_BYTES, issue 17 item 7): least recently used entries
// go first, a disk hit counts as a use, the entry just written stays, 0 means unbounded, stale
// temp files are swept, and several processes filling one directory under a small bound all get
// correct kernels and leave it within the bound.
#include "jit_test_util.h"

#include "core/env.hpp"
#include "runtime/disk_cache.h"
#include "runtime/kernel_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include <cgrad/core.hpp>

namespace cgrad::testing_jit {
namespace {

using runtime::KernelCache;
namespace fs = std::filesystem;
namespace disk = runtime::disk;

const std::string kTool = "test-toolchain";

struct Bound {
  int64_t saved = core::env().cache_bytes;
  explicit Bound(int64_t b) { core::env_mut().cache_bytes = b; }
  ~Bound() { core::env_mut().cache_bytes = saved; }
  Bound(const Bound&) = delete;
  Bound& operator=(const Bound&) = delete;
};

std::string src_of(int i) { return kernel_source("k_lru", 100 + i); }
std::string so_of(const std::string& dir, int i) {
  return KernelCache(dir).so_path(KernelCache::key(src_of(i), kTool));
}
bool cached(const std::string& dir, int i) { return fs::exists(so_of(dir, i)); }

// Sets the last-use time of entry i to `seconds_ago` (both files), so LRU order does not hang on
// the clock's granularity.
void age(const std::string& dir, int i, int seconds_ago) {
  const std::string so = so_of(dir, i);
  timespec t[2];
  ::clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= seconds_ago;
  t[1] = t[0];
  for (const std::string& p : {so, so.substr(0, so.size() - 3) + ".cpp"})
    ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), t, 0), 0);
}
int64_t mtime_of(const std::string& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mtim.tv_sec;
}

// One entry's size on disk (shared object with trailer + source), built in a scratch cache.
uint64_t entry_bytes() {
  TempDir tmp;
  Bound unbounded(0);
  KernelCache c(tmp.path);
  c.get(src_of(0), "k_lru", kTool, test_compile_fn());
  return disk::usage(tmp.path).bytes;
}

TEST(KernelCacheEviction, LeastRecentlyUsedGoFirst) {
  CGRAD_REQUIRE_COMPILER();
  const uint64_t s = entry_bytes();
  ASSERT_GT(s, 1000u);
  TempDir tmp;
  // Room for 2.5 entries: eviction brings the total to at most 90% of that, i.e. 2 entries.
  const uint64_t bound = s * 5 / 2;
  Bound b(static_cast<int64_t>(bound));
  KernelCache cache(tmp.path);
  std::vector<KernelFn> fns;
  for (int i = 0; i < 2; ++i)
    fns.push_back(reinterpret_cast<KernelFn>(cache.get(src_of(i), "k_lru", kTool, test_compile_fn())));
  age(tmp.path, 0, 300);
  age(tmp.path, 1, 200);
  // A stale temp file of a process that died mid-write is swept by the next scan; a young one
  // (another process writing right now) is left alone.
  const std::string shard = fs::path(so_of(tmp.path, 0)).parent_path().string();
  const std::string stale = shard + "/0123.so.tmp.1.2.3", young = shard + "/0123.so.tmp.4.5.6";
  std::ofstream(stale) << "x";
  std::ofstream(young) << "x";
  timespec old[2] = {{::time(nullptr) - 7200, 0}, {::time(nullptr) - 7200, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, stale.c_str(), old, 0), 0);

  // A disk hit on entry 0 (a fresh cache: nothing in memory) makes it the most recently used.
  {
    KernelCache other(tmp.path);
    Stats s0 = stats();
    ASSERT_NE(other.get(src_of(0), "k_lru", kTool, test_compile_fn()), nullptr);
    EXPECT_EQ(stats().disk_cache_hits - s0.disk_cache_hits, 1u);
  }
  EXPECT_GT(mtime_of(so_of(tmp.path, 0)), mtime_of(so_of(tmp.path, 1)));
  // Entry 2 passes the bound: entry 1, now the least recently used, goes.
  fns.push_back(reinterpret_cast<KernelFn>(cache.get(src_of(2), "k_lru", kTool, test_compile_fn())));
  EXPECT_TRUE(cached(tmp.path, 0));
  EXPECT_FALSE(cached(tmp.path, 1));
  EXPECT_TRUE(cached(tmp.path, 2));
  EXPECT_LE(disk::usage(tmp.path).bytes, bound);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(young));
  fs::remove(young);
  // Evicting a file this process has mapped is fine: the kernels still run.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(fns[static_cast<size_t>(i)](2, 2), 104 + i);
  // More kernels: the bound holds after each one, and the newest is always kept.
  for (int i = 3; i < 7; ++i) {
    ASSERT_NE(cache.get(src_of(i), "k_lru", kTool, test_compile_fn()), nullptr);
    EXPECT_TRUE(cached(tmp.path, i));
    EXPECT_LE(disk::usage(tmp.path).bytes, bound);
    EXPECT_EQ(disk::usage(tmp.path).entries, 2u);
  }
  // An evicted kernel is simply compiled again by the next process.
  KernelCache next(tmp.path);
  Stats s0 = stats();
  auto f = reinterpret_cast<KernelFn>(next.get(src_of(1), "k_lru", kTool, test_compile_fn()));
  EXPECT_EQ(f(3, 3), 110);
  EXPECT_EQ(stats().kernels_compiled - s0.kernels_compiled, 1u);
}

TEST(KernelCacheEviction, ZeroIsUnbounded) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  Bound b(0);
  KernelCache cache(tmp.path);
  for (int i = 0; i < 4; ++i)
    ASSERT_NE(cache.get(src_of(10 + i), "k_lru", kTool, test_compile_fn()), nullptr);
  EXPECT_EQ(disk::usage(tmp.path).entries, 4u);
  // The running total is still kept, so a bound set later starts from the truth.
  std::ifstream in(tmp.path + "/.usage");
  uint64_t recorded = 0;
  in >> recorded;
  EXPECT_EQ(recorded, disk::usage(tmp.path).bytes);
}

TEST(KernelCacheEviction, ConcurrentProcessesUnderASmallBound) {
  CGRAD_REQUIRE_COMPILER();
  const uint64_t s = entry_bytes();
  TempDir tmp;
  const uint64_t bound = s * 3;
  Bound b(static_cast<int64_t>(bound));  // inherited by the children
  constexpr int kProcs = 4, kEach = 5, kKernels = 8;
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(gate[1]);
      char ch;
      while (::read(gate[0], &ch, 1) > 0) {
      }
      int rc = 0;
      try {
        // Overlapping sets: processes race to build, load and evict the same keys.
        for (int j = 0; j < kEach && rc == 0; ++j) {
          const int i = 20 + (p * 3 + j) % kKernels;
          KernelCache mine(tmp.path);
          auto f = reinterpret_cast<KernelFn>(mine.get(src_of(i), "k_lru", kTool, test_compile_fn()));
          if (!f || f(2, 5) != 10 + 100 + i) rc = 3;
          // Again from a fresh cache: a disk hit, or a rebuild when another process evicted it.
          KernelCache again(tmp.path);
          auto g = reinterpret_cast<KernelFn>(again.get(src_of(i), "k_lru", kTool, test_compile_fn()));
          if (!g || g(1, 1) != 1 + 100 + i) rc = 4;
        }
      } catch (...) {
        rc = 2;
      }
      ::_exit(rc);
    }
    kids.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);
  for (pid_t k : kids) {
    int status = 0;
    ::waitpid(k, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  // Every publish is followed by a check under the exclusive lock, and the last one saw every
  // file: the directory ends within the bound, with no temp file left behind.
  const disk::Usage u = disk::usage(tmp.path);
  EXPECT_LE(u.bytes, bound);
  EXPECT_GE(u.entries, 1u);
  int temps = 0;
  for (auto& e : fs::recursive_directory_iterator(tmp.path))
    temps += e.path().filename().string().find(".tmp.") != std::string::npos ? 1 : 0;
  EXPECT_EQ(temps, 0);
}

}  // namespace
}  // namespace cgrad::testing_jit
