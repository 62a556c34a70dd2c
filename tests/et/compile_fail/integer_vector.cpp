// et containers hold float or double.
#include <cgrad/et.hpp>

int main() { cgrad::et::Vector<int> v(3); }
