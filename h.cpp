#include <cmath>
extern "C" void hexp64(const double* __restrict x, double* __restrict y, long n) {
  for (long i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}
extern "C" void hexp32(const float* __restrict x, float* __restrict y, long n) {
  for (long i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}
