// Verifier: every node is what make_node would build from its inputs and attributes.
#include "ir/verify.h"

#include "core/dtype.hpp"

#include <string>

namespace cgrad::ir {

void verify(const std::vector<Node*>& topo) {
  for (const Node* n : topo) {
    auto bad = [&](const std::string& why) {
      core::fail(ErrorCode::Internal,
                 std::string("verify: node ") + std::to_string(n->id) + " (" + op_name(n->op) + "): " + why);
    };
    if (n->realized()) {
      if (!n->inputs.empty()) bad("realized node still holds inputs");
      if (n->value.strides.size() != n->shape.size()) bad("view rank differs from shape rank");
      continue;
    }
    const OpInfo& row = info(n->op);
    if (n->op == Op::Buffer) bad("unrealized buffer");
    if (row.arity >= 0 && static_cast<int>(n->inputs.size()) != row.arity) bad("wrong number of inputs");
    if (row.arity < 0 && n->inputs.empty()) bad("no inputs");
    for (auto& in : n->inputs)
      if (!in) bad("null input");
    // Value inputs are of a dtype the row accepts and of one common dtype (the frontend inserts
    // casts); Cast converts, and Where's condition (input 0) is b8.
    const std::size_t first_value = n->op == Op::Where ? 1 : 0;
    if (n->op == Op::Where && n->inputs[0]->dtype != DType::b8) bad("condition must be b8");
    if ((row.kind == OpKind::Gather || row.kind == OpKind::Scatter) && n->inputs.back()->dtype != DType::i64)
      bad("gather/scatter indices must be i64");
    for (std::size_t i = first_value; i < value_inputs_end(row.kind, n->inputs.size()); ++i) {
      DType d = n->inputs[i]->dtype;
      if (!(row.inputs & bit(d))) bad(std::string("input dtype ") + dtype_name(d) + " is not accepted");
      if (n->op != Op::Cast && d != n->inputs[first_value]->dtype)
        bad(std::string("inputs have different dtypes ") + dtype_name(n->inputs[first_value]->dtype) +
            " and " + dtype_name(d));
    }
    try {
      // Rebuild through the table's rules and compare.
      Node proto;
      proto.op = n->op;
      proto.inputs = n->inputs;
      proto.attrs = n->attrs;
      Shape s;
      row.shape_rule(proto, s);
      proto.inputs.clear();
      if (s != n->shape) bad("shape " + shape_str(n->shape) + " but the rule gives " + shape_str(s));
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Internal) throw;
      bad(std::string("shape rule fails: ") + e.what());
    }
    switch (row.dtype_rule) {
      case DTypeRule::Bool:
        if (n->dtype != DType::b8) bad("comparison result must be b8");
        break;
      case DTypeRule::SameAsIn:
        if (n->dtype != n->inputs[n->op == Op::Where ? 1 : 0]->dtype) bad("dtype differs from its inputs");
        break;
      case DTypeRule::Given:
        if (n->dtype != n->attrs.dtype) bad("dtype differs from attrs.dtype");
        break;
      case DTypeRule::SumAcc:
        if (n->dtype != core::sum_dtype(n->inputs[0]->dtype)) bad("sum dtype");
        break;
      case DTypeRule::Real:
        if (n->dtype != real_dtype(n->inputs[0]->dtype)) bad("dtype is not the real dtype of its input");
        break;
      case DTypeRule::Complex:
        if (n->dtype != complex_dtype(n->inputs[0]->dtype))
          bad("dtype is not the complex dtype of its input");
        break;
    }
  }
}

}  // namespace cgrad::ir
