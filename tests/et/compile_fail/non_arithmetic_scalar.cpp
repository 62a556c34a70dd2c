// Only arithmetic scalars may be operands.
#include <cgrad/et.hpp>

#include <string>

int main() {
  cgrad::et::Vector<double> d(3);
  cgrad::et::Vector<double> r;
  r = d * std::string("2");
}
