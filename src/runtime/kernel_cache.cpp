// KernelCache: in-memory map of loaded kernels over a content-addressed on-disk cache.
//
// Invariants:
//  - an entry of the memory map is Pending (one thread is loading or building it; others wait or,
//    in try_get, return nullptr), Ready (handle kept for the process lifetime) or Failed;
//  - a file named <key>.so on disk is either absent or complete: it is only ever written under a
//    unique temp name in the same directory and published by rename(), which is atomic;
//  - nothing is dlopen'ed before its trailer (key, size, checksum) has been verified, and a file
//    that fails any check (trailer, dlopen, dlsym) is deleted and rebuilt;
//  - the compiler writes into a private per-process staging directory (or, without one, beside the
//    entry); a cache that cannot be written (full, read-only, no permission) only means the kernel
//    is loaded from there and not kept: that is a warning, never an error, and nothing about it is
//    remembered;
//  - the disk cache is bounded (disk_cache.h): loads and publishes hold its lock shared, so
//    eviction never deletes an entry between its verification and its dlopen.
#include "runtime/kernel_cache.h"

#include "core/env.hpp"
#include "runtime/disk_cache.h"
#include "runtime/stats.h"

#include <cgrad/core.hpp>

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

namespace cgrad::runtime {

namespace {

// ---- 128-bit FNV-1a: prime 2^88 + 0x13B, multiplied in two 64-bit halves (no __int128) ----
struct H128 {
  uint64_t hi = 0x6c62272e07bb0142ULL, lo = 0x62b821756295c58dULL;
};
void fnv_update(H128& h, std::string_view d) {
  uint64_t hi = h.hi, lo = h.lo;
  for (unsigned char c : d) {
    lo ^= c;
    const uint64_t a = lo >> 32, b = lo & 0xffffffffULL;
    const uint64_t carry = (a * 0x13BULL + ((b * 0x13BULL) >> 32)) >> 32;  // high half of lo * 0x13B
    hi = hi * 0x13BULL + carry + (lo << 24);                               // + lo * 2^88 mod 2^128
    lo = lo * 0x13BULL;
  }
  h.hi = hi;
  h.lo = lo;
}
std::string hex(const H128& h) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[static_cast<size_t>(15 - i)] = kDigits[(h.hi >> (4 * i)) & 0xf];
    s[static_cast<size_t>(31 - i)] = kDigits[(h.lo >> (4 * i)) & 0xf];
  }
  return s;
}

// The memory map's key, and the input of the content hash: "<len(toolchain)>:<toolchain><source>".
std::string memory_key(std::string_view source, std::string_view toolchain_key) {
  std::string m = std::to_string(toolchain_key.size());
  m += ':';
  m.append(toolchain_key);
  m.append(source);
  return m;
}

// Checksum of a cached shared object: two 64-bit multiply-rotate lanes over 8-byte words and a
// splitmix64 finish. Not FNV: FNV's byte-serial multiply chain would cost ~100 us per 16 KiB file
// on every disk hit; this is ~10x faster and still catches any torn, truncated or altered file.
H128 checksum(std::string_view d) {
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto mix = [](uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  uint64_t a = 0x9e3779b97f4a7c15ULL ^ d.size(), b = 0xc2b2ae3d27d4eb4fULL;
  size_t i = 0;
  for (; i + 8 <= d.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, d.data() + i, 8);
    a = rotl(a ^ w, 31) * 0x9e3779b97f4a7c15ULL;
    b = rotl(b + w, 27) * 0xc2b2ae3d27d4eb4fULL;
  }
  uint64_t tail = 0;
  if (i < d.size()) std::memcpy(&tail, d.data() + i, d.size() - i);
  a = rotl(a ^ tail, 31) * 0x9e3779b97f4a7c15ULL;
  b = rotl(b + tail, 27) * 0xc2b2ae3d27d4eb4fULL;
  H128 h;
  h.hi = mix(a ^ rotl(b, 17));
  h.lo = mix(b ^ rotl(a, 41) ^ h.hi);
  return h;
}

