// The communicator behind the AllReduce node: a small interface that the distributed layer
// (src/dist, MPI in src/dist/mpi) installs, so the backends that run an AllReduce kernel never
// depend on MPI. With none installed the process is alone and an all-reduce is the identity.
// Kept small on purpose (rank, size, one in-place all-reduce) so that another transport (NCCL
// for device buffers) can sit beside the MPI one later.
#pragma once

#include <cgrad/core.hpp>

#include "ir/op.h"

#include <cstddef>
#include <memory>
#include <string>

namespace cgrad::runtime {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Reduces `count` elements of `dtype` at `data` over every process, in place. `op` is
  /// ir::Op::Sum, Max or Min. Every process calls it in the same order (SPMD). Throws
  /// cgrad::Error on every process when any process reported a failure (see agree()).
  virtual void all_reduce(void* data, std::size_t count, DType dtype, ir::Op op) = 0;
  /// Error agreement (docs/distributed.md, "Errors"): every collective first agrees that no
  /// process failed. A process that failed calls report_failure(what) instead of its next
  /// collective and then raises its own error; the others raise "process R failed: what" from
  /// the collective they were in. check() is an agreement with no data (end of dist::spmd).
  virtual void report_failure(const std::string& what) = 0;
  virtual void check() = 0;
};

/// Set by a communicator just before it raises an error that every process already agreed on,
/// so that dist::spmd() does not report it again; take_agreed_failure() reads and clears it.
void mark_agreed_failure();
bool take_agreed_failure();

/// The communicator of this process (null: one process, all-reduce is the identity).
Communicator* communicator();
/// Installs `c` (null removes it). Not thread-safe against running plans: call at start-up.
void set_communicator(std::shared_ptr<Communicator> c);

}  // namespace cgrad::runtime
