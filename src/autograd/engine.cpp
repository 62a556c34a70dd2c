// The backward engine: walks gradient records from an output to the leaves in reverse
// topological order, applying derivative rules and summing the gradients of values used
// several times. Also the Tensor methods of autograd (requires_grad, grad, backward, detach).
#include "autograd/autograd.h"

#include "frontend/build.h"
#include "frontend/trace.h"
#include "ir/op_table.h"

#include <mutex>
#include <optional>
#include <unordered_map>

namespace cgrad {

namespace autograd {
namespace {

using ir::NodePtr;

// Guards every leaf's accumulated gradient (detail::Var::grad): backward() on several threads
// may add into one leaf, and grad()/clear_grad() read and reset it. Held only to copy or swap a
// handle, never while building a node (which may realize, and realize may run a compiled
// function that reads a gradient), so it is always the innermost lock.
std::mutex g_grad_mutex;

// grad += g for a leaf, without losing a concurrent addition: the sum is built outside the lock
// from the gradient read under it, and stored only if no other thread stored one meanwhile
// (else it is built again on the newer value). PyTorch accumulates this way too: correctly,
// in an unspecified order.
void accumulate(detail::Var& var, const Tensor& g) {
  for (;;) {
    Tensor old;
    {
      std::lock_guard<std::mutex> lock(g_grad_mutex);
      if (!var.grad.defined()) {
        var.grad = g;
        return;
      }
      old = var.grad;
    }
    Tensor sum = old + g;
    std::lock_guard<std::mutex> lock(g_grad_mutex);
    if (var.grad.defined() && var.grad.node() == old.node()) {
      var.grad = std::move(sum);
      return;
    }
  }
}

/// Nodes with gradient records reachable from `y` through records, inputs before users.
std::vector<NodePtr> record_order(const NodePtr& y) {
  std::vector<NodePtr> order;
  std::unordered_map<const ir::Node*, char> state;  // 1 = on the stack, 2 = done
  std::vector<std::pair<NodePtr, std::size_t>> stack{{y, 0}};
  state[y.get()] = 1;
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    const auto& ins = n->grad->inputs;
    if (next < ins.size()) {
      const NodePtr& in = ins[next++];
      if (in && in->grad && !state.count(in.get())) {
        state[in.get()] = 1;
        stack.emplace_back(in, 0);
      }
      continue;
    }
    state[n.get()] = 2;
    order.push_back(n);
    stack.pop_back();
  }
  return order;
}

/// Backpropagates `seed` from `y`. With `targets`, returns the gradient of each target
/// (undefined where y does not depend on it); without, adds into the leaves' grad().
std::vector<Tensor> backprop(const NodePtr& y, const Tensor& seed, const std::vector<NodePtr>* targets) {
  std::vector<NodePtr> order = record_order(y);
  std::unordered_map<const ir::Node*, std::size_t> pos;
  for (std::size_t i = 0; i < order.size(); ++i) pos[order[i].get()] = i;

  // Only nodes that lead to a target (or, for backward(), to a leaf) are differentiated.
  std::vector<char> relevant(order.size(), 0), is_target(order.size(), 0);
  if (targets) {
    for (const NodePtr& t : *targets) {
      auto it = pos.find(t.get());
      if (it != pos.end()) is_target[it->second] = 1;
    }
  } else {
    for (std::size_t i = 0; i < order.size(); ++i) is_target[i] = order[i]->grad->is_leaf;
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    relevant[i] = is_target[i];
    for (const NodePtr& in : order[i]->grad->inputs) {
      auto it = in ? pos.find(in.get()) : pos.end();
      if (it != pos.end() && relevant[it->second]) relevant[i] = 1;
    }
  }

  std::vector<Tensor> grads(order.size());
  grads.back() = seed;
  std::vector<Tensor> result;
  if (targets) result.resize(targets->size());
  // Leaves' gradients are added once the walk is done, so a derivative rule that throws (a
  // custom operator's backward) leaves every grad() as it was.
  std::vector<std::pair<detail::Var*, Tensor>> leaf_grads;
  std::vector<std::shared_ptr<void>> leaf_vars;
  // The outputs of one custom operator are differentiated together, at the output that comes
  // first in `order`: every user of every output comes later, so all their gradients are in.
  auto sibling_pos = [&](const ir::GradRecord& rec, std::size_t k) -> std::ptrdiff_t {
    const auto& impl = static_cast<const CustomGradImpl&>(*rec.custom);
    std::lock_guard<std::mutex> lock(impl.outputs_mutex);  // (custom_vjp may register one again)
    auto s = impl.outputs[k].lock();
    auto it = s ? pos.find(s.get()) : pos.end();
    return it == pos.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
  };
  for (std::size_t i = order.size(); i-- > 0;) {
    const NodePtr& n = order[i];
    const ir::GradRecord& rec = *n->grad;
    const bool custom = rec.composite == ir::Composite::Custom;
    std::vector<Tensor> group;
    if (custom && relevant[i]) {
      const std::size_t outs = static_cast<const CustomGradImpl&>(*rec.custom).outputs.size();
      bool head = true;
      for (std::size_t k = 0; k < outs && head; ++k) {
        std::ptrdiff_t p = sibling_pos(rec, k);
        head = !(p >= 0 && static_cast<std::size_t>(p) < i);
      }
      if (!head) continue;
      bool any = false;
      for (std::size_t k = 0; k < outs; ++k) {
        std::ptrdiff_t p = sibling_pos(rec, k);
        group.push_back(p < 0 || static_cast<std::size_t>(p) == i
                            ? Tensor()
                            : std::move(grads[static_cast<std::size_t>(p)]));
        if (static_cast<int>(k) == rec.custom_out) group.back() = grads[i];
        any = any || group.back().defined();
      }
      if (!any) continue;
    }
    Tensor g = std::move(grads[i]);
    if ((!g.defined() && !custom) || !relevant[i]) continue;
    if (is_target[i] && targets) {
      for (std::size_t k = 0; k < targets->size(); ++k)
        if ((*targets)[k].get() == n.get()) result[k] = g;
    } else if (is_target[i] && g.defined()) {
      if (auto v = rec.leaf.lock()) {
        leaf_grads.emplace_back(static_cast<detail::Var*>(v.get()), g);
        leaf_vars.push_back(std::move(v));
      }
    }
    if (rec.is_leaf) continue;
    VjpCall call{rec, Tensor(n), g, {}, {}, {}, std::move(group)};
    for (const NodePtr& in : rec.inputs) {
      call.in.emplace_back(in);
      auto it = in && in->grad ? pos.find(in.get()) : pos.end();
      call.needs.push_back(it != pos.end() && relevant[it->second]);
    }
    call.gin.resize(rec.inputs.size());
    if (rec.composite != ir::Composite::None)
      composite_vjp(call);
    else
      differentiate(call);
    for (std::size_t k = 0; k < rec.inputs.size(); ++k) {
      Tensor& gk = call.gin[k];
      if (!gk.defined() || !call.needs[k]) continue;
      const ir::Node& in = *rec.inputs[k];
      if (gk.shape() != in.shape || gk.dtype() != in.dtype)
        throw Error(ErrorCode::Internal, std::string("autograd: the derivative of ") + ir::op_name(rec.op) +
                                             " gave a gradient of shape " + shape_str(gk.shape()) + " " +
                                             dtype_name(gk.dtype()) + " for an input of shape " +
                                             shape_str(in.shape) + " " + dtype_name(in.dtype));
      Tensor& acc = grads[pos.at(&in)];
      acc = acc.defined() ? acc + gk : gk;
    }
  }
  // Under the gradient lock (accumulate): another thread's backward() may add into the same leaves.
  for (auto& [var, g] : leaf_grads) accumulate(*var, g);
  return result;
}

const NodePtr& differentiable_output(const Tensor& y, const char* what) {
  const NodePtr& n = frontend::node_of(y, what);
  if (!n->grad)
    throw Error(ErrorCode::InvalidOperation,
                std::string(what) +
                    ": the tensor does not require a gradient (no input "
                    "had requires_grad(true), or it was built under NoGradGuard)");
  if (n->numel() != 1)
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": needs a one-element tensor, got shape " +
                                                shape_str(n->shape) + " (reduce it first, e.g. with sum)");
  // complex group: as PyTorch, the seed 1 is only defined for a real loss (docs/autograd.md).
  if (is_complex(n->dtype))
    throw Error(ErrorCode::InvalidOperation,
                std::string(what) + ": grad can be implicitly created only for real scalar outputs, got " +
                    dtype_name(n->dtype) + " (differentiate a real function of it: real(y), abs(y), ...)");
  return n;
}

}  // namespace

}  // namespace autograd

