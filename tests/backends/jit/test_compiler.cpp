// The compiler driver: discovery, spawning without a shell, timeouts, compile errors, the
// embedded scalar header and the one-time no-compiler warning.
#include "jit_test_util.h"

#include "core/env.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <cgrad/cgrad.hpp>

namespace cgrad::testing_jit {
namespace {

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}
void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
// Writes `source` to dir/name.cpp, compiles it with `c` to dir/name.so and opens that (nullptr:
// dlerror() says why).
void* compile_and_open(const jit::Compiler& c, const std::string& dir, const std::string& name,
                       const std::string& source) {
  write(dir + "/" + name + ".cpp", source);
  jit::compile(c, dir + "/" + name + ".cpp", dir + "/" + name + ".so");
  return ::dlopen((dir + "/" + name + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
}
// The test compiler with the embedded scalar header prepared under `root` on its include path
// (include_dir empty when it could not be written).
jit::Compiler with_scalar_header(const std::string& root) {
  jit::Compiler c = test_compiler();
  c.include_dir = jit::prepare_include_dir(c, root);
  if (!c.include_dir.empty()) c.flags.push_back("-I" + c.include_dir);
  return c;
}

TEST(JitCompiler, MissingCompilerIsUnavailable) {
  EXPECT_FALSE(jit::detect_compiler("/nonexistent/bin/c++").available);
  EXPECT_FALSE(jit::detect_compiler("cgrad-no-such-compiler-on-path").available);
  // Runs but is no compiler: `--version` fails.
  EXPECT_FALSE(jit::detect_compiler("false").available);
}

TEST(JitCompiler, UnavailableCompilerNeverRuns) {
  jit::Compiler none = jit::detect_compiler("/nonexistent/bin/c++");
  try {
    jit::compile(none, "/nonexistent/k.cpp", "/nonexistent/k.so");
    FAIL() << "expected CompileError";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::CompileError);
  }
}

// cgrad::config() reports what the JIT resolved: its compiler, cache and prebuilt directories, threads.
TEST(JitCompiler, ConfigReportsWhatTheJitUses) {
  const Config c = config();
  const jit::Compiler& used = jit::compiler();
  EXPECT_EQ(c.compiler, used.available ? used.path : std::string());
  EXPECT_EQ(c.compiler_identity, used.identity);
  EXPECT_EQ(c.kernel_cache_dir, runtime::default_cache_dir());
  EXPECT_EQ(c.prebuilt_kernels_dir, runtime::default_prebuilt_dir());
  EXPECT_GE(c.threads, 1);
  EXPECT_TRUE(c.backend == "jit" || c.backend == "interpreter") << c.backend;
}

// The probe memo: a second detection of the same driver file starts no process and gives the same
// compiler; a driver rewritten in place, and a memo that is not whole, are probed again.
TEST(JitCompiler, ProbeMemoSkipsTheProbesOfAnUnchangedDriver) {
  TempDir tmp;
  const std::string fake = tmp.path + "/fake-cxx", calls = tmp.path + "/calls", memo = tmp.path + "/memo";
  auto make_fake = [&](const std::string& version) {
    write(fake, "#!/bin/sh\necho \"$1\" >> " + calls + "\ncase \"$1\" in --version) echo '" + version +
                    "'; echo 'Free Software Foundation';; -dumpmachine) echo test-target;; esac\n");
    ::chmod(fake.c_str(), 0755);
  };
  auto count_calls = [&] {
    std::ifstream in(calls);
    return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
  };
  make_fake("fake c++ 1.0");
  const jit::Compiler first = jit::detect_compiler(fake, memo);
  ASSERT_TRUE(first.available);
  EXPECT_EQ(first.identity, "fake c++ 1.0 / test-target");
  EXPECT_EQ(count_calls(), 2) << "--version and -dumpmachine";
  const jit::Compiler again = jit::detect_compiler(fake, memo);
  EXPECT_EQ(count_calls(), 2) << "the memo answers";
  EXPECT_EQ(again.identity, first.identity);
  EXPECT_EQ(again.flags, first.flags);
  EXPECT_EQ(jit::toolchain_key(again), jit::toolchain_key(first));
  EXPECT_EQ(jit::detect_compiler(fake).flags, first.flags)
      << "the same compiler as without a memo (GCC flags)";
  EXPECT_EQ(count_calls(), 4);

  // upgraded in place: another size (file times may not tick within a test: coarse clocks)
  make_fake("fake c++ 2.0.1");
  EXPECT_EQ(jit::detect_compiler(fake, memo).identity, "fake c++ 2.0.1 / test-target");
  EXPECT_EQ(count_calls(), 6);
  for (const auto& e : std::filesystem::directory_iterator(memo)) write(e.path(), "cgrad-probe 1\ntorn");
  EXPECT_EQ(jit::detect_compiler(fake, memo).identity, "fake c++ 2.0.1 / test-target");
  EXPECT_EQ(count_calls(), 8) << "a memo that is not whole is probed again";
  EXPECT_EQ(jit::detect_compiler(fake, memo).identity, "fake c++ 2.0.1 / test-target");
  EXPECT_EQ(count_calls(), 8) << "and written again";
  EXPECT_FALSE(jit::detect_compiler(tmp.path + "/none", memo).available);

  // a spare memo directory (the prebuilt kernels') answers where the cache's own has no memo, and
  // is only read: the answer is written to the cache's own directory
  const std::string own = tmp.path + "/own-memo";
  EXPECT_EQ(jit::detect_compiler(fake, own, memo).identity, "fake c++ 2.0.1 / test-target");
  EXPECT_EQ(count_calls(), 8) << "the spare memo answers";
  EXPECT_FALSE(std::filesystem::exists(own)) << "nothing written for an answer from the spare memo";
  EXPECT_EQ(jit::detect_compiler(fake, own, tmp.path + "/no-memo").identity, "fake c++ 2.0.1 / test-target");
  EXPECT_EQ(count_calls(), 10) << "neither has one: probed, and written to the cache's own";
  EXPECT_TRUE(std::filesystem::exists(own));
}

// GCC 12 and later get the 512-bit move limits on x86-64 (older GCCs reject the flags); the
// version is the last word of the driver's first line.
TEST(JitCompiler, MoveWidthFlagsOnlyFromGcc12) {
  TempDir tmp;
  const std::string fake = tmp.path + "/fake-gcc";
  auto flags_of = [&](const std::string& version) {
    write(fake, "#!/bin/sh\ncase \"$1\" in --version) echo '" + version +
                    "'; echo 'Free Software Foundation';; -dumpmachine) echo test-target;; esac\n");
    ::chmod(fake.c_str(), 0755);
    return jit::detect_compiler(fake).flags;
  };
  auto has = [](const std::vector<std::string>& f, const char* flag) {
    return std::find(f.begin(), f.end(), flag) != f.end();
  };
  const auto old_gcc = flags_of("g++ (Debian 11.3.0-1) 11.3.0");
  const auto gcc12 = flags_of("g++ (Debian 12.2.0-14+deb12u1) 12.2.0");
  const auto gcc13 = flags_of("c++ (GCC) 13.1.1 20230614");
  const auto rhel_gcc11 = flags_of("gcc (GCC) 11.4.1 20230605");
  EXPECT_FALSE(has(old_gcc, "-mmove-max=512"));
  EXPECT_TRUE(has(old_gcc, "-fno-schedule-insns2")) << "still GCC";
#if defined(__x86_64__)
  EXPECT_TRUE(has(gcc12, "-mmove-max=512") && has(gcc12, "-mstore-max=512"));
  EXPECT_TRUE(has(gcc13, "-mmove-max=512"));
  EXPECT_FALSE(has(rhel_gcc11, "-mmove-max=512")) << "the last word is a date there, not the version";
#else
  EXPECT_FALSE(has(gcc12, "-mmove-max=512"));
#endif
}

TEST(JitCompiler, DetectsSystemCompiler) {
  CGRAD_REQUIRE_COMPILER();
  const jit::Compiler& c = test_compiler();
  EXPECT_FALSE(c.path.empty());
  EXPECT_NE(c.identity.find(" / "), std::string::npos) << c.identity;  // version line / target
  EXPECT_NE(std::find(c.flags.begin(), c.flags.end(), "-fvisibility=hidden"), c.flags.end());
  // The key is deterministic and covers identity and flags.
  EXPECT_EQ(jit::toolchain_key(c), jit::toolchain_key(c));
  EXPECT_NE(jit::toolchain_key(c).find(c.identity), std::string::npos);
  jit::Compiler other = c;
  other.flags.push_back("-DX=1");
  EXPECT_NE(jit::toolchain_key(c), jit::toolchain_key(other));
}

TEST(JitCompiler, RunProcessCapturesOutputAndStatus) {
  auto r = jit::run_process({"sh", "-c", "echo out; echo err 1>&2; exit 3"}, 10'000);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.output.find("out"), std::string::npos);
  EXPECT_NE(r.output.find("err"), std::string::npos);
  // No shell: metacharacters are plain arguments.
  r = jit::run_process({"echo", "$HOME;", "|", "x"}, 10'000);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "$HOME; | x\n");
  r = jit::run_process({"/nonexistent/program"}, 10'000);
  EXPECT_EQ(r.exit_code, 127);
}

TEST(JitCompiler, RunProcessTimeoutKillsTheGroup) {
  auto t0 = std::chrono::steady_clock::now();
  // The shell's child `sleep` is in the same process group and dies with it.
  auto r = jit::run_process({"sh", "-c", "sleep 30; echo never"}, 200);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(s, 5.0);
  EXPECT_EQ(r.output.find("never"), std::string::npos);
}

TEST(JitCompiler, CompileTimeoutIsACompileError) {
  TempDir tmp;
  const std::string fake = tmp.path + "/slow-cxx";
  write(fake, "#!/bin/sh\nsleep 30\n");
  ::chmod(fake.c_str(), 0755);
  jit::Compiler c;
  c.available = true;
  c.path = fake;
  try {
    jit::compile(c, tmp.path + "/k.cpp", tmp.path + "/k.so", 300);
    FAIL() << "expected CompileError";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::CompileError);
    EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
  }
}

TEST(JitCompiler, CompileErrorCarriesCompilerMessageAndSource) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const std::string src = tmp.path + "/bad.cpp";
  write(src, "extern \"C\" int f() { return undeclared_thing_42; }\n");
  try {
    jit::compile(test_compiler(), src, tmp.path + "/bad.so");
    FAIL() << "expected CompileError";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_EQ(e.code(), ErrorCode::CompileError);
    EXPECT_NE(what.find("undeclared_thing_42"), std::string::npos) << what;
    EXPECT_NE(what.find(src), std::string::npos) << what;
    EXPECT_TRUE(exists(src));  // kept for debugging
  }
}

TEST(JitCompiler, CompilesAndLoadsAKernel) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  void* h = compile_and_open(test_compiler(), tmp.path, "k", kernel_source("k_mul", 1));
  ASSERT_NE(h, nullptr) << ::dlerror();
  auto f = reinterpret_cast<KernelFn>(::dlsym(h, "k_mul"));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f(6, 7), 43);
}

TEST(JitCompiler, EmbeddedScalarHeaderKernel) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  EXPECT_NE(jit::scalar_header_text().find("namespace cgrad::scalar"), std::string_view::npos);
  const jit::Compiler c = with_scalar_header(tmp.path);
  ASSERT_FALSE(c.include_dir.empty());
  // Same header, compiler and flags: same directory; the key names the header by hash, not path.
  EXPECT_EQ(jit::prepare_include_dir(test_compiler(), tmp.path), c.include_dir);
  EXPECT_EQ(jit::toolchain_key(c).find(tmp.path), std::string::npos);
  void* h =
      compile_and_open(c, tmp.path, "s",
                       "#include \"cgrad/scalar.hpp\"\n"
                       "extern \"C\" __attribute__((visibility(\"default\"))) double s_exp(double x) {\n"
                       "  return cgrad::scalar::m_exp(x);\n}\n");
  ASSERT_NE(h, nullptr) << ::dlerror();
  auto f = reinterpret_cast<double (*)(double)>(::dlsym(h, "s_exp"));
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f(0.0), 1.0);
}

