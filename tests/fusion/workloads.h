// Two workloads the memory tests and bench/bench_plans.cpp measure: one RK4 step of a Lorenz
// ensemble (as in examples/lorenz_ensemble) and one MLP training step with a hand-written
// backward pass (forward matmul/relu/cross_entropy; backward matmul/transpose/where).
#pragma once

#include <cgrad/cgrad.hpp>

#include <vector>

namespace cgrad::test {

struct Lorenz {
  int64_t n;
  Tensor rho;  // (1, n)
  Tensor row = arange(3, i64).reshape({3, 1}).eval();
  explicit Lorenz(int64_t members) : n(members) {
    rho = (arange(members, f64) * (18.0 / static_cast<double>(members)) + 10.0).reshape({1, members}).eval();
  }
  Tensor rhs(const Tensor& s) const {
    const Tensor x = s.slice(0, 0, 1), y = s.slice(0, 1, 2), z = s.slice(0, 2, 3);
    return where(row == 0, 10.0 * (y - x), where(row == 1, x * (rho - z) - y, x * y - (8.0 / 3.0) * z));
  }
  /// One classical Runge-Kutta step of the (3, n) state.
  Tensor rk4(const Tensor& s, double dt) const {
    Tensor k1 = rhs(s);
    Tensor k2 = rhs(s + (dt / 2) * k1);
    Tensor k3 = rhs(s + (dt / 2) * k2);
    Tensor k4 = rhs(s + dt * k3);
    return s + (dt / 6) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  Tensor initial() const { return (full({3, n}, 10.0, f64) + rand({3, n}, f64) * 1e-3).eval(); }
};

/// One SGD step of a two-layer MLP: returns {loss, new w2, new w1} (backprop order: the plan
/// runs kernels in the order of its outputs, so the last layer's gradient comes first).
inline std::vector<Tensor> mlp_step(const Tensor& x, const Tensor& labels, const Tensor& w1, const Tensor& w2,
                                    double lr) {
  const int64_t batch = x.shape()[0], classes = w2.shape()[1];
  Tensor h = matmul(x, w1);
  Tensor a = relu(h);
  Tensor logits = matmul(a, w2);
  Tensor loss = cross_entropy(logits, labels);
  Tensor onehot = (arange(classes, i64).reshape({1, classes}) == labels.reshape({batch, 1})).cast(f32);
  Tensor dlogits = (softmax(logits, -1) - onehot) / static_cast<double>(batch);
  Tensor dw2 = matmul(a.T(), dlogits);
  Tensor da = matmul(dlogits, w2.T());
  Tensor dh = where(a > 0.0, da, 0.0);  // relu' from its output, as PyTorch's threshold_backward
  Tensor dw1 = matmul(x.T(), dh);
  return {loss, w2 - lr * dw2, w1 - lr * dw1};
}

/// The same step with the gradients from autograd (w1, w2 require a gradient): {loss, new w2,
/// new w1}. relu's derivative is taken from its input here (autograd's rule).
inline std::vector<Tensor> mlp_step_autograd(const Tensor& x, const Tensor& labels, const Tensor& w1,
                                             const Tensor& w2, double lr) {
  Tensor loss = cross_entropy(matmul(relu(matmul(x, w1)), w2), labels);
  std::vector<Tensor> g = grad(loss, {w2, w1}, false);
  NoGradGuard off;
  return {loss, w2 - lr * g[0], w1 - lr * g[1]};
}

struct Mlp {
  Tensor x, labels, w1, w2;
  Mlp(int64_t batch, int64_t in, int64_t hidden, int64_t classes) {
    manual_seed(7);
    x = randn({batch, in}).eval();
    labels = (rand({batch}) * static_cast<double>(classes)).cast(i64).eval();
    w1 = (randn({in, hidden}) * 0.1).eval();
    w2 = (randn({hidden, classes}) * 0.1).eval();
  }
};

}  // namespace cgrad::test
