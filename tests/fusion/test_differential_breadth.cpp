// Random graphs over the breadth of the op table (issue #15's functions and dtypes) evaluated by
// the CPU JIT and by the reference interpreter must agree. test_differential.cpp covers the
// original float ops; this one mixes every dtype family (b8, signed and unsigned integers of
// every width, f32, f64) with the newer rows: rounding and integer division,
// bitwise ops, two-argument float functions, flips, rolls, slices and concatenations, every
// reduction kind (sum, prod, max, min, mean, var, any, all, argmax, argmin, count_nonzero), scans,
// sorts, gathers and scatter_add. Each seed builds one graph of several outputs and evaluates
// them together, so the scheduler fuses across the new kinds as it would in a user's program.
//
// f16 and bf16 are left out on purpose: fused kernels compute them in f32 and round only what
// they store, the interpreter rounds after every op (docs/semantics.md, "Data types"), so their
// graphs differ by design, and an integer derived from them (a sort position, a rounding) can
// too; tests/ops/test_half_dtypes.cpp checks them against that rule.
//
// Agreement: integer and bool outputs exactly; floats within a tolerance for their precision
// (the JIT contracts multiply-adds into FMAs and sums in another order). NaN matches NaN and an
// infinity must match exactly. CGRAD_FUZZ_SEEDS raises the number of graphs for a longer local
// run (the default keeps the test under a minute on two cores).
#include "oracle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

using namespace cgrad;
using cgrad::test::with_backend;

namespace {

bool is_int_like(DType t) { return !is_floating(t); }

struct Gen {
  std::mt19937_64 rng;
  int64_t m, n;                // every pool tensor has shape (m, n)
  bool with_grad = false;      // float leaves require a gradient
  std::vector<Tensor> params;  // those leaves (before their layout view)
  explicit Gen(uint64_t seed) : rng(seed) {
    m = 1 + pick(6);
    n = pick(5) == 0 ? 257 + pick(60) : 1 + pick(24);  // rows of 257+ take sort's radix path
  }
  std::string trace;  // the choices made, for failure messages
  int pick(int k) { return static_cast<int>(rng() % static_cast<uint64_t>(k)); }
  int choose(const char* what, int k) {
    const int c = pick(k);
    trace += std::string(what) + std::to_string(c) + " ";
    return c;
  }
  int64_t axis() { return pick(2); }
  int64_t len(int64_t ax) const { return ax == 0 ? m : n; }

  DType any_dtype() {
    static const DType kinds[] = {b8, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64};
    const DType t = kinds[pick(11)];
    trace += std::string(dtype_name(t)) + " ";
    return t;
  }

  // A leaf of `t` with values that exercise the edges: negatives, zeros, ties.
  // A realized (r, c) tensor of `t` with values that exercise the edges: negatives, zeros, ties.
  Tensor values(DType t, int64_t r, int64_t c) {
    std::vector<double> v(static_cast<std::size_t>(r * c));
    for (double& x : v) {
      const int k = pick(10);
      if (t == b8)
        x = pick(2);
      else if (!is_floating(t))
        x = pick(41) - (t == u8 || t == u16 || t == u32 || t == u64 ? 0 : 20);
      else
        x = k == 0 ? 0.0 : k == 1 ? -0.0 : (static_cast<double>(pick(2001)) - 1000.0) / 250.0;
    }
    Tensor l = tensor(v, {r, c}).cast(t);
    l.eval();
    if (with_grad && is_floating(t)) {
      l.requires_grad(true);
      params.push_back(l);
    }
    return l;
  }

  // An (m, n) leaf in one of the layouts kernels index differently: contiguous, transposed,
  // a broadcast row or column (stride 0), every other column of a wider tensor.
  Tensor leaf(DType t) {
    switch (choose("l", 5)) {
      case 0: return values(t, n, m).T();
      case 1: return values(t, 1, n).expand({m, n});
      case 2: return values(t, m, 1).expand({m, n});
      case 3: return values(t, m, 2 * n).slice(1, 1, 2 * n, 2);
      default: return values(t, m, n);
    }
  }

  Tensor unary(const Tensor& x) {
    const bool fl = is_floating(x.dtype());
    switch (choose("u", fl ? 12 : 6)) {
      case 0: return abs(x);
      case 1: return -x;
      case 2: return x.dtype() == b8 ? logical_not(x) : bitwise_invert(x);
      case 3: return sign(x.dtype() == b8 ? x.cast(i32) : x);
      case 4: return square(x.dtype() == b8 ? x.cast(i16) : x);
      case 5: return x.cast(any_dtype());
      case 6: return floor(x * 1.5);
      case 7: return round(x * 2.5);
      case 8: return exp(x * 0.25);
      case 9: return log1p(abs(x));
      case 10: return erf(x) + tanh(x);
      default: return sqrt(abs(x)) - trunc(x);
    }
  }

