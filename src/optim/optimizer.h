// Shared pieces of the optimizers (src/optim).
#pragma once

#include <cgrad/optim.hpp>

namespace cgrad::optim::detail {
/// A realized zero tensor like `p` (optimizer state starts as a buffer, so the first step's
/// plan is the same as every later step's).
Tensor zeros_state(const Tensor& p);
/// A realized 0-d tensor holding `v` in dtype `t`.
Tensor scalar_buffer(double v, DType t, Device d);
}  // namespace cgrad::optim::detail
