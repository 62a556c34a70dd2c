// Shared machinery of minimize_tn and minimize_lbfgs: argument checks, the compiled energy and
// gradient evaluation, the strong-Wolfe line search and the stop tests (src/optim/minimize.h).
#include "optim/minimize.h"

#include "optim/optimizer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cgrad::optim {

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::gradient: return "gradient";
    case StopReason::energy: return "energy";
    case StopReason::max_iterations: return "max_iterations";
    case StopReason::line_search: return "line_search";
    case StopReason::not_finite: return "not_finite";
  }
  return "?";
}

namespace detail {

namespace {
[[noreturn]] void bad(const char* who, const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, std::string(who) + ": " + what);
}
}  // namespace

void check_arguments(const char* who, const EnergyFn& energy, const Tensor& x, int max_iterations,
                     double gradient_tolerance, double relative_energy_tolerance, double armijo, double wolfe,
                     int max_line_search_steps) {
  if (!x.defined()) bad(who, "x is undefined");
  if (!is_floating(x.dtype()))
    throw Error(ErrorCode::DTypeMismatch,
                std::string(who) + ": x must be f32 or f64, got " + dtype_name(x.dtype()));
  if (!energy) bad(who, "no energy function");
  if (max_iterations < 0) bad(who, "max_iterations must be >= 0, got " + std::to_string(max_iterations));
  if (!(gradient_tolerance >= 0)) bad(who, "gradient_tolerance must be >= 0");
  if (!(relative_energy_tolerance >= 0)) bad(who, "relative_energy_tolerance must be >= 0");
  if (!(armijo > 0 && armijo < wolfe && wolfe < 1))
    bad(who, "the line search needs 0 < armijo < wolfe < 1, got armijo " + std::to_string(armijo) +
                 ", wolfe " + std::to_string(wolfe));
  if (max_line_search_steps < 1) bad(who, "max_line_search_steps must be >= 1");
}

Objective::Objective(const char* who, const EnergyFn& energy, const Tensor& x, CGResult& result)
    : who_(who), energy_(energy), dtype_(x.dtype()), device_(x.device()), res_(result), shape_(x.shape()) {
  {
    NoGradGuard off;
    leaf_ = x.detach();
    leaf_.eval();
    zero_dir_ = zero_vector();
  }
  leaf_.requires_grad(true);
  // One function of (base, direction, step) for every evaluation: the start, each trial and
  // each accepted point replay its plan. The gradient is taken at the trial point itself (an
  // intermediate value), so a trial that is accepted needs no second evaluation.
  std::string name = who_;
  EnergyFn fn = energy_;
  auto compiled = compile([fn, name](const Tensor& base, const Tensor& d, const Tensor& step) {
    Tensor p = base + step * d;
    Tensor e = fn(p);
    if (!e.defined() || e.numel() != 1)
      throw Error(ErrorCode::InvalidArgument,
                  name + ": the energy must have one element, got shape " +
                      (e.defined() ? shape_str(e.shape()) : std::string("(undefined)")));
    Tensor g = grad(e, {p}, false)[0];
    NoGradGuard off;
    return std::vector<Tensor>{p.detach(), e.detach(), g, sum(g * d), max(abs(g)), sum(g * g)};
  });
  eval_ = [compiled](const Tensor& b, const Tensor& d, const Tensor& s) { return compiled(b, d, s); };
}

Tensor Objective::scalar(double v) const { return scalar_buffer(v, dtype_, device_); }

Tensor Objective::zero_vector() const {
  std::size_t n = 1;
  for (int64_t e : shape_) n *= static_cast<std::size_t>(e);
  Tensor z = dtype_ == DType::f64 ? tensor(std::vector<double>(n, 0.0), shape_)
                                  : tensor(std::vector<float>(n, 0.0f), shape_);
  return device_.is_cuda() ? z.to(device_).eval() : z;
}

Point Objective::along(const Point& base, const Tensor& d, double step) {
  if (base.x.defined()) {
    // The leaf follows the base point: assign makes the new value the leaf (docs/autograd.md).
    if (leaf_.node() != base.x.node()) leaf_.assign(base.x);
  }
  std::vector<Tensor> out = eval_(leaf_, d, scalar(step));
  ++res_.energy_evaluations;
  ++res_.gradient_evaluations;
  Point p;
  p.x = out[0];
  p.g = out[2];
  p.f = out[1].item<double>();
  p.slope = out[3].item<double>();
  p.ginf = out[4].item<double>();
  p.gg = out[5].item<double>();
  return p;
}

