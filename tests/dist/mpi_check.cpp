// The multi-process checks of cgrad::dist, run by CTest under `mpirun -np 1`, `-np 2` and
// `-np 4` (label mpi; registered only when MPI is found). Every process builds the same global
// inputs (fixed formulas), computes the single-process answer with plain tensors, and compares it
// with the sharded computation gathered back. The axis sizes are odd so that blocks are uneven.
// Also: fusion counts per process, the data-parallel MLP step's loss curve against one process,
// a compiled plan replaying its collective, odeint on a sharded Lorenz ensemble (when Boost is
// there), and an error raised on one process reaching every process with no hang.
// Prints one line per failed check; exits non-zero on every process if any process failed one.
#include <cgrad/cgrad.hpp>
#include <cgrad/compile.hpp>
#include <cgrad/dist/mpi.hpp>
#include <cgrad/optim.hpp>
#include <cgrad/scalar.hpp>

#if CGRAD_HAVE_ODEINT
#include <cgrad/odeint.hpp>
#include <cgrad/odeint/dtensor.hpp>
#endif

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace cgrad;
namespace dist = cgrad::dist;

namespace {

int failures = 0;
std::string current;
// Kernel counts are the JIT's (the interpreter runs node by node): checked only with it.
bool jit = true;

void fail(const std::string& what) {
  ++failures;
  std::fprintf(stderr, "[rank %d] FAIL %s: %s\n", dist::rank(), current.c_str(), what.c_str());
}
void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}
void close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what,
           double tol = 1e-5) {
  if (got.size() != want.size())
    return fail(what + ": size " + std::to_string(got.size()) + " vs " + std::to_string(want.size()));
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i]))))
      return fail(what + ": element " + std::to_string(i) + " " + std::to_string(got[i]) + " vs " +
                  std::to_string(want[i]));
}
void close(const Tensor& got, const Tensor& want, const std::string& what, double tol = 1e-5) {
  close(got.cast(f32).to_vector<float>(), want.cast(f32).to_vector<float>(), what, tol);
}

// Deterministic inputs, the same on every process.
Tensor input(Shape s, double a = 0.37, double b = 0.11) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return sin(arange(n, f32) * a + b).reshape(s).eval();
}

