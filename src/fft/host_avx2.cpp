// fft/butterflies.inc on 4 lines at once (AVX2: 256-bit vectors of doubles). Built with -mavx2 and -O3
// (src/CMakeLists.txt); host.cpp calls it only where the CPU has the instructions.
#include "fft/host.h"
#include "fft/lanes.h"

namespace cgrad::fft::host {

namespace {

constexpr int kWidth = 4;
#include "fft/butterflies.inc"

}  // namespace

void forward_lanes_avx2(const PlanView& pl, const double* a, double* b, int64_t fs, int64_t s) {
  forward_interleaved(pl, a, b, fs, s);
}

}  // namespace cgrad::fft::host