  Tensor binary(const Tensor& a, const Tensor& b) {
    const bool fl = is_floating(a.dtype()) || is_floating(b.dtype());
    const bool ints = is_int_like(a.dtype()) && is_int_like(b.dtype()) && a.dtype() != b8 && b.dtype() != b8;
    switch (choose("b", 11)) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return maximum(a, b);
      case 4: return minimum(a, b);
      case 5: return where(a > b, a, b);
      case 6:
        if (fl) return atan2(a.cast(f32), b) + hypot(a, b.cast(f32));
        if (ints) return remainder(a, b);
        return logical_xor(a != 0, b != 0);
      case 7:
        if (fl) return logaddexp(a.cast(f64), b) - copysign(a.cast(f64), b.cast(f64));
        if (ints) return floor_divide(a, b);
        return a == b;
      case 8:
        if (ints) return bitwise_or(bitwise_xor(a, b), bitwise_and(a, b));
        return fl ? a / (abs(b.cast(f64)) + 1.0) : logical_and(a != 0, b == 0);
      case 9: return clip(a, -3, 3);
      default: return where(b > 0, a, 0);
    }
  }

  // What positions (argmax, argsort) are computed from: x itself when it is exact (integers,
  // b8), else a fresh integer leaf. Float values computed in two different orders can differ in
  // the last bit, which decides a near-tie (after a cancellation, any tie): the positions would
  // then differ legitimately, and so would everything gathered through them.
  Tensor ordinal(const Tensor& x) { return is_floating(x.dtype()) ? leaf(i32) : x; }

  // A (m, n) tensor computed from x by a movement, reduction, scan, sort or gather.
  Tensor structural(const Tensor& x, const Tensor& y) {
    const int64_t ax = axis(), l = len(ax);
    const bool fl = is_floating(x.dtype());
    switch (choose("s", 14)) {
      case 0: return flip(x, {ax});
      case 1: return roll(x, pick(7) - 3, ax);
      case 2: {  // a rotation by slices and a cat
        const int64_t k = l > 1 ? 1 + pick(static_cast<int>(l - 1)) : 0;
        return cat({x.slice(ax, k, l), x.slice(ax, 0, k)}, ax);
      }
      case 3: return x - max(x, {ax}, true);
      case 4: return fl ? x / (sum(abs(x), {ax}, true) + 1.0) : x + sum(x, {ax}, true).cast(x.dtype());
      case 5: return fl ? prod(x * 0.125 + 1.0, {ax}, true) * x : prod(x, {ax}, true) + x.cast(i64);
      case 6:  // standardized: (x - mean) * var would reach 1e28 from wrapped unsigned values,
               // where a sum of them cancels catastrophically and no tolerance fits
        return fl ? (x - mean(x, {ax}, true)) / (sqrt(var(x, {ax}, 1.0, true)) + 1.0)
                  : where(any(x, {ax}, true), x, y);
      case 7: return where(all(x > 0, {ax}, true), y, x) + count_nonzero(x, {ax}, true).cast(x.dtype());
      case 8: {
        const Tensor o = ordinal(x);
        return (pick(2) ? argmax(o, ax, true) : argmin(o, ax, true)) + x.cast(i64);
      }
      case 9: return fl ? cumulative_sum(x, ax) : cumulative_sum(x, ax) * 2;
      case 10:
        return fl ? cumulative_prod(x * 0.25 + 1.0, ax) : cumulative_prod(remainder(x.cast(i64), 3), ax);
      case 11:
        return pick(2) ? sort(x, ax, pick(2) != 0)
                       : take_along_axis(y, argsort(ordinal(x), ax, pick(2) != 0), ax);
      case 12: {  // a gather with in-range indices (the sorting positions of another tensor)
        Tensor idx = argsort(ordinal(y), ax).slice(1 - ax, 0, 1).reshape({l});
        return take(x, idx, ax);
      }
      default: {  // scatter_add of y into x along the axis, at a permutation of positions
        Tensor idx = argsort(ordinal(y), ax);
        return scatter_add_along_axis(x.cast(f64), ax, idx, y.cast(f64));
      }
    }
  }
};

struct Outputs {
  std::vector<std::vector<double>> values;
  std::vector<DType> dtypes;
  std::string trace;
};

