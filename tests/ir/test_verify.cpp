// The IR verifier and make_node: well-formed graphs pass; hand-built malformed nodes are
// rejected with ErrorCode::Internal and a message naming the node's op.
#include "ir/node.h"
#include "ir/op_table.h"
#include "ir/verify.h"
#include "runtime/backend.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <string>

namespace {

using namespace cgrad;
using ir::NodePtr;
using ir::Op;

NodePtr buf(Shape s, DType t = f32) {
  ir::View v;
  v.storage = runtime::allocate_host(static_cast<std::size_t>(core::numel(s)) * dtype_size(t));
  v.strides = core::contiguous_strides(s);
  return ir::make_buffer(s, t, Device::cpu(), std::move(v));
}

NodePtr node(Op op, std::vector<NodePtr> ins, ir::Attrs a = {}) {
  return ir::make_node(op, std::move(ins), a, Device::cpu());
}

// verify() on the topological order of `root`, expecting Internal naming `op`.
void expect_rejected(const NodePtr& root, const char* op, const char* why) {
  SCOPED_TRACE(why);
  std::vector<ir::Node*> order;
  // The bad node last, inputs (all well-formed) first.
  for (auto& in : root->inputs)
    if (in) order.push_back(in.get());
  order.push_back(root.get());
  try {
    ir::verify(order);
    ADD_FAILURE() << "verify accepted a malformed " << op << " node (" << why << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Internal) << e.what();
    EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
  }
}

TEST(Verify, AcceptsWellFormedGraphs) {
  NodePtr a = buf({2, 3}), b = buf({3}), c = buf({2, 3}, b8);
  ir::Attrs sh;
  sh.shape = {1, 3};
  ir::Attrs ex;
  ex.shape = {2, 3};
  NodePtr bb = node(Op::Expand, {node(Op::Reshape, {b}, sh)}, ex);
  NodePtr s = node(Op::Add, {a, bb});
  NodePtr w = node(Op::Where, {c, s, a});
  ir::Attrs ax;
  ax.axes = {1};
  NodePtr r = node(Op::Sum, {w}, ax);
  ir::Attrs cs;
  cs.dtype = i32;
  NodePtr k = node(Op::Cast, {r}, cs);
  NodePtr lt = node(Op::Lt, {a, a});
  ir::Attrs p;
  p.axes = {1, 0};
  NodePtr m = node(Op::Matmul, {a, node(Op::Permute, {a}, p)});
  EXPECT_NO_THROW(ir::verify({a.get(), b.get(), c.get(), bb->inputs[0].get(), bb.get(), s.get(), w.get(),
                              r.get(), k.get(), lt.get(), m->inputs[1].get(), m.get()}));
  EXPECT_EQ(k->dtype, i32);
  EXPECT_EQ(k->shape, (Shape{2, 1}));
  EXPECT_EQ(lt->dtype, b8);
  EXPECT_EQ(m->shape, (Shape{2, 2}));
}

TEST(Verify, RejectsWrongShape) {
  NodePtr n = node(Op::Add, {buf({2, 3}), buf({2, 3})});
  n->shape = {3, 2};
  expect_rejected(n, "add", "shape differs from the rule");
}

TEST(Verify, RejectsMismatchedElementwiseShapes) {
  NodePtr n = node(Op::Mul, {buf({2, 3}), buf({2, 3})});
  n->inputs[1] = buf({1, 3});  // element-wise inputs must already be broadcast
  expect_rejected(n, "mul", "operand shapes differ");
}

TEST(Verify, RejectsWrongDType) {
  NodePtr n = node(Op::Add, {buf({2}), buf({2})});
  n->dtype = f64;
  expect_rejected(n, "add", "dtype differs from inputs");

  NodePtr c = node(Op::Lt, {buf({2}), buf({2})});
  c->dtype = f32;
  expect_rejected(c, "lt", "comparison not b8");

  ir::Attrs a;
  a.dtype = i64;
  NodePtr k = node(Op::Cast, {buf({2})}, a);
  k->dtype = i32;
  expect_rejected(k, "cast", "cast dtype differs from attrs");

  ir::Attrs ax;
  ax.axes = {0};
  NodePtr s = node(Op::Sum, {buf({4}, i32)}, ax);
  s->dtype = i32;
  expect_rejected(s, "sum", "integer sum must accumulate to i64");
}

TEST(Verify, RejectsMixedInputDTypes) {
  NodePtr n = node(Op::Add, {buf({2}), buf({2})});
  n->inputs[1] = buf({2}, f64);  // inputs must share one dtype (the frontend inserts casts)
  expect_rejected(n, "add", "inputs of different dtypes");

  NodePtr w = node(Op::Where, {buf({2}, b8), buf({2}, i32), buf({2}, i32)});
  w->inputs[2] = buf({2}, i64);
  expect_rejected(w, "where", "where branches of different dtypes");
}

