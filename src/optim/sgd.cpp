// The Optimizer base (step, zero_grad) and SGD with momentum.
#include "optim/optimizer.h"

#include "ir/node.h"

#include <algorithm>
#include <unordered_map>

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

void StepScalar::set(double v) {
  if (v == v_ && !made_.empty()) return;
  v_ = v;
  made_.clear();
}

Tensor StepScalar::of(const Tensor& p) {
  const DType t = p.dtype() == DType::f64 || p.dtype() == DType::c128 ? DType::f64 : DType::f32;
  for (const Tensor& b : made_)
    if (b.dtype() == t && b.device() == p.device()) return b;
  made_.push_back(scalar_buffer(v_, t, p.device()));
  return made_.back();
}
}  // namespace detail

Optimizer::Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {
  std::unordered_map<const void*, std::size_t> seen;  // each tensor's variable, once
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    if (!p.defined())
      throw Error(ErrorCode::InvalidArgument, "optimizer: parameter " + std::to_string(i) + " is undefined");
    // The same tensor twice would take two steps per step() (PyTorch warns, then refuses).
    if (auto [it, fresh] = seen.emplace(&p.node(), i); !fresh)
      throw Error(ErrorCode::InvalidArgument, "optimizer: parameters " + std::to_string(it->second) +
                                                  " and " + std::to_string(i) + " are the same tensor");
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

void Optimizer::set_lr(double lr) {
  if (!(lr >= 0))
    throw Error(ErrorCode::InvalidArgument,
                "optimizer: learning rate must be >= 0, got " + std::to_string(lr));
  lr_.set(lr);
}

std::vector<std::pair<std::string, Tensor>> Optimizer::state(std::size_t i) {
  if (i >= params_.size())
    throw Error(ErrorCode::InvalidArgument, "optimizer: no parameter " + std::to_string(i));
  std::vector<std::pair<std::string, Tensor>> out;
  for (auto& [name, b] : buffers(i)) out.emplace_back(name, Tensor(b->node()));
  return out;
}

void Optimizer::set_state(int64_t steps, std::size_t i,
                          const std::vector<std::pair<std::string, Tensor>>& buffers) {
  if (i >= params_.size())
    throw Error(ErrorCode::InvalidArgument, "optimizer: no parameter " + std::to_string(i));
  if (steps < 0) throw Error(ErrorCode::InvalidArgument, "optimizer: a negative step count");
  std::vector<std::pair<std::string, Tensor*>> mine = this->buffers(i);
  std::vector<Tensor> values;  // checked first: a bad entry leaves every buffer as it was
  for (const auto& entry : mine) {
    const std::string& name = entry.first;
    const Tensor* b = entry.second;
    auto it = std::find_if(buffers.begin(), buffers.end(), [&](const auto& e) { return e.first == name; });
    if (it == buffers.end() || !it->second.defined() || it->second.shape() != b->shape())
      throw Error(ErrorCode::InvalidArgument, "optimizer: parameter " + std::to_string(i) +
                                                  "'s state needs '" + name + "' of shape " +
                                                  shape_str(b->shape()));
    values.push_back(it->second.dtype() == b->dtype() ? it->second : it->second.cast(b->dtype()));
  }
  if (buffers.size() != mine.size())
    throw Error(ErrorCode::InvalidArgument, "optimizer: parameter " + std::to_string(i) +
                                                "'s state has other buffers than this optimizer's");
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k].second->assign(values[k].to(mine[k].second->device()));
  steps_ = steps;
}

void Optimizer::build_step(std::vector<Tensor>& outputs) {
  ++steps_;
  begin_step();
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
}

void Optimizer::step(const std::vector<Tensor>& with) { step_all({this}, with); }

void Optimizer::step_all(const std::vector<Optimizer*>& optimizers, const std::vector<Tensor>& with) {
  if (optimizers.size() > 1) {  // one hash set per step: microseconds for hundreds of parameters
    std::unordered_map<const void*, std::size_t> group;
    for (std::size_t a = 0; a < optimizers.size(); ++a)
      for (const Tensor& p : optimizers[a]->params_)
        if (auto [it, fresh] = group.emplace(&p.node(), a); !fresh)
          throw Error(ErrorCode::InvalidArgument, "optimizer: a parameter is in groups " +
                                                      std::to_string(it->second) + " and " +
                                                      std::to_string(a));
  }
  NoGradGuard off;
  std::vector<Tensor> outputs = with;
  for (Optimizer* o : optimizers) o->build_step(outputs);
  eval(outputs);
}

SGD::SGD(std::vector<Tensor> params, double lr, double momentum, double dampening, double weight_decay,
         bool nesterov)
    : Optimizer(std::move(params)),
      momentum_(momentum),
      dampening_(dampening),
      weight_decay_(weight_decay),
      nesterov_(nesterov) {
  auto check = [](bool ok, const std::string& what) {
    if (!ok) throw Error(ErrorCode::InvalidArgument, "SGD: " + what);
  };
  check(lr >= 0, "learning rate must be >= 0, got " + std::to_string(lr));
  check(momentum >= 0, "momentum must be >= 0, got " + std::to_string(momentum));
  check(dampening >= 0 && dampening <= 1, "dampening must be in [0, 1], got " + std::to_string(dampening));
  check(weight_decay >= 0, "weight_decay must be >= 0, got " + std::to_string(weight_decay));
  check(!nesterov || (momentum > 0 && dampening == 0), "nesterov needs a momentum and zero dampening");
  lr_.set(lr);
  if (momentum_ != 0)
    for (const Tensor& p : params_) buf_.push_back(detail::zeros_state(p));
}

std::vector<std::pair<std::string, Tensor*>> SGD::buffers(std::size_t i) {
  if (momentum_ == 0) return {};
  return {{"momentum_buffer", &buf_[i]}};
}

void SGD::begin_step() {
  if (momentum_ == 0 || dampening_ == 0) return;
  // b = g at the first step (PyTorch's), dampened after: one graph for both, a 0-d factor
  damp_.set(steps_ == 1 ? 1.0 : 1.0 - dampening_);
}

Tensor SGD::update(std::size_t i, const Tensor& grad, std::vector<Tensor>& outputs) {
  const Tensor& p = params_[i];
  const Tensor lr = lr_.of(p);
  Tensor g = weight_decay_ != 0 ? grad + weight_decay_ * p : grad;
  if (momentum_ == 0) return p - lr * g;
  buf_[i].assign(dampening_ == 0 ? momentum_ * buf_[i] + g : momentum_ * buf_[i] + damp_.of(p) * g);
  outputs.push_back(buf_[i]);
  return p - lr * (nesterov_ ? g + momentum_ * buf_[i] : buf_[i]);
}

}  // namespace cgrad::optim
