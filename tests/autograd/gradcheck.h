// Finite-difference gradient checks (f64, central differences).
#pragma once

#include <cgrad/cgrad.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace cgrad::test {

inline std::vector<double> random_values(std::size_t n, double lo, double hi, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

/// The device the checked inputs are made on: the CPU, or cuda:0 when the `gpu.gradcheck`
/// variant's main sets it (tests/backends/cuda/gpu_mirror.cpp): then the gradients and the
/// finite differences are both evaluated on the device.
inline Device& gradcheck_device() {
  static Device d = Device::cpu();
  return d;
}

/// Checks grad(sum(f(xs) * w), xs) against central differences, where w is a fixed random
/// weight of f's output shape (so every output element's derivative counts differently).
inline void expect_gradients_match(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                                   const std::vector<std::vector<double>>& values,
                                   const std::vector<Shape>& shapes, const std::string& what,
                                   double tol = 1e-6) {
  std::vector<Tensor> xs;
  const Device dev = gradcheck_device();
  for (std::size_t i = 0; i < values.size(); ++i)
    xs.push_back(tensor(values[i], shapes[i], dev).requires_grad(true));
  Tensor out = f(xs);
  ASSERT_EQ(out.dtype(), f64) << what;
  Tensor w = tensor(random_values(static_cast<std::size_t>(out.numel()), 0.5, 1.5, 7), out.shape(), dev);
  auto objective = [&](const std::vector<Tensor>& in) { return sum(f(in) * w); };
  std::vector<Tensor> g = grad(objective(xs), xs);
  ASSERT_EQ(g.size(), xs.size());
  const double h = 1e-6;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    ASSERT_EQ(g[i].shape(), shapes[i]) << what << " input " << i;
    std::vector<double> analytic = g[i].to_vector<double>();
    for (std::size_t k = 0; k < values[i].size(); ++k) {
      auto at = [&](double delta) {
        std::vector<Tensor> in;
        for (std::size_t j = 0; j < values.size(); ++j) {
          std::vector<double> v = values[j];
          if (j == i) v[k] += delta;
          in.push_back(tensor(v, shapes[j], dev));
        }
        return objective(in).item<double>();
      };
      const double numeric = (at(h) - at(-h)) / (2 * h);
      EXPECT_NEAR(analytic[k], numeric, tol * std::max(1.0, std::abs(numeric)))
          << what << ": d/d input " << i << "[" << k << "]";
    }
  }
}

}  // namespace cgrad::test
