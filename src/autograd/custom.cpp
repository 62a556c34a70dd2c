// Users' own derivatives (issue #23): the derivative rule of the op table's User row (the
// derivative bodies given with an element-wise function) and custom differentiable operators
// (CustomOp: a forward and a backward written with cgrad ops).
//
// A custom operator's outputs are fresh identity views of what forward returned; their
// gradient records point at the operator's inputs and at a CustomGradImpl holding the user's
// backward, so the engine never looks inside forward. The records hold the implementation and
// it holds only weak references to them: no cycles. Forward runs with grad mode as the caller
// has it, so the outputs handed to backward carry their history and a backward that uses them
// is differentiated correctly under create_graph.
#include "autograd/autograd.h"

#include "frontend/build.h"
#include "ir/derivatives.h"
#include "ir/user_fn.h"

namespace cgrad {

namespace autograd {

namespace vjp {

// d/dx_j of output k is the derivative body [k][j], a function of the inputs and parameters.
void user(VjpCall& c) {
  const ir::UserFn& fn = *c.rec.attrs.fn;
  const auto k = static_cast<std::size_t>(c.rec.attrs.axis);
  for (std::size_t j = 0; j < fn.inputs.size(); ++j) {
    if (!c.needs[j]) continue;
    const ir::UserFn* d = k < fn.derivatives.size() ? fn.derivatives[k][j].get() : nullptr;
    if (!d)
      throw Error(ErrorCode::InvalidOperation,
                  "backward: elementwise '" + fn.name + "' has no derivative for input '" + fn.inputs[j] +
                      "' (give ElementwiseDef::derivatives to differentiate it)");
    ElementwiseFn df(fn.derivatives[k][j]);
    c.gin[j] = c.g * df(c.in, {});
  }
}

}  // namespace vjp

namespace {
// The output the caller sees: an identity view of forward's output `inner` carrying the
// operator's gradient record for output k (the passes fold the view away).
ir::NodePtr output_view(const ir::NodePtr& inner, const std::vector<ir::NodePtr>& inputs,
                        const std::shared_ptr<const ir::CustomGrad>& impl, std::size_t k) {
  ir::Attrs a;
  a.shape = inner->shape;
  ir::NodePtr view = ir::make_node(ir::Op::Reshape, {inner}, a, inner->device);
  if (is_floating(view->dtype) ||
      is_complex(view->dtype)) {  // complex too: without a record until 2026-12-05
    auto r = std::make_shared<ir::GradRecord>();
    r->op = ir::Op::Reshape;
    r->composite = ir::Composite::Custom;
    r->inputs = inputs;
    r->custom = impl;
    r->custom_out = static_cast<int>(k);
    view->grad = std::move(r);
  }
  return view;
}
}  // namespace

void custom_vjp(VjpCall& c) {
  const auto& impl = static_cast<const CustomGradImpl&>(*c.rec.custom);
  const std::string who = "custom op '" + impl.name + "'";
  CustomContext ctx = impl.ctx;
  ctx.inputs = c.in;  // the recorded nodes (a handle given to forward may have been reassigned since)
  // Under create_graph, backward's derivative must flow through the outputs it reads: a forward
  // run on the host (the linalg routines) gives outputs with no history, so backward gets the
  // outputs the caller saw, carrying the operator's record (one made again where the caller's has
  // gone), as a torch.autograd.Function's saved outputs do. Until 2026-12-07 the second
  // derivatives through inv, det, cholesky, eigh or the SVD missed those terms (silently).
  if (frontend::grad_mode()) {
    std::lock_guard<std::mutex> lock(impl.outputs_mutex);
    for (std::size_t k = 0; k < ctx.outputs.size(); ++k) {
      ir::NodePtr v = impl.outputs[k].lock();
      if (!v) {  // registered, so that the engine groups its gradient with its siblings'
        v = output_view(ctx.outputs[k].node(), c.rec.inputs, c.rec.custom, k);
        impl.outputs[k] = v;
      }
      ctx.outputs[k] = Tensor(v);
    }
  }
  std::vector<Tensor> gout = c.group;
  for (std::size_t k = 0; k < gout.size(); ++k)
    if (!gout[k].defined())
      gout[k] = zeros(ctx.outputs[k].shape(), ctx.outputs[k].dtype(), ctx.outputs[k].device());
  std::vector<Tensor> gin = (*impl.backward)(ctx, gout);
  if (gin.size() != c.in.size())
    throw Error(ErrorCode::InvalidArgument, who + ": backward returned " + std::to_string(gin.size()) +
                                                " gradient(s) for " + std::to_string(c.in.size()) +
                                                " input(s)");
  for (std::size_t j = 0; j < gin.size(); ++j) {
    if (!gin[j].defined() || !c.needs[j]) continue;
    if (gin[j].shape() != c.in[j].shape())
      throw Error(ErrorCode::ShapeMismatch,
                  who + ": backward returned a gradient of shape " + shape_str(gin[j].shape()) +
                      " for input " + std::to_string(j) + " of shape " + shape_str(c.in[j].shape()));
    if (gin[j].device() != c.in[j].device())
      throw Error(ErrorCode::DeviceError, who + ": backward returned gradient " + std::to_string(j) + " on " +
                                              gin[j].device().str() + " for an input on " +
                                              c.in[j].device().str());
    c.gin[j] = gin[j].dtype() == c.in[j].dtype() ? gin[j] : gin[j].cast(c.in[j].dtype());
  }
}

}  // namespace autograd

CustomOp::CustomOp(std::string name, Forward forward, Backward backward)
    : name_(std::move(name)),
      forward_(std::make_shared<const Forward>(std::move(forward))),
      backward_(std::make_shared<const Backward>(std::move(backward))) {
  if (!*forward_ || !*backward_)
    throw Error(ErrorCode::InvalidArgument,
                "custom op '" + name_ + "': forward and backward must both be given");
}

std::vector<Tensor> CustomOp::operator()(const std::vector<Tensor>& inputs) const {
  const std::string who = "custom op '" + name_ + "'";
  std::vector<ir::NodePtr> in_nodes;
  for (const Tensor& t : inputs) in_nodes.push_back(frontend::node_of(t, who.c_str()));
  CustomContext ctx;
  for (auto& n : in_nodes) ctx.inputs.emplace_back(n);
  std::vector<Tensor> outs = (*forward_)(ctx, ctx.inputs);
  if (outs.empty()) throw Error(ErrorCode::InvalidArgument, who + ": forward returned no outputs");
  for (std::size_t k = 0; k < outs.size(); ++k)
    if (!outs[k].defined())
      throw Error(ErrorCode::InvalidArgument,
                  who + ": forward returned an undefined output " + std::to_string(k));
  bool record = frontend::grad_mode();
  if (record) {
    record = false;
    for (auto& n : in_nodes) record = record || n->grad;
  }
  if (!record) return outs;
  auto impl = std::make_shared<autograd::CustomGradImpl>();
  impl->name = name_;
  impl->backward = backward_;
  // Fresh handles to the nodes: assign() on the caller's handles must not change them.
  impl->ctx.inputs = ctx.inputs;
  for (auto& t : ctx.saved) impl->ctx.saved.emplace_back(frontend::node_of(t, who.c_str()));
  std::vector<Tensor> result;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    const ir::NodePtr& inner = outs[k].node();
    impl->ctx.outputs.emplace_back(inner);
    // (forward's own nodes keep their records)
    ir::NodePtr view = autograd::output_view(inner, in_nodes, impl, k);
    impl->outputs.push_back(view);
    result.emplace_back(std::move(view));
  }
  return result;
}

Tensor CustomOp::operator()(const Tensor& x) const { return (*this)(std::vector<Tensor>{x})[0]; }

}  // namespace cgrad