// The graph of `seed`; with `with_grad`, its outputs are the gradients of a weighted sum of
// every float pool tensor with respect to the float leaves instead of the values.
Outputs evaluate(uint64_t seed, bool with_grad = false) {
  Gen g(seed);
  g.with_grad = with_grad;
  manual_seed(seed);
  std::vector<Tensor> pool;
  for (int k = 0; k < 3; ++k) pool.push_back(g.leaf(g.any_dtype()));
  for (int step = 0; step < 7; ++step) {
    const auto xi = static_cast<std::size_t>(g.pick(static_cast<int>(pool.size())));
    const auto yi = static_cast<std::size_t>(g.pick(static_cast<int>(pool.size())));
    const Tensor &x = pool[xi], &y = pool[yi];
    g.trace += "[" + std::to_string(xi) + "," + std::to_string(yi) + "]";
    const int what = g.pick(3);
    pool.push_back(what == 0 ? g.unary(x) : what == 1 ? g.binary(x, y) : g.structural(x, y));
  }
  if (std::getenv("CGRAD_FUZZ_DUMP"))  // debugging a failure: every pool tensor's values
    for (std::size_t k = 0; k < pool.size(); ++k) {
      std::string line = "pool " + std::to_string(k) + " " + dtype_name(pool[k].dtype()) + ":";
      for (double v : pool[k].to_vector<double>()) line += " " + std::to_string(v);
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  std::vector<Tensor> outs{pool.back(), pool[pool.size() - 2], pool[pool.size() - 4],
                           sum(pool[pool.size() - 3].cast(f64), {})};
  if (with_grad) {
    Tensor loss = full({}, 0.0, f64);
    double w = 1.0;
    for (const Tensor& t : pool)
      if (t.requires_grad()) loss = loss + sum(t.cast(f64) * (w *= -0.75), {});
    if (g.params.empty() || !loss.requires_grad()) throw Error(ErrorCode::InvalidArgument, "no float leaf");
    outs = grad(loss, g.params, false);
  }
  eval(outs);
  Outputs r;
  r.trace = g.trace + "(m " + std::to_string(g.m) + ", n " + std::to_string(g.n) + ")";
  for (const Tensor& t : outs) {
    r.values.push_back(t.to_vector<double>());
    r.dtypes.push_back(t.dtype());
  }
  return r;
}

// An f64 output may hold f32 values (a cast, a promotion), so every float gets f32's tolerance.
double tolerance(DType t) { return is_floating(t) ? 1e-4 : 0.0; }

int seeds() {
  const char* s = std::getenv("CGRAD_FUZZ_SEEDS");
  return s ? std::atoi(s) : 60;
}

}  // namespace

namespace {

// Evaluates every seed's graph (values, or gradients) on the JIT and on the interpreter and
// compares them; returns how many graphs were built (the rest were refused by both).
int check_seeds(bool with_grad) {
  int checked = 0;
  const char* only = std::getenv("CGRAD_FUZZ_SEED");  // one seed alone, to debug it
  for (uint64_t seed = 0; seed < static_cast<uint64_t>(seeds()); ++seed) {
    if (only && seed != std::strtoull(only, nullptr, 10)) continue;
    Outputs jit, ref;
    try {
      jit = evaluate(seed, with_grad);
    } catch (const Error& e) {
      if (std::getenv("CGRAD_FUZZ_DUMP"))
        std::fprintf(stderr, "seed %d refused: %s\n", static_cast<int>(seed), e.what());
      // A combination the API refuses (a dtype a function does not take) must be refused by the
      // interpreter's run of the same builder too.
      EXPECT_THROW(with_backend("interpreter", [&] { return evaluate(seed, with_grad); }), Error)
          << "seed " << seed;
      continue;
    }
    ref = with_backend("interpreter", [&] { return evaluate(seed, with_grad); });
    EXPECT_EQ(jit.values.size(), ref.values.size());
    if (jit.values.size() != ref.values.size()) continue;
    for (std::size_t o = 0; o < jit.values.size(); ++o) {
      EXPECT_EQ(jit.dtypes[o], ref.dtypes[o]) << "seed " << seed << " output " << o;
      EXPECT_EQ(jit.values[o].size(), ref.values[o].size()) << "seed " << seed << " output " << o;
      if (jit.dtypes[o] != ref.dtypes[o] || jit.values[o].size() != ref.values[o].size()) continue;
      const double tol = tolerance(jit.dtypes[o]);
      for (std::size_t i = 0; i < jit.values[o].size(); ++i) {
        const double a = jit.values[o][i], b = ref.values[o][i];
        const bool ok = std::isnan(b)   ? std::isnan(a)
                        : std::isinf(b) ? a == b
                                        : std::fabs(a - b) <= tol * (1 + std::fabs(b));
        if (!ok) {
          ADD_FAILURE() << "seed " << seed << " output " << o << " (" << dtype_name(jit.dtypes[o])
                        << ") elem " << i << ": jit " << a << ", interpreter " << b << "; choices "
                        << ref.trace;
          break;  // one line per output
        }
      }
    }
    ++checked;
  }
  std::printf("%d of %d graphs evaluated, the rest refused at build time on both backends\n", checked,
              seeds());
  return only ? seeds() : checked;
}

}  // namespace

TEST(DifferentialBreadth, RandomGraphsOverEveryDtypeMatchInterpreter) {
  // Most combinations are valid: a generator that only builds refused graphs would test nothing.
  EXPECT_GE(check_seeds(false), seeds() / 2);
}

// The same graphs differentiated: the backward graphs (sort, gather and scatter_add gradients,
// reductions' broadcasts back, the cast and promotion rules) fused by the JIT against the
// interpreter. Graphs without a float leaf, or whose loss does not depend on one, count as
// refused.
TEST(DifferentialBreadth, GradientsOfRandomGraphsMatchInterpreter) {
  EXPECT_GE(check_seeds(true), seeds() / 4);
}
