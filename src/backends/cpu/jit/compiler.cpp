// Compiler discovery, the embedded scalar header, and compiling one kernel into a shared object.
// Discovery runs the candidate with --version and -dumpmachine: a name on PATH that cannot run
// (a broken symlink, a wrapper without its compiler) is not "available". The answer is kept in the
// cache (the probe memo), so a process whose kernels are on disk starts no process at all. The process-wide
// compiler is found once and never destroyed, so background compiles can use it during exit.
#include "backends/cpu/jit/compiler.h"

#include "core/env.hpp"
#include "runtime/disk_cache.h"

#include <cgrad/core.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <climits>
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
// most of the difference). -pipe: no temporary files. The optimization level is the driver's
// (kGccLevel, kOtherLevel below).
const std::vector<std::string> kBaseFlags = {"-march=native",   "-fPIC",
                                             "-shared",         "-nostdlib",
                                             "-pipe",           "-std=c++17",
                                             "-fno-math-errno", "-fno-trapping-math",
                                             "-fopenmp-simd",   "-fvisibility=hidden"};
// GCC: -O1 and the passes of -O2 that kernels need, which compiles about 10% cheaper than -O2 (itself
// 5-20% cheaper than -O3) and gives the same code for the survey's loops (docs/jit.md, "Flags"): both
// vectorizers with -O3's cost model (GCC 12's -O2 uses "very cheap", which left W1's loop slower), FMA
// contraction (-fexpensive-optimizations), type-based aliasing, values kept in registers across the C
// library calls of complex functions (-fcaller-saves: exp c64 10% slower without), and global common
// subexpressions (-fgcse: asinh f32 8% slower without). scalar.hpp's functions and each kernel's own
// helpers (CGRAD_KERNEL_HELPER) are always_inline, which an inliner below -O3's needs. Other drivers: -O2.
const std::vector<std::string> kGccLevel = {"-O1",
                                            "-ftree-loop-vectorize",
                                            "-ftree-slp-vectorize",
                                            "-fvect-cost-model=dynamic",
                                            "-fexpensive-optimizations",
                                            "-fstrict-aliasing",
                                            "-fcaller-saves",
                                            "-fgcse"};
const std::vector<std::string> kOtherLevel = {"-O2"};
// 512-bit vectors where the CPU has AVX-512 (on AVX2 the same code as without the flag). GCC's
// tuning for Intel cores prefers 256 bits, which halves the lanes of every compute-bound loop
// against the AVX-512 loops NumPy calls: on a Rocket Lake VM, f64 exp, log and tanh ran 1.6-2x
// slower with it (2^22 elements, one thread; docs/jit.md). GCC's Zen 4 code used 512 already.
#if defined(__x86_64__)
const std::vector<std::string> kTargetFlags = {"-mprefer-vector-width=512"};
#else
const std::vector<std::string> kTargetFlags = {};
#endif
// Multiply-add contraction, chosen per compile by CGRAD_FP_CONTRACT (and part of the toolchain
// key, so both kinds of kernel live side by side in the caches). On (the default, GCC's own):
// `a * b + c` becomes one FMA where -march=native has one, rounding once where the interpreter
// rounds twice (about a quarter of random f32 triples differ by an ulp). Off: bit-identical to
// the interpreter; free on memory-bound kernels (bench W1-W4), 15-25% slower on a compute-bound
// one full of multiply-adds (the W5 Lorenz step). docs/semantics.md has the figures.
const char* contract_flag() { return core::env().fp_contract ? "-ffp-contract=fast" : "-ffp-contract=off"; }
// GCC only (clang rejects them): no vectorized epilogues (the remainder of a vector loop runs
// scalar; kernels' loops are long or short enough to have none) and no second scheduling pass
// (out-of-order cores reorder anyway). Together they took about 10 ms (15%) off the cold
// compile of a small kernel with AVX-512 at -O3; the kernels run at the same speed (bench W1-W5).
const std::vector<std::string> kGccFlags = {"--param=vect-epilogues-nomask=0", "-fno-schedule-insns2"};
// GCC 12 and later on x86-64: copies of vectors through memory at a zmm register's width. GCC's
// tuning for Intel cores moves at most 256 bits at a time (AMD's: 512), so a 64-byte vector that
// a kernel copies into an array (the f32 sin, cos and tan variants' lanes, scalar.hpp) went as
// two 32-byte stores read back by one 64-byte load, a store-forwarding failure on every call: on
// a Rocket Lake VM, 2^18 f32, one thread, sin 0.50 -> 0.28 ms, tan 0.90 -> 0.37 (NumPy 0.18, 0.21;
// bench/RESULTS.md, 2026-12-06). Older GCCs and clang reject the flags; on AVX2 they change nothing.
#if defined(__x86_64__)
const std::vector<std::string> kGcc12TargetFlags = {"-mmove-max=512", "-mstore-max=512"};
#else
const std::vector<std::string> kGcc12TargetFlags = {};
#endif
constexpr int kProbeTimeoutMs = 10'000;

