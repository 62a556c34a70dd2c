// KernelCache: memory hits, disk hits, several processes on one cache, corrupt entries, compile
// errors, the async try_get and a clean process exit while a background compile runs.
#include "jit_test_util.h"

#include "core/env.hpp"
#include "runtime/kernel_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <cgrad/core.hpp>

namespace cgrad::testing_jit {
namespace {

using runtime::KernelCache;
namespace fs = std::filesystem;

const std::string kTool = "test-toolchain";  // the tests' toolchain key

struct Delta {  // stats counted since construction
  Stats s0 = stats();
  uint64_t compiled() const { return stats().kernels_compiled - s0.kernels_compiled; }
  uint64_t mem_hits() const { return stats().kernel_cache_hits - s0.kernel_cache_hits; }
  uint64_t disk_hits() const { return stats().disk_cache_hits - s0.disk_cache_hits; }
};

std::string read_bytes(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
// Replaces a file by rename (never rewrites a file another mapping may use).
void replace_file(const std::string& p, const std::string& bytes) {
  std::string tmp = p + ".forge";
  std::ofstream(tmp, std::ios::binary) << bytes;
  fs::rename(tmp, p);
}
// Files of one shard directory, by extension.
int count_files(const std::string& dir, const std::string& needle) {
  int n = 0;
  for (auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(needle) != std::string::npos) ++n;
  return n;
}
// Builds `source` into `dir` in a child process, so this process never maps that file.
void build_in_child(const std::string& dir, const std::string& source, const std::string& symbol) {
  ASSERT_EQ(run_in_child([&] {
              KernelCache c(dir);
              return c.get(source, symbol, kTool, test_compile_fn()) ? 0 : 1;
            }),
            0);
}

TEST(KernelCache, KeyIsContentAddressed) {
  EXPECT_EQ(runtime::content_hash(""), "6c62272e07bb014262b821756295c58d");  // FNV-1a 128 offset basis
  EXPECT_EQ(runtime::content_hash("a"), "d228cb696f1a8caf78912b704e4a8964");
  EXPECT_EQ(KernelCache::key("src", "tool"), KernelCache::key("src", "tool"));
  EXPECT_NE(KernelCache::key("src", "tool"), KernelCache::key("src", "tool2"));
  EXPECT_NE(KernelCache::key("ab", "c"), KernelCache::key("b", "ca"));  // no ambiguous concatenation
  EXPECT_EQ(KernelCache::key("src", "tool").size(), 32u);
}

TEST(KernelCache, CompilesOnceThenMemoryHits) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  KernelCache cache(tmp.path);
  Delta d;
  const std::string src = kernel_source("k_mem", 5);
  auto f = reinterpret_cast<KernelFn>(cache.get(src, "k_mem", kTool, test_compile_fn()));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f(2, 3), 11);
  EXPECT_EQ(d.compiled(), 1u);
  EXPECT_EQ(d.mem_hits(), 0u);
  EXPECT_EQ(cache.get(src, "k_mem", kTool, test_compile_fn()), reinterpret_cast<void*>(f));
  EXPECT_EQ(d.compiled(), 1u);
  EXPECT_EQ(d.mem_hits(), 1u);
  EXPECT_EQ(d.disk_hits(), 0u);
  // Layout: <dir>/<key[0:2]>/<key>.so next to its source, no temp file left.
  const std::string key = KernelCache::key(src, kTool);
  EXPECT_EQ(cache.so_path(key), tmp.path + "/" + key.substr(0, 2) + "/" + key + ".so");
  EXPECT_TRUE(fs::exists(tmp.path + "/" + key.substr(0, 2) + "/" + key + ".cpp"));
  EXPECT_EQ(count_files(tmp.path + "/" + key.substr(0, 2), ".tmp."), 0);
  EXPECT_EQ(fs::status(tmp.path).permissions() & fs::perms::others_all, fs::perms::none);
}

TEST(KernelCache, ConcurrentRequestsShareOneCompile) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  KernelCache cache(tmp.path);
  Delta d;
  const std::string src = kernel_source("k_conc", 9);
  std::vector<std::thread> ts;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&] {
      auto f = reinterpret_cast<KernelFn>(cache.get(src, "k_conc", kTool, test_compile_fn()));
      if (f && f(1, 1) == 10) ++ok;
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(ok.load(), 4);
  EXPECT_EQ(d.compiled(), 1u);
  EXPECT_EQ(d.mem_hits(), 3u);
}

