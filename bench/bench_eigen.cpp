// bench_eigen: Eigen 3.4 Array expressions (idiomatic: one expression per assignment, outputs
// preallocated), with the hand loops measured in the same process for the ratios.
// Coefficient-wise Array expressions in Eigen are single-threaded (Eigen only threads GEMM).
// Adapted from the anchors' bench_eigen.cpp (our own code).
#include "common.hpp"
#include "hand.hpp"

#include <Eigen/Core>

using namespace bench;
template <class T>
using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;
template <class T>
using Mat = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class T>
Arr<T> rnd(long n, unsigned seed, double lo, double hi) {
  Arr<T> a(n);
  fill_uniform(a.data(), n, seed, lo, hi);
  return a;
}

template <class T>
void run_elementwise() {
  const long n = N_BIG;
  const char* dt = dtype_name<T>();
  Arr<T> a = rnd<T>(n, 1, -1, 1), b = rnd<T>(n, 2, -1, 1), c = rnd<T>(n, 3, -1, 1), d(n);
  d.setZero();
  hand::w1(a.data(), b.data(), c.data(), d.data(), n);
  hand::w2(a.data(), d.data(), n);
  hand::w3(a.data(), b.data(), n);
  const double sz = sizeof(T);
  auto s1 = measure([&] {
    d = a * b + c;
    clobber();
  });
  report("eigen", "", "W1", dt, n, 1, s1, 4 * n * sz, -1, checksum(d.data(), n));
  auto s2 = measure([&] {
    d = T(1) / (T(1) + (-a).exp());
    clobber();
  });
  report("eigen", "", "W2", dt, n, 1, s2, 2 * n * sz, -1, checksum(d.data(), n));
  volatile T sink = 0;
  auto s3 = measure([&] { sink = (a * b).sum(); });
  report("eigen", "", "W3", dt, n, 1, s3, 2 * n * sz, -1, static_cast<double>(sink));
}

template <class T>
void run_softmax() {
  const long rows = SM_ROWS, cols = SM_COLS, n = rows * cols;
  Mat<T> x(rows, cols), e(rows, cols), y(rows, cols);
  fill_uniform(x.data(), n, 4, -4, 4);
  y.setZero();
  hand::w4(x.data(), y.data(), rows, cols);
  Eigen::Array<T, Eigen::Dynamic, 1> mx(rows), sm(rows);
  // idiomatic whole-matrix version: 3 sweeps + a temporary
  auto s = measure([&] {
    mx = x.rowwise().maxCoeff();
    e = (x.colwise() - mx).exp();
    sm = e.rowwise().sum();
    y = e.colwise() / sm;
    clobber();
  });
  report("eigen", "", "W4", dtype_name<T>(), n, 1, s, 2.0 * n * sizeof(T), -1, checksum(y.data(), n));
  // per-row version (row stays in cache between sweeps)
  auto s2 = measure([&] {
    for (long r = 0; r < rows; ++r) {
      T m = x.row(r).maxCoeff();
      y.row(r) = (x.row(r) - m).exp();
      y.row(r) /= y.row(r).sum();
    }
    clobber();
  });
  report("eigen", "per_row", "W4", dtype_name<T>(), n, 1, s2, 2.0 * n * sizeof(T), -1, checksum(y.data(), n));
}

template <class T>
void run_lorenz() {
  const long N = LZ_N;
  auto s0 = hand::lorenz_init<T>(N);
  hand::w5(s0.data(), N);
  Arr<T> X(N), Y(N), Z(N);
  std::memcpy(X.data(), s0.data(), sizeof(T) * N);
  std::memcpy(Y.data(), s0.data() + N, sizeof(T) * N);
  std::memcpy(Z.data(), s0.data() + 2 * N, sizeof(T) * N);
  Arr<T> k1x(N), k1y(N), k1z(N), k2x(N), k2y(N), k2z(N), k3x(N), k3y(N), k3z(N), k4x(N), k4y(N), k4z(N);
  Arr<T> tx(N), ty(N), tz(N);
  const T S = LZ_SIGMA, R = LZ_R, B = LZ_B, h = LZ_DT, h2 = h / 2, h6 = h / 6;
  auto rhs = [&](const Arr<T>& x, const Arr<T>& y, const Arr<T>& z, Arr<T>& dx, Arr<T>& dy, Arr<T>& dz) {
    dx = S * (y - x);
    dy = R * x - y - x * z;
    dz = x * y - B * z;
  };
  // staged (odeint-like: materialise each stage)
  auto step = [&] {
    rhs(X, Y, Z, k1x, k1y, k1z);
    tx = X + h2 * k1x;
    ty = Y + h2 * k1y;
    tz = Z + h2 * k1z;
    rhs(tx, ty, tz, k2x, k2y, k2z);
    tx = X + h2 * k2x;
    ty = Y + h2 * k2y;
    tz = Z + h2 * k2z;
    rhs(tx, ty, tz, k3x, k3y, k3z);
    tx = X + h * k3x;
    ty = Y + h * k3y;
    tz = Z + h * k3z;
    rhs(tx, ty, tz, k4x, k4y, k4z);
    X += h6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    Y += h6 * (k1y + 2 * k2y + 2 * k3y + k4y);
    Z += h6 * (k1z + 2 * k2z + 2 * k3z + k4z);
    clobber();
  };
  auto s = measure(step);
  // checksum of exactly one step from the initial state
  std::memcpy(X.data(), s0.data(), sizeof(T) * N);
  std::memcpy(Y.data(), s0.data() + N, sizeof(T) * N);
  std::memcpy(Z.data(), s0.data() + 2 * N, sizeof(T) * N);
  step();
  double cs = checksum(X.data(), N) + checksum(Y.data(), N) + checksum(Z.data(), N);
  report("eigen", "staged", "W5", dtype_name<T>(), 3 * N, 1, s, 2.0 * 3 * N * sizeof(T), -1, cs);
}

void run_w6() {
  Arr<float> y0 = rnd<float>(W6_N, 8, -1, 1), a = rnd<float>(W6_N, 9, 0.9, 1.0),
             b = rnd<float>(W6_N, 10, -0.1, 0.1);
  hand::w6(y0.data(), a.data(), b.data());
  Arr<float> y(W6_N);
  auto s = measure([&] {
    y = y0 * a;
    y = y + b;
    for (int k = 1; k < W6_OPS / 2; ++k) {
      y = y * a;
      clobber();
      y = y + b;
      clobber();
    }
  });
  report("eigen", "", "W6", "f32", W6_N, 1, s, 0, -1, checksum(y.data(), W6_N));
}

int main(int argc, char** argv) {
  proc_name() = argc > 2 && std::string(argv[1]) == "--proc" ? argv[2] : "eigen";
  run_elementwise<float>();
  run_elementwise<double>();
  run_softmax<float>();
  run_softmax<double>();
  run_lorenz<double>();
  run_w6();
  return 0;
}
