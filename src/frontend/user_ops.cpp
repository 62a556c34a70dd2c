// User element-wise functions in the frontend (issue #23): definition (parse and check the
// bodies once) and calls, which promote and broadcast like any element-wise op and build one
// Op::User node per output. Parameters become constants of the function's dtype, so a new
// value reuses the compiled kernel like any other constant (constants are kernel arguments).
#include <cgrad/extend.hpp>

#include "frontend/build.h"
#include "ir/user_fn.h"

#include <vector>

namespace cgrad {

using frontend::NodePtr;

namespace {

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

const ir::UserFn& checked(const std::shared_ptr<const ir::UserFn>& fn) {
  if (!fn)
    throw Error(ErrorCode::InvalidArgument, "elementwise: the function is undefined (default-constructed)");
  return *fn;
}

std::vector<Tensor> call(const std::shared_ptr<const ir::UserFn>& fp, const std::vector<Tensor>& inputs,
                         const std::vector<double>& params) {
  const ir::UserFn& fn = checked(fp);
  const char* name = fn.name.c_str();
  if (inputs.size() != fn.inputs.size())
    throw Error(ErrorCode::InvalidArgument, fn.name + ": takes " + std::to_string(fn.inputs.size()) +
                                                " input(s) (" + names(fn.inputs) + "), got " +
                                                std::to_string(inputs.size()));
  if (params.size() != fn.params.size())
    throw Error(ErrorCode::InvalidArgument, fn.name + ": takes " + std::to_string(fn.params.size()) +
                                                " parameter(s) (" + names(fn.params) + "), got " +
                                                std::to_string(params.size()));
  std::vector<NodePtr> nodes;
  std::vector<core::PromoOperand> promos;
  Shape shape;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const NodePtr& n = frontend::node_of(inputs[i], name);
    shape = i == 0 ? n->shape : core::broadcast_shapes(shape, n->shape, name);
    nodes.push_back(n);
    promos.push_back(frontend::promo(n));
  }
  DType t = core::promote_all(promos.data(), static_cast<int>(promos.size()));
  if (t == DType::b8)
    throw Error(ErrorCode::DTypeMismatch,
                fn.name + ": not supported for dtype b8 (cast to a numeric dtype first)");
  if (fn.needs_float && !is_floating(t)) t = DType::f32;
  std::vector<NodePtr*> ptrs;
  for (auto& n : nodes) ptrs.push_back(&n);
  const Device device = frontend::place(ptrs, name);  // may evaluate: after every check
  ir::NodeList ins;
  for (auto& n : nodes) ins.push_back(frontend::broadcast_to(frontend::cast_to(n, t), shape));
  for (double p : params) ins.push_back(frontend::full_node(shape, Scalar(p), t, device));
  std::vector<Tensor> out;
  for (std::size_t k = 0; k < fn.outputs.size(); ++k) {
    ir::Attrs a;
    a.fn = fp;
    a.axis = static_cast<int64_t>(k);
    out.emplace_back(frontend::make(ir::Op::User, ins, std::move(a), device));
  }
  return out;
}

}  // namespace

std::vector<Tensor> ElementwiseFn::outputs(const std::vector<Tensor>& inputs,
                                           const std::vector<double>& params) const {
  return call(fn_, inputs, params);
}

Tensor ElementwiseFn::operator()(const std::vector<Tensor>& inputs, const std::vector<double>& params) const {
  const ir::UserFn& fn = checked(fn_);
  if (fn.outputs.size() != 1)
    throw Error(ErrorCode::InvalidArgument, fn.name + ": has " + std::to_string(fn.outputs.size()) +
                                                " outputs; call outputs() for all of them");
  return call(fn_, inputs, params)[0];
}

Tensor ElementwiseFn::operator()(const Tensor& x, const std::vector<double>& params) const {
  return (*this)(std::vector<Tensor>{x}, params);
}

const std::string& ElementwiseFn::name() const { return checked(fn_).name; }
std::size_t ElementwiseFn::num_inputs() const { return checked(fn_).inputs.size(); }
std::size_t ElementwiseFn::num_params() const { return checked(fn_).params.size(); }
std::size_t ElementwiseFn::num_outputs() const { return checked(fn_).outputs.size(); }

ElementwiseFn elementwise(const ElementwiseDef& def) {
  std::shared_ptr<ir::UserFn> fn = ir::parse_user_fn(def.name, def.outputs, def.inputs, def.params);
  if (!def.derivatives.empty()) {
    if (def.derivatives.size() != def.outputs.size())
      throw Error(ErrorCode::InvalidArgument, "elementwise '" + def.name + "': derivatives has " +
                                                  std::to_string(def.derivatives.size()) + " rows for " +
                                                  std::to_string(def.outputs.size()) + " outputs");
    // A derivative is a function of the inputs and the parameters, all passed as tensors.
    std::vector<std::string> all = def.inputs;
    all.insert(all.end(), def.params.begin(), def.params.end());
    for (std::size_t k = 0; k < def.derivatives.size(); ++k) {
      const auto& row = def.derivatives[k];
      if (row.size() != def.inputs.size())
        throw Error(ErrorCode::InvalidArgument, "elementwise '" + def.name + "': derivatives[" +
                                                    std::to_string(k) + "] has " +
                                                    std::to_string(row.size()) + " bodies for " +
                                                    std::to_string(def.inputs.size()) + " inputs");
      std::vector<std::shared_ptr<const ir::UserFn>> ds;
      for (std::size_t j = 0; j < row.size(); ++j) {
        if (row[j].empty()) {
          ds.push_back(nullptr);
          continue;
        }
        auto d =
            ir::parse_user_fn(def.name + "_d" + std::to_string(k) + "_d" + def.inputs[j], {row[j]}, all, {});
        // the derivative computes in the function's dtype: it must accept what the function does
        d->needs_float = d->needs_float || fn->needs_float;
        ds.push_back(std::move(d));
      }
      fn->derivatives.push_back(std::move(ds));
    }
  }
  return ElementwiseFn(std::move(fn));
}

ElementwiseFn elementwise(const std::string& name, const std::string& body,
                          const std::vector<std::string>& inputs, const std::vector<std::string>& params,
                          const std::vector<std::string>& derivatives) {
  ElementwiseDef def{name, inputs, params, {body}, {}};
  if (!derivatives.empty()) def.derivatives.push_back(derivatives);
  return elementwise(def);
}

}  // namespace cgrad
