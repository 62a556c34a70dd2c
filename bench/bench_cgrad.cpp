// bench_cgrad: cgrad against hand-written OpenMP loops, in one process, so that every ratio
// comes from one run. Workloads (docs/benchmarks.md):
//   W1 a*b + c, W2 1/(1+exp(-x)), W3 sum(a*b)      2^24 elements, f32 and f64
//   W1elu elu(a*b + c): a user elementwise() elu beside the built-in chain (issue #23)
//   W4 row softmax of 4096 x 4096                   f32 and f64
//   W5 one RK4 step of 2^20 Lorenz systems          f64 (and f32)
//   W6 a chain of 100 element-wise ops on 16 elements (host overhead)
//   W7 a*b + c at 2^24 elements stored in f16 and bf16 against f32 (samples alternate)
//   W8 an embedding lookup forward + backward: take(W, idx), W 50000 x 64 f32, 8192 indices; the
//      gradient through scatter_add against the former one-hot rule (samples alternate)
// plus host overhead (node build, plan replay per kernel) and JIT latency (cold compile, warm
// disk-cache load, memory-cache hit), measured in child processes with a fresh CGRAD_CACHE_DIR.
//
// cgrad is measured the way a user writes it: inputs are realized tensors made beforehand; the
// timed region builds the expression and calls eval() (so it includes graph building, the plan
// cache lookup, the output allocation and the launch). The hand loops write into preallocated
// buffers. The cgrad thread count is CGRAD_NUM_THREADS (default: all cores); run the program
// once per thread count (bench/run.sh does).
//
// usage: bench_cgrad [--proc NAME] [--sections wl,host,jit] [--only W1,W2,...,W8]
//        bench_cgrad --jit-child cold|warm   (internal: one JIT latency process)
#include "common.hpp"
#include "hand.hpp"

#include <cgrad/cgrad.hpp>

#include <dirent.h>
#include <dlfcn.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

extern char** environ;