bool is_executable_file(const std::string& p) {
  struct stat st {};
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
      if ((k == "model name" || k == "flags" || k == "Features" || k == "CPU implementer" ||
           k == "CPU part") &&
          seen.insert(k).second)
        acc += line + "\n";
    }
    return acc.empty() ? std::string("unknown") : runtime::content_hash(acc).substr(0, 16);
  }();
  return sig;
}

std::string header_path(const std::string& include_dir) { return include_dir + "/cgrad/scalar.hpp"; }

// True when `path` holds exactly the embedded header. Read in full on every compile (15 KiB,
// a few microseconds next to a compile of tens of milliseconds): a truncated or edited copy
// would otherwise fail every new kernel, in every process, forever.
bool header_intact(const std::string& path) {
  const std::string_view want = scalar_header_text();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  std::string have;
  bool ok = ::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) == want.size() &&
            runtime::disk::read_fd(fd, &have) && have == want;
  ::close(fd);
  return ok;
}

// Makes <include_dir>/cgrad/scalar.hpp the embedded header: checked, and rewritten when missing,
// truncated or altered (temp file + rename, so a concurrent compiler sees the old file or the
// new one, and several processes healing it at once all write the same bytes). True when the
// header is right afterwards.
bool heal_header(const std::string& include_dir, runtime::disk::Where where) {
  const std::string path = header_path(include_dir);
  if (header_intact(path)) return true;
  if (runtime::disk::make_dirs(include_dir + "/cgrad", where) != 0) return false;
  if (runtime::disk::write_atomically(path, scalar_header_text(), where) != 0) return false;
  if (core::env().debug >= 1)
    std::fprintf(stderr, "cgrad: rewrote %s (missing, truncated or altered)\n", path.c_str());
  return header_intact(path);
}

// The include dir a compile uses: the cache's copy when it is (or could be made) intact, else a
// copy beside the compiler's output (the staging dir) when the cache cannot be written. The
// toolchain key names the header by its hash, never by this path, so the key is the same.
std::string usable_include_dir(const Compiler& c, const std::string& so_path) {
  if (c.include_dir.empty() || heal_header(c.include_dir, runtime::disk::Where::Cache)) return c.include_dir;
  const std::string leaf = c.include_dir.substr(c.include_dir.rfind('/') + 1);
  const std::string spare = so_path.substr(0, so_path.rfind('/')) + "/include/" + leaf;
  return heal_header(spare, runtime::disk::Where::Staging) ? spare : c.include_dir;
}

// What the probes of a driver tell: its identity, and whether it is GCC (kGccFlags).
struct Probe {
  std::string identity;
  bool gcc = false;
};

// The major version in a GCC driver's identity: the first number of the first line's last word
// that starts with a digit and has a dot ("g++ (Debian 12.2.0-14) 12.2.0" and "gcc (GCC) 11.4.1
// 20230605" give 12 and 11); 0 when there is none.
int gcc_major(const std::string& identity) {
  std::istringstream words(identity.substr(0, identity.find(" / ")));
  int major = 0;
  for (std::string w; words >> w;)
    if (w[0] >= '0' && w[0] <= '9' && w.find('.') != std::string::npos) major = std::atoi(w.c_str());
  return major;
}

// Runs `--version` and `-dumpmachine`; false when the driver does not answer `--version`.
bool probe(const std::string& path, Probe* out) {
  ProcessResult v = run_process({path, "--version"}, kProbeTimeoutMs);
  if (v.exit_code != 0 || first_line(v.output).empty()) return false;
  ProcessResult m = run_process({path, "-dumpmachine"}, kProbeTimeoutMs);
  out->identity =
      first_line(v.output) + " / " + (m.exit_code == 0 ? first_line(m.output) : std::string("unknown"));
  out->gcc = v.output.find("Free Software Foundation") != std::string::npos &&
             v.output.find("clang") == std::string::npos;
  return true;
}

// The probe memo (docs/jit.md, "Compiler"): the file in `dir` that keeps the probes' answer for
// the driver `path`, named by a hash of the path and of the file it resolves to (device, inode,
// size, modification and change times), so that a driver replaced, upgraded or pointed elsewhere
// (alternatives) is probed again. "" when the driver cannot be resolved.
constexpr std::string_view kMemoMagic = "cgrad-probe 1";
std::string memo_path(const std::string& dir, const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return {};
  const std::string target = real;
  std::free(real);
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return {};
  std::string tag = path + "\n" + target;
  for (auto v :
       {static_cast<int64_t>(st.st_dev), static_cast<int64_t>(st.st_ino), static_cast<int64_t>(st.st_size),
        static_cast<int64_t>(st.st_mtim.tv_sec), static_cast<int64_t>(st.st_mtim.tv_nsec),
        static_cast<int64_t>(st.st_ctim.tv_sec), static_cast<int64_t>(st.st_ctim.tv_nsec)})
    tag += " " + std::to_string(v);
  return dir + "/" + runtime::content_hash(tag);
}

