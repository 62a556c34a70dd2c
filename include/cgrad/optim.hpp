/// cgrad::optim: first-order optimizers over lazy tensors and three minimizers of a scalar
/// energy: nonlinear conjugate gradients, truncated Newton and L-BFGS (docs/optim.md).
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

namespace detail {
/// A per-step scalar of the updates (the learning rate, Adam's bias corrections) as 0-d buffers,
/// not constants, so that a new value replays the same plan: f64 for f64 and c128 parameters,
/// else f32, on the parameter's device. The buffers stay while set() gives the same value.
class StepScalar {
 public:
  void set(double v);
  double value() const { return v_; }
  Tensor of(const Tensor& p);

 private:
  double v_ = 0;
  std::vector<Tensor> made_;  // one per dtype and device met since the last change
};
}  // namespace detail

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
  /// The learning rate. set_lr() takes effect at the next step without planning it again (the
  /// rate reaches the update as a 0-d buffer, not a constant): a schedule costs nothing.
  double lr() const { return lr_.value(); }
  void set_lr(double lr);
  /// One step of several optimizers (PyTorch's parameter groups) realized in one schedule, so
  /// the forward and backward passes that produce their gradients run once.
  static void step_all(const std::vector<Optimizer*>& optimizers, const std::vector<Tensor>& with = {});
  /// For checkpoints: the steps taken, and parameter i's state buffers by PyTorch's names
  /// ("momentum_buffer" of SGD with momentum; "exp_avg", "exp_avg_sq" of Adam), each a new handle
  /// on the current value (later steps do not change it). set_state() puts them back: the same
  /// names, shapes and dtypes (InvalidArgument otherwise), values cast to the buffer's dtype.
  int64_t steps() const { return steps_; }
  std::vector<std::pair<std::string, Tensor>> state(std::size_t i);
  void set_state(int64_t steps, std::size_t i, const std::vector<std::pair<std::string, Tensor>>& buffers);

 protected:
  /// Builds the new value of parameter `i` from its gradient `g`; states it keeps are
  /// assigned here and listed in `outputs` so that step() realizes them together.
  virtual Tensor update(std::size_t i, const Tensor& g, std::vector<Tensor>& outputs) = 0;
  /// Called once per step before the updates (bias corrections), steps() already counting it.
  virtual void begin_step() {}
  /// Parameter i's state buffers by name (the members a subclass keeps), for state().
  virtual std::vector<std::pair<std::string, Tensor*>> buffers(std::size_t) { return {}; }
  /// begin_step() and the updates of the parameters that have a gradient, assigned; the new
  /// values and states appended to `outputs`.
  void build_step(std::vector<Tensor>& outputs);
  std::vector<Tensor> params_;
  detail::StepScalar lr_;
  int64_t steps_ = 0;
};

/// Stochastic gradient descent with (heavy-ball) momentum, torch.optim.SGD's formulation:
/// g += weight_decay * p; b = g at the first step, then b = momentum * b + (1 - dampening) * g;
/// p -= lr * (nesterov ? g + momentum * b : b). Nesterov needs a momentum and no dampening.
class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, double lr, double momentum = 0, double dampening = 0,
      double weight_decay = 0, bool nesterov = false);

 private:
  Tensor update(std::size_t i, const Tensor& g, std::vector<Tensor>& outputs) override;
  void begin_step() override;
  std::vector<std::pair<std::string, Tensor*>> buffers(std::size_t i) override;
  double momentum_, dampening_, weight_decay_;
  bool nesterov_;
  std::vector<Tensor> buf_;
  detail::StepScalar damp_;  // 1 at the first step, 1 - dampening after
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
  std::vector<std::pair<std::string, Tensor*>> buffers(std::size_t i) override;
  bool decoupled_ = false;
  double beta1_, beta2_, eps_, weight_decay_;
  std::vector<Tensor> m_, v_;
  detail::StepScalar step_size_, inv_sqrt_bc2_, decay_;  // lr / bc1, 1 / sqrt(bc2), 1 - lr * wd
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

