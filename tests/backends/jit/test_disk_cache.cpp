// The disk side of the kernel cache when the disk misbehaves (issue 17, items 4, 5, 7): a damaged
// copy of cgrad/scalar.hpp heals, a cache that cannot be written (full, read-only) costs a warning
// and never an error, a read-only cache is still read, the compile timeout comes from
// CGRAD_COMPILE_TIMEOUT, the size bound evicts least recently used entries, also with several
// processes on one directory, and a first run's buffers are faulted in while its kernels compile.
//
// Write failures are injected (runtime::disk::inject_write_error) rather than produced with chmod
// or a small filesystem: tests may run as root, whom permission bits do not stop, and mounting a
// filesystem needs root. Where the test user is not root, the read-only test also uses chmod.
#include "jit_test_util.h"

#include "core/env.hpp"
#include "runtime/backend.h"
#include "runtime/disk_cache.h"
#include "runtime/kernel_cache.h"
#include "runtime/stats.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include <cgrad/cgrad.hpp>

extern char** environ;

namespace cgrad::testing_jit {
namespace {

using runtime::KernelCache;
using runtime::disk::Where;
namespace fs = std::filesystem;
namespace disk = runtime::disk;

const std::string kTool = "test-toolchain";

struct Delta {
  Stats s0 = stats();
  uint64_t compiled() const { return stats().kernels_compiled - s0.kernels_compiled; }
  uint64_t disk_hits() const { return stats().disk_cache_hits - s0.disk_cache_hits; }
};

// Clears the injected failures at scope exit, whatever the test does.
struct Injected {
  Injected(Where w, int err) { disk::inject_write_error(w, err); }
  ~Injected() {
    disk::inject_write_error(Where::Cache, 0);
    disk::inject_write_error(Where::Staging, 0);
  }
  Injected(const Injected&) = delete;
  Injected& operator=(const Injected&) = delete;
};

std::string read_bytes(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void write_bytes(const std::string& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

// Every regular file under `dir` (relative names), to show a directory was left untouched.
std::set<std::string> files_under(const std::string& dir) {
  std::set<std::string> out;
  for (auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string());
  return out;
}
int count_matching(const std::string& dir, const std::string& needle) {
  int n = 0;
  for (const auto& f : files_under(dir)) n += f.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

// A kernel that needs the embedded header: exp through cgrad::scalar.
std::string header_kernel(const std::string& name, int k) {
  return "#include \"cgrad/scalar.hpp\"\n"
         "extern \"C\" __attribute__((visibility(\"default\"))) double " +
         name + "(double x) { return cgrad::scalar::m_exp(x) + " + std::to_string(k) + "; }\n";
}
using HeaderFn = double (*)(double);

// The test compiler with the cache's header directory under `root`.
jit::Compiler compiler_with_header(const std::string& root) {
  jit::Compiler c = test_compiler();
  c.include_dir = jit::prepare_include_dir(c, root);
  c.flags.push_back("-I" + c.include_dir);
  return c;
}
std::string header_in(const jit::Compiler& c) { return c.include_dir + "/cgrad/scalar.hpp"; }

// ---- item 4: a damaged header heals ----------------------------------------------------------

TEST(JitHeader, DamagedHeaderIsRewritten) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const jit::Compiler c = compiler_with_header(tmp.path);
  ASSERT_FALSE(c.include_dir.empty());
  const std::string want(jit::scalar_header_text());
  const std::string hdr = header_in(c);
  ASSERT_EQ(read_bytes(hdr), want);
  KernelCache cache(tmp.path + "/kc");
  runtime::CompileFn fn = [&](const std::string& s, const std::string& o) { jit::compile(c, s, o); };
  std::string altered = want;
  altered[altered.size() / 2] = altered[altered.size() / 2] == ' ' ? '#' : ' ';  // same size, other bytes
  const std::vector<std::pair<std::string, std::string>> damage = {
      {"truncated to 0 bytes", ""}, {"half", want.substr(0, want.size() / 2)}, {"one byte altered", altered}};
  int k = 0;
  for (const auto& [what, bytes] : damage) {
    SCOPED_TRACE(what);
    ::truncate(hdr.c_str(), 0);  // in place, as a crash or a user would leave it
    write_bytes(hdr, bytes);
    ASSERT_NE(read_bytes(hdr), want);
    // A new kernel compiles (before the fix: CompileError, for every new kernel, in every process).
    auto f = reinterpret_cast<HeaderFn>(cache.get(header_kernel("h_heal", k), "h_heal", kTool, fn));
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f(0.0), 1.0 + k);
    EXPECT_EQ(read_bytes(hdr), want);
    ++k;
  }
  ::unlink(hdr.c_str());  // missing: rewritten too
  EXPECT_EQ(jit::prepare_include_dir(test_compiler(), tmp.path), c.include_dir);
  EXPECT_EQ(read_bytes(hdr), want);
  EXPECT_EQ(count_matching(c.include_dir, ".tmp."), 0);
}

TEST(JitHeader, SeveralProcessesHealOneHeader) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const jit::Compiler c = compiler_with_header(tmp.path);
  const std::string hdr = header_in(c);
  write_bytes(hdr, "#error damaged\n");
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  std::vector<pid_t> kids;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(gate[1]);
      char ch;
      while (::read(gate[0], &ch, 1) > 0) {
      }
      int rc = 1;
      try {
        const std::string dir = tmp.path + "/out" + std::to_string(i);
        fs::create_directories(dir);
        write_bytes(dir + "/k.cpp", header_kernel("h_many", i));
        jit::compile(c, dir + "/k.cpp", dir + "/k.so");  // heals, then includes the header
        rc = 0;
      } catch (...) {
        rc = 2;
      }
      ::_exit(rc);
    }
    kids.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);  // all start together
  for (pid_t k : kids) {
    int status = 0;
    ::waitpid(k, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  EXPECT_EQ(read_bytes(hdr), std::string(jit::scalar_header_text()));
  EXPECT_EQ(count_matching(c.include_dir, ".tmp."), 0);
}

TEST(JitHeader, DamagedHeaderInAnUnwritableCacheUsesASpareCopy) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp, out;
  const jit::Compiler c = compiler_with_header(tmp.path);
  const std::string hdr = header_in(c);
  write_bytes(hdr, "");
  Injected ro(Where::Cache, EROFS);
  write_bytes(out.path + "/k.cpp", header_kernel("h_spare", 3));
  jit::compile(c, out.path + "/k.cpp", out.path + "/k.so");
  EXPECT_EQ(read_bytes(hdr), "");  // the cache was not written
  EXPECT_TRUE(
      fs::exists(out.path + "/include/" + fs::path(c.include_dir).filename().string() + "/cgrad/scalar.hpp"));
}

// ---- item 5: a cache that cannot be written -------------------------------------------------

TEST(KernelCacheFull, UnwritableCacheBuildsInATempDirAndWarnsOnce) {
  CGRAD_REQUIRE_COMPILER();
  for (int err : {ENOSPC, EROFS, EACCES, EDQUOT}) {
    SCOPED_TRACE(std::strerror(err));
    TempDir tmp;
    KernelCache cache(tmp.path);
    Delta d;
    {
      Injected full(Where::Cache, err);
      ::testing::internal::CaptureStderr();
      for (int i = 0; i < 3; ++i) {  // three new kernels, one warning
        auto f = reinterpret_cast<KernelFn>(
            cache.get(kernel_source("k_full", i), "k_full", kTool, test_compile_fn()));
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f(2, 3), 6 + i);
      }
      const std::string log = ::testing::internal::GetCapturedStderr();
      const std::string needle = "cannot write the kernel cache";
      EXPECT_NE(log.find(needle), std::string::npos) << log;
      EXPECT_EQ(log.find(needle), log.rfind(needle)) << "warned more than once:\n" << log;
      EXPECT_EQ(d.compiled(), 3u);
      EXPECT_EQ(disk::usage(tmp.path).entries, 0u);
    }
    // Space again: nothing was remembered, the next new kernel is cached...
    const std::string src = kernel_source("k_full", 10);
    ASSERT_NE(cache.get(src, "k_full", kTool, test_compile_fn()), nullptr);
    EXPECT_TRUE(fs::exists(cache.so_path(KernelCache::key(src, kTool))));
    // ... and one built while the disk was full is compiled and cached by the next process.
    KernelCache fresh(tmp.path);
    Delta d2;
    auto f =
        reinterpret_cast<KernelFn>(fresh.get(kernel_source("k_full", 1), "k_full", kTool, test_compile_fn()));
    EXPECT_EQ(f(2, 3), 7);
    EXPECT_EQ(d2.compiled(), 1u);
    EXPECT_EQ(disk::usage(tmp.path).entries, 2u);
  }
}

