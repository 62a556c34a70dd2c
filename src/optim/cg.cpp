// Nonlinear conjugate gradients (Polak-Ribiere+) with a backtracking Armijo line search.
//
// One iteration: the energy and its gradient at the accepted point (autograd), then trial
// energies along the search direction. The step length is a 0-d buffer, not a constant, so
// every trial evaluation replays one plan, and the accepted point's energy, gradient and the
// dot products CG needs are realized in one schedule.
#include "optim/optimizer.h"

#include <algorithm>
#include <cmath>

namespace cgrad::optim {

namespace {
double value(const Tensor& t) { return t.item<double>(); }
}  // namespace

CGResult minimize_cg(const std::function<Tensor(const Tensor&)>& energy, Tensor& x, const CGOptions& opt) {
  if (!x.defined()) throw Error(ErrorCode::InvalidArgument, "minimize_cg: x is undefined");
  if (!is_floating(x.dtype()))
    throw Error(ErrorCode::DTypeMismatch,
                std::string("minimize_cg: x must be f32 or f64, got ") + dtype_name(x.dtype()));
  if (!energy) throw Error(ErrorCode::InvalidArgument, "minimize_cg: no energy function");
  const DType dt = x.dtype();
  const Device dev = x.device();

  Tensor cur;  // the current point, a gradient leaf
  {
    NoGradGuard off;
    cur = x.detach();
    cur.eval();
  }
  cur.requires_grad(true);
  CGResult res;

  // Energy, gradient and the dot products of the accepted point, in one schedule.
  Tensor g_prev, d;
  auto evaluate = [&](double& f, Tensor& g, double& gg, double& g_dg, double& ginf) {
    Tensor e = energy(cur);
    if (e.numel() != 1)
      throw Error(ErrorCode::InvalidArgument,
                  "minimize_cg: the energy must have one element, got shape " + shape_str(e.shape()));
    g = grad(e, {cur}, false)[0];
    NoGradGuard off;
    Tensor sgg = sum(g * g), smax = max(abs(g));
    Tensor sdg = g_prev.defined() ? sum(g * (g - g_prev)) : sgg;
    eval({cur, e, g, sgg, smax, sdg});  // cur too: the next graphs start from its buffer
    ++res.energy_evaluations;
    ++res.gradient_evaluations;
    f = value(e);
    gg = value(sgg);
    g_dg = value(sdg);
    ginf = value(smax);
  };

  double f = 0, gg = 0, g_dg = 0, ginf = 0, alpha = 0, gg_old = 0, gd_prev = 0;
  Tensor g;
  evaluate(f, g, gg, g_dg, ginf);
  Tensor alpha_t = detail::scalar_buffer(0, dt, dev);
  while (res.iterations < opt.max_iterations && std::isfinite(f)) {
    if (ginf < opt.gradient_tolerance) {
      res.converged = true;
      res.reason = StopReason::gradient;
      break;
    }
    bool accepted = false;
    {
      NoGradGuard off;
      double gd = -gg;
      if (!d.defined()) {
        d = (-g).eval();
      } else {
        const double beta = std::max(0.0, g_dg / gg_old);  // Polak-Ribiere+
        d = (-g + detail::scalar_buffer(beta, dt, dev) * d).eval();
        gd = value(sum(g * d));
        if (!(gd < 0)) {  // not a descent direction: restart along the gradient
          d = (-g).eval();
          gd = -gg;
        }
      }
      // First trial: from the last accepted step, or a unit step in max-norm at the start. An
      // Armijo step is then refined to the minimum of the quadratic through f, the slope gd
      // and the trial energy (exact on quadratic energies, which CG's conjugacy relies on).
      auto energy_at = [&](double step) {
        alpha_t.assign(detail::scalar_buffer(step, dt, dev));
        ++res.energy_evaluations;
        return value(energy(cur + alpha_t * d));
      };
      auto armijo = [&](double step, double fs) {
        return std::isfinite(fs) && fs <= f + opt.armijo * step * gd;
      };
      // (Nocedal & Wright 3.60: the last step scaled by the ratio of directional derivatives.)
      double a = alpha > 0 ? alpha * std::clamp(gd_prev / gd, 0.01, 100.0) : 1.0 / std::max(ginf, 1e-300);
      gd_prev = gd;
      for (int ls = 0; ls < opt.max_line_search_steps; ++ls) {
        const double fa = energy_at(a);
        const double curvature = fa - f - gd * a;  // > 0 when the quadratic model has a minimum
        const double q = std::isfinite(fa) && curvature > 0 ? -gd * a * a / (2 * curvature) : 0.1 * a;
        if (armijo(a, fa)) {
          accepted = true;
          if (q > 0 && q <= 10 * a && std::abs(q - a) > 1e-3 * a) {
            const double fq = energy_at(q);
            if (fq < fa && armijo(q, fq)) a = q;
          }
          break;
        }
        a = std::clamp(q, 0.1 * a, 0.5 * a);
      }
      if (accepted) alpha_t.assign(detail::scalar_buffer(a, dt, dev));
      if (accepted) {
        alpha = a;
        cur.assign(cur + alpha_t * d);
      }
    }
    if (!accepted) {  // no decrease along a descent direction: the energy's resolution limit
      res.reason = StopReason::line_search;
      break;
    }
    ++res.iterations;
    const double f_old = f;
    g_prev = g;
    gg_old = gg;
    evaluate(f, g, gg, g_dg, ginf);
    if (std::abs(f_old - f) <= opt.relative_energy_tolerance * std::max(1.0, std::abs(f))) {
      res.converged = true;
      res.reason = StopReason::energy;
      break;
    }
  }
  if (!std::isfinite(f) || !std::isfinite(ginf)) {
    res.reason = StopReason::not_finite;
    res.converged = false;
  }
  res.energy = f;
  res.gradient_inf_norm = ginf;
  NoGradGuard off;
  x.assign(cur.detach());
  x.eval();
  return res;
}

}  // namespace cgrad::optim
