// Control for the compile-fail tests: the same kind of snippet, well-formed, must compile.
#include <cgrad/et.hpp>

int main() {
  cgrad::et::Vector<float> f(3);
  cgrad::et::Vector<double> d(3);
  f = cgrad::et::cast<float>(d) * 2 + f;
  return static_cast<int>(cgrad::et::sum(f));
}