/// Why a minimizer stopped.
enum class StopReason {
  gradient,        ///< max |gradient| < gradient_tolerance (converged)
  energy,          ///< the last iteration lowered the energy by less than the relative tolerance (converged)
  max_iterations,  ///< max_iterations reached
  line_search,  ///< the line search found no acceptable step (the energy's resolution limit, or a bad model)
  not_finite,   ///< the energy or the gradient is not finite
};
/// "gradient", "energy", "max_iterations", "line_search", "not_finite".
const char* stop_reason_name(StopReason r);

/// The result of minimize_cg, minimize_tn and minimize_lbfgs.
struct CGResult {
  int iterations = 0;
  /// Energy evaluations (minimize_cg: each trial of the line search is one; minimize_tn and
  /// minimize_lbfgs evaluate the energy and its gradient together, so this equals
  /// gradient_evaluations there).
  int energy_evaluations = 0;
  double energy = 0;
  double gradient_inf_norm = 0;
  bool converged = false;
  int gradient_evaluations = 0;
  /// Hessian-vector products (minimize_tn only).
  int hessian_vector_products = 0;
  StopReason reason = StopReason::max_iterations;
};
using MinimizeResult = CGResult;

/// Minimizes the scalar `energy(x)` over x by nonlinear conjugate gradients (Polak-Ribiere+,
/// restarting on a non-descent direction) with a backtracking line search (Armijo, with
/// quadratic interpolation). The gradient comes from autograd. `x` (f32 or f64) is the starting
/// point and receives the minimizer. Every energy evaluation has the same graph structure, so
/// after the first iteration each one replays a plan.
CGResult minimize_cg(const std::function<Tensor(const Tensor&)>& energy, Tensor& x,
                     const CGOptions& options = {});

struct TNOptions {
  int max_iterations = 200;
  /// Stop when max |gradient| falls below this.
  double gradient_tolerance = 1e-6;
  /// Stop when an iteration lowers the energy by less than this times max(1, |energy|).
  double relative_energy_tolerance = 1e-14;
  /// Most inner conjugate-gradient iterations (Hessian-vector products) per Newton step.
  int max_inner_iterations = 250;
  /// The line search's first trial moves no component by more than this times max(1, max |x|)
  /// (the Newton step when that is shorter; 0: always the Newton step). Far from a minimum, on
  /// an indefinite Hessian, a truncated solve can end in a nearly flat direction and a huge step.
  double max_relative_step = 1.0;
  /// Strong-Wolfe constants of the line search (0 < armijo < wolfe < 1).
  double armijo = 1e-4;
  double wolfe = 0.9;
  int max_line_search_steps = 30;
};

/// Truncated Newton (Newton-CG): each iteration solves H p = -g approximately by conjugate
/// gradients on Hessian-vector products, stopped by the forcing sequence
/// |r| <= min(0.5, sqrt(|g|)) |g| (2-norms; the one SciPy's Newton-CG uses), or on negative
/// curvature (the last iterate, or -g on the first inner step), then a strong-Wolfe line search
/// along p. Hessian-vector products are grad(grad(E).v) from autograd, one replayed plan each.
CGResult minimize_tn(const std::function<Tensor(const Tensor&)>& energy, Tensor& x,
                     const TNOptions& options = {});

struct LBFGSOptions {
  int max_iterations = 1000;
  /// Stop when max |gradient| falls below this.
  double gradient_tolerance = 1e-6;
  /// Stop when an iteration lowers the energy by less than this times max(1, |energy|).
  double relative_energy_tolerance = 1e-14;
  /// Correction pairs kept (m).
  int memory = 10;
  /// Strong-Wolfe constants of the line search (0 < armijo < wolfe < 1).
  double armijo = 1e-4;
  double wolfe = 0.9;
  int max_line_search_steps = 30;
};

/// Limited-memory BFGS (Nocedal's two-loop recursion over the last `memory` pairs, initial
/// scaling s.y / y.y) with a strong-Wolfe line search. No bounds (docs/optim.md).
CGResult minimize_lbfgs(const std::function<Tensor(const Tensor&)>& energy, Tensor& x,
                        const LBFGSOptions& options = {});

}  // namespace cgrad::optim
