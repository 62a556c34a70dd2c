// The CPU backend's persistent thread pool: parallel_for over [0, n) in static chunks.
//
// Chunk boundaries depend only on (n, grain, thread count), never on timing, so a reduction that
// writes one partial per chunk and combines them in chunk order gives the same bits on every run
// (parallel_chunks passes the chunk index for that). The calling thread runs chunks too; a range
// of one chunk, a nested call (from inside a chunk) and a call while another thread is using the
// pool all run inline on the caller. Dispatch is lock-free: workers spin briefly after a job, then
// sleep on a futex (std::atomic::wait). An exception thrown by a chunk is rethrown to the caller
// after every chunk has finished (the one of the lowest chunk index, so it is deterministic too).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace cgrad::backends::cpu {

/// A non-owning reference to a callable (no allocation; one indirect call). It must not outlive
/// the callable: use it as a parameter, as parallel_for does.
template <class Sig>
class FunctionRef;
template <class R, class... A>
class FunctionRef<R(A...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                              std::is_invocable_r_v<R, F&, A...>>>
  FunctionRef(F&& f) noexcept  // NOLINT(google-explicit-constructor): lambdas convert implicitly
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))), call_([](void* o, A... a) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<A>(a)...);
        }) {}
  R operator()(A... a) const { return call_(obj_, std::forward<A>(a)...); }

 private:
  void* obj_;
  R (*call_)(void*, A...);
};

/// The static split of [0, n) into `chunks` nearly equal ranges (sizes differ by at most one).
struct Partition {
  int64_t n = 0, chunks = 0;
  int64_t begin(int64_t i) const { return i * (n / chunks) + (i < n % chunks ? i : n % chunks); }
  int64_t end(int64_t i) const { return begin(i + 1); }
};

/// min(threads, ceil(n / grain)) chunks (grain < 1 counts as 1; n <= 0 gives no chunk).
Partition partition(int64_t n, int64_t grain, int threads);

class ThreadPool {
 public:
  /// `threads` counts the caller: threads - 1 workers are started (at least 1 thread in all).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const;
  Partition partition(int64_t n, int64_t grain) const { return cpu::partition(n, grain, num_threads()); }
  /// fn(begin, end) once for each chunk of partition(n, grain); returns when all are done.
  void parallel_for(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn);
  /// fn(chunk, begin, end): the same, with the chunk index in [0, partition(n, grain).chunks).
  void parallel_chunks(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t, int64_t)> fn);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The process-wide pool: CGRAD_NUM_THREADS threads, default std::thread::hardware_concurrency().
ThreadPool& thread_pool();
/// thread_pool().num_threads().
int num_threads();
/// thread_pool().parallel_for(n, grain, fn).
void parallel_for(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn);

}  // namespace cgrad::backends::cpu