TEST(KernelCacheFull, BackgroundCompileWithAFullCache) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  KernelCache cache(tmp.path);
  Injected full(Where::Cache, ENOSPC);
  ::testing::internal::CaptureStderr();
  const std::string src = kernel_source("k_full_async", 4);
  EXPECT_EQ(cache.try_get(src, "k_full_async", kTool, test_compile_fn()), nullptr);
  cache.wait_idle();
  void* p = cache.try_get(src, "k_full_async", kTool, test_compile_fn());
  ::testing::internal::GetCapturedStderr();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<KernelFn>(p)(5, 5), 29);
}

TEST(KernelCacheFull, NoRoomAnywhereIsAnErrorThatIsNotRemembered) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  KernelCache cache(tmp.path);
  int calls = 0;
  runtime::CompileFn counting = [&](const std::string& s, const std::string& o) {
    ++calls;
    test_compile_fn()(s, o);
  };
  const std::string src = kernel_source("k_nowhere", 6);
  {
    Injected full(Where::Cache, ENOSPC);
    disk::inject_write_error(Where::Staging, ENOSPC);
    ::testing::internal::CaptureStderr();
    for (int i = 0; i < 2; ++i) {
      try {
        cache.get(src, "k_nowhere", kTool, counting);
        FAIL() << "expected an error: nothing can be written";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::ExecutionFailed) << e.what();  // never Internal ("a bug in cgrad")
        EXPECT_NE(std::string(e.what()).find(std::strerror(ENOSPC)), std::string::npos) << e.what();
      }
    }
    ::testing::internal::GetCapturedStderr();
  }
  auto f = reinterpret_cast<KernelFn>(cache.get(src, "k_nowhere", kTool, counting));  // space again: works
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f(1, 1), 7);
  EXPECT_EQ(calls, 1);
}