Point Objective::start() { return along(Point{}, zero_dir_, 0.0); }

namespace {
// The minimizer of the cubic through (a, fa, da) and (b, fb, db) (Nocedal & Wright 3.59), or
// NaN when it has none.
double cubic_min(double a, double fa, double da, double b, double fb, double db) {
  const double d1 = da + db - 3 * (fa - fb) / (a - b);
  const double disc = d1 * d1 - da * db;
  if (!(disc >= 0)) return std::numeric_limits<double>::quiet_NaN();
  const double d2 = std::copysign(std::sqrt(disc), b - a);
  const double den = db - da + 2 * d2;
  if (den == 0) return std::numeric_limits<double>::quiet_NaN();
  return b - (b - a) * (db + d2 - d1) / den;
}
}  // namespace

bool strong_wolfe(Objective& obj, const Point& base, const Tensor& d, double step, double c1, double c2,
                  int max_steps, Point& out) {
  const double f0 = base.f, d0 = base.slope;
  bool have_armijo = false;
  Point best;
  auto sufficient = [&](double a, const Point& p) { return std::isfinite(p.f) && p.f <= f0 + c1 * a * d0; };
  auto curvature = [&](const Point& p) { return std::abs(p.slope) <= -c2 * d0; };
  auto note = [&](double a, const Point& p) {
    if (sufficient(a, p) && std::isfinite(p.ginf) && (!have_armijo || p.f < best.f)) {
      best = p;
      have_armijo = true;
    }
  };
  double a_lo = 0, f_lo = f0, d_lo = d0;  // bracketing: the last step and its values
  double a_hi = 0, f_hi = 0, d_hi = 0;
  double a = step;
  int used = 0;
  bool zoom = false;
  while (used < max_steps) {
    Point p = obj.along(base, d, a);
    ++used;
    note(a, p);
    if (!sufficient(a, p) || (a_lo > 0 && p.f >= f_lo)) {
      a_hi = a, f_hi = p.f, d_hi = p.slope;
      zoom = true;
      break;
    }
    if (curvature(p)) {
      out = p;
      return true;
    }
    if (p.slope >= 0) {
      a_hi = a_lo, f_hi = f_lo, d_hi = d_lo;
      a_lo = a, f_lo = p.f, d_lo = p.slope;
      zoom = true;
      break;
    }
    a_lo = a, f_lo = p.f, d_lo = p.slope;
    a *= 2;  // still descending steeply: extrapolate
  }
  while (zoom && used < max_steps) {
    const double lo = std::min(a_lo, a_hi), hi = std::max(a_lo, a_hi), w = hi - lo;
    double aj = std::isfinite(f_hi) && std::isfinite(d_hi) ? cubic_min(a_lo, f_lo, d_lo, a_hi, f_hi, d_hi)
                                                           : std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(aj) || aj < lo + 0.1 * w || aj > hi - 0.1 * w) aj = 0.5 * (a_lo + a_hi);
    if (w <= 1e-14 * std::max(1.0, hi)) break;  // the interval is below the step's resolution
    Point p = obj.along(base, d, aj);
    ++used;
    note(aj, p);
    if (!sufficient(aj, p) || p.f >= f_lo) {
      a_hi = aj, f_hi = p.f, d_hi = p.slope;
    } else {
      if (curvature(p)) {
        out = p;
        return true;
      }
      if (p.slope * (a_hi - a_lo) >= 0) a_hi = a_lo, f_hi = f_lo, d_hi = d_lo;
      a_lo = aj, f_lo = p.f, d_lo = p.slope;
    }
  }
  if (have_armijo) out = best;
  return have_armijo;
}

bool should_stop(CGResult& res, const Point& p, double f_old, double gradient_tolerance,
                 double relative_energy_tolerance, bool first) {
  if (!std::isfinite(p.f) || !std::isfinite(p.ginf)) {
    res.reason = StopReason::not_finite;
    return true;
  }
  if (p.ginf < gradient_tolerance) {
    res.reason = StopReason::gradient;
    res.converged = true;
    return true;
  }
  if (!first && std::abs(f_old - p.f) <= relative_energy_tolerance * std::max(1.0, std::abs(p.f))) {
    res.reason = StopReason::energy;
    res.converged = true;
    return true;
  }
  return false;
}

}  // namespace detail
}  // namespace cgrad::optim