void run(const char* name, const std::function<void()>& body) {
  current = name;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    dist::spmd(body);
  } catch (const std::exception& e) {
    fail(std::string("unexpected error: ") + e.what());
  }
  if (dist::rank() == 0)
    std::printf("mpi_check: %-24s %.2f s\n", name,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

void elementwise_ops() {
  Tensor x = input({13, 5}), y = input({5}, 0.9), z = input({13, 1}, 0.5);
  dist::DTensor out = dist::exp(dist::shard(x, 0)) * dist::replicate(y) + dist::replicate(z) / 2.0;
  reset_stats();
  out.eval();
  check(!jit || stats().kernels_launched == 1,
        "element-wise graph: " + std::to_string(stats().kernels_launched) + " kernels");
  close(out.gather(), exp(x) * y + z / 2.0, "exp(x) * y + z / 2");
  dist::DTensor cols = dist::tanh(dist::shard(x, 1)) - dist::replicate(y);
  close(cols.gather(), tanh(x) - y, "sharded along axis 1");
}

void reductions() {
  Tensor a = input({11, 6}), b = input({11, 6}, 0.21);
  dist::DTensor as = dist::shard(a, 0), bs = dist::shard(b, 0);
  dist::DTensor dot = dist::sum(as * bs);
  reset_stats();
  dot.eval();
  check(!jit || stats().kernels_launched == 1,
        "sum(a * b): " + std::to_string(stats().kernels_launched) + " kernels");
  close(dot.local(), sum(a * b), "sum(a * b) over the sharded axis", 1e-5);
  close(as.max({0}).local(), max(a, {0}), "max over the sharded axis");
  close(as.min({0}, true).local(), min(a, {0}, true), "min over the sharded axis, keepdim");
  close(as.mean().local(), mean(a), "mean of all");
  close(as.sum({1}).gather(), sum(a, {1}), "sum over the local axis");
  check(as.sum({1}).sharded(), "sum over the local axis stays sharded");
  dist::DTensor cs = dist::shard(a, 1);  // 6 columns over up to 4 processes
  close(cs.sum({1}).local(), sum(a, {1}), "sum over sharded axis 1");
  close(cs.max({0}).gather(), max(a, {0}), "max over the local axis 0");
  close(dist::shard(arange(13, i64), 0).sum().local(), sum(arange(13, i64)), "integer sum");
}

// all_reduce over every dtype it accepts (MPI's datatype per dtype; f16 and bf16 are reduced in
// f32 and rounded once). Process r contributes (r + 1) * base: the sum is base * P(P+1)/2, the
// max base * P, the min base (all exact in every dtype here); u8 sums wrap modulo 256.
void dtypes() {
  const int p = dist::size();
  const double r1 = dist::rank() + 1, tri = p * (p + 1) / 2.0;
  for (DType t : {f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64}) {
    const std::vector<double> base = {1, 2, 3, 0.0};
    Tensor x = (tensor(base, {4}) * r1).cast(t);
    const std::string n = dtype_name(t);
    std::vector<double> want_sum, want_max;
    for (double b : base) want_sum.push_back(b * tri), want_max.push_back(b * p);
    auto got = [](const Tensor& y) { return y.to_vector<double>(); };
    Tensor s = dist::all_reduce(x, dist::ReduceOp::Sum);
    check(s.dtype() == t, n + ": sum keeps the dtype");
    check(got(s) == want_sum, n + ": sum");
    check(got(dist::all_reduce(x, dist::ReduceOp::Max)) == want_max, n + ": max");
    check(got(dist::all_reduce(x, dist::ReduceOp::Min)) == base, n + ": min");
  }
  // u8 wraps: 200 from every process.
  Tensor w = dist::all_reduce(full({1}, 200, u8));
  check(w.to_vector<int64_t>()[0] == (200 * p) % 256, "u8 sum wraps modulo 256");
  // f16 rounds once: every process adds 1 + 2^-10 (exact in f16); the f32 sum rounds to f16 once.
  Tensor h = dist::all_reduce(full({1}, 1 + std::ldexp(1.0, -10), f16));
  check(h.to_vector<double>()[0] ==
            static_cast<double>(float16_t(static_cast<float>(p * (1 + std::ldexp(1.0, -10))))),
        "f16 sum rounds once");
}

void matmuls() {
  Tensor a = input({9, 7}), w = input({7, 5}, 0.3);
  close(dist::matmul(dist::shard(a, 0), dist::replicate(w)).gather(), matmul(a, w),
        "row-sharded x replicated");
  close(dist::matmul(dist::shard(a, 1), dist::shard(w, 0)).local(), matmul(a, w), "contraction sharded");
  close(dist::matmul(dist::shard(a, 1), dist::replicate(w)).local(), matmul(a, w),
        "contraction sharded, b replicated");
  close(dist::matmul(dist::replicate(a), dist::shard(w, 1)).gather(), matmul(a, w), "column-sharded b");
}

void softmaxes() {
  Tensor x = input({10, 7}, 0.8);
  close(dist::softmax(dist::shard(x, 0), -1).gather(), softmax(x, -1), "softmax over classes, sharded batch");
  close(dist::softmax(dist::shard(x, 0), 0).gather(), softmax(x, 0), "softmax over the sharded batch axis");
  close(dist::log_softmax(dist::shard(x, 1), 1).gather(), log_softmax(x, 1),
        "log_softmax over sharded axis 1");
}

void compiled_plan() {
  auto f =
      compile([](const Tensor& local) { return dist::sum(dist::from_local(local, 0, 10) * 3.0).local(); });
  for (int step = 0; step < 3; ++step) {
    Tensor x = input({10, 3}, 0.1 + step);
    dist::DTensor xs = dist::shard(x, 0);
    close(f(xs.local().eval()), sum(x * 3.0), "compiled call " + std::to_string(step), 1e-5);
  }
}

// Data parallelism: a 2-layer MLP on a global batch of 24 sharded along the batch; gradients
// all-reduced once per step. The loss curve must match one process on the whole batch.
std::vector<float> mlp_losses(bool sharded) {
  std::vector<int64_t> classes;
  for (int64_t i = 0; i < 24; ++i) classes.push_back(i * 7 % 3);
  Tensor x = input({24, 4}, 0.7), t = tensor(classes, {24});
  Tensor w1 = input({4, 16}, 0.13) * 0.5, b1 = zeros({16}), w2 = input({16, 3}, 0.19) * 0.5, b2 = zeros({3});
  std::vector<Tensor> params{w1, b1, w2, b2};
  for (Tensor& p : params) p.eval().requires_grad(true);
  optim::SGD opt(params, 0.5, 0.9);
  std::vector<float> losses;
  for (int step = 0; step < 6; ++step) {
    opt.zero_grad();
    dist::DTensor xs = sharded ? dist::shard(x, 0) : dist::replicate(x);
    dist::DTensor ts = sharded ? dist::shard(t, 0) : dist::replicate(t);
    dist::DTensor h = dist::relu(dist::matmul(xs, dist::replicate(params[0])) + dist::replicate(params[1]));
    dist::DTensor logits = dist::matmul(h, dist::replicate(params[2])) + dist::replicate(params[3]);
    dist::DTensor loss = sharded ? dist::cross_entropy(logits, ts)
                                 : dist::replicate(cross_entropy(logits.local(), ts.local()));
    loss.backward();
    if (sharded) dist::all_reduce_grads(params);
    opt.step();
    losses.push_back(loss.item<float>());
  }
  return losses;
}

void mlp_step() {
  std::vector<float> one = mlp_losses(false), many = mlp_losses(true);
  close(many, one, "loss curve", 1e-4);
  check(one.back() < one.front(), "the loss goes down");
}

#if CGRAD_HAVE_ODEINT
// Lorenz ensemble, state (3, n) sharded along the ensemble axis, controlled dopri5.
template <class State>
struct Lorenz {
  State rho;
  void operator()(const State& s, State& d, double) const {
    const State x = s.slice(0, 0, 1), y = s.slice(0, 1, 2), z = s.slice(0, 2, 3);
    if constexpr (std::is_same_v<State, Tensor>)
      d = cgrad::cat({10.0 * (y - x), x * (rho - z) - y, x * y - (8.0 / 3.0) * z}, 0);
    else
      d = dist::cat({10.0 * (y - x), x * (rho - z) - y, x * y - (8.0 / 3.0) * z}, 0);
  }
};

void odeint() {
  namespace ode = boost::numeric::odeint;
  const int64_t n = 37;
  Tensor rho = (arange(n, f64) * (18.0 / n) + 10.0).reshape({1, n});
  Tensor s0 =
      cat({full({1, n}, 10.0, f64) + arange(n, f64).reshape({1, n}) * 1e-3, full({2, n}, 10.0, f64)}, 0);
  Tensor single = s0;
  const std::size_t steps1 =
      ode::integrate_adaptive(ode::make_controlled(1e-6, 1e-6, ode::runge_kutta_dopri5<Tensor>()),
                              Lorenz<Tensor>{rho}, single, 0.0, 0.1, 0.01);
  dist::DTensor sharded = dist::shard(s0, 1);
  const std::size_t steps =
      ode::integrate_adaptive(ode::make_controlled(1e-6, 1e-6, ode::runge_kutta_dopri5<dist::DTensor>()),
                              Lorenz<dist::DTensor>{dist::shard(rho, 1)}, sharded, 0.0, 0.1, 0.01);
  check(steps == steps1,
        "odeint steps " + std::to_string(steps) + " vs " + std::to_string(steps1) + " in one process");
  close(sharded.gather(), single, "final Lorenz state", 1e-9);
  if (dist::rank() == 0) std::printf("mpi_check: odeint took %zu steps\n", steps);
}
#endif

void error_on_one_process() {
  // The last process builds an op with mismatched shapes; every process must raise.
  bool raised = false;
  std::string msg;
  try {
    dist::spmd([] {
      dist::DTensor x = dist::shard(input({8, 3}), 0);
      if (dist::rank() == dist::size() - 1) (void)(input({2, 3}) + input({3, 2}));
      (void)dist::sum(x).item<float>();
    });
  } catch (const Error& e) {
    raised = true;
    msg = e.what();
  }
  check(raised, "no error raised");
  if (dist::rank() != dist::size() - 1)
    check(msg.find("process " + std::to_string(dist::size() - 1)) != std::string::npos,
          "message names the process: " + msg);
  // Everything still works afterwards.
  close(dist::sum(dist::shard(input({8, 3}), 0)).local(), sum(input({8, 3})), "after the error");
}

}  // namespace

int main(int argc, char** argv) {
  dist::Session session(&argc, &argv);
  const char* backend = std::getenv("CGRAD_BACKEND");
  jit = !backend || std::string(backend) != "interpreter";
  bool with_odeint = true;
  for (int i = 1; i < argc; ++i) with_odeint = with_odeint && std::string(argv[i]) != "--no-odeint";
  run("elementwise", elementwise_ops);
  run("reductions", reductions);
  run("dtypes", dtypes);
  run("matmul", matmuls);
  run("softmax", softmaxes);
  run("compiled plan", compiled_plan);
  run("mlp data-parallel step", mlp_step);
#if CGRAD_HAVE_ODEINT
  if (with_odeint) run("odeint lorenz", odeint);
#endif
  current = "error on one process";
  error_on_one_process();
  // Every process learns whether any process failed.
  Tensor total = dist::all_reduce(tensor(std::vector<int64_t>{failures}, {1}));
  const int64_t all = total.item<int64_t>();
  if (dist::rank() == 0)
    std::printf("mpi_check: %d processes, %lld failed checks\n", dist::size(), static_cast<long long>(all));
  return all == 0 ? 0 : 1;
}
