// On-disk cache housekeeping: atomic writes, the cross-process lock, the size bound and LRU eviction.
//
// Invariants:
//  - a cache file is only ever created under a unique temp name and published by rename();
//    eviction only unlink()s. So a reader sees a whole file or none, and a file another
//    process has mapped stays valid after it is evicted (POSIX keeps the inode until unmapped);
//  - loads and publishes hold <root>/.lock shared from their check (or rename) to their dlopen,
//    eviction holds it exclusive: an entry is never deleted between verification and mapping;
//  - <root>/.usage is a hint (bytes of all entries) kept under the exclusive lock. Concurrent
//    publishes of one key or entries deleted as corrupt only make it too high, which triggers
//    an early rescan that corrects it; a missing or unreadable file means "rescan".
#include "runtime/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <ctime>
#include <map>
#include <random>
#include <vector>

namespace cgrad::runtime::disk {

namespace {

std::atomic<int> g_injected[2] = {0, 0};

int injected(Where w) { return g_injected[static_cast<int>(w)].load(std::memory_order_relaxed); }

// Temp files of a process that died mid-write, and sources whose compile never produced an
// object, are deleted by a scan once they are this old (a live compile is much shorter).
constexpr int64_t kStaleNs = int64_t(3600) * 1'000'000'000;

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t w = ::write(fd, data.data(), data.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(w));
  }
  return true;
}

int64_t ns_of(const timespec& t) { return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }
int64_t now_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return ns_of(t);
}

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// One cache entry: the files of one key in one shard (<key>.so + <key>.cpp, or .cubin + .cu).
struct Item {
  uint64_t bytes = 0;
  int64_t last_use_ns = 0;  // newest mtime of its files (a hit touches the object)
  bool object = false;      // has a .so or .cubin (else: a source whose compile is running or failed)
  std::string stem;
  std::vector<std::string> files;
};

void scan_shard(const std::string& dir, int64_t now, bool clean, std::map<std::string, Item>& items) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    struct stat st {};
    if (name[0] == '.' || ::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    if (name.find(".tmp.") != std::string::npos) {
      if (clean && now - ns_of(st.st_mtim) > kStaleNs) ::unlinkat(::dirfd(d), name.c_str(), 0);
      continue;
    }
    const size_t dot = name.find('.');
    const std::string stem = name.substr(0, dot), ext = dot == std::string::npos ? "" : name.substr(dot + 1);
    if (stem.size() != 32 || !is_hex(stem) || (ext != "so" && ext != "cpp" && ext != "cubin" && ext != "cu"))
      continue;
    Item& it = items[dir + "/" + stem];
    it.stem = stem;
    it.bytes += static_cast<uint64_t>(st.st_size);
    it.last_use_ns = std::max(it.last_use_ns, ns_of(st.st_mtim));
    it.object = it.object || ext == "so" || ext == "cubin";
    it.files.push_back(dir + "/" + name);
  }
  ::closedir(d);
}

// Every entry under `root`: the CPU shards <root>/<xx>/ and the CUDA ones <root>/cuda/<xx>/.
std::map<std::string, Item> scan(const std::string& root, bool clean) {
  std::map<std::string, Item> items;
  const int64_t now = now_ns();
  for (const std::string& base : {root, root + "/cuda"}) {
    DIR* d = ::opendir(base.c_str());
    if (!d) continue;
    std::vector<std::string> shards;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name.size() == 2 && is_hex(name)) shards.push_back(base + "/" + name);
    }
    ::closedir(d);
    for (const auto& s : shards) scan_shard(s, now, clean, items);
  }
  return items;
}

bool read_usage(int fd, uint64_t* out) {
  char buf[32] = {};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return false;
  uint64_t v = 0;
  for (ssize_t i = 0; i < n; ++i) {
    if (buf[i] == '\n') return i > 0 && (*out = v, true);
    if (buf[i] < '0' || buf[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(buf[i] - '0');
  }
  return false;  // no newline: torn by a crash mid-write
}
void write_usage(int fd, uint64_t v) {
  const std::string s = std::to_string(v) + "\n";
  if (::pwrite(fd, s.data(), s.size(), 0) == static_cast<ssize_t>(s.size()))
    (void)::ftruncate(fd, static_cast<off_t>(s.size()));
}

}  // namespace

void inject_write_error(Where where, int err) { g_injected[static_cast<int>(where)].store(err); }
int injected_write_error(Where where) { return injected(where); }

int make_dirs(const std::string& path, Where where) {
  if (int e = injected(where)) return e;
  if (path.empty()) return ENOENT;
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos == path.size() || path[pos] == '/') {
      std::string prefix = path.substr(0, pos);
      if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return errno;
    }
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno;
  if (!S_ISDIR(st.st_mode)) return ENOTDIR;
  return ::access(path.c_str(), W_OK | X_OK) == 0 ? 0 : errno;
}