namespace {

using namespace bench;
using cgrad::Tensor;

std::set<std::string> g_only;  // workloads to run (empty: all)
bool want(const std::string& w) { return g_only.empty() || g_only.count(w) != 0; }

// Realized cgrad tensor holding `v` (moved in).
template <class T>
Tensor input(std::vector<T> v, cgrad::Shape shape) {
  Tensor t = cgrad::tensor(std::move(v), std::move(shape));
  t.eval();
  return t;
}

// Kernels launched by one call of `f`.
template <class F>
double kernels_of(F&& f) {
  const uint64_t k0 = cgrad::stats().kernels_launched;
  f();
  return static_cast<double>(cgrad::stats().kernels_launched - k0);
}

template <class T>
double checksum_of(const Tensor& t) {
  auto v = t.to_vector<T>();
  return checksum(v.data(), static_cast<long>(v.size()));
}

// Measures `make` (builds and evaluates one result, returns it) as a cgrad row.
template <class T, class F>
void cgrad_row(const std::string& variant, const std::string& wl, long n, double bytes, F&& make,
               int reps = -1) {
  auto s = measure(
      [&] {
        Tensor r = make();
        clobber();
      },
      reps);
  Tensor r;
  const double k = kernels_of([&] { r = make(); });
  report("cgrad", variant, wl, dtype_name<T>(), n, cgrad_threads(), s, bytes, k, checksum_of<T>(r));
}

// The cgrad row `variant` again, its samples alternating with those of the 2-thread loop_fm
// (`hand`): both rows get the variant `variant@alt`. The block rows above measure each
// implementation's repetitions in one stretch, and the VM's speed changes in phases of tens of
// milliseconds; alternating, both see the same phases, so their ratio is the one to judge
// (bench/summarize.py does; docs/benchmarks.md).
template <class T, class H, class F>
void beside_loop(const std::string& variant, const std::string& wl, long n, double bytes, H&& hand,
                 F&& make) {
  omp_set_num_threads(2);
  auto [sh, sc] = measure_alternating(hand, [&] {
    Tensor r = make();
    clobber();
  });
  Tensor r;
  const double k = kernels_of([&] { r = make(); });
  report("loop_fm", variant + "@alt", wl, dtype_name<T>(), n, 2, sh, bytes, -1, 0,
         "2 threads; samples alternate with the cgrad row of this variant");
  report("cgrad", variant + "@alt", wl, dtype_name<T>(), n, cgrad_threads(), sc, bytes, k, checksum_of<T>(r),
         "samples alternate with the loop_fm row of this variant");
}

// ---------------------------------------------------------------- W1, W2, W3
template <class T>
void run_elementwise() {
  const long n = N_BIG;
  auto va = uniform_vec<T>(n, 1, -1, 1), vb = uniform_vec<T>(n, 2, -1, 1), vc = uniform_vec<T>(n, 3, -1, 1);
  const double sz = sizeof(T);
  Buf<T> ha(n, va), hb(n, vb), hc(n, vc), hd(n);  // the hand loops' own buffers
  if (want("W1")) hand::w1(ha.p, hb.p, hc.p, hd.p, n);
  if (want("W2")) hand::w2(ha.p, hd.p, n);
  if (want("W3")) hand::w3(ha.p, hb.p, n);
  Tensor a = input(std::move(va), {n}), b = input(std::move(vb), {n}), c = input(std::move(vc), {n});
  auto w1 = [&] {
    Tensor d = a * b + c;
    return d.eval();
  };
  auto w2 = [&] {
    Tensor y = 1.0 / (1.0 + cgrad::exp(-a));
    return y.eval();
  };
  auto w3 = [&] { return cgrad::sum(a * b).eval(); };
  if (want("W1")) cgrad_row<T>("", "W1", n, 4 * n * sz, w1);
  if (want("W2")) {
    cgrad_row<T>("", "W2", n, 2 * n * sz, w2);
    cgrad_row<T>("sigmoid_op", "W2", n, 2 * n * sz, [&] {
      Tensor y = cgrad::sigmoid(a);
      return y.eval();
    });
  }
  if (want("W3")) {
    volatile T sink = 0;
    auto s = measure([&] { sink = w3().template item<T>(); });
    Tensor r;
    const double k = kernels_of([&] { r = w3(); });
    report("cgrad", "", "W3", dtype_name<T>(), n, cgrad_threads(), s, 2 * n * sz, k, r.item<double>());
  }
  if (want("W1elu")) {
    // issue #23: a user-defined elu at the end of the W1 chain against the same chain written
    // with built-in ops. Samples alternate, so the ratio is taken under the same machine phases.
    static const cgrad::ElementwiseFn elu =
        cgrad::elementwise("elu", "x > 0 ? x : a * (exp(x) - 1)", {"x"}, {"a"});
    auto user = [&] {
      Tensor d = elu(a * b + c, {0.5});
      return d.eval();
    };
    auto builtin = [&] {
      Tensor d = a * b + c;
      Tensor y = cgrad::where(d > 0.0, d, 0.5 * (cgrad::exp(d) - 1.0));
      return y.eval();
    };
    auto [su, sb] = measure_alternating(
        [&] {
          Tensor r = user();
          clobber();
        },
        [&] {
          Tensor r = builtin();
          clobber();
        });
    Tensor ru, rb;
    const double ku = kernels_of([&] { ru = user(); }), kb = kernels_of([&] { rb = builtin(); });
    char note[96];
    std::snprintf(note, sizeof note, "built-in median / user median = %.3f (alternating samples)",
                  sb.median / su.median);
    report("cgrad", "user_elu@alt", "W1elu", dtype_name<T>(), n, cgrad_threads(), su, 4 * n * sz, ku,
           checksum_of<T>(ru), note);
    report("cgrad", "builtin_elu@alt", "W1elu", dtype_name<T>(), n, cgrad_threads(), sb, 4 * n * sz, kb,
           checksum_of<T>(rb), "samples alternate with user_elu@alt");
  }
  if (want("W1"))
    beside_loop<T>(
        "", "W1", n, 4 * n * sz,
        [&] {
          loop_fm::w1<T>(ha.p, hb.p, hc.p, hd.p, n, true);
          clobber();
        },
        w1);
  if (want("W2"))
    beside_loop<T>(
        "", "W2", n, 2 * n * sz,
        [&] {
          loop_fm::w2<T>(ha.p, hd.p, n, true);
          clobber();
        },
        w2);
  if (want("W3")) {
    volatile T sink = 0;
    beside_loop<T>(
        "", "W3", n, 2 * n * sz, [&] { sink = loop_fm::w3<T>(ha.p, hb.p, n, true); }, w3);
  }
}

// ---------------------------------------------------------------- W7
// W1's a*b + c with f16 (and bf16) storage, computed in f32 inside the kernel (docs/semantics.md),
// against the same in f32: the 16-bit kernels move half the bytes (3 loads and a store of 2
// bytes per element), so a memory-bound kernel should take about half the time. The two rows
// of a pair alternate their samples (measure_alternating), so their ratio comes from one run.
void run_mixed() {
  const long n = N_BIG;
  Tensor a = input(uniform_vec<float>(n, 1, -1, 1), {n}), b = input(uniform_vec<float>(n, 2, -1, 1), {n}),
         c = input(uniform_vec<float>(n, 3, -1, 1), {n});
  auto w1 = [](Tensor x, Tensor y, Tensor z) {
    return [x, y, z] {
      Tensor d = x * y + z;
      return d.eval();
    };
  };
  auto f32_run = w1(a, b, c);
  for (cgrad::DType t : {cgrad::f16, cgrad::bf16}) {
    Tensor ah = a.cast(t).eval(), bh = b.cast(t).eval(), ch = c.cast(t).eval();
    auto half_run = w1(ah, bh, ch);
    auto [s32, s16] = measure_alternating(
        [&] {
          Tensor r = f32_run();
          clobber();
        },
        [&] {
          Tensor r = half_run();
          clobber();
        });
    Tensor r32, r16;
    const double k32 = kernels_of([&] { r32 = f32_run(); }), k16 = kernels_of([&] { r16 = half_run(); });
    const std::string tn = cgrad::dtype_name(t);
    report("cgrad", tn + "@alt", "W7", "f32", n, cgrad_threads(), s32, 4.0 * n * 4, k32,
           checksum_of<float>(r32), "samples alternate with the " + tn + " row");
    report("cgrad", tn + "@alt", "W7", tn, n, cgrad_threads(), s16, 4.0 * n * 2, k16, checksum_of<float>(r16),
           "computed in f32; samples alternate with the f32 row");
    std::printf(
        "# W7 %s: f32 time / %s time = %.2f (medians %.3f ms and %.3f ms; 2.00 = half the bytes at the same "
        "bandwidth)\n",
        tn.c_str(), tn.c_str(), s32.median / s16.median, s32.median * 1e3, s16.median * 1e3);
    std::fflush(stdout);
  }
}

// ---------------------------------------------------------------- W8
// An embedding lookup, forward and backward (issue #15, scatter group): y = take(W, idx) with W
// 50000 x 64 f32 and 8192 indices (repeats included), loss = sum(y * r), and both y and dW =
// grad(loss, W) evaluated in one eval. `scatter`: take's gradient as cgrad has it, one scatter_add
// (O(n + m) rows). `onehot`: the rule it replaced, a fused comparison idx[j] == k summed over j
// (O(n m) rows, 2.6e10 compares here), written with public ops on the same inputs. Samples of the
// two alternate (measure_alternating, BENCH_W8_REPS, default 3: one onehot sample takes seconds).
void run_embedding() {
  const long rows = 50000, dim = 64, m = 8192;
  Tensor W = input(uniform_vec<float>(rows * dim, 5, -1, 1), {rows, dim}).requires_grad(true);
  Tensor r = input(uniform_vec<float>(m * dim, 6, -1, 1), {m, dim});
  std::vector<int64_t> iv(static_cast<std::size_t>(m));
  for (long k = 0; k < m; ++k) iv[static_cast<std::size_t>(k)] = (k * 7919) % 6151;  // repeats
  Tensor idx = input(std::move(iv), {m});
  auto scatter_run = [&] {
    Tensor y = cgrad::take(W, idx, 0);
    Tensor g = cgrad::grad(cgrad::sum(y * r), {W}, false)[0];
    cgrad::eval({y, g});
    return g;
  };
  auto onehot_run = [&] {
    Tensor y = cgrad::take(W, idx, 0);
    const cgrad::Shape se{m, rows, dim};
    Tensor hit =
        idx.reshape({m, 1, 1}).expand(se) == cgrad::arange(rows, cgrad::i64).reshape({1, rows, 1}).expand(se);
    Tensor g = cgrad::sum(cgrad::where(hit, r.reshape({m, 1, dim}).expand(se), 0.0), {0});
    cgrad::eval({y, g});
    return g;
  };
  const int reps = env_int("BENCH_W8_REPS", 3);
  auto [ss, so] = measure_alternating(
      [&] {
        Tensor g = scatter_run();
        clobber();
      },
      [&] {
        Tensor g = onehot_run();
        clobber();
      },
      reps);
  Tensor gs, go;
  const double ks = kernels_of([&] { gs = scatter_run(); }), ko = kernels_of([&] { go = onehot_run(); });
  const double bytes = 2.0 * rows * dim * 4 + 3.0 * m * dim * 4;  // dW written and W read; y, r, g rows
  report("cgrad", "scatter@alt", "W8", "f32", rows * dim, cgrad_threads(), ss, bytes, ks,
         checksum_of<float>(gs), "take fwd+bwd, gradient by scatter_add; samples alternate with onehot");
  report("cgrad", "onehot@alt", "W8", "f32", rows * dim, cgrad_threads(), so, bytes, ko,
         checksum_of<float>(go),
         "take fwd+bwd, gradient by the former one-hot sum; samples alternate with scatter");
  std::printf("# W8: onehot time / scatter time = %.1f (medians %.3f ms and %.3f ms)\n",
              so.median / ss.median, so.median * 1e3, ss.median * 1e3);
  std::fflush(stdout);
}

// ---------------------------------------------------------------- W4
template <class T>
void run_softmax() {
  const long rows = SM_ROWS, cols = SM_COLS, n = rows * cols;
  auto vx = uniform_vec<T>(n, 4, -4, 4);
  Buf<T> hx(n, vx), hy(n);  // the hand loop's own buffers
  hand::w4(hx.p, hy.p, rows, cols);
  Tensor x = input(std::move(vx), {rows, cols});
  const double bytes = 2.0 * n * sizeof(T);
  auto op = [&] {
    Tensor y = cgrad::softmax(x, 1);
    return y.eval();
  };
  auto composed = [&] {
    Tensor e = cgrad::exp(x - cgrad::max(x, {1}, true));
    Tensor y = e / cgrad::sum(e, {1}, true);
    return y.eval();
  };
  cgrad_row<T>("softmax_op", "W4", n, bytes, op);
  cgrad_row<T>("composed", "W4", n, bytes, composed);
  auto hand_w4 = [&] {
    loop_fm::w4<T>(hx.p, hy.p, rows, cols, true);
    clobber();
  };
  beside_loop<T>("softmax_op", "W4", n, bytes, hand_w4, op);
  beside_loop<T>("composed", "W4", n, bytes, hand_w4, composed);
}

// ---------------------------------------------------------------- W5
template <class T>
std::tuple<Tensor, Tensor, Tensor> lorenz(const Tensor& x, const Tensor& y, const Tensor& z) {
  return {LZ_SIGMA * (y - x), LZ_R * x - y - x * z, x * y - LZ_B * z};
}

// One RK4 step of the SoA ensemble (X, Y, Z): the textbook form, written with tensors.
template <class T>
void rk4_step(Tensor& X, Tensor& Y, Tensor& Z, double h) {
  const double h2 = h / 2, h6 = h / 6;
  auto [k1x, k1y, k1z] = lorenz<T>(X, Y, Z);
  auto [k2x, k2y, k2z] = lorenz<T>(X + h2 * k1x, Y + h2 * k1y, Z + h2 * k1z);
  auto [k3x, k3y, k3z] = lorenz<T>(X + h2 * k2x, Y + h2 * k2y, Z + h2 * k2z);
  auto [k4x, k4y, k4z] = lorenz<T>(X + h * k3x, Y + h * k3y, Z + h * k3z);
  X = X + h6 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
  Y = Y + h6 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
  Z = Z + h6 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z);
}

