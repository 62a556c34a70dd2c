// The parser and type checker of user element-wise bodies (see user_fn.h): a recursive-descent
// parser with C's precedence for the operators it accepts, building a UserBody bottom-up.
// Everything it does not know is an error with the function's name and a column; nesting (of
// the parse and of the tree, which the renderers nest in the kernel) and length are bounded, so
// a hostile body can exhaust neither the stack nor a device compiler's bracket limit.
#include "ir/user_fn.h"

#include "ir/op_table.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

namespace cgrad::ir {

namespace {

constexpr std::size_t kMaxBody = 16384;
constexpr int kMaxDepth = 128;

std::atomic<uint64_t> g_next_id{1};

bool is_ident(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// The functions a body may call: the element-wise rows of the op table except cast (its target
// dtype is not an expression), by their scalar.hpp names; `min`/`max` name minimum/maximum.
bool callable(const std::string& name, Op& op) {
  const std::string n = name == "max" ? "maximum" : name == "min" ? "minimum" : name;
  for (const OpInfo& row : kTable) {
    if ((row.kind != OpKind::Unary && row.kind != OpKind::Binary) || row.op == Op::Cast) continue;
    // complex group: rows that take or make complex values only (user functions are real)
    if (!(row.inputs & kNumeric) || row.dtype_rule == DTypeRule::Complex) continue;
    if (n == row.name) {
      op = row.op;
      return true;
    }
  }
  return false;
}

struct Parser {
  const UserFn& fn;
  const std::string& src;
  UserBody& body;
  bool& needs_float;
  std::size_t pos = 0;
  int depth = 0;

  [[noreturn]] void fail(const std::string& why, std::size_t at) const {
    throw Error(ErrorCode::CompileError, "elementwise '" + fn.name + "': " + why + " at column " +
                                             std::to_string(at + 1) + " of \"" + src + "\"");
  }
  void skip() {
    while (pos < src.size() && std::isspace(static_cast<unsigned char>(src[pos]))) ++pos;
  }
  bool eat(const char* tok) {
    skip();
    const std::size_t n = std::char_traits<char>::length(tok);
    if (src.compare(pos, n, tok) != 0) return false;
    // `<` must not match the start of `<=`, `!` not the start of `!=`
    if (n == 1 && pos + 1 < src.size() && src[pos + 1] == '=' &&
        (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '='))
      return false;
    pos += n;
    return true;
  }
  std::vector<int> height = {};  // per node: levels of the tree below and including it
  int add(UserExpr e) {
    int h = 1;
    for (int a : e.args) h = std::max(h, 1 + height[static_cast<std::size_t>(a)]);
    // The renderers nest one call per level; device compilers limit nesting (NVRTC: 256 brackets).
    if (h > kMaxDepth)
      fail("expression nested too deeply (more than 128 levels; split it into several functions)", pos);
    height.push_back(h);
    body.nodes.push_back(std::move(e));
    return static_cast<int>(body.nodes.size()) - 1;
  }
  const UserExpr& at(int i) const { return body.nodes[static_cast<std::size_t>(i)]; }
  void want_value(int i, std::size_t where, const char* what) const {
    if (at(i).is_bool)
      fail(std::string("a condition is used as a number in ") + what + " (write `c ? 1 : 0`)", where);
  }
  void want_bool(int i, std::size_t where, const char* what) const {
    if (!at(i).is_bool)
      fail(std::string("a number is used as a condition in ") + what + " (compare it, e.g. `x != 0`)", where);
  }
  int call(Op op, std::vector<int> args, std::size_t where) {
    const OpInfo& row = info(op);
    for (int a : args) want_value(a, where, row.name);
    if (row.int_to_float) needs_float = true;
    UserExpr e;
    e.kind = UserExpr::Kind::Call;
    e.op = op;
    e.is_bool = row.dtype_rule == DTypeRule::Bool;
    e.args = std::move(args);
    return add(std::move(e));
  }
  int logic(UserExpr::Kind k, std::vector<int> args, std::size_t where, const char* what) {
    for (int a : args) want_bool(a, where, what);
    UserExpr e;
    e.kind = k;
    e.is_bool = true;
    e.args = std::move(args);
    return add(std::move(e));
  }

  int expr() {
    if (++depth > kMaxDepth) fail("expression nested too deeply", pos);
    const std::size_t start = (skip(), pos);
    int c = logical_or();
    if (eat("?")) {
      want_bool(c, start, "?:");
      const std::size_t p1 = (skip(), pos);
      int a = expr();
      if (!eat(":")) fail("expected ':'", pos);
      const std::size_t p2 = (skip(), pos);
      int b = expr();
      if (at(a).is_bool != at(b).is_bool)
        fail("the branches of ?: differ (a number and a condition)", at(a).is_bool ? p1 : p2);
      UserExpr e;
      e.kind = UserExpr::Kind::Select;
      e.is_bool = at(a).is_bool;
      e.args = {c, a, b};
      c = add(std::move(e));
    }
    --depth;
    return c;
  }
  int logical_or() {
    int l = logical_and();
    for (std::size_t p = (skip(), pos); eat("||"); p = (skip(), pos))
      l = logic(UserExpr::Kind::Or, {l, logical_and()}, p, "||");
    return l;
  }
  int logical_and() {
    int l = equality();
    for (std::size_t p = (skip(), pos); eat("&&"); p = (skip(), pos))
      l = logic(UserExpr::Kind::And, {l, equality()}, p, "&&");
    return l;
  }
  int equality() {
    int l = relational();
    for (;;) {
      const std::size_t p = (skip(), pos);
      if (eat("=="))
        l = call(Op::Eq, {l, relational()}, p);
      else if (eat("!="))
        l = call(Op::Ne, {l, relational()}, p);
      else
        return l;
    }
  }
  int relational() {
    int l = additive();
    for (;;) {
      const std::size_t p = (skip(), pos);
      if (eat("<="))
        l = call(Op::Le, {l, additive()}, p);
      else if (eat(">="))
        l = call(Op::Ge, {l, additive()}, p);
      else if (eat("<"))
        l = call(Op::Lt, {l, additive()}, p);
      else if (eat(">"))
        l = call(Op::Gt, {l, additive()}, p);
      else
        return l;
    }
  }
  int additive() {
    int l = multiplicative();
    for (;;) {
      const std::size_t p = (skip(), pos);
      if (eat("+"))
        l = call(Op::Add, {l, multiplicative()}, p);
      else if (eat("-"))
        l = call(Op::Sub, {l, multiplicative()}, p);
      else
        return l;
    }
  }
  int multiplicative() {
    int l = unary();
    for (;;) {
      const std::size_t p = (skip(), pos);
      if (eat("*"))
        l = call(Op::Mul, {l, unary()}, p);
      else if (eat("/"))
        l = call(Op::Div, {l, unary()}, p);
      else
        return l;
    }
  }
  int unary() {
    if (++depth > kMaxDepth) fail("expression nested too deeply", pos);
    const std::size_t p = (skip(), pos);
    int r;
    if (eat("-"))
      r = call(Op::Neg, {unary()}, p);
    else if (eat("+"))
      r = unary();
    else if (eat("!"))
      r = logic(UserExpr::Kind::Not, {unary()}, p, "!");
    else
      r = primary();
    --depth;
    return r;
  }
  int primary() {
    skip();
    const std::size_t p = pos;
    if (p >= src.size()) fail("unexpected end of the body", p);
    if (eat("(")) {
      int e = expr();
      if (!eat(")")) fail("expected ')'", pos);
      return e;
    }
    const char c = src[p];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos < src.size() && (std::isalnum(static_cast<unsigned char>(src[pos])) || src[pos] == '_'))
        ++pos;
      const std::string id = src.substr(p, pos - p);
      if (eat("(")) return function(id, p);
      for (std::size_t i = 0; i < fn.arity(); ++i) {
        if (id == (i < fn.inputs.size() ? fn.inputs[i] : fn.params[i - fn.inputs.size()])) {
          UserExpr e;
          e.kind = UserExpr::Kind::Input;
          e.index = static_cast<int>(i);
          return add(std::move(e));
        }
      }
      Op op;
      fail("'" + id + "' is " +
               (callable(id, op) ? "a function, call it with ()" : "not an input or parameter") +
               " (inputs: " + list(fn.inputs) + "; params: " + list(fn.params) + ")",
           p);
    }
    fail(std::string("unexpected '") + c + "'", p);
  }
  static std::string list(const std::vector<std::string>& v) {
    std::string s;
    for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? "none" : s;
  }
  int number() {
    const std::size_t p = pos;
    while (pos < src.size() && (std::isdigit(static_cast<unsigned char>(src[pos])) || src[pos] == '.')) ++pos;
    if (pos < src.size() && (src[pos] == 'e' || src[pos] == 'E')) {
      ++pos;
      if (pos < src.size() && (src[pos] == '+' || src[pos] == '-')) ++pos;
      while (pos < src.size() && std::isdigit(static_cast<unsigned char>(src[pos]))) ++pos;
    }
    const std::string text = src.substr(p, pos - p);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v)) fail("bad number '" + text + "'", p);
    if (pos < src.size() && (std::isalpha(static_cast<unsigned char>(src[pos])) || src[pos] == '_'))
      fail("bad number '" + text + src[pos] + "...'", p);
    if (v != std::floor(v) || std::fabs(v) > 9.0e15) needs_float = true;
    UserExpr e;
    e.kind = UserExpr::Kind::Literal;
    e.value = v;
    return add(std::move(e));
  }
  int function(const std::string& id, std::size_t p) {
    Op op;
    if (!callable(id, op)) fail("unknown function '" + id + "'", p);
    std::vector<int> args;
    if (!eat(")")) {
      do args.push_back(expr());
      while (eat(","));
      if (!eat(")")) fail("expected ')' or ','", pos);
    }
    const int arity = info(op).arity;
    if (static_cast<int>(args.size()) != arity)
      fail(id + " takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") + ", got " +
               std::to_string(args.size()),
           p);
    return call(op, std::move(args), p);
  }
};

}  // namespace