constexpr std::string_view kMagic = "CGRADKC1";
constexpr size_t kKeyLen = 32, kTrailerLen = 8 + kKeyLen + 8 + 16;

void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool is_dir_writable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::access(p.c_str(), W_OK | X_OK) == 0;
}

// A private fallback under the temp dir: ours (uid) and not group/other accessible, else fresh.
std::string temp_cache_dir() {
  const char* t = std::getenv("TMPDIR");
  std::string base = (t && *t == '/') ? t : "/tmp";
  std::string p = base + "/cgrad-" + std::to_string(::getuid());
  ::mkdir(p.c_str(), 0700);
  struct stat st {};
  if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid() &&
      (st.st_mode & 077) == 0 && is_dir_writable(p))
    return p;
  std::string tmpl = p + "-XXXXXX";
  if (::mkdtemp(tmpl.data())) return tmpl;
  return {};
}

// An existing directory we can list and read: a populated read-only cache is still used for hits.
bool is_readable_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::access(p.c_str(), R_OK | X_OK) == 0;
}

std::string resolve_cache_dir() {
  const std::string& explicit_dir = core::env().cache_dir;
  if (!explicit_dir.empty()) {
    if (make_private_dirs(explicit_dir) || is_readable_dir(explicit_dir)) return explicit_dir;
    std::fprintf(
        stderr,
        "cgrad: CGRAD_CACHE_DIR=%s is not a directory that can be created or read; using a temp dir\n",
        explicit_dir.c_str());
  } else {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    std::string cand = (xdg && *xdg == '/')     ? std::string(xdg) + "/cgrad"
                       : (home && *home == '/') ? std::string(home) + "/.cache/cgrad"
                                                : std::string();
    if (!cand.empty() && (make_private_dirs(cand) || is_readable_dir(cand))) return cand;
  }
  return temp_cache_dir();
}

// A compile that failed where the compiler's output goes may have failed for want of space
// (the linker's "No space left on device" is only text): then it is not the kernel's fault.
bool short_of_space(const std::string& dir) {
  if (disk::injected_write_error(disk::Where::Staging)) return true;
  struct statvfs vs {};
  if (::statvfs(dir.c_str(), &vs) != 0) return false;
  return (vs.f_flag & ST_RDONLY) != 0 || uint64_t(vs.f_bavail) * vs.f_frsize < (uint64_t(64) << 20);
}

std::string dir_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

// Removes the staging dirs (cgrad-build-<pid>-XXXXXX) that processes of ours which no longer
// exist left under `base` when they were killed before their destructors ran.
void sweep_dead_staging(const std::string& base) {
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(base, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("cgrad-build-", 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + 12, nullptr, 10);
    struct stat st {};
    if (pid <= 0 || ::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid())
      continue;
    // An hour untouched too: a process in another pid namespace sharing this /tmp is not
    // visible to kill(), and an idle one's dir is recreated on its next build anyway.
    if (::time(nullptr) - st.st_mtime > 3600 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      std::filesystem::remove_all(it->path(), ignored);
    }
  }
}

struct Entry {
  enum class State { Pending, Ready, Failed } state = State::Pending;
  void* handle = nullptr;
  std::vector<std::pair<std::string, void*>> symbols;  // dlsym results (dlsym takes the loader lock)
  std::exception_ptr error;
  bool retry = false;  // a failure that is not the kernel's (no space anywhere...): forget it once seen
};

struct Job {
  std::string mkey, key, source, symbol;  // memory key, content key, ...
  CompileFn compile;
  std::shared_ptr<Entry> entry;
};

void debug_note(const std::string& path, const std::string& why) {
  if (core::env().debug >= 1)
    std::fprintf(stderr, "cgrad: kernel cache: %s: %s; rebuilding\n", path.c_str(), why.c_str());
}

bool is_compile_error(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    return err.code() == ErrorCode::CompileError;
  } catch (...) {
    return false;
  }
}

}  // namespace

