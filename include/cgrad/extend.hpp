/// Users' own operators (issue #23, docs/extending.md): element-wise functions written as an
/// expression and fused into the surrounding kernel, and differentiable operators with a
/// forward and a backward written in cgrad tensor code.
#pragma once

#include <cgrad/tensor.hpp>

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace cgrad {

namespace ir {
struct UserFn;
}

/// The definition of a user element-wise function.
struct ElementwiseDef {
  std::string name;                 ///< an identifier, used in messages
  std::vector<std::string> inputs;  ///< tensor input names
  std::vector<std::string>
      params;  ///< scalar parameter names (kernel arguments: a new value does not recompile)
  std::vector<std::string> outputs;  ///< one body per output, e.g. "x > 0 ? x : a * (exp(x) - 1)"
  /// Optional: derivatives[k][j] is d output k / d input j, a body over the inputs and
  /// parameters. Without them the function is not differentiable (backward names it).
  std::vector<std::vector<std::string>> derivatives;
};

/// A user element-wise function: call it like any element-wise op. Inputs broadcast and
/// promote (NumPy/PyTorch rules) to one dtype, the function's dtype; integer inputs become f32
/// when the body divides, calls a floating function (exp, log, ...) or has a fractional
/// literal; b8 inputs are rejected. Parameters take the function's dtype.
class ElementwiseFn {
 public:
  ElementwiseFn() = default;
  explicit ElementwiseFn(std::shared_ptr<const ir::UserFn> fn) : fn_(std::move(fn)) {}
  /// The single output of a one-output function.
  Tensor operator()(const std::vector<Tensor>& inputs, const std::vector<double>& params = {}) const;
  Tensor operator()(const Tensor& x, const std::vector<double>& params = {}) const;
  /// Every output (one kernel computes them all when they are evaluated together).
  std::vector<Tensor> outputs(const std::vector<Tensor>& inputs,
                              const std::vector<double>& params = {}) const;
  const std::string& name() const;
  std::size_t num_inputs() const;
  std::size_t num_params() const;
  std::size_t num_outputs() const;
  const std::shared_ptr<const ir::UserFn>& fn() const { return fn_; }

 private:
  std::shared_ptr<const ir::UserFn> fn_;
};

/// Defines an element-wise function; the body is parsed and checked now (a bad body throws
/// cgrad::Error with ErrorCode::CompileError naming the function and the column).
ElementwiseFn elementwise(const ElementwiseDef& def);
/// One output, e.g. `elementwise("elu", "x > 0 ? x : a * (exp(x) - 1)", {"x"}, {"a"})`.
ElementwiseFn elementwise(const std::string& name, const std::string& body,
                          const std::vector<std::string>& inputs, const std::vector<std::string>& params = {},
                          const std::vector<std::string>& derivatives = {});

/// What a custom operator's backward sees: its inputs, its outputs and what forward saved.
struct CustomContext {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::vector<Tensor> saved;  ///< forward may push tensors here for backward
};

/// A differentiable operator with its own backward (torch.autograd.Function, jax.custom_vjp):
/// `forward(ctx, inputs)` computes the outputs with cgrad ops; `backward(ctx, grad_outputs)`
/// returns one gradient per input (an undefined Tensor for none), each of its input's shape.
/// Autograd calls backward instead of differentiating forward; backward's ops are lazy and fuse
/// like any backward graph, and with create_graph they are differentiated again (second
/// derivatives work when backward is itself differentiable).
class CustomOp {
 public:
  using Forward = std::function<std::vector<Tensor>(CustomContext&, const std::vector<Tensor>&)>;
  using Backward = std::function<std::vector<Tensor>(const CustomContext&, const std::vector<Tensor>&)>;
  CustomOp(std::string name, Forward forward, Backward backward);
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs) const;
  /// `op({x})` and `op({x, y})` give every output (a braced list picks this overload).
  std::vector<Tensor> operator()(std::initializer_list<Tensor> inputs) const {
    return (*this)(std::vector<Tensor>(inputs));
  }
  /// The first output of a one-input operator: `op(x)`.
  Tensor operator()(const Tensor& x) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::shared_ptr<const Forward> forward_;
  std::shared_ptr<const Backward> backward_;
};

}  // namespace cgrad