// The same step on one (3N) state tensor, as an odeint-style user writes it: slices + cat.
template <class T>
Tensor rk4_step_cat(const Tensor& s, long N, double h) {
  auto f = [N](const Tensor& u) {
    Tensor x = u.slice(0, 0, N), y = u.slice(0, N, 2 * N), z = u.slice(0, 2 * N, 3 * N);
    auto [dx, dy, dz] = lorenz<T>(x, y, z);
    return cgrad::cat({dx, dy, dz}, 0);
  };
  Tensor k1 = f(s);
  Tensor k2 = f(s + (h / 2) * k1);
  Tensor k3 = f(s + (h / 2) * k2);
  Tensor k4 = f(s + h * k3);
  return s + (h / 6) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
}

template <class T>
void run_lorenz() {
  const long N = LZ_N, n3 = 3 * N;
  auto s0 = hand::lorenz_init<T>(N);
  hand::w5(s0.data(), N);
  const double bytes = 2.0 * n3 * sizeof(T);
  auto part = [&](long i) { return std::vector<T>(s0.begin() + i * N, s0.begin() + (i + 1) * N); };
  {
    Tensor X = input(part(0), {N}), Y = input(part(1), {N}), Z = input(part(2), {N});
    auto step = [&] {
      rk4_step<T>(X, Y, Z, LZ_DT);
      cgrad::eval({X, Y, Z});
    };
    auto s = measure(step);
    // checksum of exactly one step from the initial state
    X = input(part(0), {N});
    Y = input(part(1), {N});
    Z = input(part(2), {N});
    const double k = kernels_of(step);
    const double cs = checksum_of<T>(X) + checksum_of<T>(Y) + checksum_of<T>(Z);
    report("cgrad", "xyz", "W5", dtype_name<T>(), n3, cgrad_threads(), s, bytes, k, cs);
  }
  {
    Tensor S = input(std::vector<T>(s0), {n3});
    auto step = [&] {
      S = rk4_step_cat<T>(S, N, LZ_DT);
      S.eval();
    };
    auto s = measure(step);
    S = input(std::vector<T>(s0), {n3});
    const double k = kernels_of(step);
    report("cgrad", "state_cat", "W5", dtype_name<T>(), n3, cgrad_threads(), s, bytes, k, checksum_of<T>(S));
  }
}

