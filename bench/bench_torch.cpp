// bench_torch: libtorch CPU eager (C++ API), with the hand loops measured in the same process.
// Built only when find_package(Torch) succeeds (see bench/CMakeLists.txt); threads set with
// at::set_num_threads (1 and 2). Adapted from the anchors' bench_torch.cpp (our own code),
// which ran against Debian's libtorch 1.13.
#include "common.hpp"
#include "hand.hpp"

#include <torch/torch.h>
#include <cgrad/cgrad.hpp>

#include <cstdlib>

using namespace bench;

static double csum(const torch::Tensor& t) { return t.to(torch::kDouble).sum().item<double>(); }

static torch::Tensor rnd(long n, unsigned seed, double lo, double hi, torch::Dtype dt) {
  torch::Tensor t = torch::empty({n}, torch::kDouble);
  fill_uniform(t.data_ptr<double>(), n, seed, lo, hi);
  return t.to(dt).contiguous();
}

template <class T>
void run_elementwise(int thr, bool loops) {
  const long n = N_BIG;
  const char* dt = dtype_name<T>();
  auto ty = std::is_same<T, float>::value ? torch::kFloat : torch::kDouble;
  auto a = rnd(n, 1, -1, 1, ty), b = rnd(n, 2, -1, 1, ty), c = rnd(n, 3, -1, 1, ty);
  auto d = torch::empty_like(a), tmp = torch::empty_like(a);
  if (loops) {
    hand::w1(a.template data_ptr<T>(), b.template data_ptr<T>(), c.template data_ptr<T>(),
             d.template data_ptr<T>(), n);
    hand::w2(a.template data_ptr<T>(), d.template data_ptr<T>(), n);
    hand::w3(a.template data_ptr<T>(), b.template data_ptr<T>(), n);
  }
  const double sz = sizeof(T);
  torch::Tensor r;
  auto s = measure([&] { r = a * b + c; });
  report("torch", "eager", "W1", dt, n, thr, s, 4 * n * sz, -1, csum(r));
  s = measure([&] {
    torch::mul_out(tmp, a, b);
    torch::add_out(d, tmp, c);
  });
  report("torch", "eager_out", "W1", dt, n, thr, s, 4 * n * sz, -1, csum(d));
  s = measure([&] { r = torch::reciprocal(1 + torch::exp(-a)); });
  report("torch", "eager", "W2", dt, n, thr, s, 2 * n * sz, -1, csum(r));
  s = measure([&] { r = torch::sigmoid(a); });
  report("torch", "sigmoid", "W2", dt, n, thr, s, 2 * n * sz, -1, csum(r));
  volatile double sink = 0;
  s = measure([&] { sink = (a * b).sum().template item<double>(); });
  report("torch", "eager", "W3", dt, n, thr, s, 2 * n * sz, -1, static_cast<double>(sink));
}

template <class T>
void run_softmax(int thr, bool loops) {
  const long rows = SM_ROWS, cols = SM_COLS, n = rows * cols;
  auto ty = std::is_same<T, float>::value ? torch::kFloat : torch::kDouble;
  auto x = rnd(n, 4, -4, 4, ty).reshape({rows, cols}).contiguous();
  torch::Tensor y = torch::empty_like(x);
  if (loops) hand::w4(x.template data_ptr<T>(), y.template data_ptr<T>(), rows, cols);
  auto s = measure([&] { y = torch::softmax(x, 1); });
  report("torch", "softmax", "W4", dtype_name<T>(), n, thr, s, 2.0 * n * sizeof(T), -1, csum(y));
  s = measure([&] {
    auto e = (x - std::get<0>(x.max(1, true))).exp();
    y = e / e.sum({1}, true);
  });
  report("torch", "eager", "W4", dtype_name<T>(), n, thr, s, 2.0 * n * sizeof(T), -1, csum(y));
}

