// Helpers for the JIT toolchain tests: a private temp dir per test, a child process runner, and
// tiny kernel sources (no headers: they compile in ~40 ms).
#pragma once

#include "backends/cpu/jit/compiler.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

namespace cgrad::testing_jit {

namespace jit = cgrad::backends::cpu::jit;

/// A fresh directory (mkdtemp) removed with everything in it at scope exit.
struct TempDir {
  std::string path;
  TempDir() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t == '/' ? t : "/tmp") + "/cgrad-jit-test-XXXXXX";
    path = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// The system compiler with the base flags (no include dir, no global state), found once.
inline const jit::Compiler& test_compiler() {
  static const jit::Compiler c = jit::detect_compiler("");
  return c;
}
#define CGRAD_REQUIRE_COMPILER() \
  if (!::cgrad::testing_jit::test_compiler().available) GTEST_SKIP() << "no C++ compiler on this machine"

inline runtime::CompileFn test_compile_fn() {
  return [](const std::string& src, const std::string& so) { jit::compile(test_compiler(), src, so); };
}

/// extern "C" long <name>(long a, long b) { return a * b + k; }
inline std::string kernel_source(const std::string& name, long k) {
  return "extern \"C\" __attribute__((visibility(\"default\"))) long " + name +
         "(long a, long b) { return a * b + " + std::to_string(k) + "; }\n";
}
using KernelFn = long (*)(long, long);

/// Runs `body` in a forked child; returns its exit status (or 128 + signal).
inline int run_in_child(const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int rc = 99;
    try {
      rc = body();
    } catch (...) {
      rc = 98;
    }
    ::_exit(rc);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace cgrad::testing_jit