Tensor& Tensor::requires_grad(bool on) {
  const ir::NodePtr& n = frontend::node_of(*this, "requires_grad");
  const bool mine = n->grad && n->grad->is_leaf && n->grad->leaf.lock() == var_;
  if (!on) {
    if (n->grad && !mine)
      throw Error(ErrorCode::InvalidOperation,
                  "requires_grad(false): the tensor is computed from tensors that require "
                  "a gradient; use detach() for a copy without history");
    if (mine) n->grad.reset();
    var_->requires_grad = false;
    return *this;
  }
  if (!is_floating(n->dtype) && !is_complex(n->dtype))
    throw Error(ErrorCode::DTypeMismatch,
                std::string("requires_grad: only floating and complex tensors can require a gradient, got ") +
                    dtype_name(n->dtype));
  if (n->grad && !n->grad->is_leaf)
    throw Error(ErrorCode::InvalidOperation,
                "requires_grad(true): the tensor is computed from tensors that require a "
                "gradient (not a leaf); use detach().requires_grad(true) for a new leaf");
  var_->requires_grad = true;
  if (!mine) frontend::make_leaf(var_);
  return *this;
}

bool Tensor::requires_grad() const { return frontend::node_of(*this, "requires_grad")->grad != nullptr; }

bool Tensor::is_leaf() const {
  const ir::NodePtr& n = frontend::node_of(*this, "is_leaf");
  return n->grad == nullptr || n->grad->is_leaf;
}

