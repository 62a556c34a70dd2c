// User element-wise functions (issue #23): the parsed, type-checked form of a body such as
// `x > 0 ? x : a * (exp(x) - 1)`, carried by the op table's `User` row (Op::User nodes hold a
// reference to their UserFn in Attrs::fn, the output in Attrs::axis).
//
// A body is an expression, never text spliced into generated source: parse_user_fn accepts
// only the declared input and parameter names, numeric literals, the operators
// `+ - * / < <= > >= == != && || ! ?:`, parentheses, and calls of the element-wise rows of the
// op table by their names (`exp`, `maximum`, ..., the helpers of cgrad/scalar.hpp), and keeps
// the result as a tree of those pieces. The renderers re-emit the tree (names become kernel
// values, literals are printed by the renderer, operators become cgrad::scalar calls), and the
// interpreter evaluates it, so nothing the user typed reaches a translation unit verbatim.
#pragma once

#include "ir/op.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cgrad::ir {

/// One node of a parsed body; children come before their parent (a body is evaluated by one
/// pass over `UserBody::nodes`).
struct UserExpr {
  enum class Kind : uint8_t {
    Input,    ///< value `index` of the call: the tensor inputs, then the parameters
    Literal,  ///< `value`, converted to the function's dtype
    Call,     ///< an element-wise row `op` (unary minus is Neg, `a + b` is Add, `a < b` is Lt)
    Select,   ///< args[0] ? args[1] : args[2]
    And,
    Or,
    Not,
  };
  Kind kind = Kind::Literal;
  Op op = Op::Buffer;
  int index = -1;
  double value = 0;
  bool is_bool = false;   ///< the node is a condition (comparison, &&, ||, !)
  std::vector<int> args;  ///< indices of earlier nodes
};

/// One output's expression.
struct UserBody {
  std::vector<UserExpr> nodes;
  int root = -1;
  std::string text;  ///< the source, for messages and printing
};

/// A registered user element-wise function. Immutable once made; nodes share it.
struct UserFn {
  uint64_t id = 0;  ///< unique in the process: plan keys and CSE tell functions apart by it
  std::string name;
  std::vector<std::string> inputs, params;
  std::vector<UserBody> outputs;
  /// Integer inputs are converted to f32 first (the body divides or calls a floating function
  /// such as exp, or has a non-integer literal), as the built-in rows with int_to_float do.
  bool needs_float = false;
  /// derivatives[k][j]: d output k / d input j as a function of the inputs and parameters (its
  /// inputs are `inputs` then `params`, it has no parameters); null where none was given.
  std::vector<std::vector<std::shared_ptr<const UserFn>>> derivatives;
  std::size_t arity() const { return inputs.size() + params.size(); }
};

/// What one element of output `out` of `fn` costs, in the op table's `cost` units (the
/// scheduler's rule 8, docs/fusion.md): the costs of the rows its body calls, plus 1 for each
/// select or logical operator; names and literals are free. At least the `User` row's own cost.
int user_fn_cost(const UserFn& fn, int out);

/// Parses and type-checks `bodies` (one per output) over `inputs` and `params`; throws
/// cgrad::Error (CompileError for a bad body, InvalidArgument for bad names) naming the
/// function and the column of the problem.
std::shared_ptr<UserFn> parse_user_fn(const std::string& name, const std::vector<std::string>& bodies,
                                      const std::vector<std::string>& inputs,
                                      const std::vector<std::string>& params);

}  // namespace cgrad::ir