std::string content_hash(std::string_view data) {
  H128 h;
  fnv_update(h, data);
  return hex(h);
}

bool make_private_dirs(const std::string& path) {
  if (path.empty()) return false;
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos == path.size() || path[pos] == '/') {
      std::string prefix = path.substr(0, pos);
      if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
  }
  return is_dir_writable(path);
}

const std::string& default_prebuilt_dir() {
  static const std::string* dir = new std::string([] {
    const std::string& e = core::env().prebuilt_kernels;
    if (e == "0") return std::string();
    if (!e.empty()) return e;
    Dl_info info{};  // the binary that holds this function: the Python extension, libcgrad.so or a program
    if (::dladdr(reinterpret_cast<void*>(&default_prebuilt_dir), &info) == 0 || !info.dli_fname)
      return std::string();
    std::string bin = info.dli_fname;
    if (bin.empty() ||
        bin[0] != '/') {  // a program's own name as it was started: never the working directory's
      std::error_code ec;
      bin = std::filesystem::read_symlink("/proc/self/exe", ec).string();
      if (ec || bin.empty() || bin[0] != '/') return std::string();
    }
    return bin.substr(0, bin.rfind('/')) + "/cgrad-kernels";
  }());
  return *dir;
}

const std::string& default_cache_dir() {
  static const std::string* dir = new std::string(resolve_cache_dir());  // leaked: valid during exit
  return *dir;
}

std::string cache_trailer(std::string_view key, std::string_view payload) {
  const H128 h = checksum(payload);
  std::string t(kMagic);
  t.append(key.substr(0, kKeyLen));
  t.resize(8 + kKeyLen, '0');
  put_u64(t, payload.size());
  put_u64(t, h.hi);
  put_u64(t, h.lo);
  return t;
}

// ------------------------------------------------------------------------------------------------

struct KernelCache::Impl {
  // The memory lookup get() and try_get() share. A hit returns true with `addr` set; with
  // `wait` false, an entry still compiling is a hit with addr = nullptr. A miss inserts a
  // Pending entry into `e` and returns false: the caller loads or builds it.
  bool lookup(const std::string& mk, const std::string& symbol, bool wait, std::shared_ptr<Entry>& e,
              void*& addr);
  std::string requested_dir;
  std::string prebuilt;  // read-only kernels looked at after a miss ("" = none)
  mutable std::once_flag dir_once;
  mutable std::string dir;

  std::mutex mu;
  std::condition_variable done_cv;   // an entry left Pending
  std::condition_variable queue_cv;  // a job was queued, or stopping
  std::condition_variable idle_cv;   // queue empty and nothing running
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries;
  std::deque<Job> queue;
  std::unique_ptr<std::vector<std::thread>> workers = std::make_unique<std::vector<std::thread>>();
  int idle = 0, running = 0;
  bool stopping = false;
  pid_t owner = ::getpid();
  std::atomic<bool> warned{false};  // "cannot write the cache" printed
  std::mutex stage_mu;
  std::string stage_dir;  // private build directory of process stage_pid ("" until first needed)
  pid_t stage_pid = 0;

  const std::string& root() const {
    std::call_once(dir_once, [&] {
      dir = requested_dir.empty() ? default_cache_dir() : requested_dir;
      if (!requested_dir.empty()) make_private_dirs(dir);
    });
    return dir;
  }
  std::string shard(const std::string& key) const { return root() + "/" + key.substr(0, 2); }
  std::string so_path(const std::string& key) const { return shard(key) + "/" + key + ".so"; }

  // A verified entry from disk (this cache's, else the prebuilt directory's), loaded and holding
  // `symbol`; nullptr otherwise.
  void* load(const std::string& key, const std::string& symbol) {
    if (void* h = root().empty() ? nullptr : load_file(so_path(key), key, symbol, /*own=*/true)) return h;
    if (prebuilt.empty()) return nullptr;
    return load_file(prebuilt + "/" + key.substr(0, 2) + "/" + key + ".so", key, symbol, /*own=*/false);
  }

