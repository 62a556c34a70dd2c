/// cgrad::optim: first-order optimizers over lazy tensors and a nonlinear conjugate-gradient
/// minimizer (docs/optim.md).
///
/// step() builds every parameter's update (and its state's) under NoGradGuard and realizes
/// them all in one schedule: each parameter's update is one fused kernel (the new parameter
/// and its state are outputs of the same kernel), and since the gradients are lazy, the
/// forward and backward passes that produce them run in that same schedule, replayed as one
/// plan from the second step on.
#pragma once

#include <cgrad/tensor.hpp>

#include <functional>
#include <vector>

namespace cgrad::optim {

class Optimizer {
 public:
  explicit Optimizer(std::vector<Tensor> params);
  virtual ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// Updates every parameter that has a gradient, in place (Tensor::assign), and realizes the
  /// updates. `with` are more outputs realized in the same schedule, for example the loss, so
  /// that the forward pass is computed once per step.
  void step(const std::vector<Tensor>& with = {});
  /// Drops every parameter's gradient (the next backward() starts from none).
  void zero_grad();
  const std::vector<Tensor>& params() const { return params_; }

 protected:
  /// Builds the new value of parameter `i` from its gradient `g`; states it keeps are
  /// assigned here and listed in `outputs` so that step() realizes them together.
  virtual Tensor update(std::size_t i, const Tensor& g, std::vector<Tensor>& outputs) = 0;
  /// Called once per step before the updates (step counters, bias corrections).
  virtual void begin_step() {}
  std::vector<Tensor> params_;
};

/// Stochastic gradient descent with (heavy-ball) momentum, PyTorch's formulation:
/// b = momentum * b + g; p -= lr * b (b starts at zero, so the first step uses g).
class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, double lr, double momentum = 0);

 private:
  Tensor update(std::size_t i, const Tensor& g, std::vector<Tensor>& outputs) override;
  double lr_, momentum_;
  std::vector<Tensor> buf_;
};

/// Adam (Kingma & Ba) with bias correction. weight_decay adds weight_decay * p to the
/// gradient (L2, as torch.optim.Adam); AdamW decouples it.
class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, double lr, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8,
       double weight_decay = 0);

 protected:
  Tensor update(std::size_t i, const Tensor& g, std::vector<Tensor>& outputs) override;
  void begin_step() override;
  bool decoupled_ = false;
  double lr_, beta1_, beta2_, eps_, weight_decay_;
  int64_t t_ = 0;
  std::vector<Tensor> m_, v_;
  // Per-step scalars as 0-d buffers (not constants), so a new step replays the same plan.
  Tensor step_size_f32_, step_size_f64_, inv_sqrt_bc2_f32_, inv_sqrt_bc2_f64_;
};

/// AdamW (Loshchilov & Hutter): p -= lr * weight_decay * p, decoupled from the moments.
class AdamW : public Adam {
 public:
  AdamW(std::vector<Tensor> params, double lr, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8,
        double weight_decay = 0.01);
};

struct CGOptions {
  int max_iterations = 1000;
  /// Stop when max |gradient| falls below this.
  double gradient_tolerance = 1e-6;
  /// Stop when an iteration lowers the energy by less than this times max(1, |energy|).
  double relative_energy_tolerance = 1e-14;
  /// Armijo sufficient-decrease constant of the backtracking line search.
  double armijo = 1e-4;
  int max_line_search_steps = 40;
};

struct CGResult {
  int iterations = 0;
  int energy_evaluations = 0;
  double energy = 0;
  double gradient_inf_norm = 0;
  bool converged = false;
};

/// Minimizes the scalar `energy(x)` over x by nonlinear conjugate gradients (Polak-Ribiere+,
/// restarting on a non-descent direction) with a backtracking line search (Armijo, with
/// quadratic interpolation). The gradient comes from autograd. `x` (f32 or f64) is the starting
/// point and receives the minimizer. Every energy evaluation has the same graph structure, so
/// after the first iteration each one replays a plan.
CGResult minimize_cg(const std::function<Tensor(const Tensor&)>& energy, Tensor& x, const CGOptions& options = {});

}  // namespace cgrad::optim
