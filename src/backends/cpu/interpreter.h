// The reference interpreter: evaluates a subgraph op by op, each computing op one "kernel".
// It is the oracle every fusion and backend is tested against, so it favours exactness:
// float sums and matmuls accumulate in double, integer arithmetic wraps, views never copy.
#pragma once

#include "runtime/backend.h"

#include <vector>

namespace cgrad::backends::cpu {

/// The value of one node given the values of its inputs. Returns a view: for movement ops on
/// a compatible layout it shares the input's storage. `*launched` tells whether a kernel ran.
ir::View interpret_node(const ir::Node& n, const std::vector<const ir::View*>& inputs, bool* launched);

class Interpreter final : public runtime::Backend {
 public:
  /// library_gemm: matmuls run on the GEMM kernels the JIT's plans call (fast_matmul) instead of
  /// the reference loops. The JIT backend interprets this way when it has no compiler, or while
  /// its kernels compile (CGRAD_JIT_ASYNC): its GEMMs are then those of its compiled plans, bit
  /// for bit, at their speed. The reference backend (CGRAD_BACKEND=interpreter) keeps the loops.
  explicit Interpreter(bool library_gemm = false) : library_gemm_(library_gemm) {}
  const char* name() const override { return "interpreter"; }
  std::shared_ptr<ir::Storage> allocate(std::size_t nbytes) override;
  runtime::Target target() const override { return {runtime::Target::Kind::Interpreter, "interpreter"}; }
  /// Interprets the Program's graph; plans nothing (returns nullptr).
  std::shared_ptr<runtime::Plan> run(runtime::Program& p) override;
  /// Computes every output of the verified subgraph `g` and stores it with ir::set_realized.
  void run(const runtime::Subgraph& g);

 private:
  bool library_gemm_;
};

// Kernels, split by kind across interp_*.cpp.
ir::View interp_elementwise(const ir::Node& n, const std::vector<const ir::View*>& in);
/// A user element-wise function (issue #23): its parsed body, evaluated per element.
ir::View interp_user(const ir::Node& n, const std::vector<const ir::View*>& in);
ir::View interp_reduce(const ir::Node& n, const ir::View& in);
ir::View interp_scan(const ir::Node& n, const ir::View& in);  // scan group
ir::View interp_matmul(const ir::Node& n, const ir::View& a, const ir::View& b);
/// interp_matmul into `out` when it already holds a contiguous buffer of the result's shape (a
/// memory plan's slot, at its offset), else into a fresh one: the contract of fast_matmul.
void interp_matmul_into(const ir::Node& n, const ir::View& a, const ir::View& b, ir::View& out);
ir::View interp_cat(const ir::Node& n, const std::vector<const ir::View*>& in);
/// Sort / Argsort (group sort): stable row sort along attrs.axis into a contiguous output.
ir::View interp_sort(const ir::Node& n, const ir::View& in);
/// scatter_add (scatter group): a contiguous copy of base with src added at idx along attrs.axis,
/// in increasing order of src's position along the axis for every output element.
ir::View interp_scatter_add(const ir::Node& n, const ir::View& base, const ir::View& src,
                            const ir::View& idx);
ir::View interp_source(const ir::Node& n);
/// A contiguous copy of `v` (shape `shape`, dtype `t`).
ir::View contiguous_copy(const ir::View& v, const Shape& shape, DType t);
/// Copies `v` (shape `shape`, dtype `t`) into `out`, a view of the same shape and any strides that
/// do not overlap (a contiguous buffer, or a part of one); bits unchanged.
void copy_view(const ir::View& v, const Shape& shape, DType t, const ir::View& out);
/// A freshly allocated contiguous view for a node's output.
ir::View alloc_contiguous(const Shape& shape, DType t);

template <class T>
T* ptr(const ir::View& v) {
  return static_cast<T*>(v.storage->data) + v.offset;
}

}  // namespace cgrad::backends::cpu
