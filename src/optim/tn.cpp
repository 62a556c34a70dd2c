// Truncated Newton (Newton-CG) over lazy tensors.
//
// Outer iteration: at the current point, conjugate gradients on H z = -g, with H applied by
// Hessian-vector products from autograd (grad of grad(E).p), stopped by the forcing sequence
// |r| <= min(0.5, sqrt(|g|)) |g| (SciPy's Newton-CG uses this eta, with 1-norms; here 2-norms,
// which CG's residual r.r gives for free), by negative or zero curvature, or by the inner
// iteration limit; then a strong-Wolfe line search along z (first trial: the Newton step, or a
// shorter one if that moves a component by more than max_relative_step * max(1, max |x|)).
//
// Each inner iteration is two compiled functions, each one plan replayed from the second call:
//   hvp(x, r, p, beta): p' = -r + beta p; H p'; p'.Hp'       (forward, backward, double backward)
//   cg_step(z, r, p, Hp, alpha): z + alpha p; r + alpha Hp; r'.r'
// so the host reads two scalars per inner iteration and every vector update is fused into the
// kernels that compute its operands.
#include "optim/minimize.h"

#include <algorithm>
#include <cmath>

namespace cgrad::optim {

CGResult minimize_tn(const std::function<Tensor(const Tensor&)>& energy, Tensor& x, const TNOptions& opt) {
  constexpr const char* who = "minimize_tn";
  detail::check_arguments(who, energy, x, opt.max_iterations, opt.gradient_tolerance,
                          opt.relative_energy_tolerance, opt.armijo, opt.wolfe, opt.max_line_search_steps);
  if (opt.max_inner_iterations < 1)
    throw Error(ErrorCode::InvalidArgument, "minimize_tn: max_inner_iterations must be >= 1");
  if (!(opt.max_relative_step >= 0))
    throw Error(ErrorCode::InvalidArgument, "minimize_tn: max_relative_step must be >= 0 (0: no limit)");
  CGResult res;
  detail::Objective obj(who, energy, x, res);

  detail::EnergyFn fn = energy;
  auto hvp = compile([fn](const Tensor& xl, const Tensor& r, const Tensor& p, const Tensor& beta) {
    Tensor pn;
    {
      NoGradGuard off;
      pn = -r + beta * p;
    }
    Tensor g = grad(fn(xl), {xl}, true)[0];
    Tensor hp = grad(sum(g * pn), {xl}, false)[0];
    NoGradGuard off;
    return std::vector<Tensor>{pn, hp, sum(pn * hp)};
  });
  auto cg_step =
      compile([](const Tensor& z, const Tensor& r, const Tensor& p, const Tensor& hp, const Tensor& alpha) {
        NoGradGuard off;
        Tensor zn = z + alpha * p, rn = r + alpha * hp;
        return std::vector<Tensor>{zn, rn, sum(rn * rn)};
      });

  detail::Point cur = obj.start();
  double f_old = cur.f;
  const Tensor zero = obj.scalar(0);
  bool first = true;
  while (true) {
    if (detail::should_stop(res, cur, f_old, opt.gradient_tolerance, opt.relative_energy_tolerance, first))
      break;
    if (res.iterations >= opt.max_iterations) {
      res.reason = StopReason::max_iterations;
      break;
    }
    first = false;
    // Inner CG from z = 0: r = g (the residual of H z + g), p = -r.
    Tensor& leaf = obj.leaf();
    if (leaf.node() != cur.x.node()) leaf.assign(cur.x);
    const double gnorm = std::sqrt(cur.gg);
    const double eta = std::min(0.5, std::sqrt(gnorm));
    const double target = eta * gnorm;
    Tensor z = obj.zero_vector(), r = cur.g, p = obj.zero_vector();
    double rr = cur.gg;
    Tensor beta = zero;
    Tensor dir;
    for (int k = 0; k < opt.max_inner_iterations; ++k) {
      std::vector<Tensor> h = hvp(leaf, r, p, beta);
      ++res.hessian_vector_products;
      p = h[0];
      const double curv = h[2].item<double>();
      if (!(curv > 0)) {
        // Negative or zero curvature (or not finite): keep the iterate built so far, which is a
        // descent direction; on the first inner step, use steepest descent scaled by r.r/|p.Hp|.
        if (k == 0) {
          const double s =
              std::isfinite(curv) && curv != 0 ? rr / std::abs(curv) : 1.0 / std::max(cur.ginf, 1e-300);
          NoGradGuard off;
          dir = (obj.scalar(s) * p).eval();
        }
        break;
      }
      const double alpha = rr / curv;
      std::vector<Tensor> s = cg_step(z, r, p, h[1], obj.scalar(alpha));
      z = s[0];
      r = s[1];
      const double rr_new = s[2].item<double>();
      dir = z;
      if (!(std::sqrt(rr_new) > target)) break;
      beta = obj.scalar(rr_new / rr);
      rr = rr_new;
    }
    if (!dir.defined()) dir = z;
    // The slope along dir, then the line search; the Newton step (1) first.
    detail::Point base = cur;
    double dmax = 0, xmax = 0;
    {
      NoGradGuard off;
      Tensor slope = sum(cur.g * dir), dm = max(abs(dir)), xm = max(abs(cur.x));
      eval({slope, dm, xm});
      base.slope = slope.item<double>();
      dmax = dm.item<double>();
      xmax = xm.item<double>();
    }
    if (!(base.slope < 0)) {  // rounding made z useless: fall back to steepest descent
      NoGradGuard off;
      dir = (-cur.g * obj.scalar(1.0 / std::max(cur.ginf, 1e-300))).eval();
      base.slope = -cur.gg / std::max(cur.ginf, 1e-300);
    }
    detail::Point next;
    // The Newton step first, unless it would move a component by more than the allowed step:
    // on an indefinite Hessian a truncated solve can end in a nearly flat direction and a huge
    // step, which the line search would otherwise shrink by many evaluations.
    double first_step = 1.0;
    if (opt.max_relative_step > 0 && dmax > 0)
      first_step = std::min(1.0, opt.max_relative_step * std::max(1.0, xmax) / dmax);
    if (!detail::strong_wolfe(obj, base, dir, first_step, opt.armijo, opt.wolfe, opt.max_line_search_steps,
                              next)) {
      res.reason = StopReason::line_search;
      break;
    }
    ++res.iterations;
    f_old = cur.f;
    cur = next;
  }
  res.energy = cur.f;
  res.gradient_inf_norm = cur.ginf;
  NoGradGuard off;
  x.assign(cur.x.detach());
  x.eval();
  return res;
}

}  // namespace cgrad::optim
