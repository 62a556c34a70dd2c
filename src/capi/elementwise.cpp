// C entry points for user element-wise functions (issue #23, docs/extending.md): define and free
// function handles, and the value rule of CGRAD_OP_ELEMENTWISE nodes (cgrad_tensor_elementwise
// itself sits with the other operations in tensor.cpp).
//
// Handles live in a registry under the C API's lock and are looked up before use, so a stale or
// foreign pointer is reported, never followed. Freeing a handle only marks it: nodes built with
// it keep a pointer to it in their op_info and must still rebuild their values when a leaf is
// refilled, so the registry keeps every function (a few hundred bytes each) for the process.
#include "capi/capi_internal.h"

#include <unordered_map>

struct cgrad_elementwise_fn {
  cgrad::ElementwiseFn fn;
  bool freed = false;
};

namespace cgrad::capi {
namespace {

std::unordered_map<const cgrad_elementwise_fn*, std::unique_ptr<cgrad_elementwise_fn>>& registry() {
  static auto* r =
      new std::unordered_map<const cgrad_elementwise_fn*, std::unique_ptr<cgrad_elementwise_fn>>();
  return *r;
}

cgrad_elementwise_fn& lookup(const cgrad_elementwise_fn* fn, bool allow_freed) {
  if (!fn) fail(CGRAD_ERR_NULL_POINTER, "fn is NULL");
  auto it = registry().find(fn);
  if (it == registry().end())
    fail(CGRAD_ERR_INVALID_ARGUMENT, "fn is not a function from cgrad_elementwise_define");
  if (it->second->freed && !allow_freed) fail(CGRAD_ERR_FREED, "fn was freed");
  return *it->second;
}

std::vector<std::string> names(const char* const* v, int n, const char* what) {
  if (n < 0) fail(CGRAD_ERR_INVALID_ARGUMENT, std::string(what) + " count is negative");
  if (n > 0 && !v) fail(CGRAD_ERR_NULL_POINTER, std::string(what) + " is NULL");
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    if (!v[i]) fail(CGRAD_ERR_NULL_POINTER, std::string(what) + "[" + std::to_string(i) + "] is NULL");
    out.emplace_back(v[i]);
  }
  return out;
}

}  // namespace

const ElementwiseFn& elementwise_fn(const cgrad_elementwise_fn* fn, bool allow_freed) {
  return lookup(fn, allow_freed).fn;
}

Tensor elementwise_value(const cgrad_op_metadata& m, const std::vector<Tensor>& in) {
  const ElementwiseFn& f = elementwise_fn(m.elementwise.fn, true);
  return f(in, std::vector<double>(m.elementwise.params, m.elementwise.params + m.elementwise.n_params));
}

}  // namespace cgrad::capi

using namespace cgrad::capi;

extern "C" {

int cgrad_elementwise_define(const char* name, const char* body, const char* const* input_names, int n_inputs,
                             const char* const* param_names, int n_params, cgrad_elementwise_fn** out_fn) {
  return guard("cgrad_elementwise_define", [&] {
    if (!name) fail(CGRAD_ERR_NULL_POINTER, "name is NULL");
    if (!body) fail(CGRAD_ERR_NULL_POINTER, "body is NULL");
    if (!out_fn) fail(CGRAD_ERR_NULL_POINTER, "out_fn is NULL");
    auto inputs = names(input_names, n_inputs, "input_names");
    auto params = names(param_names, n_params, "param_names");
    if (n_params > CGRAD_ELEMENTWISE_MAX_PARAMS)
      fail(CGRAD_ERR_INVALID_ARGUMENT, std::to_string(n_params) +
                                           " parameters, more than CGRAD_ELEMENTWISE_MAX_PARAMS (" +
                                           std::to_string(CGRAD_ELEMENTWISE_MAX_PARAMS) + ")");
    auto h = std::make_unique<cgrad_elementwise_fn>();
    try {
      h->fn = cgrad::elementwise(name, body, inputs, params);
    } catch (const cgrad::Error& e) {
      fail(CGRAD_ERR_INVALID_ARGUMENT, e.what());  // a bad body or name is a bad argument
    }
    cgrad_elementwise_fn* p = h.get();
    registry().emplace(p, std::move(h));
    *out_fn = p;
    return CGRAD_SUCCESS;
  });
}

int cgrad_elementwise_free(cgrad_elementwise_fn* fn) {
  return guard("cgrad_elementwise_free", [&] {
    lookup(fn, false).freed = true;
    return CGRAD_SUCCESS;
  });
}

}  // extern "C"
