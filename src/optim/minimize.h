// Shared machinery of minimize_tn and minimize_lbfgs (src/optim/minimize.cpp): argument checks,
// the energy-and-gradient evaluation as one compiled plan, and the strong-Wolfe line search.
//
// Every evaluation of the energy and its gradient is the same compiled function of (base
// point, direction, step): the trial point is base + step * direction, so the start point
// (direction zero, step zero), every line-search trial and every iteration replay one plan.
// The step is a 0-d buffer argument, never a constant, for the same reason.
#pragma once

#include <cgrad/compile.hpp>
#include <cgrad/optim.hpp>

#include <functional>
#include <string>

namespace cgrad::optim::detail {

using EnergyFn = std::function<Tensor(const Tensor&)>;

/// A realized point with its energy, gradient and the scalars the minimizers read.
struct Point {
  Tensor x, g;
  double f = 0, ginf = 0, gg = 0;
  double slope = 0;  ///< g . direction, for a trial along a direction
};

/// Throws InvalidArgument / DTypeMismatch for a bad call, before anything is evaluated.
void check_arguments(const char* who, const EnergyFn& energy, const Tensor& x, int max_iterations,
                     double gradient_tolerance, double relative_energy_tolerance, double armijo, double wolfe,
                     int max_line_search_steps);

class Objective {
 public:
  Objective(const char* who, const EnergyFn& energy, const Tensor& x, CGResult& result);
  /// The energy and gradient at x (the starting point).
  Point start();
  /// The energy, gradient and slope g.d at base.x + step * d (a realized trial point).
  Point along(const Point& base, const Tensor& d, double step);
  /// A realized 0-d tensor holding v in the point's dtype and device.
  Tensor scalar(double v) const;
  /// A realized contiguous zero vector of x's shape. Not zeros(): that is a stride-0 constant,
  /// a layout that would make the first calls of a compiled function trace a plan of their own.
  Tensor zero_vector() const;
  /// Why a point ends the iteration, or nothing: not finite, or the gradient tolerance met.
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  /// The gradient leaf every energy graph starts from (the base of the current trial).
  Tensor& leaf() { return leaf_; }

 private:
  std::string who_;
  EnergyFn energy_;
  DType dtype_;
  Device device_;
  CGResult& res_;
  Shape shape_;
  Tensor leaf_, zero_dir_;
  std::function<std::vector<Tensor>(const Tensor&, const Tensor&, const Tensor&)> eval_;
};

/// Strong-Wolfe line search (Nocedal & Wright, algorithms 3.5 and 3.6, cubic interpolation)
/// along the descent direction d from `base`, first trial `step`. Returns true and the accepted
/// point in `out`; false when no step satisfying the conditions was found in `max_steps`
/// evaluations (`out` then holds the lowest point satisfying sufficient decrease, if any, and
/// the return is still true when there is one).
bool strong_wolfe(Objective& obj, const Point& base, const Tensor& d, double step, double c1, double c2,
                  int max_steps, Point& out);

/// The common stop tests at an accepted point; returns true (and sets the reason) to stop.
bool should_stop(CGResult& res, const Point& p, double f_old, double gradient_tolerance,
                 double relative_energy_tolerance, bool first);

}  // namespace cgrad::optim::detail