TEST(KernelCache, DiskHitInAFreshCache) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const std::string src = kernel_source("k_disk", 7);
  build_in_child(tmp.path, src, "k_disk");
  KernelCache cache(tmp.path);  // "a new process": nothing in memory
  Delta d;
  auto f = reinterpret_cast<KernelFn>(cache.get(src, "k_disk", kTool, test_compile_fn()));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f(2, 2), 11);
  EXPECT_EQ(d.compiled(), 0u);
  EXPECT_EQ(d.disk_hits(), 1u);
  // A different toolchain key is a different kernel.
  cache.get(src, "k_disk", kTool + "-other", test_compile_fn());
  EXPECT_EQ(d.compiled(), 1u);
}

TEST(KernelCache, TwoProcessesCompilingTheSameKey) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const std::string src = kernel_source("k_race", 3);
  for (int round = 0; round < 2; ++round) {
    int gate[2];
    ASSERT_EQ(::pipe(gate), 0);
    std::vector<pid_t> kids;
    for (int i = 0; i < 2; ++i) {
      pid_t pid = ::fork();
      if (pid == 0) {
        ::close(gate[1]);
        char c;
        while (::read(gate[0], &c, 1) > 0) {
        }  // EOF: both children start together
        int rc = 1;
        try {
          KernelCache cache(tmp.path);
          auto f = reinterpret_cast<KernelFn>(cache.get(src, "k_race", kTool, test_compile_fn()));
          rc = (f && f(4, 5) == 23) ? 0 : 1;
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
  }
  const std::string key = KernelCache::key(src, kTool);
  const std::string shard = tmp.path + "/" + key.substr(0, 2);
  EXPECT_EQ(count_files(shard, ".so"), 1);
  EXPECT_EQ(count_files(shard, ".tmp."), 0);
  KernelCache cache(tmp.path);
  Delta d;
  ASSERT_NE(cache.get(src, "k_race", kTool, test_compile_fn()), nullptr);
  EXPECT_EQ(d.disk_hits(), 1u);  // the file left behind is valid
  EXPECT_EQ(d.compiled(), 0u);
}

// Each corruption is detected before dlopen maps anything, deleted and rebuilt (one compile).
void expect_rebuilt(const std::string& dir, const std::string& src, const std::string& symbol, long expect) {
  KernelCache cache(dir);
  Delta d;
  auto f = reinterpret_cast<KernelFn>(cache.get(src, symbol, kTool, test_compile_fn()));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f(1, 2), expect);
  EXPECT_EQ(d.disk_hits(), 0u);
  EXPECT_EQ(d.compiled(), 1u);
  // ... and the rebuilt entry is a valid disk hit for the next process.
  EXPECT_EQ(run_in_child([&] {
              KernelCache fresh(dir);
              Delta dd;
              return fresh.get(src, symbol, kTool, test_compile_fn()) && dd.disk_hits() == 1 ? 0 : 1;
            }),
            0);
}

TEST(KernelCache, TruncatedEntryIsRebuilt) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const std::string src = kernel_source("k_trunc", 1);
  build_in_child(tmp.path, src, "k_trunc");
  const std::string so = KernelCache(tmp.path).so_path(KernelCache::key(src, kTool));
  std::string bytes = read_bytes(so);
  ASSERT_GT(bytes.size(), 100u);
  ASSERT_EQ(::truncate(so.c_str(), static_cast<off_t>(bytes.size() / 2)), 0);
  expect_rebuilt(tmp.path, src, "k_trunc", 3);
}

TEST(KernelCache, GarbageEntryIsRebuilt) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const std::string src = kernel_source("k_garbage", 2);
  build_in_child(tmp.path, src, "k_garbage");
  const std::string so = KernelCache(tmp.path).so_path(KernelCache::key(src, kTool));
  std::string bytes = read_bytes(so);
  for (size_t i = 0; i < bytes.size(); i += 7) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  replace_file(so, bytes);
  expect_rebuilt(tmp.path, src, "k_garbage", 4);
}

TEST(KernelCache, UnloadableEntryWithValidTrailerIsRebuilt) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const std::string src = kernel_source("k_forged", 3);
  const std::string key = KernelCache::key(src, kTool);
  KernelCache probe(tmp.path);
  fs::create_directories(tmp.path + "/" + key.substr(0, 2));
  const std::string payload = "this is not an ELF file";
  replace_file(probe.so_path(key),
               payload + runtime::cache_trailer(key, payload));  // checksum passes, dlopen fails
  expect_rebuilt(tmp.path, src, "k_forged", 5);
}

TEST(KernelCache, EntryOfAnotherKeyIsRebuilt) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const std::string a = kernel_source("k_swap", 10), b = kernel_source("k_swap", 20);
  build_in_child(tmp.path, a, "k_swap");
  build_in_child(tmp.path, b, "k_swap");
  KernelCache probe(tmp.path);
  replace_file(probe.so_path(KernelCache::key(a, kTool)),
               read_bytes(probe.so_path(KernelCache::key(b, kTool))));
  expect_rebuilt(tmp.path, a, "k_swap", 12);  // not 22: b's code is never loaded for a
}