  // The entry at `path`, verified (trailer, dlopen, dlsym) and loaded; nullptr otherwise. An entry
  // of this cache (`own`) is read under the eviction lock, touched on a hit and deleted when it
  // fails a check; a prebuilt one is only read.
  void* load_file(const std::string& path, const std::string& key, const std::string& symbol, bool own) {
    if (::access(path.c_str(), F_OK) != 0) return nullptr;  // a miss costs no lock
    std::optional<disk::Lock> lock;
    if (own) lock.emplace(root(), /*exclusive=*/false);  // not evicted until dlopen is done
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    std::string bytes;
    std::string why;
    if (!disk::read_fd(fd, &bytes))
      why = "unreadable";
    else if (bytes.size() < kTrailerLen)
      why = "truncated";
    else {
      std::string_view payload(bytes.data(), bytes.size() - kTrailerLen);
      if (std::string_view(bytes).substr(payload.size()) != cache_trailer(key, payload))
        why = "trailer mismatch (torn, corrupt or foreign entry)";
    }
    void* h = nullptr;
    if (why.empty()) {
      h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h)
        why = std::string("dlopen failed: ") + ::dlerror();
      else if (!::dlsym(h, symbol.c_str())) {
        why = "symbol " + symbol + " missing";
        ::dlclose(h);
        h = nullptr;
      }
    }
    if (h && own) disk::touch(fd);  // the LRU clock of eviction
    ::close(fd);
    if (!h) {
      debug_note(path, why);
      if (own) ::unlink(path.c_str());
      return nullptr;
    }
    counters().disk_cache_hits.fetch_add(1);
    return h;
  }

  // This process's private build directory under $TMPDIR (0700, removed by the destructor);
  // "" when none can be created. A forked child makes its own.
  std::string staging() {
    std::lock_guard lk(stage_mu);
    struct stat st {};
    if (stage_pid == ::getpid() && !stage_dir.empty() && ::stat(stage_dir.c_str(), &st) == 0)
      return stage_dir;
    stage_dir.clear();
    if (disk::injected_write_error(disk::Where::Staging)) return {};
    const char* t = std::getenv("TMPDIR");
    for (std::string base : {std::string((t && *t == '/') ? t : "/tmp"), std::string("/tmp")}) {
      sweep_dead_staging(base);
      std::string tmpl = base + "/cgrad-build-" + std::to_string(::getpid()) + "-XXXXXX";
      if (::mkdtemp(tmpl.data())) {
        stage_dir = tmpl;
        stage_pid = ::getpid();
        break;
      }
    }
    return stage_dir;
  }

  // The cache cannot take a file: said once per cache, never an error, never remembered.
  void cannot_cache(int err, const std::string& path) {
    if (warned.exchange(true)) return;
    std::fprintf(stderr,
                 "cgrad: warning: cannot write the kernel cache (%s: %s); new kernels are compiled in a "
                 "temporary directory and not kept on disk while this lasts (docs/jit.md)\n",
                 path.c_str(), std::strerror(err));
  }

  // Compiles `source`, publishes it atomically and loads it. Throws cgrad::Error: CompileError
  // for the kernel's own faults (remembered), ExecutionFailed when there is no room to build
  // it anywhere (not remembered).
  void* build(const std::string& key, const std::string& source, const std::string& symbol,
              const CompileFn& compile) {
    using disk::Where;
    const std::string& r = root();
    const std::string dir_path = shard(key);
    const std::string so = dir_path + "/" + key + ".so";
    // The source (same bytes for the same key) is published like the .so and kept for debugging.
    const std::string cache_src = dir_path + "/" + key + ".cpp";
    int err = r.empty() ? ENOENT : disk::make_dirs(dir_path, Where::Cache);
    if (!err) err = disk::write_atomically(cache_src, source, Where::Cache);
    const bool cacheable = err == 0;
    if (!cacheable) cannot_cache(err, r.empty() ? std::string("(no cache directory)") : dir_path);
    // The compiler reads a private copy and writes into the staging dir: neither a full cache
    // nor another process evicting this key can touch a compile in progress. Without a staging
    // dir (no temp dir at all) it works beside the entry, on a temp name.
    const std::string stage = staging();
    std::string src = cacheable ? cache_src : std::string();
    int stage_err = stage.empty() ? ENOENT : 0;
    if (!stage.empty()) {
      const std::string staged = stage + "/" + key + ".cpp";
      stage_err = disk::write_atomically(staged, source, Where::Staging);
      if (!stage_err) src = staged;
    }
    if (src.empty())
      throw Error(ErrorCode::ExecutionFailed,
                  std::string("cgrad: cannot build a kernel: the kernel cache cannot be written (") +
                      std::strerror(err) + ") and neither can a temporary directory (" +
                      std::strerror(stage_err) + ")");
    const std::string out = disk::temp_name((src == cache_src ? dir_path : stage) + "/" + key + ".so");
    try {
      compile(src, out);
    } catch (const Error& e) {
      ::unlink(out.c_str());
      std::string what = e.what();
      if (cacheable && src != cache_src) {  // point at the copy that is kept
        ::unlink(src.c_str());
        for (size_t at; (at = what.find(src)) != std::string::npos;) what.replace(at, src.size(), cache_src);
      }
      if (e.code() == ErrorCode::CompileError && short_of_space(dir_of(out)))
        throw Error(
            ErrorCode::ExecutionFailed,
            what + "\n(" + dir_of(out) + " is read-only or nearly full: probably not the kernel's fault)");
      throw Error(e.code(), what);
    } catch (...) {
      ::unlink(out.c_str());
      throw;
    }
    // The source an error message names: the cache's copy when there is one, else the staged one
    // (kept after a failure until the staging dir goes at exit).
    const std::string& kept_src = cacheable ? cache_src : src;
    if (kept_src != src) ::unlink(src.c_str());
    std::string bytes;
    {
      int fd = ::open(out.c_str(), O_RDONLY | O_CLOEXEC);
      bool ok = fd >= 0 && disk::read_fd(fd, &bytes) && !bytes.empty();
      if (fd >= 0) ::close(fd);
      if (!ok) {
        ::unlink(out.c_str());
        throw Error(ErrorCode::CompileError, "cgrad: the compiler produced no shared object for " + kept_src);
      }
    }
    counters().kernels_compiled.fetch_add(1);
    const std::string trailer = cache_trailer(key, bytes);
    void* h = nullptr;
    bool published = false;
    if (cacheable) {
      std::string tmp;
      err = disk::write_temp(so, bytes, trailer, Where::Cache, &tmp);
      if (!err) {
        disk::Lock lock(r, /*exclusive=*/false);  // not evicted before our dlopen
        err = disk::publish(tmp, so, Where::Cache);
        published = err == 0;
        if (published) h = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
      }
      if (err) cannot_cache(err, so);
    }
    if (!published) h = ::dlopen(out.c_str(), RTLD_NOW | RTLD_LOCAL);  // mapped: the file may go
    ::unlink(out.c_str());
    if (!h) {
      std::string msg = ::dlerror();
      if (!published)
        throw Error(ErrorCode::ExecutionFailed,
                    "cgrad: built a kernel in " + stage +
                        " (the kernel cache cannot be written) but cannot load it: " + msg);
      ::unlink(so.c_str());
      throw Error(ErrorCode::CompileError, "cgrad: built " + so + " but cannot load it: " + msg);
    }
    if (!::dlsym(h, symbol.c_str())) {
      ::dlclose(h);
      if (published) ::unlink(so.c_str());
      throw Error(ErrorCode::CompileError, "cgrad: symbol '" + symbol + "' not found in kernel built from " +
                                               kept_src +
                                               " (it must be extern \"C\" with default visibility)");
    }
    if (kept_src == src && src != cache_src) ::unlink(src.c_str());  // built fine: the staged copy goes
    if (published) {
      const int64_t bound = core::env().cache_bytes;
      disk::record_write(r, bytes.size() + trailer.size() + source.size(), key,
                         bound > 0 ? uint64_t(bound) : 0);
    }
    return h;
  }

  // Publishes the outcome of a Pending entry and wakes its waiters.
  void finish(const std::string& mkey, const std::shared_ptr<Entry>& e, void* h, std::exception_ptr err,
              bool background) {
    std::lock_guard lk(mu);
    if (err) {
      e->state = Entry::State::Failed;
      e->error = err;
      e->retry = !is_compile_error(err);
      // A foreground caller rethrows the error itself; a transient one is not remembered.
      if (e->retry && !background) forget(mkey, e);
    } else {
      e->state = Entry::State::Ready;
      e->handle = h;
    }
    done_cv.notify_all();
  }
  void forget(const std::string& mkey, const std::shared_ptr<Entry>& e) {
    auto it = entries.find(mkey);
    if (it != entries.end() && it->second == e) entries.erase(it);
  }
  // Rethrows a Failed entry's error (forgetting it when it is transient). Caller holds `mu`.
  [[noreturn]] void rethrow(const std::string& mkey, const std::shared_ptr<Entry>& e) {
    std::exception_ptr err = e->error;
    if (e->retry) forget(mkey, e);
    std::rethrow_exception(err);
  }

  void enqueue(Job job) {
    std::lock_guard lk(mu);
    queue.push_back(std::move(job));
    const size_t max_workers = std::clamp<size_t>(std::thread::hardware_concurrency() / 2, 1, 8);
    if (idle == 0 && workers->size() < max_workers) workers->emplace_back([this] { worker(); });
    queue_cv.notify_one();
  }
  void worker() {
    for (;;) {
      Job job;
      {
        std::unique_lock lk(mu);
        ++idle;
        queue_cv.wait(lk, [&] { return stopping || !queue.empty(); });
        --idle;
        if (stopping) return;
        job = std::move(queue.front());
        queue.pop_front();
        ++running;
      }
      void* h = nullptr;
      std::exception_ptr err;
      try {
        h = build(job.key, job.source, job.symbol, job.compile);
      } catch (...) {
        err = std::current_exception();
      }
      finish(job.mkey, job.entry, h, err, /*background=*/true);
      std::lock_guard lk(mu);
      --running;
      if (queue.empty() && running == 0) idle_cv.notify_all();
    }
  }
};

