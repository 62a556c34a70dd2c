// The frontend of the collectives (docs/distributed.md): the AllReduce node builder, the
// process's rank and size, and spmd(), which turns an exception on one process into an error
// on every process. The communicator itself is installed by the distributed layer (MPI in
// src/dist/mpi); without one this process is alone and an all-reduce is the identity.
#include <cgrad/dist.hpp>

#include "frontend/build.h"
#include "runtime/collective.h"

namespace cgrad::dist {

int rank() {
  runtime::Communicator* c = runtime::communicator();
  return c ? c->rank() : 0;
}

int size() {
  runtime::Communicator* c = runtime::communicator();
  return c ? c->size() : 1;
}

Tensor all_reduce(const Tensor& x, ReduceOp op) {
  const ir::NodePtr& n = frontend::node_of(x, "all_reduce");
  ir::Attrs a;
  a.ivalue = static_cast<int64_t>(op == ReduceOp::Sum   ? ir::Op::Sum
                                  : op == ReduceOp::Max ? ir::Op::Max
                                                        : ir::Op::Min);
  if (n->dtype == DType::b8)
    throw Error(ErrorCode::DTypeMismatch,
                "all_reduce: b8 tensors are not reduced (cast to i32 or f32 first)");
  return Tensor(frontend::make(ir::Op::AllReduce, {n}, a, n->device));
}

void spmd(const std::function<void()>& fn) {
  runtime::Communicator* c = runtime::communicator();
  if (!c) return fn();
  try {
    fn();
  } catch (const std::exception& e) {
    // An error that every process already agreed on (raised by a collective) is not reported
    // again: the others have raised it too.
    if (!runtime::take_agreed_failure()) c->report_failure(e.what());
    throw;
  }
  c->check();
}

Block block_of(int64_t n, int r, int p) {
  const int64_t q = n / p, extra = n % p;
  return {r * q + std::min<int64_t>(r, extra), q + (r < extra ? 1 : 0)};
}

}  // namespace cgrad::dist
