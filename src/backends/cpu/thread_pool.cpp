// ThreadPool: one job at a time, published through two atomics.
//
// `claim_` packs (job generation : 32 | next chunk : 16 | chunk count : 16). A thread takes chunk
// `next` of generation g with one CAS, which can only succeed while g is the current job and a
// chunk is left, so a worker that wakes late can never take a chunk of the wrong job, and the job
// fields it then reads cannot change under it (the dispatcher waits for all chunks before it
// reuses them). `epoch_` is the futex workers sleep on; `done_` counts finished chunks.
#include "backends/cpu/thread_pool.h"

#include "core/env.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace cgrad::backends::cpu {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polling time before a worker (or the waiting caller) sleeps: back-to-back kernels and
// evaluations (host gaps of microseconds) find the workers awake, since a sleeping worker can
// take milliseconds to get a CPU back on a busy machine; an idle process stops spinning after
// it (libgomp spins for a comparable time by default).
constexpr auto kSpinTime = std::chrono::microseconds(500);

// Polls `ready` for up to kSpinTime (the clock is read every 64 polls); true once it holds.
template <class Ready>
bool spin_until(Ready ready) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned i = 1;; ++i) {
    if (ready()) return true;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() - start > kSpinTime) return false;
  }
}
constexpr int kMaxThreads = 0xffff;

thread_local bool t_inside_job = false;   // nested parallel_for runs inline
std::atomic<bool> g_forked_child{false};  // the pool's threads do not exist in a forked child

uint64_t pack(uint32_t gen, uint32_t next, uint32_t count) {
  return (uint64_t{gen} << 32) | (uint64_t{next} << 16) | count;
}

}  // namespace

Partition partition(int64_t n, int64_t grain, int threads) {
  if (n <= 0) return {n < 0 ? 0 : n, 0};
  grain = std::max<int64_t>(grain, 1);
  const int64_t by_grain = n / grain + (n % grain != 0);
  return {n, std::max<int64_t>(1, std::min<int64_t>(by_grain, std::max(threads, 1)))};
}

struct ThreadPool::Impl {
  int threads = 1;
  std::unique_ptr<std::vector<std::thread>> workers = std::make_unique<std::vector<std::thread>>();
  pid_t owner = ::getpid();

  alignas(64) std::atomic<uint64_t> claim{0};
  alignas(64) std::atomic<uint32_t> epoch{0};
  alignas(64) std::atomic<uint32_t> done{0};
  alignas(64) std::atomic<int> sleepers{0};
  std::atomic<bool> caller_waiting{false};
  std::atomic<bool> stop{false};
  // Sleeping uses a mutex and condition variables, not std::atomic::wait: GCC 12's atomic
  // wait/notify lost wake-ups here (a worker never woke for shutdown: a hang at exit).
  std::mutex sleep_mu, done_mu;
  std::condition_variable sleep_cv, done_cv;
  std::mutex dispatch;  // one job at a time; a second concurrent caller runs inline

  // The current job (written before `claim` is published, read after a successful claim).
  uint32_t gen = 0;
  Partition part;
  FunctionRef<void(int64_t, int64_t, int64_t)>* fn = nullptr;
  std::mutex err_mu;
  std::exception_ptr err;
  int64_t err_chunk = std::numeric_limits<int64_t>::max();

  void run_chunk(int64_t c) {
    try {
      (*fn)(c, part.begin(c), part.end(c));
    } catch (...) {
      std::lock_guard lk(err_mu);
      if (c < err_chunk) {
        err_chunk = c;
        err = std::current_exception();
      }
    }
  }

  // Takes and runs chunks of job `g` until none is left.
  void work(uint32_t g) {
    uint64_t s = claim.load(std::memory_order_acquire);
    for (;;) {
      const uint32_t next = (s >> 16) & 0xffff, count = s & 0xffff;
      if (static_cast<uint32_t>(s >> 32) != g || next >= count) return;
      if (!claim.compare_exchange_weak(s, s + (uint64_t{1} << 16), std::memory_order_acq_rel,
                                       std::memory_order_acquire))
        continue;
      run_chunk(next);
      if (done.fetch_add(1) + 1 == count && caller_waiting.load()) {
        std::lock_guard<std::mutex> lk(done_mu);
        done_cv.notify_all();
      }
      s = claim.load(std::memory_order_acquire);
    }
  }