std::shared_ptr<UserFn> parse_user_fn(const std::string& name, const std::vector<std::string>& bodies,
                                      const std::vector<std::string>& inputs,
                                      const std::vector<std::string>& params) {
  if (!is_ident(name))
    throw Error(ErrorCode::InvalidArgument,
                "elementwise: the name '" + name + "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  auto fn = std::make_shared<UserFn>();
  fn->name = name;
  fn->inputs = inputs;
  fn->params = params;
  const std::string who = "elementwise '" + name + "': ";
  if (inputs.empty()) throw Error(ErrorCode::InvalidArgument, who + "needs at least one input");
  if (bodies.empty()) throw Error(ErrorCode::InvalidArgument, who + "needs at least one output body");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < fn->arity(); ++i) {
    const std::string& n = i < inputs.size() ? inputs[i] : params[i - inputs.size()];
    Op op;
    if (!is_ident(n)) throw Error(ErrorCode::InvalidArgument, who + "'" + n + "' is not an identifier");
    if (callable(n, op))
      throw Error(ErrorCode::InvalidArgument, who + "'" + n + "' is the name of a function");
    if (!seen.insert(n).second)
      throw Error(ErrorCode::InvalidArgument, who + "'" + n + "' is declared twice");
  }
  for (const std::string& text : bodies) {
    UserBody b;
    b.text = text;
    if (text.size() > kMaxBody)
      throw Error(ErrorCode::CompileError, who + "body longer than 16384 characters");
    Parser ps{*fn, b.text, b, fn->needs_float};
    b.root = ps.expr();
    ps.skip();
    if (ps.pos != text.size()) ps.fail(std::string("unexpected '") + text[ps.pos] + "'", ps.pos);
    if (b.nodes[static_cast<std::size_t>(b.root)].is_bool)
      throw Error(ErrorCode::CompileError,
                  who + "the body \"" + text + "\" is a condition; write `c ? 1 : 0` for a number");
    fn->outputs.push_back(std::move(b));
  }
  fn->id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  return fn;
}

int user_fn_cost(const UserFn& fn, int out) {
  int cost = 0;
  for (const UserExpr& e : fn.outputs.at(static_cast<std::size_t>(out)).nodes) {
    if (e.kind == UserExpr::Kind::Call)
      cost += info(e.op).cost;
    else if (e.kind != UserExpr::Kind::Input && e.kind != UserExpr::Kind::Literal)
      cost += 1;
  }
  return std::max(cost, info(Op::User).cost);
}

}  // namespace cgrad::ir
