// KernelCache: kernel source text -> shared object -> symbol address, content-addressed.
//
// A kernel is compiled at most once per process (an in-memory map from key to dlopen handle;
// concurrent requests for one key wait for the one build) and at most once per machine (an
// on-disk cache, <dir>/<key[0:2]>/<key>.so). The key is a 128-bit FNV-1a of the toolchain key
// (compiler identity, flags, CPU) and the source, so anything that changes the machine code
// changes the key. Disk entries are published by an atomic rename() of a finished temp file and
// carry a trailer (magic, key, payload size, checksum): a torn, truncated, foreign or unloadable
// entry is deleted and rebuilt, never loaded. The compiler itself is passed in (CompileFn): the
// runtime does not know about backends. docs/jit.md has the whole story.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace cgrad::runtime {

/// Builds the shared object `so_path` from the source file `src_path`; throws cgrad::Error
/// (CompileError) on failure. Called from the requesting thread or a background thread.
using CompileFn = std::function<void(const std::string& src_path, const std::string& so_path)>;

/// 128-bit FNV-1a of `data` as 32 lowercase hex digits (deterministic on every platform).
std::string content_hash(std::string_view data);

/// Root of the on-disk kernel cache: CGRAD_CACHE_DIR, else $XDG_CACHE_HOME/cgrad, else
/// $HOME/.cache/cgrad, else a private directory under $TMPDIR (or /tmp) when none of those can
/// be created or written. Created on first call with mode 0700; resolved once per process.
const std::string& default_cache_dir();

/// Prebuilt kernels the process-wide cache reads after a miss in its own directory (read-only, the
/// same layout; a wheel ships the kernels of common graphs there, docs/jit.md "Prebuilt kernels"):
/// CGRAD_PREBUILT_KERNELS, else the directory `cgrad-kernels` beside the binary that holds cgrad
/// (the Python package's directory); "" when CGRAD_PREBUILT_KERNELS is 0. Resolved once.
const std::string& default_prebuilt_dir();

/// Creates `path` and its missing parents with mode 0700; true when it is a writable directory.
bool make_private_dirs(const std::string& path);

/// The trailer appended to a cached shared object (exposed for tests that forge entries).
std::string cache_trailer(std::string_view key, std::string_view payload);

class KernelCache {
 public:
  /// `dir` is the on-disk root; "" means default_cache_dir(), resolved on first use. `prebuilt`,
  /// when not "", is a read-only directory of the same layout looked at after a miss in `dir`.
  explicit KernelCache(std::string dir = {}, std::string prebuilt = {});
  /// Waits for background compiles still running (a queued one that has not started is dropped).
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  /// Address of `symbol` in the shared object built from `source`. Memory hit, else disk hit,
  /// else `compile` (blocking). Throws CompileError from `compile`; a compile error is
  /// remembered, so asking again for the same key rethrows it without compiling.
  void* get(const std::string& source, const std::string& symbol, const std::string& toolchain_key,
            const CompileFn& compile);

  /// Like get() but never compiles on the calling thread: returns nullptr at once when the kernel
  /// is not loaded yet and starts one background compile for its key (a disk hit is loaded
  /// synchronously: it costs a fraction of a millisecond). Rethrows the error of a failed
  /// background compile.
  void* try_get(const std::string& source, const std::string& symbol, const std::string& toolchain_key,
                const CompileFn& compile);

  /// Blocks until no background compile is queued or running.
  void wait_idle();

  /// The cache key of (source, toolchain_key): 32 hex digits.
  static std::string key(std::string_view source, std::string_view toolchain_key);
  /// On-disk root of this cache (resolves the default on first call).
  const std::string& dir() const;
  /// Where the shared object for `key` lives: <dir>/<key[0:2]>/<key>.so (its source: .cpp).
  std::string so_path(const std::string& key) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The process-wide cache over default_cache_dir() and default_prebuilt_dir(); destroyed (threads
/// joined) at exit.
KernelCache& kernel_cache();

}  // namespace cgrad::runtime
