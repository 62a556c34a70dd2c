// Compiles the kernels of common graphs into a kernel cache directory, which a build installs as
// the prebuilt kernels (docs/jit.md, "Prebuilt kernels"): a first call whose kernels are there
// loads them instead of running the compiler. Kernels do not depend on sizes, scalar values or
// thread counts, only on the ops, dtypes and layouts of a graph, so each graph below stands for
// every graph of its shape. The kernels are the JIT's own, built by the same compiler with the
// same flags as at run time (the cache key holds both), so a hit gives the bits a compile would.
//
// usage: CGRAD_CACHE_DIR=<out> CGRAD_PREBUILT_KERNELS=0 prebuild_kernels
// (cmake/prebuilt_kernels.cmake runs it; the Python wheel ships <out>/??/*.so as cgrad/cgrad-kernels)
#include <cgrad/cgrad.hpp>
#include <cgrad/optim.hpp>

#include <cstdio>
#include <functional>
#include <vector>

using namespace cgrad;

namespace {

using Unary = Tensor (*)(const Tensor&);

Tensor leaf(Shape s, DType t, double lo = 0.25, double hi = 2.0) {
  return (rand(std::move(s), f64) * (hi - lo) + lo).cast(t).eval();
}

// Every real float function of one array, alone: f32 and f64, any length (a 2-D contiguous
// array flattens to the same kernel).
void float_functions(std::vector<Tensor>& out) {
  const std::vector<Unary> fns = {exp,    log,        sqrt,     rsqrt, abs,   sin,     cos,   tan,
                                  tanh,   sigmoid,    relu,     floor, ceil,  trunc,   sign,  log1p,
                                  expm1,  log2,       log10,    atan,  sinh,  cosh,    asinh, erf,
                                  square, reciprocal, negative, isnan, isinf, isfinite};
  const std::vector<Unary> unit = {asin, acos, atanh};  // defined on (-1, 1)
  for (DType t : {f32, f64}) {
    const Tensor x = leaf({4096}, t), u = leaf({4096}, t, -0.9, 0.9), big = leaf({4096}, t, 1.5, 4.0);
    for (Unary f : fns) out.push_back(f(x));
    for (Unary f : unit) out.push_back(f(u));
    out.push_back(acosh(big));
    out.push_back(cgrad::round(x));
  }
}

// Arithmetic and comparisons of two arrays of one shape, of an array and a scalar (either side),
// and of a matrix and a row (a bias): f32, f64, i32, i64.
void binary_ops(std::vector<Tensor>& out) {
  for (DType t : {f32, f64, i32, i64}) {
    const bool fp = t == f32 || t == f64;
    const Tensor a = leaf({64, 64}, t, 1, 9), b = leaf({64, 64}, t, 1, 9), row = leaf({64}, t, 1, 9);
    out.insert(out.end(),
               {a + b,   a - b,   a * b,   a / b,   maximum(a, b), minimum(a, b), a<b, a <= b, a> b,
                a >= b,  a == b,  a != b,  a + 2.0, a - 2.0,       a * 2.0,       a / 2.0,
                2.0 - a, 2.0 / a, a + row, a - row, a * row,       a / row,       -a,
                abs(a)});
    if (fp)
      out.insert(out.end(),
                 {pow(a, b), pow(a, 2.0), atan2(a, b), hypot(a, b), where(a > b, a, b), clamp(a, 2.0, 5.0)});
    else
      out.insert(out.end(), {floor_divide(a, b), remainder(a, b)});
  }
}

// A reduction of everything runs in one pass up to a size and in stages past it: each is
// compiled at one length of each kind.
constexpr int64_t kLengths[] = {4096, int64_t(1) << 20};

// Patterns that fuse into one kernel and that scripts write all the time.
void fused_patterns(std::vector<Tensor>& out) {
  for (DType t : {f32, f64})
    for (int64_t n : kLengths) {
      const Tensor a = leaf({n}, t), b = leaf({n}, t);
      out.insert(out.end(), {sum(a * b), mean(square(a - b)), sqrt(sum(square(a)))});  // dot, MSE, norm
    }
  for (DType t : {f32, f64}) {
    const Tensor a = leaf({4096}, t), b = leaf({4096}, t), c = leaf({4096}, t);
    const Tensor m = leaf({64, 256}, t), w = leaf({256}, t);
    out.insert(out.end(), {
                              a * b + c,                    // a multiply-add
                              a * 2.0 + b,                  // axpy
                              1.0 / (1.0 + exp(-a)),        // a logistic written out
                              where(a > 1.0, a, a * 0.01),  // leaky ReLU
                              relu(m + w),                  // bias and ReLU
                              tanh(m + w),                  // bias and tanh
                              (m - mean(m, {-1}, true)) / sqrt(var(m, {-1}, 0.0, true) + 1e-5),  // layer norm
                          });
  }
}

// Reductions over everything, along the last axis and along the first, and row kernels (softmax,
// log-softmax, scans): f32 and f64; sum and friends of integers and booleans.
void reductions(std::vector<Tensor>& out) {
  for (DType t : {f32, f64}) {
    const Tensor v = leaf({1 << 16}, t), m = leaf({64, 256}, t);
    for (int64_t n : kLengths) {
      const Tensor x = leaf({n}, t);
      out.insert(out.end(),
                 {sum(x), mean(x), max(x), min(x), prod(x), argmax(x), argmin(x), var(x), cgrad::std(x)});
    }
    for (int64_t ax : {-1, 0})
      out.insert(out.end(), {sum(m, {ax}), mean(m, {ax}), max(m, {ax}), min(m, {ax}), prod(m, {ax}),
                             argmax(m, ax), argmin(m, ax), var(m, {ax}), cgrad::std(m, {ax})});
    out.insert(out.end(), {softmax(m, -1), log_softmax(m, -1), cumulative_sum(m, -1), cumulative_sum(v, 0)});
  }
  for (DType t : {i32, i64}) {
    const Tensor m = leaf({64, 256}, t, 0, 9);
    out.insert(out.end(), {sum(m, {-1}), sum(m, {0})});
    for (int64_t n : kLengths) {
      const Tensor v = leaf({n}, t, 0, 9);
      out.insert(out.end(), {sum(v), max(v), min(v), argmax(v)});
    }
  }
  for (int64_t n : kLengths) {
    const Tensor bits = leaf({n}, f32) > 1.0;
    out.insert(out.end(), {all(bits), any(bits), sum(bits), count_nonzero(bits)});
  }
}

// Conversions between the common dtypes.
void casts(std::vector<Tensor>& out) {
  const std::vector<DType> ts = {f32, f64, i32, i64, b8};
  for (DType from : ts)
    for (DType to : ts)
      if (from != to) out.push_back(leaf({4096}, from, 0, 3).cast(to));
}

// Training steps of small dense networks (two hidden layers of one width, ReLU, softmax
// cross-entropy on class labels) with SGD and momentum and with Adam: forward, backward and the
// update evaluated as one schedule, as optimizers do. The kernels depend on which parameters share
// a shape, not on the sizes.
void training_steps(std::vector<Tensor>& out) {
  const int64_t b = 16, in = 40, h = 24, classes = 10;
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < b; ++i) labels.push_back(i % classes);
  const Tensor x = leaf({b, in}, f32, -1, 1), y = tensor(labels, {b});
  for (int which = 0; which < 2; ++which) {
    std::vector<Tensor> p = {leaf({in, h}, f32, -0.1, 0.1),      leaf({h}, f32, -0.1, 0.1),
                             leaf({h, h}, f32, -0.1, 0.1),       leaf({h}, f32, -0.1, 0.1),
                             leaf({h, classes}, f32, -0.1, 0.1), leaf({classes}, f32, -0.1, 0.1)};
    for (Tensor& t : p) t.requires_grad(true);
    std::unique_ptr<optim::Optimizer> opt;
    if (which == 0)
      opt = std::make_unique<optim::SGD>(p, 0.01, 0.9);
    else
      opt = std::make_unique<optim::Adam>(p, 1e-3);
    for (int step = 0; step < 2; ++step) {  // the first step and the ones after it (momentum buffers)
      opt->zero_grad();
      const Tensor h1 = relu(matmul(x, p[0]) + p[1]);
      const Tensor h2 = relu(matmul(h1, p[2]) + p[3]);
      Tensor loss = cross_entropy(matmul(h2, p[4]) + p[5], y);
      loss.backward();
      opt->step({loss});
      out.push_back(loss);
    }
  }
}

// A graph that fails (a compiler that fails or times out on this machine) is reported and left
// out: the kernels are an optimization, and a build must not fail for them.
bool run(const char* what, const std::function<void(std::vector<Tensor>&)>& add, std::size_t& graphs) {
  try {
    std::vector<Tensor> part;
    add(part);
    for (Tensor& t : part) t.eval();  // one at a time: evaluated together, graphs fuse into shared kernels
    graphs += part.size();
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prebuild_kernels: %s left out: %s\n", what, e.what());
    return false;
  }
}

}  // namespace

int main() {
  manual_seed(0);
  std::size_t graphs = 0;
  run("training steps", training_steps, graphs);  // (evaluated by the optimizers' steps as well)
  run("float functions", float_functions, graphs);
  run("binary ops", binary_ops, graphs);
  run("fused patterns", fused_patterns, graphs);
  run("reductions", reductions, graphs);
  run("casts", casts, graphs);
  const auto s = stats();
  std::printf("prebuild_kernels: %zu graphs, %lld kernels compiled, %lld found on disk\n", graphs,
              static_cast<long long>(s.kernels_compiled), static_cast<long long>(s.disk_cache_hits));
  return 0;
}
