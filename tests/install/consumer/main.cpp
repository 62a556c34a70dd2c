// Written only from the public headers: checks a few values NumPy would give.
#include <cgrad/cgrad.hpp>

#include <cmath>
#include <cstdio>

int main() {
  using namespace cgrad;
  Tensor a = arange(6, f64).reshape({2, 3});
  Tensor b = tensor(std::vector<double>{1, 10, 100}, {3});
  double total =
      sum(a * b + 1.0).item<double>();  // numpy: ((arange(6).reshape(2,3)*[1,10,100])+1).sum() == 759
  double s = sigmoid(full({}, 0.0, f64)).item<double>();
  bool ok = total == 759.0 && std::fabs(s - 0.5) < 1e-15;
  std::printf("consumer: total=%g sigmoid(0)=%g -> %s\n", total, s, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