// ---------------------------------------------------------------- W6 and host overhead
Tensor w6_chain(const Tensor& y0, const Tensor& a, const Tensor& b) {
  Tensor y = y0 * a;
  y = y + b;
  for (int k = 1; k < W6_OPS / 2; ++k) {
    y = y * a;
    y = y + b;
  }
  return y;
}

void run_w6() {
  auto vy0 = uniform_vec<float>(W6_N, 8, -1, 1), va = uniform_vec<float>(W6_N, 9, 0.9, 1.0),
       vb = uniform_vec<float>(W6_N, 10, -0.1, 0.1);
  hand::w6(vy0.data(), va.data(), vb.data());
  Tensor y0 = input(vy0, {W6_N}), a = input(va, {W6_N}), b = input(vb, {W6_N});
  // the whole call: build 100 nodes, eval (plan-cache lookup + replay), free the graph
  cgrad_row<float>("", "W6", W6_N, 0, [&] { return w6_chain(y0, a, b).eval(); });
}

// Host overhead rows (workload "HOST"): ns per node built, eval overhead per kernel.
void run_host() {
  auto vy0 = uniform_vec<float>(W6_N, 8, -1, 1), va = uniform_vec<float>(W6_N, 9, 0.9, 1.0),
       vb = uniform_vec<float>(W6_N, 10, -0.1, 0.1);
  Tensor y0 = input(vy0, {W6_N}), a = input(va, {W6_N}), b = input(vb, {W6_N});
  const int thr = cgrad_threads();
  const int reps = env_int("BENCH_REPS", 15);
  // (1) building nodes only: 100-op chains kept alive (destroyed outside the timed region)
  {
    const int batch = 200;
    std::vector<Tensor> keep;
    keep.reserve(batch);
    for (int w = 0; w < 2; ++w) {
      for (int i = 0; i < batch; ++i) keep.push_back(w6_chain(y0, a, b));
      keep.clear();
    }
    std::vector<double> v;
    for (int r = 0; r < reps; ++r) {
      const double t0 = now_s();
      for (int i = 0; i < batch; ++i) keep.push_back(w6_chain(y0, a, b));
      v.push_back((now_s() - t0) / (batch * W6_OPS));
      keep.clear();
    }
    report("cgrad", "build_node", "HOST", "f32", W6_N, thr, stat_of(v), 0, 0, 0,
           "per node; 100-op chain; no eval");
  }
  // (2) build + destroy a 100-op chain, per node
  Stat bd = measure([&] {
    Tensor y = w6_chain(y0, a, b);
    clobber();
  });
  {
    Stat per = bd;
    per.median /= W6_OPS;
    per.min /= W6_OPS;
    report("cgrad", "build_destroy_node", "HOST", "f32", W6_N, thr, per, 0, 0, 0, "per node; 100-op chain");
  }
  // (3) W6 eval only: the chain is built untimed with a handle on every node (so evaluating
  // frees nothing), then only eval() is timed: plan key of 100 nodes + lookup + replay.
  {
    const int batch = 200;
    std::vector<double> v;
    std::vector<Tensor> hold;
    hold.reserve(W6_OPS);
    double k = 0;
    for (int r = -2; r < reps; ++r) {  // two warm-up batches
      double sum = 0;
      for (int i = 0; i < batch; ++i) {
        hold.clear();
        Tensor y = y0 * a;
        hold.push_back(y);
        y = y + b;
        hold.push_back(y);
        for (int j = 1; j < W6_OPS / 2; ++j) {
          y = y * a;
          hold.push_back(y);
          y = y + b;
          hold.push_back(y);
        }
        const uint64_t k0 = cgrad::stats().kernels_launched;
        const double t0 = now_s();
        y.eval();
        sum += now_s() - t0;
        k = static_cast<double>(cgrad::stats().kernels_launched - k0);
      }
      if (r >= 0) v.push_back(sum / batch / std::max(1.0, k));
    }
    hold.clear();
    report("cgrad", "replay_per_kernel_w6", "HOST", "f32", W6_N, thr, stat_of(v), 0, k, 0,
           "eval() of a built 100-node W6 graph / kernels: plan key + lookup + replay (graph kept alive)");
  }
  // (3b) the same chain through cgrad::compile (docs/plans.md): a call checks the arguments'
  // signature and replays the traced plan; no graph is built or keyed.
  {
    auto f =
        cgrad::compile([](const Tensor& y, const Tensor& x, const Tensor& z) { return w6_chain(y, x, z); });
    Stat s = measure([&] {
      Tensor r = f(y0, a, b);
      clobber();
    });
    const double k = kernels_of([&] { f(y0, a, b); });
    s.median /= std::max(1.0, k);
    s.min /= std::max(1.0, k);
    report("cgrad", "compile_replay_per_kernel_w6", "HOST", "f32", W6_N, thr, s, 0, k, 0,
           "a cgrad::compile'd 100-op W6 chain called again / kernels: signature check + replay");
  }
  // (4) one op on 16 elements: build + eval, whole call
  {
    Stat s = measure([&] {
      Tensor y = (a * b).eval();
      clobber();
    });
    const double k = kernels_of([&] { (a * b).eval(); });
    report("cgrad", "one_op_eval_call", "HOST", "f32", W6_N, thr, s, 0, k, 0,
           "build 1 node + eval (plan replay)");
  }
  // (5) a small multi-kernel graph: softmax of 32 x 32, per kernel
  {
    auto vx = uniform_vec<float>(32 * 32, 4, -4, 4);
    Tensor x = input(vx, {32, 32});
    Stat s = measure([&] {
      Tensor y = cgrad::softmax(x, 1).eval();
      clobber();
    });
    const double k = kernels_of([&] { cgrad::softmax(x, 1).eval(); });
    report("cgrad", "softmax32_call", "HOST", "f32", 32 * 32, thr, s, 0, k, 0, "whole call");
    Stat per = s;
    per.median /= std::max(1.0, k);
    per.min /= std::max(1.0, k);
    report("cgrad", "softmax32_per_kernel", "HOST", "f32", 32 * 32, thr, per, 0, k, 0,
           "whole call / kernels");
    auto f = cgrad::compile([](const Tensor& t) { return cgrad::softmax(t, 1); });
    Stat c = measure([&] {
      Tensor y = f(x);
      clobber();
    });
    c.median /= std::max(1.0, k);
    c.min /= std::max(1.0, k);
    report("cgrad", "compile_replay_softmax32_per_kernel", "HOST", "f32", 32 * 32, thr, c, 0, k, 0,
           "a cgrad::compile'd softmax called again / kernels (kernel time included)");
  }
  const auto st = cgrad::stats();
  std::printf("# host stats: plans_built=%llu plan_cache_hits=%llu kernels_compiled=%llu\n",
              static_cast<unsigned long long>(st.plans_built),
              static_cast<unsigned long long>(st.plan_cache_hits),
              static_cast<unsigned long long>(st.kernels_compiled));
}

