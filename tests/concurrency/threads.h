// Helpers of the concurrency tests: start threads together, collect their exceptions.
#pragma once

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <cmath>
#include <exception>
#include <latch>
#include <string>
#include <thread>
#include <vector>

namespace ct {

/// Runs fn(t) for t in [0, n) on n threads released at the same moment (a latch), joins them,
/// and rethrows the first exception a thread raised.
template <class F>
void run_threads(int n, F&& fn) {
  std::latch start(n);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      try {
        fn(t);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
    });
  for (auto& th : threads) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// Element-wise comparison with a relative tolerance (the reference is a single-threaded
/// recomputation; where the graph is cut into kernels may differ, so allow reassociation).
inline void expect_close(const std::vector<float>& got, const std::vector<float>& want,
                         const std::string& what, double rel = 1e-5) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], rel * (1 + std::fabs(want[i]))) << what << ", element " << i;
}

}  // namespace ct
