// Node construction (through the op table's rules) and iterative destruction.
#include "ir/node.h"

#include "core/dtype.hpp"
#include "core/pool.hpp"

#include <algorithm>
#include <atomic>
#include <string>

namespace cgrad::ir {

namespace {
// Node ids come from blocks of kIdBlock that each thread takes from one counter: an atomic add
// per block instead of per node (an atomic read-modify-write is a few percent of building an
// element-wise node). A thread's ids increase in the order it builds nodes; ids are unique in
// the process, and the same on every run of a single-threaded program.
constexpr uint64_t kIdBlock = 256;
std::atomic<uint64_t> g_next_id{1};
thread_local uint64_t t_next_id = 0, t_id_end = 0;

void take_id_block() {
  t_next_id = g_next_id.fetch_add(kIdBlock, std::memory_order_relaxed);
  t_id_end = t_next_id + kIdBlock;
}

uint64_t next_id() {
  if (t_next_id == t_id_end) take_id_block();
  return t_next_id++;
}

// Shape buffers of destroyed nodes, reused by make_node on the same thread. A graph built and
// dropped per call (bench W6: 100 element-wise nodes) otherwise pays a malloc/free pair per node
// for its shape vector, about 15% of its time, most of it outside malloc's per-thread cache
// (which keeps 7 blocks per size). Only small buffers are kept, at most kMaxKept per thread.
constexpr std::size_t kMaxKept = 256;
constexpr std::size_t kMaxKeptCapacity = 8;
thread_local bool t_kept_gone = false;  // trivially destructible: readable until the thread ends

std::vector<Shape>* kept_shapes() {
  if (t_kept_gone) return nullptr;  // a node destroyed by a later thread-exit or static destructor
  thread_local struct Kept {
    std::vector<Shape> v;
    Kept() { v.reserve(kMaxKept); }
    Kept(const Kept&) = delete;
    Kept& operator=(const Kept&) = delete;
    ~Kept() { t_kept_gone = true; }
  } kept;
  return &kept.v;
}

void keep_shape(Shape& s) {
  if (s.capacity() == 0 || s.capacity() > kMaxKeptCapacity) return;
  std::vector<Shape>* kept = kept_shapes();
  if (kept && kept->size() < kMaxKept) kept->push_back(std::move(s));
}

Shape kept_shape() {
  std::vector<Shape>* kept = kept_shapes();
  if (!kept || kept->empty()) return {};
  Shape s = std::move(kept->back());
  kept->pop_back();
  return s;
}
}  // namespace

namespace {
// The release stack of the outermost ~Node running on this thread (nullptr when none): a node
// destroyed while it runs hands its inputs to that loop instead of releasing them itself, so
// releasing a chain of a million nodes is a loop, not a recursion.
thread_local core::SmallVec<NodePtr, 16>* t_release = nullptr;

// Moves `n`'s inputs, and those of its gradient record when `n` is its only owner (a gradient
// record holds inputs too: the backward graph outlives realization), onto `stack`.
void hand_over_inputs(Node& n, core::SmallVec<NodePtr, 16>& stack) {
  for (auto& in : n.inputs) stack.push_back(std::move(in));
  n.inputs.clear();
  if (n.grad && n.grad.use_count() == 1) {  // records are never shared between nodes
    for (auto& in : n.grad->inputs) stack.push_back(std::move(in));
    n.grad->inputs.clear();
  }
}
}  // namespace

Node::~Node() {
  keep_shape(shape);
  if (inputs.empty() && !grad) return;
  if (t_release) {
    hand_over_inputs(*this, *t_release);
    return;
  }
  // Each input is released by reset(): a node is destroyed only on the thread whose release
  // dropped the last reference (an acquire-release decrement), never on the strength of a
  // use_count() peek, which would not order another thread's earlier writes to the node (the
  // passes rewrite input lists under the realize lock) before this thread's reads of them.
  core::SmallVec<NodePtr, 16> stack;  // a chain needs a few entries at a time: no allocation
  t_release = &stack;
  hand_over_inputs(*this, stack);
  while (!stack.empty()) {
    NodePtr n = std::move(stack.back());
    stack.pop_back();
    n.reset();  // when it was the last reference, its ~Node pushes its inputs onto `stack`
  }
  t_release = nullptr;
}

namespace {
// make_node with `attrs` (nullptr: default attributes, nothing to move: the element-wise path).
NodePtr build_node(Op op, NodeList&& inputs, Attrs* attrs, Device device) {
  const OpInfo& row = info(op);
  auto name = [&] { return std::string(row.name); };
  if (row.arity >= 0 && static_cast<int>(inputs.size()) != row.arity)
    core::fail(ErrorCode::Internal, name() + ": expected " + std::to_string(row.arity) + " inputs, got " +
                                        std::to_string(inputs.size()));
  if (row.arity < 0 && inputs.empty())
    core::fail(ErrorCode::InvalidArgument, name() + ": needs at least one input");
  auto node = std::allocate_shared<Node>(core::PoolAllocator<Node>{});
  node->op = op;
  node->built_as = op;
  node->device = device;
  if (attrs) node->attrs = std::move(*attrs);
  node->inputs = std::move(inputs);
  // Value inputs: for Where the condition (input 0) is b8 and not a value input.
  std::size_t first_value = op == Op::Where ? 1 : 0;
  if (op == Op::Where && node->inputs[0]->dtype != DType::b8)
    core::fail(ErrorCode::DTypeMismatch,
               name() + ": condition must be b8, got " + dtype_name(node->inputs[0]->dtype));
  if ((row.kind == OpKind::Gather || row.kind == OpKind::Scatter) && node->inputs.back()->dtype != DType::i64)
    core::fail(ErrorCode::DTypeMismatch,
               name() + ": indices must be i64, got " + dtype_name(node->inputs.back()->dtype));
  for (std::size_t i = first_value; i < value_inputs_end(row.kind, node->inputs.size()); ++i) {
    DType d = node->inputs[i]->dtype;
    if (!(row.inputs & bit(d)))
      core::fail(ErrorCode::DTypeMismatch, name() + ": dtype " + dtype_name(d) + " is not supported");
    if (d != node->inputs[first_value]->dtype && op != Op::Cast)
      core::fail(ErrorCode::DTypeMismatch, name() + ": inputs have different dtypes " +
                                               dtype_name(node->inputs[first_value]->dtype) + " and " +
                                               dtype_name(d));
  }
  switch (row.dtype_rule) {
    case DTypeRule::Given: node->dtype = node->attrs.dtype; break;
    case DTypeRule::SameAsIn: node->dtype = node->inputs[first_value]->dtype; break;
    case DTypeRule::Bool: node->dtype = DType::b8; break;
    case DTypeRule::SumAcc: {
      DType d = node->inputs[0]->dtype;
      node->dtype = core::sum_dtype(d);
      break;
    }
    case DTypeRule::Real: node->dtype = real_dtype(node->inputs[0]->dtype); break;
    case DTypeRule::Complex: node->dtype = complex_dtype(node->inputs[0]->dtype); break;
  }
  node->shape = kept_shape();
  row.shape_rule(*node, node->shape);  // rules read the inputs' shapes only
  // An input's depth is 0 once it is realized (set_realized), so one relaxed load per input
  // tells both; another thread may be realizing it right now, and either value is fine.
  int64_t depth = 0;
  for (auto& in : node->inputs) {
    if (in->device != device)
      core::fail(ErrorCode::DeviceError, name() + ": inputs on different devices (" + in->device.str() +
                                             " and " + device.str() + ")");
    depth = std::max(depth, in->pending_depth());
  }
  node->set_depth(depth + 1);
  node->id = next_id();
  return node;
}
}  // namespace

NodePtr make_node(Op op, NodeList inputs, Attrs attrs, Device device) {
  return build_node(op, std::move(inputs), &attrs, device);
}

NodePtr make_node(Op op, NodeList inputs, Device device) {
  return build_node(op, std::move(inputs), nullptr, device);
}

NodePtr make_buffer(Shape shape, DType dtype, Device device, View value) {
  auto node = std::allocate_shared<Node>(core::PoolAllocator<Node>{});
  node->op = Op::Buffer;
  node->dtype = dtype;
  node->device = device;
  node->attrs.shape = shape;
  node->attrs.dtype = dtype;
  node->shape = std::move(shape);
  const bool has = value.storage != nullptr;
  node->value = std::move(value);
  node->has_value.store(has, std::memory_order_relaxed);  // not yet visible to other threads
  node->id = next_id();
  return node;
}

namespace {
std::atomic<uint64_t> g_next_storage_id{1};
}  // namespace

Storage::Storage() : id(g_next_storage_id.fetch_add(1, std::memory_order_relaxed)) {}

uint64_t node_id_watermark() {
  // A fresh block for this thread: its next nodes get ids from here up, and every node that
  // exists now (on any thread) came from an earlier block, so has a smaller id.
  take_id_block();
  return t_next_id;
}

void set_realized(Node& node, View value) {
  node.value = std::move(value);
  node.set_depth(0);
  node.has_value.store(true, std::memory_order_release);  // publishes `value`
  NodeList dropped = std::move(node.inputs);              // leaves node.inputs empty
  // `dropped` is destroyed here; Node::~Node of each handles deep chains iteratively.
}

void set_value_for_test(Node& node, View value) {
  node.value = std::move(value);
  node.has_value.store(node.value.storage != nullptr, std::memory_order_release);
}

}  // namespace cgrad::ir