// ---------------------------------------------------------------- JIT latency (child processes)
// The graphs: a fused sigmoid-like kernel and the fused W5 step, each made unique by its
// structure (constants may be kernel arguments, so a new constant need not mean a new kernel):
// bit b of `i` picks `y*x` or `y+x` as the b-th of kVariantOps ops, so every i gives a kernel
// of the same size that was never compiled before.
constexpr int kVariantOps = 6;
Tensor variant_chain(Tensor y, const Tensor& x, int i) {
  for (int b = 0; b < kVariantOps; ++b) y = ((i >> b) & 1) ? y * x : y + x;
  return y;
}
// Inputs are made once per process (outside the timed region), for 16 and 17 elements.
struct JitInputs {
  Tensor x, X, Y, Z;
  explicit JitInputs(long n)
      : x(input(uniform_vec<float>(n, 11, -1, 1), {n})),
        X(input(uniform_vec<double>(n, 5, -10, 10), {n})),
        Y(input(uniform_vec<double>(n, 6, -10, 10), {n})),
        Z(input(uniform_vec<double>(n, 7, 10, 40), {n})) {}
};
Tensor jit_sigmoid(int i, const JitInputs& in) {
  return 1.0 / (1.0 + cgrad::exp(-variant_chain(in.x, in.x, i)));
}
std::vector<Tensor> jit_rk4(int i, const JitInputs& in) {
  Tensor X = in.X, Y = in.Y, Z = in.Z;
  rk4_step<double>(X, Y, Z, LZ_DT);
  return {X, Y, variant_chain(Z, in.X, i)};
}