// Kernels compile below -O3, whose inliner would leave the longer scalar functions as calls, and a
// loop vectorizes only over what is inlined into it (3-14x slower loops, docs/jit.md "Flags"): in a
// freestanding unit every scalar.hpp function is always_inline. An out-of-line copy would be a
// local function of the .so, its name in the symbol table; none of these may have one.
TEST(JitCompiler, KernelUnitsInlineEveryScalarFunction) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const jit::Compiler c = with_scalar_header(tmp.path);
  ASSERT_FALSE(c.include_dir.empty());
  void* h = compile_and_open(
      c, tmp.path, "u",
      "#define CGRAD_SCALAR_FREESTANDING 1\n"
      "#include \"cgrad/scalar.hpp\"\n"
      "namespace s = cgrad::scalar;\n"
      "extern \"C\" __attribute__((visibility(\"default\")))\n"
      "void u_loop(const float* x, float* y, const double* xd, double* yd, long n) {\n"
      "#pragma omp simd\n"
      "  for (long i = 0; i < n; ++i)\n"
      "    y[i] = s::tanh(x[i]) + s::expm1(x[i]) + s::log2(x[i]) + s::sinh(x[i]) + s::pow(x[i], y[i]);\n"
      "#pragma omp simd\n"
      "  for (long i = 0; i < n; ++i)\n"
      "    yd[i] = s::tanh(xd[i]) + s::atan(xd[i]) + s::acosh(xd[i]) + s::sinh(xd[i]) + s::pow(xd[i], "
      "yd[i]);\n"
      "}\n");
  std::ifstream in(tmp.path + "/u.so", std::ios::binary);
  const std::string so((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(so.empty());
  for (const char* f : {"tanh_f32", "expm1_f32", "log2_f32", "sinh_f32", "pow_f32", "tanh_f64", "atan_f64",
                        "acosh_f64", "sinh_f64", "pow_f64"})
    EXPECT_EQ(so.find(f), std::string::npos) << f << " was left as a call in a kernel unit";
  ASSERT_NE(h, nullptr) << ::dlerror();
  auto loop =
      reinterpret_cast<void (*)(const float*, float*, const double*, double*, long)>(::dlsym(h, "u_loop"));
  ASSERT_NE(loop, nullptr);
  float x[2] = {0.0f, 1.0f}, y[2] = {1.0f, 2.0f};
  double xd[2] = {1.0, 2.0}, yd[2] = {1.0, 2.0};
  loop(x, y, xd, yd, 2);
  EXPECT_EQ(y[0], -__builtin_inff());  // tanh, expm1, sinh of 0 are 0, pow(0, 1) = 0, log2(0) = -inf
  EXPECT_NEAR(yd[1], std::tanh(2.0) + std::atan(2.0) + std::acosh(2.0) + std::sinh(2.0) + 4.0, 1e-12);
}

// A kernel's own helpers (a row's offsets, partial accumulators and epilogue, the row functions of
// softmax-like kernels, column mode's tile function) are inlined into its entry: GCC's -O1 inliner
// had left them as calls, one or two per row (2^20 rows of 16 f32: sum 15.1 -> 7.9 ms). A helper
// left out of line would be a local function of the kernel's .so, its name in the symbol table.
TEST(JitCompiler, KernelUnitsInlineTheirHelpers) {
  CGRAD_REQUIRE_COMPILER();
  TempDir tmp;
  const int rc = run_in_child([&]() -> int {
    core::env_mut().cache_dir = tmp.path;
    core::env_mut().backend = "jit";
    std::vector<float> v(64 * 16);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 11) - 5.0f;
    const Tensor x = tensor(v, {64, 16});
    const Tensor wide = tensor(std::vector<float>(4 * 9000, 0.5f), {4, 9000});
    // rows: _base, _part, _fin; column mode: _cols; softmax: _row_kept; a staged row kernel
    // whose rows outgrow the scratch: _row
    const std::vector<Tensor> ys = {max(x, {1}), sum(x, {0}), softmax(x, 1), softmax(wide, 1)};
    for (const Tensor& y : ys) y.eval();
    if (max(x, {1}).to_vector<float>()[0] != 5.0f) return 10;
    int units = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(tmp.path)) {
      if (e.path().extension() != ".so") continue;
      ++units;
      std::ifstream in(e.path(), std::ios::binary);
      const std::string so((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      for (const char* helper : {"_base", "_part", "_fin", "_merge", "_cols", "_row"})
        if (so.find(helper) != std::string::npos) {
          std::fprintf(stderr, "%s: %s left out of line\n", e.path().c_str(), helper);
          return 11;
        }
    }
    std::exit(units >= 4 ? 0 : 12);
  });
  EXPECT_EQ(rc, 0);
}

TEST(JitCompiler, NoCompilerWarningPrintedOnce) {
  TempDir tmp;
  const std::string log = tmp.path + "/stderr.txt";
  // In a fresh process: "once" is per process.
  EXPECT_EQ(run_in_child([&] {
              int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
              ::dup2(fd, 2);
              jit::warn_no_compiler_once();
              jit::warn_no_compiler_once();
              return 0;
            }),
            0);
  std::ifstream in(log);
  std::string err((std::istreambuf_iterator<char>(in)), {});
  size_t first = err.find("no working C++ compiler");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("no working C++ compiler", first + 1), std::string::npos) << err;
}

}  // namespace
}  // namespace cgrad::testing_jit