KernelCache::KernelCache(std::string dir, std::string prebuilt) : impl_(std::make_unique<Impl>()) {
  impl_->requested_dir = std::move(dir);
  impl_->prebuilt = std::move(prebuilt);
  // Construct the statics the worker threads use before this object, so they outlive it at exit.
  (void)counters();
  (void)core::env();
}

KernelCache::~KernelCache() {
  std::vector<Job> dropped;
  {
    std::lock_guard lk(impl_->mu);
    impl_->stopping = true;
    for (auto& j : impl_->queue) dropped.push_back(std::move(j));
    impl_->queue.clear();
    impl_->queue_cv.notify_all();
  }
  for (auto& j : dropped)
    impl_->finish(j.mkey, j.entry, nullptr,
                  std::make_exception_ptr(Error(ErrorCode::Internal, "cgrad: kernel cache shut down")), true);
  if (::getpid() != impl_->owner) {
    // A forked child inherits the thread objects but not the threads: never join nor destroy them
    // (parked where they stay reachable, so leak checkers stay quiet).
    static auto* parked = new std::vector<std::unique_ptr<std::vector<std::thread>>>();
    parked->push_back(std::move(impl_->workers));
  } else {
    for (auto& t : *impl_->workers) t.join();
  }
  if (impl_->stage_pid == ::getpid() && !impl_->stage_dir.empty()) {
    std::error_code ec;  // loaded kernels stay mapped: unlinking their files is fine
    std::filesystem::remove_all(impl_->stage_dir, ec);
  }
}