TEST(KernelCacheFull, EvaluationWithAFullCacheIsCorrect) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  // A child: the process-wide cache and compiler are resolved there, on this directory.
  int rc = run_in_child([&]() -> int {
    core::env_mut().cache_dir = tmp.path;
    core::env_mut().backend = "jit";
    Injected full(Where::Cache, ENOSPC);
    ::testing::internal::CaptureStderr();
    Delta d;
    std::vector<float> xs = {0.5f, -1.25f, 3.0f, 7.5f};
    Tensor x = tensor(xs, {4});
    std::vector<float> got = (x * 3.0f + 0.171875f).to_vector<float>();
    std::string log = ::testing::internal::GetCapturedStderr();
    for (size_t i = 0; i < xs.size(); ++i)
      if (got[i] != xs[i] * 3.0f + 0.171875f) return 10;
    if (d.compiled() < 1) return 11;
    if (log.find("cannot write the kernel cache") == std::string::npos) return 12;
    // exit(), not _exit(): the process-wide cache's destructor removes its staging dir.
    std::exit(disk::usage(tmp.path).entries == 0 ? 0 : 13);
  });
  EXPECT_EQ(rc, 0);
}

// While a plan's kernels compile, the fresh buffers its first run takes are faulted in beside the
// compiler and reach the run through the pool (runtime::HostPrefault, docs/jit.md "First calls").
// A replayed plan and a background compile (CGRAD_JIT_ASYNC) fault nothing in ahead.
TEST(FirstRun, OutputsAreFaultedInWhileTheKernelsCompile) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  int rc = run_in_child([&]() -> int {
    core::env_mut().cache_dir = tmp.path;
    core::env_mut().backend = "jit";
    constexpr int64_t n = int64_t{1} << 20;  // 4 MiB of f32
    std::vector<float> av(n), bv(n), cv(n);
    for (int64_t i = 0; i < n; ++i) {  // a * b + c is exact: an FMA or not, the same bits
      av[static_cast<std::size_t>(i)] = static_cast<float>(i % 7) * 0.5f;
      bv[static_cast<std::size_t>(i)] = static_cast<float>(i % 5) - 2.0f;
      cv[static_cast<std::size_t>(i)] = static_cast<float>(i % 3);
    }
    auto inputs = [&] { return std::vector<Tensor>{tensor(av, {n}), tensor(bv, {n}), tensor(cv, {n})}; };
    auto expect = [&](const Tensor& y) {
      const std::vector<float> got = y.to_vector<float>();
      for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != av[i] * bv[i] + cv[i]) return false;
      return got.size() == static_cast<std::size_t>(n);
    };
    auto& k = runtime::counters();
    std::vector<Tensor> x = inputs();
    runtime::host_pool_trim();
    uint64_t f0 = k.bytes_prefaulted.load();
    Delta d;
    Tensor y = (x[0] * x[1] + x[2]).eval();
    if (d.compiled() != 1) return 10;
    if (k.bytes_prefaulted.load() - f0 != 4u << 20) return 11;
    if (runtime::host_pool_cached_bytes() != 0) return 12;  // the run took the faulted-in block
    if (!expect(y)) return 13;
    std::vector<Tensor> x2 = inputs();  // new leaves: the plan replays
    f0 = k.bytes_prefaulted.load();
    Tensor y2 = (x2[0] * x2[1] + x2[2]).eval();
    if (k.bytes_prefaulted.load() != f0 || !expect(y2)) return 14;
    core::env_mut().jit_async = true;  // a new kernel, compiled in the background: interpreted
    Tensor y3 = (x2[0] * x2[1] - x2[2]).eval();
    if (k.bytes_prefaulted.load() != f0) return 15;
    runtime::kernel_cache().wait_idle();
    std::exit(0);
  });
  EXPECT_EQ(rc, 0);
}

