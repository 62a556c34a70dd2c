// Compiler discovery, the embedded scalar header, and compiling one kernel into a shared object.
// Discovery runs the candidate with --version and -dumpmachine: a name on PATH that cannot run
// (a broken symlink, a wrapper without its compiler) is not "available". The process-wide
// compiler is found once and never destroyed, so background compiles can use it during exit.
#include "backends/cpu/jit/compiler.h"

#include "core/env.hpp"

#include <cgrad/core.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

namespace cgrad::backends::cpu::jit {

namespace {

// -nostdlib: kernels are freestanding (no standard headers, libm through builtins), so they
// link libm only (after the source: compile()); what else they call (memcpy) resolves against
// the process, which has libc, when the object is loaded. Not linking libstdc++ and libc into
// every kernel object takes about a third off the cold compile of a small kernel (the link was
// most of the difference). -pipe: no temporary files.
const std::vector<std::string> kBaseFlags = {"-O3",           "-march=native",   "-fPIC",
                                             "-shared",       "-nostdlib",       "-pipe",
                                             "-std=c++17",    "-fno-math-errno", "-fno-trapping-math",
                                             "-fopenmp-simd", "-fvisibility=hidden"};
// Multiply-add contraction, chosen per compile by CGRAD_FP_CONTRACT (and part of the toolchain
// key, so both kinds of kernel live side by side in the caches). On (the default, GCC's own):
// `a * b + c` becomes one FMA where -march=native has one, rounding once where the interpreter
// rounds twice (about a quarter of random f32 triples differ by an ulp). Off: bit-identical to
// the interpreter; free on memory-bound kernels (bench W1-W4), 15-25% slower on a compute-bound
// one full of multiply-adds (the W5 Lorenz step). docs/semantics.md has the figures.
const char* contract_flag() { return core::env().fp_contract ? "-ffp-contract=fast" : "-ffp-contract=off"; }
// GCC only (clang rejects them): no vectorized epilogues (the remainder of a vector loop runs
// scalar; kernels' loops are long or short enough to have none) and no second scheduling pass
// (out-of-order cores reorder anyway). Together they take about 10 ms (15%) off the cold
// compile of a small kernel with AVX-512; the kernels run at the same speed (bench W1-W5).
const std::vector<std::string> kGccFlags = {"--param=vect-epilogues-nomask=0", "-fno-schedule-insns2"};
constexpr int kProbeTimeoutMs = 10'000;

bool is_executable_file(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// `name` as run by posix_spawnp: itself when it has a '/', else the first PATH entry holding it.
std::string resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : std::string();
  const char* env_path = std::getenv("PATH");
  std::string path = env_path && *env_path ? env_path : "/usr/local/bin:/usr/bin:/bin";
  std::stringstream ss(path);
  for (std::string dir; std::getline(ss, dir, ':');) {
    std::string cand = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (is_executable_file(cand)) return cand;
  }
  return {};
}

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// The first `max_lines` lines of a compiler's output, indented for an error message.
std::string head_lines(const std::string& s, int max_lines) {
  std::string out;
  std::istringstream in(s);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    if (n++ == max_lines) {
      out += "  ...\n";
      break;
    }
    out += "  " + line + "\n";
  }
  return out;
}

// Identifies the host CPU for the cache key (-march=native makes code CPU-specific).
const std::string& cpu_signature() {
  static const std::string sig = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string acc;
    std::set<std::string> seen;
    for (std::string line; std::getline(in, line);) {
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string k = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
      if ((k == "model name" || k == "flags" || k == "Features" || k == "CPU implementer" || k == "CPU part") &&
          seen.insert(k).second)
        acc += line + "\n";
    }
    return acc.empty() ? std::string("unknown") : runtime::content_hash(acc).substr(0, 16);
  }();
  return sig;
}

