// Limited-memory BFGS over lazy tensors.
//
// The direction is Nocedal's two-loop recursion over the last m pairs s = x' - x, y = g' - g,
// with the initial Hessian approximation (s.y / y.y) I. The whole recursion is one lazy graph:
// the coefficients alpha_i = rho_i s_i.q and beta_i = rho_i y_i.r stay 0-d tensors on the
// device, so each loop level is one reduction fused with the vector update that feeds it, and
// the host reads nothing until the line search. The m slots always take part (an empty slot is
// zero vectors with rho = 0, which leaves q and r unchanged), newest first, so the graph has
// the same structure at every iteration and replays one plan from the first iteration on.
#include "optim/minimize.h"

#include <algorithm>
#include <cmath>
#include <deque>

namespace cgrad::optim {

CGResult minimize_lbfgs(const std::function<Tensor(const Tensor&)>& energy, Tensor& x,
                        const LBFGSOptions& opt) {
  constexpr const char* who = "minimize_lbfgs";
  detail::check_arguments(who, energy, x, opt.max_iterations, opt.gradient_tolerance,
                          opt.relative_energy_tolerance, opt.armijo, opt.wolfe, opt.max_line_search_steps);
  if (opt.memory < 1) throw Error(ErrorCode::InvalidArgument, "minimize_lbfgs: memory must be >= 1");
  CGResult res;
  detail::Objective obj(who, energy, x, res);
  const std::size_t m = static_cast<std::size_t>(opt.memory);

  struct Pair {
    Tensor s, y, rho;
  };
  std::deque<Pair> pairs;  // newest first; always m entries
  for (std::size_t i = 0; i < m; ++i) pairs.push_back({obj.zero_vector(), obj.zero_vector(), obj.scalar(0)});

  // d = -H g by the two loops, as a compiled function of (g, gamma, s_1..s_m, y_1..y_m, rho_1..rho_m).
  cgrad::detail::CompiledCore two_loop;
  auto direction = [&](const Tensor& g, double gamma) {
    std::vector<Tensor> in{g, obj.scalar(gamma)};
    for (const Pair& p : pairs) in.push_back(p.s);
    for (const Pair& p : pairs) in.push_back(p.y);
    for (const Pair& p : pairs) in.push_back(p.rho);
    return two_loop.call(in, [&]() -> std::vector<Tensor> {
      NoGradGuard off;
      auto S = [&](std::size_t i) { return in[2 + i]; };
      auto Y = [&](std::size_t i) { return in[2 + m + i]; };
      auto R = [&](std::size_t i) { return in[2 + 2 * m + i]; };
      std::vector<Tensor> a(m);
      Tensor q = in[0];
      for (std::size_t i = 0; i < m; ++i) {
        a[i] = R(i) * sum(S(i) * q);
        q = q - a[i] * Y(i);
      }
      Tensor r = in[1] * q;
      for (std::size_t i = m; i-- > 0;) {
        Tensor b = R(i) * sum(Y(i) * r);
        r = r + (a[i] - b) * S(i);
      }
      return {-r, sum(in[0] * r) * -1.0};  // d and the slope g.d
    });
  };
  // The new pair from two accepted points: s, y, s.y, y.y in one plan.
  auto new_pair = compile([](const Tensor& x1, const Tensor& x0, const Tensor& g1, const Tensor& g0) {
    NoGradGuard off;
    Tensor s = x1 - x0, y = g1 - g0;
    return std::vector<Tensor>{s, y, sum(s * y), sum(y * y)};
  });

  detail::Point cur = obj.start();
  double f_old = cur.f;
  double gamma = 1.0 / std::max(1.0, cur.ginf);  // the first step moves at most 1 in max-norm
  bool first = true;
  while (true) {
    if (detail::should_stop(res, cur, f_old, opt.gradient_tolerance, opt.relative_energy_tolerance, first))
      break;
    if (res.iterations >= opt.max_iterations) {
      res.reason = StopReason::max_iterations;
      break;
    }
    first = false;
    std::vector<Tensor> dir = direction(cur.g, gamma);
    Tensor d = dir[0];
    detail::Point base = cur;
    base.slope = dir[1].item<double>();
    if (!(base.slope < 0)) {  // the pairs lost positive definiteness to rounding: restart
      for (Pair& p : pairs) p.rho = obj.scalar(0);
      gamma = 1.0 / std::max(1.0, cur.ginf);
      dir = direction(cur.g, gamma);
      d = dir[0];
      base.slope = dir[1].item<double>();
    }
    detail::Point next;
    if (!detail::strong_wolfe(obj, base, d, 1.0, opt.armijo, opt.wolfe, opt.max_line_search_steps, next)) {
      res.reason = StopReason::line_search;
      break;
    }
    ++res.iterations;
    std::vector<Tensor> np = new_pair(next.x, cur.x, next.g, cur.g);
    const double sy = np[2].item<double>(), yy = np[3].item<double>();
    // Keep the pair only with positive curvature (strong Wolfe guarantees it up to rounding).
    if (sy > 1e-10 * yy && yy > 0) {
      pairs.pop_back();
      pairs.push_front({np[0], np[1], obj.scalar(1.0 / sy)});
      gamma = sy / yy;
    }
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