// The memo's answer; false when there is none, or it is not one whole memo (then it is probed and
// written again).
bool read_memo(const std::string& file, Probe* out) {
  std::ifstream in(file);
  std::string magic, identity, kind, rest;
  if (!std::getline(in, magic) || magic != kMemoMagic || !std::getline(in, identity) || identity.empty() ||
      !std::getline(in, kind) || (kind != "gcc" && kind != "other") || std::getline(in, rest))
    return false;
  out->identity = identity;
  out->gcc = kind == "gcc";
  return true;
}

// Keeps the answer (atomically: a concurrent reader sees the whole memo or none). A cache that
// cannot be written only means probing again next time.
void write_memo(const std::string& dir, const std::string& file, const Probe& p) {
  if (runtime::disk::make_dirs(dir, runtime::disk::Where::Cache) != 0) return;
  runtime::disk::write_atomically(
      file, std::string(kMemoMagic) + "\n" + p.identity + "\n" + (p.gcc ? "gcc" : "other") + "\n",
      runtime::disk::Where::Cache);
}

}  // namespace

Compiler detect_compiler(const std::string& requested, const std::string& memo_dir,
                         const std::string& spare_memo_dir) {
  std::vector<std::string> candidates = requested.empty() ? std::vector<std::string>{"c++", "g++", "clang++"}
                                                          : std::vector<std::string>{requested};
  for (const auto& name : candidates) {
    std::string path = resolve(name);
    if (path.empty()) continue;
    const std::string memo = memo_dir.empty() ? std::string() : memo_path(memo_dir, path);
    const std::string spare = spare_memo_dir.empty() ? std::string() : memo_path(spare_memo_dir, path);
    Probe p;
    if ((memo.empty() || !read_memo(memo, &p)) && (spare.empty() || !read_memo(spare, &p))) {
      if (!probe(path, &p)) continue;
      if (!memo.empty()) write_memo(memo_dir, memo, p);
    }
    Compiler c;
    c.available = true;
    c.path = path;
    c.identity = p.identity;
    c.flags = p.gcc ? kGccLevel : kOtherLevel;
    c.flags.insert(c.flags.end(), kBaseFlags.begin(), kBaseFlags.end());
    c.flags.insert(c.flags.end(), kTargetFlags.begin(), kTargetFlags.end());
    if (p.gcc) c.flags.insert(c.flags.end(), kGccFlags.begin(), kGccFlags.end());
    if (p.gcc && gcc_major(p.identity) >= 12)
      c.flags.insert(c.flags.end(), kGcc12TargetFlags.begin(), kGcc12TargetFlags.end());
    return c;
  }
  return Compiler{};
}

std::string include_dir_path(const Compiler& c, const std::string& root) {
  if (root.empty()) return {};
  std::string tag = std::string(scalar_header_text()) + "\n" + c.identity + "\n" + cpu_signature();
  for (const auto& f : c.flags) tag += " " + f;
  return root + "/include/" + runtime::content_hash(tag).substr(0, 16);
}

std::string prepare_include_dir(const Compiler& c, const std::string& root) {
  const std::string dir = include_dir_path(c, root);
  return !dir.empty() && heal_header(dir, runtime::disk::Where::Cache) ? dir : std::string();
}

const Compiler& compiler() {
  static const Compiler* c = [] {
    const std::string root = runtime::default_cache_dir(), prebuilt = runtime::default_prebuilt_dir();
    auto* found =
        new Compiler(detect_compiler(core::env().cxx, root.empty() ? root : root + "/" + kProbeMemoDir,
                                     prebuilt.empty() ? prebuilt : prebuilt + "/" + kProbeMemoDir));
    if (found->available) {
      // The path even when the header cannot be written there now (a read-only or full cache):
      // the -I flag, and so the toolchain key, must not depend on it. compile() writes (heals)
      // the header or uses a spare copy: a process whose kernels all load writes nothing (a
      // first call on prebuilt kernels: 6.3 -> 3.1 ms with the probe memo above).
      found->include_dir = include_dir_path(*found, runtime::default_cache_dir());
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
  if (!c.available)
    throw Error(ErrorCode::CompileError, "cgrad: no C++ compiler available to compile " + src_path);
  const std::string inc = usable_include_dir(c, so_path);
  std::vector<std::string> argv{c.path};
  for (const auto& f : c.flags)
    argv.push_back(!c.include_dir.empty() && f == "-I" + c.include_dir ? "-I" + inc : f);
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

int compile_timeout_ms() {
  const int64_t s = core::env().compile_timeout_s;
  return s <= 0 || s >= INT_MAX / 1000 ? INT_MAX : static_cast<int>(s * 1000);  // 0: no limit (24 days)
}

runtime::CompileFn compile_fn() {
  return [](const std::string& src, const std::string& so) {
    compile(compiler(), src, so, compile_timeout_ms());
  };
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
