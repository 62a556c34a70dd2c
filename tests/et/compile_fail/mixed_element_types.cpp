// Vector<float> + Vector<double> needs an explicit et::cast.
#include <cgrad/et.hpp>

int main() {
  cgrad::et::Vector<float> f(3);
  cgrad::et::Vector<double> d(3);
  cgrad::et::Vector<double> r;
  r = f + d;
}
