// cgrad::fft from several threads (docs/fft.md): threads transform a shared pending input with
// lengths whose plans no thread has built yet (more than the plan cache keeps, so it is emptied
// while others read plans from it), through the batched and Bluestein paths; every result equals
// the single-threaded transform bit for bit (a line's result does not depend on the split).
#include "threads.h"

#include <cgrad/scalar.hpp>

namespace {

using namespace cgrad;
using ct::run_threads;

std::vector<complex128_t> values(const Tensor& t) { return t.cast(DType::c128).to_vector<complex128_t>(); }

bool same(const std::vector<complex128_t>& a, const std::vector<complex128_t>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].re != b[i].re || a[i].im != b[i].im) return false;
  return true;
}

TEST(ThreadsFft, TransformsFromSeveralThreadsMatchTheSingleThreadedOnes) {
  std::vector<double> re(4 * 300), im(re.size());
  for (std::size_t i = 0; i < re.size(); ++i) {
    re[i] = std::sin(0.37 * static_cast<double>(i));
    im[i] = std::cos(0.11 * static_cast<double>(i));
  }
  const Tensor base = complex(tensor(re, {4, 300}), tensor(im, {4, 300}));
  const Tensor x = base * 2.0;                // shared and pending: every thread's first use evaluates it
  constexpr int kThreads = 6, kLengths = 80;  // lengths 100 .. 179: past the cache's 64 plans
  auto run = [&](int64_t len) {
    const Tensor y = fft::fft(x, len) + fft::irfft(fft::rfft(real(x), len), len).cast(DType::c128);
    return values(y);
  };
  std::vector<std::vector<complex128_t>> want;
  for (int k = 0; k < kLengths; ++k) want.push_back(run(100 + k));
  run_threads(kThreads, [&](int t) {
    for (int k = 0; k < kLengths; ++k) {
      const int j = (k * 7 + t * 13) % kLengths;  // threads walk the lengths in different orders
      if (!same(run(100 + j), want[static_cast<std::size_t>(j)]))
        throw std::runtime_error("thread " + std::to_string(t) + ": length " + std::to_string(100 + j) +
                                 " differs");
    }
  });
}

}  // namespace