struct Delta {
  cgrad::Stats s0 = cgrad::stats();
  std::string str() const {
    const auto s1 = cgrad::stats();
    std::ostringstream o;
    o << "compiled=" << s1.kernels_compiled - s0.kernels_compiled
      << " disk_hits=" << s1.disk_cache_hits - s0.disk_cache_hits
      << " mem_hits=" << s1.kernel_cache_hits - s0.kernel_cache_hits
      << " plans_built=" << s1.plans_built - s0.plans_built
      << " plan_hits=" << s1.plan_cache_hits - s0.plan_cache_hits
      << " launched=" << s1.kernels_launched - s0.kernels_launched;
    return o.str();
  }
};

// Times `f(i)` once for i in [first, first + count): one row with the median, counters summed.
void jit_rows(const std::string& variant, int first, int count, const std::function<void(int)>& f,
              const std::string& what) {
  std::vector<double> v;
  Delta d;
  for (int i = first; i < first + count; ++i) {
    const double t0 = now_s();
    f(i);
    v.push_back(now_s() - t0);
  }
  report("cgrad", variant, "JIT", "f32", 16, 1, stat_of(v), 0, 0, 0, what + "; " + d.str());
}

// The anchors' JIT control (shared/anchors/src/jit_latency.cpp, 25.5-27.9 ms on their quiet VM):
// a fresh 6-line C file compiled by `gcc -O2 -shared -fPIC`, loaded and called. Run before each
// cold compile, it measures how fast this machine compiles at that moment, so the cold compile
// can be read against the anchors' quiet figure whatever load the VM's host is under. Returns
// false when gcc is missing or fails.
bool control_compile(const std::string& dir, int i) {
  const std::string base = dir + "/control_" + std::to_string(i), sym = "control_k" + std::to_string(i);
  {
    std::ofstream f(base + ".c");
    f << "// anchors' control kernel\n#include <stddef.h>\nvoid " << sym
      << "(const float* a, float* b, size_t n) {\n  for (size_t j = 0; j < n; ++j)\n    b[j] = a[j] * 2.0f + "
         "1.0f;\n}\n";
  }
  const std::string so = base + ".so", c = base + ".c";
  std::vector<std::string> args = {"gcc", "-O2", "-shared", "-fPIC", "-o", so, c};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, "gcc", nullptr, nullptr, argv.data(), environ) != 0) return false;
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return false;
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return false;
  auto* k = reinterpret_cast<void (*)(const float*, float*, size_t)>(dlsym(h, sym.c_str()));
  float x[4] = {1, 2, 3, 4}, y[4];
  if (k) k(x, y, 4);
  dlclose(h);
  return k != nullptr;
}

