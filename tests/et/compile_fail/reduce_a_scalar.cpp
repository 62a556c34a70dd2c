// Reductions take vector expressions, not scalars.
#include <cgrad/et.hpp>

int main() {
  cgrad::et::Vector<double> d(3);
  double x = cgrad::et::sum(cgrad::et::sum(d));
  return static_cast<int>(x);
}