// ---- item 7a: a read-only cache is read -----------------------------------------------------

TEST(KernelCacheReadOnly, PopulatedReadOnlyCacheIsRead) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const std::string old_src = kernel_source("k_ro", 1);
  ASSERT_EQ(run_in_child([&] {
              KernelCache c(tmp.path);
              return c.get(old_src, "k_ro", kTool, test_compile_fn()) ? 0 : 1;
            }),
            0);
  const std::set<std::string> before = files_under(tmp.path);
  // Read-only for real where permission bits apply (not root); the hook as well, which is what
  // a read-only mount (EROFS) looks like to the code, so the test means the same as root.
  const bool chmodded = ::geteuid() != 0;
  if (chmodded)
    for (auto& e : fs::recursive_directory_iterator(tmp.path))
      fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::remove);
  if (chmodded) fs::permissions(tmp.path, fs::perms::owner_write, fs::perm_options::remove);
  {
    Injected ro(Where::Cache, EROFS);
    KernelCache cache(tmp.path);
    Delta d;
    ::testing::internal::CaptureStderr();
    auto f = reinterpret_cast<KernelFn>(cache.get(old_src, "k_ro", kTool, test_compile_fn()));
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f(3, 4), 13);
    EXPECT_EQ(d.disk_hits(), 1u);  // the hit is used, not recompiled into a temp dir
    EXPECT_EQ(d.compiled(), 0u);
    auto g =
        reinterpret_cast<KernelFn>(cache.get(kernel_source("k_ro", 2), "k_ro", kTool, test_compile_fn()));
    ASSERT_NE(g, nullptr);  // a new kernel: built elsewhere
    EXPECT_EQ(g(3, 4), 14);
    EXPECT_EQ(d.compiled(), 1u);
    ::testing::internal::GetCapturedStderr();
  }
  if (chmodded) {
    fs::permissions(tmp.path, fs::perms::owner_write, fs::perm_options::add);
    for (auto& e : fs::recursive_directory_iterator(tmp.path))
      fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  }
  EXPECT_EQ(files_under(tmp.path), before);  // nothing written, nothing deleted
}

