// Host allocation through a caching pool. Fresh large buffers cost page faults on first touch
// (about 15x the time of writing a reused buffer, shared/anchors), so freed blocks are kept by
// size and handed out again; the cache is bounded (CGRAD_POOL_BYTES, default 2 GiB) and is
// emptied before an allocation is reported as OutOfMemory.
//
// With CGRAD_HUGE_PAGES=1, blocks of 4 MiB and more are aligned to 2 MiB and offered to the
// kernel for transparent huge pages (madvise MADV_HUGEPAGE, as NumPy does): a first touch then
// faults once per 2 MiB instead of once per 4 KiB. Off by default: on VMs whose balloon reports
// free memory to the host, a huge page's first touch costs the host's fault too (docs/env.md).
#include "core/env.hpp"
#include "runtime/backend.h"
#include "runtime/stats.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace cgrad::runtime {

namespace {

constexpr std::size_t kAlign = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugeFrom = 2 * kHugePage;  // NumPy's threshold too

bool huge(std::size_t n) { return n >= kHugeFrom && core::env().huge_pages; }

std::size_t rounded(std::size_t n) {
  if (n == 0) return kAlign;
  if (n <= (1u << 16)) return (n + kAlign - 1) / kAlign * kAlign;
  if (huge(n)) return (n + kHugePage - 1) / kHugePage * kHugePage;
  return (n + 4095) / 4096 * 4096;
}

// A fresh block of `size` bytes (a multiple of the huge page when huge(size)), or nullptr.
void* fresh(std::size_t size) {
  if (!huge(size)) return std::aligned_alloc(kAlign, size);
  void* p = std::aligned_alloc(kHugePage, size);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p) madvise(p, size, MADV_HUGEPAGE);  // advice: a kernel without THP refuses it, harmlessly
#endif
  return p;
}

class HostPool {
 public:
  ~HostPool() {
    std::lock_guard<std::mutex> lock(mu_);
    alive_ = false;
    for (auto& [size, p] : free_) std::free(p);
    free_.clear();
  }

  void* take(std::size_t size) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      // the smallest cached block that fits without wasting more than half of it
      auto it = free_.lower_bound(size);
      if (it != free_.end() && it->first <= 2 * size) {
        void* p = it->second;
        cached_ -= it->first;
        block_size_[p] = it->first;
        free_.erase(it);
        return p;
      }
    }
    void* p = fresh(size);
    if (!p) {
      trim(0);
      p = fresh(size);
    }
    if (p) {
      std::lock_guard<std::mutex> lock(mu_);
      block_size_[p] = size;
    }
    return p;
  }

  void give(void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!alive_) {
      std::free(p);
      return;
    }
    auto it = block_size_.find(p);
    std::size_t size = it == block_size_.end() ? 0 : it->second;
    if (it != block_size_.end()) block_size_.erase(it);
    const std::size_t limit = static_cast<std::size_t>(core::env().pool_bytes);
    if (size == 0 || size > limit) {
      std::free(p);
      return;
    }
    free_.emplace(size, p);
    cached_ += size;
    while (cached_ > limit && !free_.empty()) {  // drop the largest blocks first
      auto last = std::prev(free_.end());
      cached_ -= last->first;
      std::free(last->second);
      free_.erase(last);
    }
  }

  void trim(std::size_t keep) {
    std::lock_guard<std::mutex> lock(mu_);
    while (cached_ > keep && !free_.empty()) {
      auto last = std::prev(free_.end());
      cached_ -= last->first;
      std::free(last->second);
      free_.erase(last);
    }
  }

  std::size_t cached() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }

 private:
  mutable std::mutex mu_;
  bool alive_ = true;
  std::multimap<std::size_t, void*> free_;
  std::map<void*, std::size_t> block_size_;
  std::size_t cached_ = 0;
};

HostPool& pool() {
  static HostPool* p = new HostPool();  // never destroyed: storages may be freed during exit
  return *p;
}

void release_host(void* p, std::size_t nbytes) {
  counters().sub_in_use(nbytes);
  pool().give(p);
}

}  // namespace

std::shared_ptr<ir::Storage> allocate_host(std::size_t nbytes) {
  auto s = std::make_shared<ir::Storage>();
  void* p = pool().take(rounded(nbytes));
  if (!p)
    throw Error(ErrorCode::OutOfMemory,
                "cannot allocate " + std::to_string(nbytes) + " bytes of host memory");
  s->data = p;
  s->nbytes = nbytes;
  s->device = Device::cpu();
  s->release = release_host;
  counters().bytes_allocated.fetch_add(nbytes, std::memory_order_relaxed);
  counters().add_in_use(nbytes);
  return s;
}

std::size_t host_pool_cached_bytes() { return pool().cached(); }
void host_pool_trim() { pool().trim(0); }

struct HostPrefault::Impl {
  std::vector<std::size_t> sizes;  // rounded, in the order the run takes them
  std::vector<void*> blocks;       // taken from the pool by start()
  std::atomic<bool> stop{false};
  std::once_flag once;
  std::thread thread;

  // One write per 4 KiB page faults it in (the kernel zeroes it); `stop` is read every 64 KiB.
  // madvise(MADV_POPULATE_WRITE) was no faster here (64 MiB: 20-24 ms either way, 2026-12-02).
  void touch() noexcept {
    constexpr std::size_t kPage = 4096, kCheck = std::size_t{64} << 10;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      auto* bytes = static_cast<volatile unsigned char*>(blocks[b]);
      for (std::size_t off = 0; off < sizes[b]; off += kPage) {
        if (off % kCheck == 0 && stop.load(std::memory_order_relaxed)) return;
        bytes[off] = 0;
      }
    }
  }
};

HostPrefault::HostPrefault(const std::vector<std::size_t>& nbytes) : impl_(std::make_unique<Impl>()) {
  constexpr std::size_t kFrom = std::size_t{1} << 20;
  const std::size_t budget = static_cast<std::size_t>(core::env().pool_bytes) / 2;
  std::size_t total = 0;
  for (std::size_t n : nbytes) {
    if (n < kFrom) continue;
    const std::size_t r = rounded(n);
    if (total + r > budget) break;
    total += r;
    impl_->sizes.push_back(r);
  }
}

// The blocks are taken here, on the calling thread (no page is touched: the allocator maps them),
// so which blocks end in the pool does not depend on how far the thread gets.
void HostPrefault::start() {
  std::call_once(impl_->once, [this] {
    Impl& s = *impl_;
    try {
      s.blocks.reserve(s.sizes.size());
      for (std::size_t size : s.sizes) {
        void* p = pool().take(size);
        if (!p) break;
        s.blocks.push_back(p);
      }
      s.sizes.resize(s.blocks.size());
      std::size_t total = 0;
      for (std::size_t size : s.sizes) total += size;
      counters().bytes_prefaulted.fetch_add(total, std::memory_order_relaxed);
      if (!s.blocks.empty()) s.thread = std::thread([&s] { s.touch(); });
    } catch (...) {  // no memory for the list or no thread: the run faults its pages itself
    }
  });
}

HostPrefault::~HostPrefault() {
  impl_->stop.store(true, std::memory_order_relaxed);
  if (impl_->thread.joinable()) impl_->thread.join();
  for (void* p : impl_->blocks) pool().give(p);
}

}  // namespace cgrad::runtime
