#include <chrono>
#include <cstdio>
#include <vector>
extern "C" void kexp64(const double*, double*, long); extern "C" void kexp32(const float*, float*, long);
extern "C" void hexp64(const double*, double*, long); extern "C" void hexp32(const float*, float*, long);
template <class F> double t(F f) { double best = 1e9; for (int r = 0; r < 15; ++r) { auto a = std::chrono::steady_clock::now(); for (int k = 0; k < 200; ++k) f(); double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count(); if (s < best) best = s; } return best / 200 / 4096 * 1e9; }
int main() {
  const long n = 4096; std::vector<double> x(n), y(n); std::vector<float> xf(n), yf(n);
  for (long i = 0; i < n; ++i) { x[i] = -20 + 40.0 * i / n; xf[i] = (float)x[i]; }
  printf("ours f64 %.3f  libmvec f64 %.3f  ours f32 %.3f  libmvec f32 %.3f ns/el\n", t([&]{kexp64(x.data(), y.data(), n);}), t([&]{hexp64(x.data(), y.data(), n);}), t([&]{kexp32(xf.data(), yf.data(), n);}), t([&]{hexp32(xf.data(), yf.data(), n);}));
}