void run_lorenz(int thr, bool loops) {
  const long N = LZ_N;
  auto s0 = hand::lorenz_init<double>(N);
  if (loops) hand::w5(s0.data(), N);
  auto all = torch::from_blob(s0.data(), {3 * N}, torch::kDouble).clone();
  auto X = all.slice(0, 0, N).clone(), Y = all.slice(0, N, 2 * N).clone(),
       Z = all.slice(0, 2 * N, 3 * N).clone();
  const double S = LZ_SIGMA, R = LZ_R, B = LZ_B, h = LZ_DT, h2 = h / 2, h6 = h / 6;
  auto rhs = [&](const torch::Tensor& x, const torch::Tensor& y, const torch::Tensor& z) {
    return std::make_tuple(S * (y - x), R * x - y - x * z, x * y - B * z);
  };
  auto step = [&] {
    auto [k1x, k1y, k1z] = rhs(X, Y, Z);
    auto [k2x, k2y, k2z] = rhs(X + h2 * k1x, Y + h2 * k1y, Z + h2 * k1z);
    auto [k3x, k3y, k3z] = rhs(X + h2 * k2x, Y + h2 * k2y, Z + h2 * k2z);
    auto [k4x, k4y, k4z] = rhs(X + h * k3x, Y + h * k3y, Z + h * k3z);
    X = X + h6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    Y = Y + h6 * (k1y + 2 * k2y + 2 * k3y + k4y);
    Z = Z + h6 * (k1z + 2 * k2z + 2 * k3z + k4z);
  };
  auto s = measure(step);
  // checksum of exactly one step from the initial state
  X = all.slice(0, 0, N).clone(), Y = all.slice(0, N, 2 * N).clone(), Z = all.slice(0, 2 * N, 3 * N).clone();
  step();
  report("torch", "eager", "W5", "f64", 3 * N, thr, s, 2.0 * 3 * N * 8, -1, csum(X) + csum(Y) + csum(Z));
}

// The W6 chain, as users write it (each op a fresh output).
torch::Tensor w6_chain(const torch::Tensor& y0, const torch::Tensor& a, const torch::Tensor& b) {
  torch::Tensor y = y0 * a;
  y = y + b;
  for (int k = 1; k < W6_OPS / 2; ++k) {
    y = y * a;
    y = y + b;
  }
  return y;
}

void run_w6(int thr, bool inference, bool loops) {
  auto y0 = rnd(W6_N, 8, -1, 1, torch::kFloat), a = rnd(W6_N, 9, 0.9, 1.0, torch::kFloat),
       b = rnd(W6_N, 10, -0.1, 0.1, torch::kFloat);
  if (loops) hand::w6(y0.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>());
  torch::Tensor y;
  auto body = [&] { y = w6_chain(y0, a, b); };
  Stat s;
  if (inference) {
    c10::InferenceMode guard;
    s = measure(body);
  } else {
    s = measure(body);
  }
  report("torch", inference ? "eager_inference_mode" : "eager", "W6", "f32", W6_N, thr, s, 0, -1, csum(y));
}

// W6 in cgrad and in libtorch eager, their samples alternating in this one process: the ratio
// that the W6 target is about, measured side by side (the cgrad_t2 process's W6 row and the
// eager row above come from different processes, which a shared VM can run at different speeds).
void run_w6_beside_cgrad() {
  auto y0 = rnd(W6_N, 8, -1, 1, torch::kFloat), a = rnd(W6_N, 9, 0.9, 1.0, torch::kFloat),
       b = rnd(W6_N, 10, -0.1, 0.1, torch::kFloat);
  auto host = [](const torch::Tensor& t) {
    return cgrad::tensor(std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel()), {W6_N})
        .eval();
  };
  const cgrad::Tensor cy0 = host(y0), ca = host(a), cb = host(b);
  torch::Tensor y;
  auto torch_chain = [&] { y = w6_chain(y0, a, b); };
  cgrad::Tensor cy;
  auto cgrad_chain = [&] {  // as bench_cgrad's W6: the graph rebuilt, evaluated, freed per call
    cgrad::Tensor t = cy0 * ca;
    t = t + cb;
    for (int k = 1; k < W6_OPS / 2; ++k) {
      t = t * ca;
      t = t + cb;
    }
    cy = t.eval();
  };
  auto [st, sc] = measure_alternating(torch_chain, cgrad_chain);
  report("torch", "eager_beside_cgrad", "W6", "f32", W6_N, at::get_num_threads(), st, 0, -1, csum(y));
  double check = 0;
  for (float v : cy.to_vector<float>()) check += v;
  report("cgrad", "beside_torch", "W6", "f32", W6_N, cgrad_threads(), sc, 0, 1, check,
         "samples alternate with the eager_beside_cgrad row's");
}

int main(int argc, char** argv) {
  proc_name() = argc > 2 && std::string(argv[1]) == "--proc" ? argv[2] : "torch";
  // As in bench_cgrad: every call evaluates the same graph on the same inputs, which the result
  // cache (docs/plans.md) would answer without launching anything.
  setenv("CGRAD_RESULT_CACHE_BYTES", "0", 0);
  for (int thr : {1, 2}) {
    at::set_num_threads(thr);
    const bool loops = thr == 1;  // the hand loops (both thread counts) once per process
    run_elementwise<float>(thr, loops);
    run_elementwise<double>(thr, loops);
    run_softmax<float>(thr, loops);
    run_softmax<double>(thr, loops);
    run_lorenz(thr, loops);
    run_w6(thr, false, loops);
    run_w6(thr, true, false);
  }
  at::set_num_threads(1);
  run_w6_beside_cgrad();
  return 0;
}
