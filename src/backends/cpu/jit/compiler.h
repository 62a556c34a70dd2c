// The CPU JIT's toolchain: which system C++ compiler to run, with which flags, and how to run it.
//
// Generated kernel sources start with `#include "cgrad/scalar.hpp"`. That header is embedded in
// the library at build time (scalar_header_text()) and written into the kernel cache under a
// directory named by its hash (prepare_include_dir()), checked before every compile and rewritten
// when damaged; that directory is what `-I` points to: kernels
// never depend on the source tree or the install prefix, and an edited scalar.hpp changes every
// cache key (with a plain -I into the source tree, stale kernels would survive a header edit).
// Exported kernel functions must be `extern "C" __attribute__((visibility("default")))`: kernels
// are built with -fvisibility=hidden.
#pragma once

#include "runtime/kernel_cache.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cgrad::backends::cpu::jit {

struct Compiler {
  bool available = false;
  std::string path;                ///< the driver that is run (absolute, or as given in CGRAD_CXX)
  std::string identity;            ///< `--version` first line + " / " + `-dumpmachine`
  std::vector<std::string> flags;  ///< everything between the driver and `-o out src`
  std::string include_dir;         ///< the -I dir holding cgrad/scalar.hpp ("" when not prepared)
};

/// Default limit for one kernel compile (compile_fn() uses CGRAD_COMPILE_TIMEOUT instead).
inline constexpr int kCompileTimeoutMs = 120'000;
/// CGRAD_COMPILE_TIMEOUT in milliseconds (INT_MAX, about 24 days, for 0: no limit).
int compile_timeout_ms();

/// Finds a compiler without reading global state: `requested` (a path, or a name looked up on
/// PATH) when not empty, else the first of c++, g++, clang++ on PATH. Runs `--version` and
/// `-dumpmachine` (2-2.5 ms), unless `memo_dir` (when not empty) keeps their answer for this very
/// driver file; a new answer is written there. `spare_memo_dir` (read only) is looked at when
/// `memo_dir` has no answer: the prebuilt kernels' memos (runtime::default_prebuilt_dir()), made
/// by the same driver file when they were built. A compiler that cannot be run gives
/// `available == false` (and is not remembered). The flags are the base flags, without the
/// include dir.
Compiler detect_compiler(const std::string& requested, const std::string& memo_dir = "",
                         const std::string& spare_memo_dir = "");

/// The folder of the kernel cache root where compiler() keeps its probe memos.
inline constexpr const char* kProbeMemoDir = "toolchain";

/// The process-wide compiler: detect_compiler(CGRAD_CXX, <cache root>/kProbeMemoDir, <prebuilt
/// kernels>/kProbeMemoDir) plus `-I` of include_dir_path() in the kernel cache root (the header is
/// written there by the first compile: a process that only loads kernels never writes it). Found on
/// first call; never destroyed (usable while the process exits).
const Compiler& compiler();

/// Everything but the source that decides the machine code: identity, flags (the include dir
/// stands for the hash of the header, not its path) and the host CPU (-march=native: a cache
/// shared between machines must not hand one CPU's code to another). KernelCache's toolchain_key.
std::string toolchain_key(const Compiler& c);
/// toolchain_key(compiler()), computed once.
const std::string& toolchain_key();

/// The text of include/cgrad/scalar.hpp as it was when the library was built.
std::string_view scalar_header_text();

/// <root>/include/<hash>, where the cache keeps its copy of the header for compiler `c` ("" for
/// an empty root). The hash covers the header, the compiler identity, the flags and the CPU.
std::string include_dir_path(const Compiler& c, const std::string& root);

/// Makes <include_dir_path()>/cgrad/scalar.hpp the embedded header: its content is checked, and
/// a missing, truncated or altered copy is rewritten atomically (temp + rename; safe when
/// several processes do it at once). Returns the dir; "" when it cannot be written.
std::string prepare_include_dir(const Compiler& c, const std::string& root);

/// Compiles the C++ file `src_path` into the shared object `so_path`. No shell: the compiler is
/// spawned with its arguments as a vector. First checks (and heals) the header under
/// `c.include_dir`; when that copy is wrong and cannot be rewritten, a copy under
/// <dir of so_path>/include/ is used instead. Throws Error(CompileError) with the command, the
/// source path (kept for debugging) and the first lines of the compiler's output, on a non-zero
/// exit or past `timeout_ms` (the compiler's process group is killed).
void compile(const Compiler& c, const std::string& src_path, const std::string& so_path,
             int timeout_ms = kCompileTimeoutMs);

/// compile() with compiler(), as the CompileFn KernelCache wants.
runtime::CompileFn compile_fn();

/// Prints once per process, to stderr, that no compiler was found and kernels are interpreted.
void warn_no_compiler_once();

struct ProcessResult {
  int exit_code = -1;      ///< exit status; 128 + signal when killed; 127 when it could not start
  bool timed_out = false;  ///< killed after timeout_ms
  std::string output;      ///< stdout and stderr interleaved, at most max_output bytes
};
/// Runs argv (argv[0] looked up on PATH when it has no '/') with posix_spawnp and waits at most
/// `timeout_ms`. stdin is /dev/null; stdout and stderr go to an unlinked temp file.
ProcessResult run_process(const std::vector<std::string>& argv, int timeout_ms,
                          std::size_t max_output = 64 * 1024);

}  // namespace cgrad::backends::cpu::jit