  // `seen` starts at the epoch before any job or stop: a late-starting worker misses nothing.
  void worker_loop(uint32_t seen) {
    t_inside_job = true;
    for (;;) {
      uint32_t e = seen;
      if (!spin_until([&] { return (e = epoch.load(std::memory_order_acquire)) != seen; })) {
        std::unique_lock<std::mutex> lk(sleep_mu);
        sleepers.fetch_add(1);
        sleep_cv.wait(lk, [&] { return (e = epoch.load()) != seen || stop.load(); });
        sleepers.fetch_sub(1);
      }
      if (stop.load(std::memory_order_acquire)) return;
      seen = e;
      work(e);
    }
  }

  void wait_done(uint32_t count) {
    if (spin_until([&] { return done.load(std::memory_order_acquire) == count; })) return;
    std::unique_lock<std::mutex> lk(done_mu);
    caller_waiting.store(true);
    done_cv.wait(lk, [&] { return done.load() == count; });
    caller_waiting.store(false);
  }
};

ThreadPool::ThreadPool(int threads) : impl_(std::make_unique<Impl>()) {
  impl_->threads = std::clamp(threads, 1, kMaxThreads);
  static std::once_flag atfork_once;
  std::call_once(atfork_once, [] { ::pthread_atfork(nullptr, nullptr, [] { g_forked_child.store(true); }); });
  const uint32_t epoch0 = impl_->epoch.load();
  for (int i = 1; i < impl_->threads; ++i)
    impl_->workers->emplace_back([this, epoch0] { impl_->worker_loop(epoch0); });
}

ThreadPool::~ThreadPool() {
  if (::getpid() != impl_->owner) {
    // A forked child inherits the thread objects but not the threads: never join nor destroy them
    // (parked where they stay reachable, so leak checkers stay quiet).
    static auto* parked = new std::vector<std::unique_ptr<std::vector<std::thread>>>();
    parked->push_back(std::move(impl_->workers));
    return;
  }
  impl_->stop.store(true);
  impl_->epoch.fetch_add(1);
  { std::lock_guard<std::mutex> lk(impl_->sleep_mu); }
  impl_->sleep_cv.notify_all();
  for (auto& t : *impl_->workers) t.join();
}

int ThreadPool::num_threads() const { return impl_->threads; }

void ThreadPool::parallel_for(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn) {
  parallel_chunks(n, grain, [&fn](int64_t, int64_t b, int64_t e) { fn(b, e); });
}

void ThreadPool::parallel_chunks(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t, int64_t)> fn) {
  Impl& I = *impl_;
  const Partition p = cpu::partition(n, grain, I.threads);
  if (p.chunks == 0) return;
  std::unique_lock lk(I.dispatch, std::defer_lock);
  if (p.chunks == 1 || t_inside_job || g_forked_child.load(std::memory_order_relaxed) || !lk.try_lock()) {
    // Inline, same chunks in order: the first exception stops the loop.
    const bool outer = t_inside_job;
    t_inside_job = true;
    try {
      for (int64_t c = 0; c < p.chunks; ++c) fn(c, p.begin(c), p.end(c));
    } catch (...) {
      t_inside_job = outer;
      throw;
    }
    t_inside_job = outer;
    return;
  }
  const uint32_t count = static_cast<uint32_t>(p.chunks);
  I.part = p;
  I.fn = &fn;
  I.err = nullptr;
  I.err_chunk = std::numeric_limits<int64_t>::max();
  I.done.store(0, std::memory_order_relaxed);
  const uint32_t g = ++I.gen == 0 ? ++I.gen : I.gen;  // 0 never names a job
  I.claim.store(pack(g, 0, count), std::memory_order_release);
  I.epoch.store(g);
  if (I.sleepers.load() > 0) {
    {
      std::lock_guard<std::mutex> wake(I.sleep_mu);  // a worker is either asleep or will see the epoch
    }
    I.sleep_cv.notify_all();
  }
  t_inside_job = true;
  I.work(g);
  I.wait_done(count);
  t_inside_job = false;
  std::exception_ptr err = std::move(I.err);
  I.err = nullptr;
  lk.unlock();
  if (err) std::rethrow_exception(err);
}

ThreadPool& thread_pool() {
  static ThreadPool pool([] {
    int t = core::env().num_threads;
    return t > 0 ? t : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }());
  return pool;
}

int num_threads() { return thread_pool().num_threads(); }

void parallel_for(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn) {
  thread_pool().parallel_for(n, grain, fn);
}

}  // namespace cgrad::backends::cpu
