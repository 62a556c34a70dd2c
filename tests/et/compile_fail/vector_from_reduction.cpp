// Constructing a Vector from a reduction is almost certainly a mistake (`auto`-style misuse).
#include <cgrad/et.hpp>

int main() {
  cgrad::et::Vector<double> d(3);
  cgrad::et::Vector<double> s = cgrad::et::sum(d);
  return static_cast<int>(s.size());
}
