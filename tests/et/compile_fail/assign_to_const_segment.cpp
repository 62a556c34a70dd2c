// A segment of a const Vector is read-only.
#include <cgrad/et.hpp>

int main() {
  const cgrad::et::Vector<double> c(4);
  cgrad::et::Vector<double> d(2);
  auto s = c.segment(0, 2);
  s = d;
}