TEST(KernelCache, CompileErrorIsReportedAndRemembered) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  KernelCache cache(tmp.path);
  const std::string src = "extern \"C\" int broken( { return 0; }\n";
  int calls = 0;
  runtime::CompileFn counting = [&](const std::string& s, const std::string& o) {
    ++calls;
    test_compile_fn()(s, o);
  };
  for (int i = 0; i < 2; ++i) {
    try {
      cache.get(src, "broken", kTool, counting);
      FAIL() << "expected CompileError";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::CompileError);
      EXPECT_NE(std::string(e.what()).find(".cpp"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(calls, 1);
}

TEST(KernelCache, TransientFailureIsRetried) {
  TempDir tmp;
  KernelCache cache(tmp.path);
  int calls = 0;
  runtime::CompileFn flaky = [&](const std::string&, const std::string&) {
    ++calls;
    throw Error(ErrorCode::Internal, "disk full");
  };
  EXPECT_THROW(cache.get("x", "x", kTool, flaky), Error);
  EXPECT_THROW(cache.get("x", "x", kTool, flaky), Error);
  EXPECT_EQ(calls, 2);
}

TEST(KernelCache, MissingSymbolIsACompileError) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  KernelCache cache(tmp.path);
  // Built with -fvisibility=hidden and no visibility attribute: not exported.
  const std::string src = "extern \"C\" long hidden_k(long a) { return a; }\n";
  try {
    cache.get(src, "hidden_k", kTool, test_compile_fn());
    FAIL() << "expected CompileError";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::CompileError);
    EXPECT_NE(std::string(e.what()).find("hidden_k"), std::string::npos);
  }
}

TEST(KernelCache, TryGetCompilesInTheBackground) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  KernelCache cache(tmp.path);
  Delta d;
  const std::string src = kernel_source("k_async", 4);
  EXPECT_EQ(cache.try_get(src, "k_async", kTool, test_compile_fn()), nullptr);  // at once
  void* p = nullptr;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!(p = cache.try_get(src, "k_async", kTool, test_compile_fn())) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<KernelFn>(p)(3, 3), 13);
  EXPECT_EQ(d.compiled(), 1u);  // one compile however often it was asked for
  EXPECT_EQ(cache.get(src, "k_async", kTool, test_compile_fn()), p);
  // On disk already: a fresh cache returns it from try_get at once.
  KernelCache fresh(tmp.path);
  EXPECT_NE(fresh.try_get(src, "k_async", kTool, test_compile_fn()), nullptr);
}

TEST(KernelCache, TryGetRethrowsABackgroundCompileError) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  KernelCache cache(tmp.path);
  const std::string src = "this is not C++\n";
  EXPECT_EQ(cache.try_get(src, "f", kTool, test_compile_fn()), nullptr);
  cache.wait_idle();
  try {
    cache.try_get(src, "f", kTool, test_compile_fn());
    FAIL() << "expected CompileError";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::CompileError);
  }
}

TEST(KernelCache, ProcessExitsCleanlyDuringBackgroundCompiles) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  // The process-wide cache (a static) with compiles running and queued, then exit(): the
  // destructor joins the running compile and drops the queued ones.
  int rc = run_in_child([&]() -> int {
    core::env_mut().cache_dir = tmp.path;
    for (int i = 0; i < 6; ++i)
      if (runtime::kernel_cache().try_get(kernel_source("k_exit", i), "k_exit", kTool, test_compile_fn()))
        return 3;
    std::exit(0);
  });
  EXPECT_EQ(rc, 0);
  // Same with a cache object that is destroyed while its compile runs.
  rc = run_in_child([&]() -> int {
    {
      KernelCache local(tmp.path + "/local");
      local.try_get(kernel_source("k_exit2", 1), "k_exit2", kTool, test_compile_fn());
    }
    std::exit(0);
  });
  EXPECT_EQ(rc, 0);
}

TEST(KernelCache, PrivateDirectories) {
  TempDir tmp;
  const std::string d = tmp.path + "/a/b/c";
  ASSERT_TRUE(runtime::make_private_dirs(d));
  EXPECT_EQ(fs::status(d).permissions() & (fs::perms::group_all | fs::perms::others_all), fs::perms::none);
  EXPECT_FALSE(runtime::make_private_dirs("/proc/cgrad-cannot-be-here"));
}

}  // namespace
}  // namespace cgrad::testing_jit