Tensor Tensor::grad() const {
  frontend::node_of(*this, "grad");
  std::lock_guard<std::mutex> lock(autograd::g_grad_mutex);
  return var_->grad;
}

void Tensor::clear_grad() {
  frontend::node_of(*this, "clear_grad");
  Tensor dropped;  // released after the lock: dropping a graph may take a while
  std::lock_guard<std::mutex> lock(autograd::g_grad_mutex);
  dropped = std::move(var_->grad);
  var_->grad = Tensor();
}

void Tensor::backward() const {
  const ir::NodePtr& y = autograd::differentiable_output(*this, "backward");
  if (frontend::TraceLog* log = frontend::active_trace()) log->side_effect = "calls backward()";  // eager
  NoGradGuard off;  // leaves' gradients carry no history: accumulating them never chains steps
  autograd::backprop(y, full(y->shape, 1.0, y->dtype, y->device), nullptr);
}

Tensor Tensor::detach() const {
  const ir::NodePtr& n = frontend::node_of(*this, "detach");
  if (!n->grad) return Tensor(n);
  NoGradGuard off;
  ir::Attrs a;
  a.shape = n->shape;
  return Tensor(frontend::make(ir::Op::Reshape, {n}, a, n->device));
}

std::vector<Tensor> grad(const Tensor& y, const std::vector<Tensor>& xs, bool create_graph) {
  const ir::NodePtr& yn = autograd::differentiable_output(y, "grad");
  std::vector<ir::NodePtr> targets;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const ir::NodePtr& x = frontend::node_of(xs[i], "grad");
    if (!x->grad)
      throw Error(ErrorCode::InvalidArgument, "grad: input " + std::to_string(i) + " (shape " +
                                                  shape_str(x->shape) + ") does not require a gradient");
    targets.push_back(x);
  }
  std::optional<NoGradGuard> off;
  if (!create_graph) off.emplace();
  std::vector<Tensor> out = autograd::backprop(yn, full(yn->shape, 1.0, yn->dtype, yn->device), &targets);
  // y does not depend on a target: its gradient is zero.
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!out[i].defined()) out[i] = zeros(targets[i]->shape, targets[i]->dtype, targets[i]->device);
  return out;
}

}  // namespace cgrad
