// The README's first command runs this: build a small lazy graph, print it, evaluate it,
// print the values and the counters.
#include <cgrad/cgrad.hpp>

#include <iostream>

int main() {
  using namespace cgrad;
  manual_seed(42);
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor(std::vector<float>{0.5f, -1, 2}, {3});  // broadcast along rows
  Tensor c = full({2, 3}, 10.0);
  Tensor y = a * b + c;          // recorded, not computed
  Tensor s = sigmoid(y - 11.0);  // 1 / (1 + exp(-x))
  Tensor total = sum(s, {1});    // row sums

  std::cout << "Graph of total (nothing computed yet: is_evaluated = " << std::boolalpha
            << total.is_evaluated() << "):\n";
  print_graph(total);

  reset_stats();
  eval({y, total});
  std::cout << "\ny     = " << y << "\n";
  std::cout << "total = " << total << "\n";
  std::cout << "softmax(a, -1) = " << softmax(a, -1) << "\n";
  std::cout << "matmul(a, a.T()) = " << matmul(a, a.T()) << "\n";

  Stats st = stats();
  std::cout << "\nstats: kernels_launched=" << st.kernels_launched
            << " bytes_allocated=" << st.bytes_allocated << " plans_built=" << st.plans_built << "\n";
  return 0;
}
