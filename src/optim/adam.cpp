// Adam and AdamW.
#include "optim/optimizer.h"

#include <cmath>

namespace cgrad::optim {

Adam::Adam(std::vector<Tensor> params, double lr, double beta1, double beta2, double eps, double weight_decay)
    : Optimizer(std::move(params)), beta1_(beta1), beta2_(beta2), eps_(eps), weight_decay_(weight_decay) {
  auto check = [](bool ok, const std::string& what) {
    if (!ok) throw Error(ErrorCode::InvalidArgument, "Adam: " + what);
  };
  check(lr >= 0, "learning rate must be >= 0, got " + std::to_string(lr));
  check(beta1 >= 0 && beta1 < 1, "beta1 must be in [0, 1), got " + std::to_string(beta1));
  check(beta2 >= 0 && beta2 < 1, "beta2 must be in [0, 1), got " + std::to_string(beta2));
  check(eps >= 0, "eps must be >= 0, got " + std::to_string(eps));
  check(weight_decay >= 0, "weight_decay must be >= 0, got " + std::to_string(weight_decay));
  lr_.set(lr);
  for (const Tensor& p : params_) {
    m_.push_back(detail::zeros_state(p));
    v_.push_back(detail::zeros_state(p));
  }
}

void Adam::begin_step() {
  const double bc1 = 1 - std::pow(beta1_, static_cast<double>(steps_));
  const double bc2 = 1 - std::pow(beta2_, static_cast<double>(steps_));
  step_size_.set(lr_.value() / bc1);
  inv_sqrt_bc2_.set(1 / std::sqrt(bc2));
  decay_.set(1 - lr_.value() * weight_decay_);  // AdamW's, a buffer too: set_lr needs no new plan
}

std::vector<std::pair<std::string, Tensor*>> Adam::buffers(std::size_t i) {
  return {{"exp_avg", &m_[i]}, {"exp_avg_sq", &v_[i]}};
}

Tensor Adam::update(std::size_t i, const Tensor& grad, std::vector<Tensor>& outputs) {
  const Tensor& p = params_[i];
  Tensor g = grad;
  Tensor base = p;
  if (weight_decay_ != 0) {
    if (decoupled_)
      base = p * decay_.of(p);
    else
      g = g + weight_decay_ * p;
  }
  const Tensor step = step_size_.of(p), inv = inv_sqrt_bc2_.of(p);
  m_[i].assign(beta1_ * m_[i] + (1 - beta1_) * g);
  outputs.push_back(m_[i]);
  if (is_complex(p.dtype())) {
    // A complex parameter is two real ones, as PyTorch's Adam (view_as_real): v holds the second
    // moments of the real and the imaginary part of g in its parts, each part steps on its own.
    const Tensor gr = real(g), gi = imag(g);
    v_[i].assign(beta2_ * v_[i] + (1 - beta2_) * complex(gr * gr, gi * gi));
    outputs.push_back(v_[i]);
    const Tensor &m = m_[i], &v = v_[i];
    return base -
           step * complex(real(m) / (sqrt(real(v)) * inv + eps_), imag(m) / (sqrt(imag(v)) * inv + eps_));
  }
  v_[i].assign(beta2_ * v_[i] + (1 - beta2_) * g * g);
  outputs.push_back(v_[i]);
  return base - step * m_[i] / (sqrt(v_[i]) * inv + eps_);
}

AdamW::AdamW(std::vector<Tensor> params, double lr, double beta1, double beta2, double eps,
             double weight_decay)
    : Adam(std::move(params), lr, beta1, beta2, eps, weight_decay) {
  decoupled_ = true;
}

}  // namespace cgrad::optim