TEST(KernelCacheReadOnly, ReadOnlyCacheDirIsKept) {
  // A CGRAD_CACHE_DIR that exists but cannot be written is still the cache (before: silently
  // replaced by a temp dir). As root, chmod does not make it unwritable, so this checks the
  // non-root case only where it can; the choice itself is the same code either way.
  TempDir tmp;
  const std::string dir = tmp.path + "/ro";
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  int rc = run_in_child([&] {
    core::env_mut().cache_dir = dir;
    return runtime::default_cache_dir() == dir ? 0 : 1;
  });
  fs::permissions(dir, fs::perms::owner_all);
  EXPECT_EQ(rc, 0);
}

// ---- prebuilt kernels (docs/jit.md, "Prebuilt kernels") ------------------------------------

// A cache with a prebuilt directory loads a kernel found there instead of compiling it, keeps its
// own directory untouched by the hit, never deletes or rewrites a prebuilt entry (a damaged one is
// passed over and the kernel compiled into the cache's own directory), and a miss in both compiles.
TEST(PrebuiltKernels, AHitLoadsADamagedEntryIsPassedOverAMissCompiles) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const std::string prebuilt = tmp.path + "/prebuilt", own = tmp.path + "/own";
  const std::string src1 = kernel_source("k_pre", 1), src2 = kernel_source("k_pre", 2);
  ASSERT_EQ(run_in_child([&] {
              KernelCache c(prebuilt);
              return c.get(src1, "k_pre", kTool, test_compile_fn()) &&
                             c.get(src2, "k_pre", kTool, test_compile_fn())
                         ? 0
                         : 1;
            }),
            0);
  // damage the second entry's payload (its trailer no longer matches)
  const std::string damaged = KernelCache(prebuilt).so_path(KernelCache::key(src2, kTool));
  std::string bytes = read_bytes(damaged);
  bytes[bytes.size() / 2] ^= 0x5a;
  write_bytes(damaged, bytes);
  const std::set<std::string> before = files_under(prebuilt);
  {
    KernelCache cache(own, prebuilt);
    Delta d;
    auto f = reinterpret_cast<KernelFn>(cache.get(src1, "k_pre", kTool, test_compile_fn()));
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f(3, 4), 13);
    EXPECT_EQ(d.disk_hits(), 1u);
    EXPECT_EQ(d.compiled(), 0u);
    EXPECT_EQ(count_matching(own, ".so"), 0) << "a prebuilt hit is loaded where it is";
    auto g = reinterpret_cast<KernelFn>(cache.get(src2, "k_pre", kTool, test_compile_fn()));
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g(3, 4), 14);
    EXPECT_EQ(d.compiled(), 1u) << "the damaged prebuilt entry is not loaded";
    auto h =
        reinterpret_cast<KernelFn>(cache.get(kernel_source("k_pre", 3), "k_pre", kTool, test_compile_fn()));
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h(3, 4), 15);
    EXPECT_EQ(d.compiled(), 2u);
    EXPECT_EQ(count_matching(own, ".so"), 2) << "what was compiled went into the cache's own directory";
  }
  EXPECT_EQ(files_under(prebuilt), before) << "nothing in the prebuilt directory written or deleted";
  EXPECT_EQ(read_bytes(damaged), bytes);
}