// jit_rows for `f` with the control compile timed before each call (both rows reported).
void jit_rows_with_control(const std::string& variant, int first, int count,
                           const std::function<void(int)>& f, const std::string& what,
                           const std::string& dir) {
  std::vector<double> v, vc;
  Delta d;
  for (int i = first; i < first + count; ++i) {
    double t0 = now_s();
    const bool ok = control_compile(dir, i);
    if (ok) vc.push_back(now_s() - t0);
    t0 = now_s();
    f(i);
    v.push_back(now_s() - t0);
  }
  report("cgrad", variant, "JIT", "f32", 16, 1, stat_of(v), 0, 0, 0, what + "; " + d.str());
  if (!vc.empty())
    report("gcc", "control_O2_" + variant, "JIT", "f32", 16, 1, stat_of(vc), 0, 0, 0,
           "the anchors' control compile (gcc -O2 -shared -fPIC, 6-line C file, dlopen), timed before each "
           "cgrad call");
}

int jit_child(const std::string& mode) {
  proc_name() = "jit_" + mode;
  const int K = std::min(env_int("BENCH_JIT_REPS", 9), (1 << kVariantOps) - 1);
  const JitInputs in16(16), in17(17);
  auto sig = [&](int i, long n) { jit_sigmoid(i, n == 16 ? in16 : in17).eval(); };
  auto rk4 = [&](int i, long n) { cgrad::eval(jit_rk4(i, n == 16 ? in16 : in17)); };
  if (mode == "cold") {
    jit_rows(
        "first_eval_in_fresh_cache", 0, 1, [&](int i) { sig(i, 16); },
        "first eval of the process in an empty cache: compiler probe + cache setup + compile");
    const char* cache = std::getenv("CGRAD_CACHE_DIR");
    const std::string dir = cache && *cache ? cache : "/tmp";
    jit_rows_with_control(
        "cold_compile_sigmoid", 1, K, [&](int i) { sig(i, 16); },
        "new kernel: passes + schedule + codegen + compile + dlopen", dir);
    jit_rows_with_control(
        "cold_compile_rk4", 1, K, [&](int i) { rk4(i, 16); }, "new fused RK4 step (3 outputs)", dir);
    jit_rows(
        "plan_replay_sigmoid", 1, K, [&](int i) { sig(i, 16); }, "same graph again: plan cache");
  } else {
    jit_rows(
        "first_eval_warm_cache", 0, 1, [&](int i) { sig(i, 16); },
        "first eval of the process: compiler probe + disk load");
    jit_rows(
        "disk_hit_sigmoid", 1, K, [&](int i) { sig(i, 16); },
        "kernel on disk: passes + schedule + codegen + load");
    jit_rows(
        "disk_hit_rk4", 1, K, [&](int i) { rk4(i, 16); }, "fused RK4 step from disk");
    jit_rows(
        "mem_hit_sigmoid", 1, K, [&](int i) { sig(i, 17); }, "new plan (other shape); kernel in memory");
    jit_rows(
        "mem_hit_rk4", 1, K, [&](int i) { rk4(i, 17); }, "new plan (other shape); kernel in memory");
    jit_rows(
        "plan_replay_sigmoid", 1, K, [&](int i) { sig(i, 17); }, "same graph again: plan cache");
  }
  return 0;
}