TEST(Verify, RejectsDTypeTheRowDoesNotAccept) {
  NodePtr n = node(Op::Add, {buf({2}), buf({2})});
  n->inputs = {buf({2}, b8), buf({2}, b8)};
  n->dtype = b8;
  expect_rejected(n, "add", "add does not accept b8");

  NodePtr e = node(Op::Exp, {buf({2})});
  e->inputs = {buf({2}, i32)};
  e->dtype = i32;
  expect_rejected(e, "exp", "exp accepts floats only");

  NodePtr w = node(Op::Where, {buf({2}, b8), buf({2}), buf({2})});
  w->inputs[0] = buf({2}, f32);
  expect_rejected(w, "where", "condition must be b8");
}

TEST(Verify, RejectsWrongArity) {
  NodePtr n = node(Op::Add, {buf({2}), buf({2})});
  n->inputs.pop_back();
  expect_rejected(n, "add", "one input for a binary op");
  NodePtr u = node(Op::Neg, {buf({2})});
  u->inputs.push_back(buf({2}));
  expect_rejected(u, "neg", "two inputs for a unary op");
}

TEST(Verify, RejectsVariadicWithoutInputs) {
  NodePtr n = node(Op::Cat, {buf({2}), buf({3})});
  n->inputs.clear();
  expect_rejected(n, "cat", "cat of nothing");
}

TEST(Verify, RejectsNullInput) {
  NodePtr n = node(Op::Add, {buf({2}), buf({2})});
  n->inputs[0] = nullptr;
  expect_rejected(n, "add", "null input");
}

TEST(Verify, RejectsUnrealizedBuffer) {
  auto n = std::make_shared<ir::Node>();
  n->op = Op::Buffer;
  n->shape = {2};
  n->attrs.shape = {2};
  expect_rejected(n, "buffer", "a buffer without storage");
}

TEST(Verify, RejectsRealizedNodeWithInputs) {
  NodePtr n = node(Op::Neg, {buf({2})});
  ir::set_value_for_test(*n, buf({2})->value);
  expect_rejected(n, "neg", "realized but still holding inputs");
}

TEST(Verify, RejectsViewRankMismatch) {
  NodePtr n = buf({2, 3});
  n->value.strides = {1};
  expect_rejected(n, "buffer", "view rank differs from shape rank");
}

TEST(Verify, RejectsBadAttributes) {
  ir::Attrs ax;
  ax.axes = {0, 1};
  NodePtr s = node(Op::Sum, {buf({2, 3})}, ax);
  s->attrs.axes = {1, 0};
  expect_rejected(s, "sum", "unsorted axes");
  s->attrs.axes = {2};
  expect_rejected(s, "sum", "axis out of range");

  ir::Attrs p;
  p.axes = {1, 0};
  NodePtr t = node(Op::Permute, {buf({2, 3})}, p);
  t->attrs.axes = {0, 0};
  expect_rejected(t, "permute", "not a permutation");

  ir::Attrs sl;
  sl.axis = 0;
  sl.start = 0;
  sl.stop = 2;
  NodePtr q = node(Op::Slice, {buf({4})}, sl);
  q->attrs.stop = 9;
  expect_rejected(q, "slice", "stop past the end");
  q->attrs.stop = 2;
  q->attrs.step = 0;
  expect_rejected(q, "slice", "step 0");

  ir::Attrs r;
  r.shape = {6};
  NodePtr re = node(Op::Reshape, {buf({2, 3})}, r);
  re->attrs.shape = {5};
  expect_rejected(re, "reshape", "reshape to a different size");

  NodePtr mm = node(Op::Matmul, {buf({2, 3}), buf({3, 4})});
  mm->inputs[1] = buf({2, 4});
  expect_rejected(mm, "matmul", "inner dims differ");
}

TEST(Verify, RealizeRejectsMalformedGraph) {
  Tensor keep = tensor(std::vector<float>{1, 2}, {2});
  NodePtr n = node(Op::Add, {keep.node(), keep.node()});
  n->shape = {3};
  Tensor bad(n);
  try {
    bad.eval();
    ADD_FAILURE() << "realize ran a malformed graph";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Internal) << e.what();
  }
  EXPECT_EQ(keep.to_vector<float>(), (std::vector<float>{1, 2}));
}

TEST(MakeNode, ChecksArityDTypesAndDevices) {
  auto code_of = [](auto f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    ADD_FAILURE() << "no error";
    return ErrorCode::Internal;
  };
  EXPECT_EQ(code_of([] { node(Op::Add, {buf({2})}); }), ErrorCode::Internal);
  EXPECT_EQ(code_of([] { node(Op::Add, {buf({2}), buf({2}, f64)}); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(code_of([] { node(Op::Add, {buf({2}, b8), buf({2}, b8)}); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(code_of([] { node(Op::Where, {buf({2}), buf({2}), buf({2})}); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(code_of([] { node(Op::Add, {buf({2}), buf({3})}); }), ErrorCode::ShapeMismatch);
  EXPECT_EQ(code_of([] { node(Op::Cat, {}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { ir::make_node(Op::Neg, {buf({2})}, {}, Device::cuda()); }), ErrorCode::DeviceError);

  NodePtr a = node(Op::Neg, {buf({2})});
  NodePtr b = node(Op::Neg, {a});
  EXPECT_LT(a->id, b->id) << "ids follow creation order";
  EXPECT_EQ(a->depth, 1);
  EXPECT_EQ(b->depth, 2);
  EXPECT_EQ(buf({1})->depth, 0);
}

}  // namespace
