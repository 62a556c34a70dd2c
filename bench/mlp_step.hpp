// The MLP training step that bench_mlp and bench_first time (784-512-512-10, ReLU, softmax
// cross-entropy on class labels, SGD): forward, backward and the update, which opt.step({loss})
// evaluates as one schedule. Returns the loss (realized).
#pragma once

#include <cgrad/cgrad.hpp>
#include <cgrad/optim.hpp>

inline cgrad::Tensor mlp_sgd_step(cgrad::optim::SGD& opt, const cgrad::Tensor& x, const cgrad::Tensor& y,
                                  const cgrad::Tensor& w1, const cgrad::Tensor& b1, const cgrad::Tensor& w2,
                                  const cgrad::Tensor& b2, const cgrad::Tensor& w3, const cgrad::Tensor& b3) {
  using namespace cgrad;
  opt.zero_grad();
  Tensor h1 = relu(matmul(x, w1) + b1);
  Tensor h2 = relu(matmul(h1, w2) + b2);
  Tensor l = cross_entropy(matmul(h2, w3) + b3, y);
  l.backward();
  opt.step({l});
  return l;
}