std::string temp_name(const std::string& path) {
  static const uint32_t nonce = std::random_device{}();
  static std::atomic<uint64_t> seq{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(nonce) + "." +
         std::to_string(seq++);
}

int write_temp(const std::string& path, std::string_view a, std::string_view b, Where where,
               std::string* tmp) {
  if (int e = injected(where)) return e;
  *tmp = temp_name(path);
  int fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  int err = 0;
  if (!write_all(fd, a) || !write_all(fd, b)) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS reports a full disk at close
  if (err) ::unlink(tmp->c_str());
  return err;
}

int publish(const std::string& tmp, const std::string& path, Where where) {
  int err = injected(where);
  if (!err && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err) ::unlink(tmp.c_str());
  return err;
}

int write_atomically(const std::string& path, std::string_view data, Where where) {
  std::string tmp;
  if (int e = write_temp(path, data, {}, where, &tmp)) return e;
  return publish(tmp, path, where);
}

bool read_fd(int fd, std::string* out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  out->resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out->size()) {
    ssize_t r = ::pread(fd, out->data() + got, out->size() - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

Lock::Lock(const std::string& root, bool exclusive) {
  if (root.empty()) return;
  const std::string path = root + "/.lock";
  if (!injected(Where::Cache)) fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // read-only cache: lock if the file exists
  if (fd_ < 0) return;
  int rc;
  while ((rc = ::flock(fd_, exclusive ? LOCK_EX : LOCK_SH)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}
Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);  // closing the description releases the lock
}

void touch(int fd) {
  if (!injected(Where::Cache)) (void)::futimens(fd, nullptr);
}
void touch(const std::string& path) {
  if (!injected(Where::Cache)) (void)::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
}

int record_write(const std::string& root, uint64_t bytes, std::string_view keep, uint64_t bound) {
  if (root.empty() || injected(Where::Cache)) return 0;
  Lock lock(root, /*exclusive=*/true);
  int fd = ::open((root + "/.usage").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return 0;
  uint64_t total = 0;
  if (read_usage(fd, &total) && (bound == 0 || total + bytes <= bound)) {
    write_usage(fd, total + bytes);
    ::close(fd);
    return 0;
  }
  // Over the bound, or no valid count: the truth from a scan (which also sees what was
  // published since the last one, and what a crash or a user deleted).
  std::map<std::string, Item> items = scan(root, /*clean=*/true);
  total = 0;
  std::vector<Item*> order;
  for (auto& [path, it] : items) {
    total += it.bytes;
    if (it.stem != keep) order.push_back(&it);
  }
  int evicted = 0;
  if (bound != 0 && total > bound) {
    // Least recently used first; the path breaks ties (mtimes can be equal within a clock tick).
    std::sort(order.begin(), order.end(), [](const Item* a, const Item* b) {
      return a->last_use_ns != b->last_use_ns ? a->last_use_ns < b->last_use_ns : a->files < b->files;
    });
    const uint64_t low = bound - bound / 10;  // evict to 90%: one rescan per tenth of the bound written
    const int64_t now = now_ns();
    for (Item* it : order) {
      if (total <= low) break;
      // A source without an object is a compile in progress (or one that failed): left alone
      // until it is stale.
      if (!it->object && now - it->last_use_ns <= kStaleNs) continue;
      for (const auto& f : it->files) ::unlink(f.c_str());
      total -= it->bytes;
      evicted += it->object ? 1 : 0;
    }
  }
  write_usage(fd, total);
  ::close(fd);
  return evicted;
}

Usage usage(const std::string& root) {
  Usage u;
  for (const auto& [path, it] : scan(root, /*clean=*/false)) {
    u.bytes += it.bytes;
    u.entries += it.object ? 1 : 0;
  }
  return u;
}

}  // namespace cgrad::runtime::disk
