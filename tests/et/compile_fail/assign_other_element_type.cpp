// A double expression cannot be assigned to a Vector<float> without et::cast.
#include <cgrad/et.hpp>

int main() {
  cgrad::et::Vector<float> f(3);
  cgrad::et::Vector<double> d(3);
  f = d * 2.0;
}