int spawn_self(const std::vector<std::string>& args, const std::vector<std::string>& extra_env) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    bool replaced = false;
    for (auto& x : extra_env)
      if (kv.compare(0, x.find('=') + 1, x, 0, x.find('=') + 1) == 0) replaced = true;
    if (!replaced) env.push_back(kv);
  }
  for (auto& x : extra_env) env.push_back(x);
  std::vector<char*> argv, envp;
  static std::string self = "/proc/self/exe";
  argv.push_back(self.data());
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data()) != 0) return -1;
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void remove_tree(const std::string& path) {
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      std::string p = path + "/" + n;
      struct stat st {};
      if (lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        remove_tree(p);
      else
        unlink(p.c_str());
    }
    closedir(d);
  }
  rmdir(path.c_str());
}

void run_jit() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/cgrad_bench_cache_XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back(0);
  if (!mkdtemp(buf.data())) {
    std::perror("mkdtemp");
    return;
  }
  const std::string dir = buf.data();
  const std::vector<std::string> env = {"CGRAD_CACHE_DIR=" + dir, "CGRAD_NUM_THREADS=1"};
  int rc1 = spawn_self({"--jit-child", "cold"}, env);
  int rc2 = spawn_self({"--jit-child", "warm"}, env);
  if (rc1 != 0 || rc2 != 0) std::printf("# jit children failed: cold rc=%d warm rc=%d\n", rc1, rc2);
  if (!env_int("BENCH_KEEP_CACHE", 0)) remove_tree(dir);
}

std::set<std::string> split(const std::string& s) {
  std::set<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) out.insert(x);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // The workloads evaluate the same graph on the same inputs again and again: with the result
  // cache (docs/plans.md) every repetition after the first would launch nothing. Measure the
  // computation, unless the caller set the knob explicitly.
  setenv("CGRAD_RESULT_CACHE_BYTES", "0", 0);
  std::set<std::string> sections = {"wl", "host", "jit"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--jit-child") return jit_child(next());
    if (a == "--proc")
      proc_name() = next();
    else if (a == "--sections")
      sections = split(next());
    else if (a == "--only")
      g_only = split(next());
    else {
      std::fprintf(stderr, "usage: %s [--proc NAME] [--sections wl,host,jit] [--only W1,W2,...]\n", argv[0]);
      return 2;
    }
  }
  if (sections.count("wl")) {
    const char* wait = std::getenv("OMP_WAIT_POLICY");
    if (!wait || std::string(wait) != "passive")  // read by libgomp at load time: too late to set here
      std::printf(
          "# warning: OMP_WAIT_POLICY is not passive: the hand loops' OpenMP workers spin after each "
          "sample on the cores the next cgrad sample needs, which slows the @alt rows' cgrad side "
          "(bench/run.sh sets it)\n");
  }
  try {
    if (sections.count("wl")) {
      if (want("W1") || want("W2") || want("W3") || want("W1elu")) {
        run_elementwise<float>();
        run_elementwise<double>();
      }
      if (want("W4")) {
        run_softmax<float>();
        run_softmax<double>();
      }
      if (want("W5")) {
        run_lorenz<double>();
        run_lorenz<float>();
      }
      if (want("W6")) run_w6();
      if (want("W7")) run_mixed();
      if (want("W8")) run_embedding();
    }
    if (sections.count("host")) run_host();
    if (sections.count("jit")) run_jit();
  } catch (const std::exception& e) {
    std::printf("# error: %s\n", e.what());
    std::fflush(stdout);
    return 1;
  }
  return 0;
}