bool write_atomically(const std::string& path, std::string_view data) {
  static std::atomic<unsigned> seq{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(seq++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = ::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::string header_path(const std::string& include_dir) { return include_dir + "/cgrad/scalar.hpp"; }

// Rewrites the header if something (a cache cleaner) removed it since prepare_include_dir().
void ensure_header(const Compiler& c) {
  if (c.include_dir.empty()) return;
  struct stat st{};
  if (::stat(header_path(c.include_dir).c_str(), &st) == 0) return;
  runtime::make_private_dirs(c.include_dir + "/cgrad");
  write_atomically(header_path(c.include_dir), scalar_header_text());
}

}  // namespace

Compiler detect_compiler(const std::string& requested) {
  std::vector<std::string> candidates =
      requested.empty() ? std::vector<std::string>{"c++", "g++", "clang++"} : std::vector<std::string>{requested};
  for (const auto& name : candidates) {
    std::string path = resolve(name);
    if (path.empty()) continue;
    ProcessResult v = run_process({path, "--version"}, kProbeTimeoutMs);
    if (v.exit_code != 0 || first_line(v.output).empty()) continue;
    ProcessResult m = run_process({path, "-dumpmachine"}, kProbeTimeoutMs);
    Compiler c;
    c.available = true;
    c.path = path;
    c.identity = first_line(v.output) + " / " + (m.exit_code == 0 ? first_line(m.output) : std::string("unknown"));
    c.flags = kBaseFlags;
    if (v.output.find("Free Software Foundation") != std::string::npos && v.output.find("clang") == std::string::npos)
      c.flags.insert(c.flags.end(), kGccFlags.begin(), kGccFlags.end());
    return c;
  }
  return Compiler{};
}

std::string prepare_include_dir(const Compiler& c, const std::string& root) {
  if (root.empty()) return {};
  std::string tag = std::string(scalar_header_text()) + "\n" + c.identity + "\n" + cpu_signature();
  for (const auto& f : c.flags) tag += " " + f;
  const std::string dir = root + "/include/" + runtime::content_hash(tag).substr(0, 16);
  Compiler with_dir = c;
  with_dir.include_dir = dir;
  if (!runtime::make_private_dirs(dir + "/cgrad")) return {};
  ensure_header(with_dir);
  struct stat st{};
  return ::stat(header_path(dir).c_str(), &st) == 0 ? dir : std::string();
}

const Compiler& compiler() {
  static const Compiler* c = [] {
    auto* found = new Compiler(detect_compiler(core::env().cxx));
    if (found->available) {
      found->include_dir = prepare_include_dir(*found, runtime::default_cache_dir());
      if (!found->include_dir.empty()) found->flags.push_back("-I" + found->include_dir);
    }
    return found;
  }();
  return *c;
}

std::string toolchain_key(const Compiler& c) {
  std::string key = c.identity + "\n";
  for (const auto& f : c.flags) {
    if (!c.include_dir.empty() && f == "-I" + c.include_dir)
      key += "-I{cgrad/scalar.hpp " + runtime::content_hash(scalar_header_text()) + "} ";
    else
      key += f + " ";
  }
  return key + "\ncpu " + cpu_signature();
}

const std::string& toolchain_key() {
  static const std::string* on = new std::string(toolchain_key(compiler()) + " -ffp-contract=fast");
  static const std::string* off = new std::string(toolchain_key(compiler()) + " -ffp-contract=off");
  return core::env().fp_contract ? *on : *off;
}

void compile(const Compiler& c, const std::string& src_path, const std::string& so_path, int timeout_ms) {
  if (!c.available) throw Error(ErrorCode::CompileError, "cgrad: no C++ compiler available to compile " + src_path);
  ensure_header(c);
  std::vector<std::string> argv{c.path};
  argv.insert(argv.end(), c.flags.begin(), c.flags.end());
  argv.push_back(contract_flag());
  for (const auto& a : {std::string("-o"), so_path, src_path, std::string("-lm")}) argv.push_back(a);
  ProcessResult r = run_process(argv, timeout_ms);
  if (r.exit_code == 0 && !r.timed_out) return;
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  std::string what = r.timed_out ? "timed out after " + std::to_string(timeout_ms / 1000) + " s"
                                 : "failed (exit status " + std::to_string(r.exit_code) + ")";
  throw Error(ErrorCode::CompileError, "cgrad: kernel compile " + what + "; source kept at " + src_path +
                                           "\n  command: " + cmd + "\n" + head_lines(r.output, 20));
}

runtime::CompileFn compile_fn() {
  return [](const std::string& src, const std::string& so) { compile(compiler(), src, so); };
}

void warn_no_compiler_once() {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  const std::string& cxx = core::env().cxx;
  std::fprintf(stderr,
               "cgrad: warning: no working C++ compiler (%s); CPU kernels run in the interpreter, which is "
               "slower. Install g++ or clang++, or set CGRAD_CXX to a compiler.\n",
               cxx.empty() ? "searched c++, g++, clang++ on PATH" : ("CGRAD_CXX=" + cxx).c_str());
}

}  // namespace cgrad::backends::cpu::jit