std::string KernelCache::key(std::string_view source, std::string_view toolchain_key) {
  return content_hash(memory_key(source, toolchain_key));
}

const std::string& KernelCache::dir() const { return impl_->root(); }
std::string KernelCache::so_path(const std::string& key) const { return impl_->so_path(key); }

namespace {
void* symbol_of(void* handle, const std::string& symbol) {
  void* p = ::dlsym(handle, symbol.c_str());
  if (!p)
    throw Error(ErrorCode::Internal, "cgrad: kernel symbol '" + symbol + "' not found in its shared object");
  return p;
}
// The address of `symbol` in a Ready entry, looked up once. Called with `lk` held.
void* cached_symbol(Entry& e, const std::string& symbol, std::unique_lock<std::mutex>& lk) {
  for (const auto& [name, addr] : e.symbols)
    if (name == symbol) return addr;
  void* handle = e.handle;
  lk.unlock();
  void* addr = symbol_of(handle, symbol);
  lk.lock();
  e.symbols.emplace_back(symbol, addr);
  return addr;
}
}  // namespace

bool KernelCache::Impl::lookup(const std::string& mk, const std::string& symbol, bool wait,
                               std::shared_ptr<Entry>& e, void*& addr) {
  std::unique_lock lk(mu);
  auto [it, inserted] = entries.try_emplace(mk);
  if (inserted) {
    it->second = e = std::make_shared<Entry>();
    return false;
  }
  e = it->second;
  if (wait) done_cv.wait(lk, [&] { return e->state != Entry::State::Pending; });
  if (e->state == Entry::State::Pending) {
    addr = nullptr;
    return true;
  }
  if (e->state == Entry::State::Failed) rethrow(mk, e);
  counters().kernel_cache_hits.fetch_add(1);
  addr = cached_symbol(*e, symbol, lk);
  return true;
}

