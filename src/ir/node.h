// Graph nodes. A node is one op application: op, inputs, attributes, shape, dtype, device,
// and, once realized, a view of the storage holding its value. Nodes own their inputs through
// shared_ptr, so graphs built from different tensors join without any global graph object.
//
// Invariants (checked by verify.cpp):
//  - shape and dtype are exactly what the op table's rules give for the inputs and attrs;
//  - element-wise inputs already have the output's shape (the frontend inserts explicit
//    reshape/expand for broadcasting) and a common dtype (explicit casts);
//  - a realized node has no inputs: realizing drops them, which frees the graph above it.
#pragma once

#include "core/shape.hpp"
#include "core/small_vec.hpp"
#include "ir/op.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace cgrad::ir {

/// A block of device memory. Freed by the deleter the allocator installed.
struct Storage {
  void* data = nullptr;
  std::size_t nbytes = 0;
  Device device;
  void (*release)(void* data, std::size_t nbytes) = nullptr;
  /// Unique in the process, never reused (unlike addresses): what the result cache keys on.
  const uint64_t id;
  /// Bumped by every write into a storage that already holds a value (none of the library's
  /// paths do that to a storage a node can see; a writer that does must bump it).
  uint64_t version = 0;
  /// Memory another library owns (cgrad::from_blob): never written over by buffer reuse.
  bool borrowed = false;
  Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage() {
    if (release) release(data, nbytes);
  }
};

/// A strided view of a storage: element (i0, i1, ...) is at data[offset + sum(i_k * strides[k])].
struct View {
  std::shared_ptr<Storage> storage;
  int64_t offset = 0;
  core::Strides strides;
};

struct UserFn;

struct Attrs {
  Shape shape;                            ///< Reshape / Expand target; sources' shape
  std::vector<int64_t> axes;              ///< Reduce: sorted reduced axes; Permute: the permutation
  int64_t axis = 0;                       ///< Slice / Cat
  int64_t start = 0, stop = 0, step = 1;  ///< Slice, normalized: 0 <= start <= stop <= dim, step >= 1
  double fvalue = 0;                      ///< Full (floating dtypes)
  int64_t ivalue = 0;                     ///< Full (integer and bool dtypes)
  uint64_t seed = 0;                      ///< Rand / Randn stream key
  DType dtype = DType::f32;               ///< sources and Cast
  /// User: the function (ir/user_fn.h); attrs.axis is the output. Compared by identity.
  std::shared_ptr<const UserFn> fn;
  bool operator==(const Attrs&) const = default;
};

struct Node;
using NodePtr = std::shared_ptr<Node>;
/// A node's inputs: up to 3 inline, so building a node allocates nothing for them.
using NodeList = core::SmallVec<NodePtr, 3>;

/// Composite ops whose backward is a simplified rule rather than the chain of their
/// primitives' rules (softmax cross-entropy's is `p - y`), and device transfers (a copy node
/// whose gradient is the output gradient moved back).
/// Custom: a user's differentiable operator (issue #23), whose backward is GradRecord::custom.
enum class Composite : uint8_t { None, Softmax, LogSoftmax, CrossEntropy, ToDevice, Custom };

/// A custom operator's backward, defined by autograd (autograd/autograd.h); the IR only keeps
/// it alive with the records of the operator's outputs.
struct CustomGrad {
  virtual ~CustomGrad() = default;
};

/// What autograd remembers about a node that requires a gradient. Saved when the node is
/// built, so passes rewriting the node in place and realization dropping its inputs leave
/// the backward graph intact. A leaf (`requires_grad(true)`) has no inputs and points at the
/// handle variable whose `grad()` it accumulates into.
struct GradRecord {
  Op op = Op::Buffer;
  Composite composite = Composite::None;
  Attrs attrs;
  std::vector<NodePtr> inputs;
  std::weak_ptr<void> leaf;  ///< the cgrad::detail::Var of a leaf; empty otherwise
  bool is_leaf = false;
  std::shared_ptr<const CustomGrad> custom;  ///< Composite::Custom: the operator's backward
  int custom_out = 0;                        ///< Composite::Custom: which output this node is
};