// CGRAD_PREBUILT_KERNELS names the directory, 0 turns it off, and without it the default is
// cgrad-kernels beside the binary that holds cgrad: the test program when cgrad is linked in
// statically (dev), libcgrad.so's directory when it is shared (asan-ubsan).
TEST(PrebuiltKernels, TheDirectoryComesFromTheEnvironmentOrBesideTheBinary) {
  EXPECT_EQ(run_in_child([] {
              core::env_mut().prebuilt_kernels = "/some/where";
              return runtime::default_prebuilt_dir() == "/some/where" ? 0 : 1;
            }),
            0);
  EXPECT_EQ(run_in_child([] {
              core::env_mut().prebuilt_kernels = "0";
              return runtime::default_prebuilt_dir().empty() ? 0 : 1;
            }),
            0);
  EXPECT_EQ(run_in_child([] {
              core::env_mut().prebuilt_kernels = "";
              const fs::path dir(runtime::default_prebuilt_dir());
              if (!dir.is_absolute() || dir.filename() != "cgrad-kernels") return 1;
              const fs::path exe = fs::read_symlink("/proc/self/exe");
              if (fs::equivalent(dir.parent_path(), exe.parent_path())) return 0;
              for (const auto& e : fs::directory_iterator(dir.parent_path()))
                if (e.path().filename().string().rfind("libcgrad", 0) == 0) return 0;
              return 2;
            }),
            0);
}

// ---- item 7b: CGRAD_COMPILE_TIMEOUT ---------------------------------------------------------

// Runs in a process started by CompileTimeout.FromTheEnvironment with the variables set; skipped
// when run on its own.
TEST(CompileTimeout, ChildProbe) {
  if (!std::getenv("CGRAD_TEST_TIMEOUT_CHILD"))
    GTEST_SKIP() << "runs only as CompileTimeout.FromTheEnvironment's child";
  EXPECT_EQ(core::env().compile_timeout_s, 1);
  EXPECT_EQ(jit::compile_timeout_ms(), 1000);
  ASSERT_TRUE(jit::compiler().available) << "the fake compiler answers --version";
  const std::string dir = std::getenv("CGRAD_TEST_TIMEOUT_CHILD");
  write_bytes(dir + "/k.cpp", "int x;\n");
  try {
    jit::compile_fn()(dir + "/k.cpp", dir + "/k.so");
    FAIL() << "expected a timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::CompileError);
    EXPECT_NE(std::string(e.what()).find("timed out after 1 s"), std::string::npos) << e.what();
  }
}

TEST(CompileTimeout, FromTheEnvironment) {
  TempDir tmp;
  const std::string fake = tmp.path + "/slow-cxx";
  // Answers the probes at once, then "compiles" for 30 s: a 1 s limit must cut it short.
  write_bytes(fake,
              "#!/bin/sh\ncase \"$1\" in --version) echo 'slow c++ 1.0'; exit 0;; -dumpmachine) echo test; "
              "exit 0;; esac\n"
              "sleep 30\n");
  ::chmod(fake.c_str(), 0755);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("CGRAD_COMPILE_TIMEOUT", "1", 1);
    ::setenv("CGRAD_CXX", fake.c_str(), 1);
    ::setenv("CGRAD_CACHE_DIR", (tmp.path + "/cache").c_str(), 1);
    ::setenv("CGRAD_TEST_TIMEOUT_CHILD", tmp.path.c_str(), 1);
    const char* argv[] = {"/proc/self/exe", "--gtest_filter=CompileTimeout.ChildProbe", nullptr};
    ::execve("/proc/self/exe", const_cast<char**>(argv), environ);
    ::_exit(97);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  // 0 means no limit.
  const int64_t saved = core::env().compile_timeout_s;
  core::env_mut().compile_timeout_s = 0;
  EXPECT_EQ(jit::compile_timeout_ms(), INT_MAX);
  core::env_mut().compile_timeout_s = saved;
}

}  // namespace
}  // namespace cgrad::testing_jit
