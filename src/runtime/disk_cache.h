// Housekeeping of the on-disk kernel caches under one root (the CPU JIT's shared objects and the
// CUDA backend's cubins): writing files so that no reader ever sees half of one, a lock file that
// orders loads and publishes against eviction across processes, the size bound
// (CGRAD_CACHE_BYTES) with least-recently-used eviction, and a test hook that makes writes fail
// the way a full or read-only disk does. KernelCache (kernel_cache.cpp) decides what to write;
// this file only knows files. docs/jit.md, "Disk bound and eviction", has the whole story.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cgrad::runtime::disk {

/// Where a write goes: into a cache root (persistent, shared between processes) or into this
/// process's private staging directory under $TMPDIR (compiler output, spill-over).
enum class Where { Cache, Staging };

/// Test hook: while `err` is non-zero, every write to `where` (mkdir, create, write, rename,
/// lock-file creation, mtime touch) fails with errno `err`, as on a full (ENOSPC) or read-only
/// (EROFS) filesystem. Root ignores permission bits, so tests use this instead of chmod there.
void inject_write_error(Where where, int err);
/// The injected errno for `where` (0: none).
int injected_write_error(Where where);

/// Creates `path` and its missing parents with mode 0700. 0, or the errno of the failure.
int make_dirs(const std::string& path, Where where);

/// A name in the directory of `path` no other thread or process will pick: `path` +
/// ".tmp.<pid>.<nonce>.<seq>".
std::string temp_name(const std::string& path);

/// Writes `a` then `b` to a new temp file beside `path`; `*tmp` is its name. 0 or errno (the
/// temp file is removed on failure).
int write_temp(const std::string& path, std::string_view a, std::string_view b, Where where,
               std::string* tmp);
/// rename(tmp, path), honouring the hook; removes `tmp` on failure. 0 or errno.
int publish(const std::string& tmp, const std::string& path, Where where);
/// write_temp + publish: `path` is absent-or-complete at every instant. 0 or errno.
int write_atomically(const std::string& path, std::string_view data, Where where);

/// Reads the whole file at `fd` from offset 0; false on a read error.
bool read_fd(int fd, std::string* out);

/// flock() on <root>/.lock: shared for a load or a publish (read or rename, then dlopen),
/// exclusive for eviction, so an entry is never deleted between its check and its dlopen.
/// Each Lock opens its own descriptor (flock locks belong to open file descriptions, so two
/// threads of one process never share or release each other's lock). Without a lock file
/// that can be opened (a read-only cache nobody evicts from) it is a no-op.
class Lock {
 public:
  Lock(const std::string& root, bool exclusive);
  ~Lock();
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  int fd_ = -1;
};

/// Records a hit on an entry: its mtime becomes now (the LRU clock). Best effort.
void touch(int fd);
void touch(const std::string& path);

/// After publishing `bytes` new bytes of the entry `keep` (a key) under `root`: adds them to
/// <root>/.usage and, when the total passes `bound` (0 = unbounded), rescans the cache and
/// deletes least recently used entries (never `keep`) down to 90% of the bound.
/// Returns the number of entries deleted. Never throws.
int record_write(const std::string& root, uint64_t bytes, std::string_view keep, uint64_t bound);

struct Usage {
  uint64_t bytes = 0;    ///< entries' files (.so, .cpp, .cubin, .cu), temp files excluded
  uint64_t entries = 0;  ///< keys with a shared object or cubin
};
/// Scans `root` (no lock, no deletion): what the bound counts.
Usage usage(const std::string& root);

}  // namespace cgrad::runtime::disk