/// Who may touch what (docs/semantics.md, "Threads"). A node is shared by every handle and
/// every graph that reaches it, on any thread, so its fields fall into three groups:
///  - immutable once make_node/make_buffer returns: id, built_as, dtype, device, shape (passes
///    keep them);
///  - written only under the realize lock (runtime::RealizeLock), read only under it:
///    op, attrs, inputs (passes rewrite them, set_realized drops them), walk_epoch, walk_index;
///    `value` is written once, under the lock, before `has_value` is set, and never again, so a
///    thread that sees realized() may read it without the lock;
///  - atomic, read by node building on any thread without the lock: depth (a heuristic: a stale
///    value only moves where the pending-depth rule cuts) and has_value.
/// `grad` is set when the node is built, before any other thread can see it; requires_grad()
/// and assign() on a variable replace it, which needs the variable to be used by one thread at
/// that time (like any write to a variable).
struct Node {
  uint64_t id =
      0;  ///< unique; creation order within a thread (node.cpp); deterministic for a deterministic program
  Op op = Op::Buffer;
  /// The op the node was built as, which passes and realization never change (`op` may become
  /// a Full, a reshape or a Buffer): a hint any thread may read without the lock, such as the
  /// frontend's test for a pending permute before it takes the lock to read `op` and `inputs`.
  Op built_as = Op::Buffer;
  DType dtype = DType::f32;
  std::atomic<bool> has_value{false};  ///< realized(): set (release) after `value`
  Device device;
  Shape shape;
  NodeList inputs;
  Attrs attrs;
  /// Longest chain of unrealized nodes ending here (0 once realized). Relaxed loads and stores
  /// only (pending_depth(), set_depth()): a plain load or store on x86.
  std::atomic<int64_t> depth{0};
  View value;                        ///< set once realized
  std::shared_ptr<GradRecord> grad;  ///< set when the node requires a gradient (autograd)
  /// Scratch for graph walks done under the realize lock (topo_order_marked): never read
  /// outside one walk.
  uint64_t walk_epoch = 0;
  int64_t walk_index = -1;

  /// True once the value is computed; after it returns true, `value` may be read on any thread.
  bool realized() const { return has_value.load(std::memory_order_acquire); }
  int64_t pending_depth() const { return depth.load(std::memory_order_relaxed); }
  void set_depth(int64_t d) { depth.store(d, std::memory_order_relaxed); }
  int64_t numel() const { return core::numel(shape); }

  // User-provided (not `= default`): std::allocate_shared value-initializes, which would
  // zero-fill all of the node before running the member initializers (a `rep stos` that was a
  // quarter of make_node in the W6 profile).
  Node() {}  // NOLINT(modernize-use-equals-default)
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  /// Releases inputs iteratively: destroying a chain of a million nodes must not recurse.
  ~Node();
};

/// Builds a node: checks arity and input dtypes against the op table, infers dtype and shape
/// with the row's rules (throwing cgrad::Error naming the op and shapes), assigns the next id.
NodePtr make_node(Op op, NodeList inputs, Attrs attrs, Device device);
/// The same with default attributes (element-wise ops).
NodePtr make_node(Op op, NodeList inputs, Device device);

/// A realized leaf (Op::Buffer) holding `value`.
NodePtr make_buffer(Shape shape, DType dtype, Device device, View value);

/// A watermark between the nodes that exist and those this thread builds next: every node that
/// exists now has a smaller id, every node this thread builds after the call a larger or equal
/// one (nodes other threads build meanwhile may have either).
uint64_t node_id_watermark();

/// Makes `node` a realized leaf holding `value` and drops its inputs. Under the realize lock.
void set_realized(Node& node, View value);
/// Sets a value without dropping inputs (tests building malformed graphs for the verifier).
void set_value_for_test(Node& node, View value);

}  // namespace cgrad::ir
