// Compiles odeint steppers over et::cuda::Vector states with nvcc and, when a GPU is present,
// checks rk4 and controlled dopri5 against the same integration on et::Vector (host).
// Without a device it prints a skip line and succeeds.
#include <cgrad/odeint/et_vector.hpp>

#include <boost/numeric/odeint.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

namespace ode = boost::numeric::odeint;
namespace et = cgrad::et;

namespace {

// x' = -w x (per component), written once for both spaces.
template <class V>
struct Decay {
  V w;
  void operator()(const V& x, V& dxdt, double) const { dxdt = -w * x; }
};

template <class V>
std::vector<double> integrate_both(const std::vector<double>& w, const std::vector<double>& x0) {
  V x(x0);
  ode::integrate_const(ode::runge_kutta4<V>(), Decay<V>{V(w)}, x, 0.0, 1.0, 0.01);
  ode::integrate_adaptive(ode::make_controlled(1e-10, 1e-10, ode::runge_kutta_dopri5<V>()), Decay<V>{V(w)}, x,
                          1.0, 2.0, 0.01);
  return x.to_vector();
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("[  SKIPPED ] odeint_cuda: no CUDA device (compile-only check passed)\n");
    return 0;
  }
  std::vector<double> w(1000), x0(1000);
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = 0.5 + 0.001 * static_cast<double>(i);
    x0[i] = 1.0 + std::sin(static_cast<double>(i));
  }
  const std::vector<double> host = integrate_both<et::Vector<double>>(w, x0);
  const std::vector<double> dev = integrate_both<et::cuda::Vector<double>>(w, x0);
  for (std::size_t i = 0; i < host.size(); ++i)
    if (!(std::fabs(host[i] - dev[i]) <= 1e-12 * (1 + std::fabs(host[i])))) {
      std::printf("FAIL odeint_cuda at %zu: %.17g vs %.17g\n", i, dev[i], host[i]);
      return 1;
    }
  std::printf("odeint_cuda: device and host integrations agree\n");
  return 0;
}