void* KernelCache::get(const std::string& source, const std::string& symbol, const std::string& toolchain_key,
                       const CompileFn& compile) {
  Impl& I = *impl_;
  // Memory hits hash the key string with std::hash; the 128-bit content key only on a miss.
  const std::string mk = memory_key(source, toolchain_key);
  std::shared_ptr<Entry> e;
  if (void* addr = nullptr; I.lookup(mk, symbol, true, e, addr)) return addr;
  const std::string k = content_hash(mk);
  void* h = nullptr;
  try {
    h = I.load(k, symbol);
    if (!h) h = I.build(k, source, symbol, compile);
  } catch (...) {
    I.finish(mk, e, nullptr, std::current_exception(), false);
    throw;
  }
  I.finish(mk, e, h, nullptr, false);
  return symbol_of(h, symbol);
}

void* KernelCache::try_get(const std::string& source, const std::string& symbol,
                           const std::string& toolchain_key, const CompileFn& compile) {
  Impl& I = *impl_;
  // Memory hits hash the key string with std::hash; the 128-bit content key only on a miss.
  const std::string mk = memory_key(source, toolchain_key);
  std::shared_ptr<Entry> e;
  if (void* addr = nullptr; I.lookup(mk, symbol, false, e, addr)) return addr;
  const std::string k = content_hash(mk);
  void* h = nullptr;
  try {
    h = I.load(k, symbol);
  } catch (...) {
    I.finish(mk, e, nullptr, std::current_exception(), false);
    throw;
  }
  if (h) {
    I.finish(mk, e, h, nullptr, false);
    return symbol_of(h, symbol);
  }
  I.enqueue(Job{mk, k, source, symbol, compile, e});
  return nullptr;
}

void KernelCache::wait_idle() {
  std::unique_lock lk(impl_->mu);
  impl_->idle_cv.wait(lk, [&] { return impl_->queue.empty() && impl_->running == 0; });
}

KernelCache& kernel_cache() {
  static KernelCache cache({}, default_prebuilt_dir());
  return cache;
}

}  // namespace cgrad::runtime
