// The Optimizer base (step, zero_grad) and SGD with momentum.
#include "optim/optimizer.h"

#include "ir/node.h"

namespace cgrad::optim {

namespace detail {
// Dense zeros from the host, not zeros(): a realized constant is one element broadcast (stride 0),
// so the first step's graph would differ from every later one (whose state is a dense result) and
// the first two steps would each compile their own kernels (docs/jit.md, "First calls").
Tensor zeros_state(const Tensor& p) {
  const auto n = static_cast<std::size_t>(p.numel());
  Tensor z = p.dtype() == DType::f64 ? tensor(std::vector<double>(n, 0.0), p.shape())
                                     : tensor(std::vector<float>(n, 0.f), p.shape());
  if (z.dtype() != p.dtype()) z = z.cast(p.dtype());
  return (p.device().is_cuda() ? z.to(p.device()) : z).eval();
}
Tensor scalar_buffer(double v, DType t, Device d) {
  Tensor s = t == DType::f64 ? tensor(std::vector<double>{v}, Shape{})
                             : tensor(std::vector<float>{static_cast<float>(v)}, Shape{});
  return d.is_cuda() ? s.to(d) : s;
}
}  // namespace detail

Optimizer::Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    if (!p.defined())
      throw Error(ErrorCode::InvalidArgument, "optimizer: parameter " + std::to_string(i) + " is undefined");
    if (!is_floating(p.dtype()) && !is_complex(p.dtype()))
      throw Error(ErrorCode::DTypeMismatch, "optimizer: parameter " + std::to_string(i) + " has dtype " +
                                                dtype_name(p.dtype()) +
                                                "; only floating and complex parameters can be optimized");
    // A value computed from leaves (w * 2, w.to(other device)) never gets a grad(): step() would
    // skip it at every call, silently (PyTorch refuses it too).
    if (p.node()->grad && !p.node()->grad->is_leaf)
      throw Error(ErrorCode::InvalidArgument,
                  "optimizer: parameter " + std::to_string(i) +
                      " is computed from tensors that require a gradient (not a leaf), so its grad() "
                      "is never filled; pass the leaf itself");
  }
}
Optimizer::~Optimizer() = default;

void Optimizer::zero_grad() {
  for (Tensor& p : params_) p.clear_grad();
}

void Optimizer::step(const std::vector<Tensor>& with) {
  NoGradGuard off;
  begin_step();
  std::vector<Tensor> outputs = with;
  std::vector<std::pair<std::size_t, Tensor>> updates;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor g = params_[i].grad();
    if (!g.defined()) continue;
    updates.emplace_back(i, update(i, g, outputs));
  }
  for (auto& [i, value] : updates) {
    params_[i].assign(value);
    outputs.push_back(params_[i]);
  }
  eval(outputs);
}

SGD::SGD(std::vector<Tensor> params, double lr, double momentum)
    : Optimizer(std::move(params)), lr_(lr), momentum_(momentum) {
  if (!(lr >= 0))
    throw Error(ErrorCode::InvalidArgument, "SGD: learning rate must be >= 0, got " + std::to_string(lr));
  if (!(momentum >= 0))
    throw Error(ErrorCode::InvalidArgument, "SGD: momentum must be >= 0, got " + std::to_string(momentum));
  if (momentum_ != 0)
    for (const Tensor& p : params_) buf_.push_back(detail::zeros_state(p));
}

Tensor SGD::update(std::size_t i, const Tensor& g, std::vector<Tensor>& outputs) {
  const Tensor& p = params_[i];
  if (momentum_ == 0) return p - lr_ * g;
  buf_[i].assign(momentum_ * buf_[i] + g);
  outputs.push_back(buf_[i]);
  return p - lr_ * buf_[i];
}

}  // namespace cgrad::optim
