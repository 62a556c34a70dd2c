// The device interface every backend implements, and the table of them the runtime is given.
// realize() lowers the unrealized subgraph of the requested outputs for the backend's target
// (runtime/lower.h: passes, verify, schedule, target lowering, render, memory plan) and hands the
// Program to the backend, which only compiles and launches it. The runtime never names a backend:
// the backends layer implements Devices (backends/registry.cpp) and the frontend installs it.
#pragma once

#include "ir/graph.h"
#include "runtime/lower.h"
#include "runtime/plan_cache.h"

#include <memory>
#include <vector>

namespace cgrad::runtime {

/// What realize() asks a backend to compute (see ir/graph.h).
using Subgraph = ir::Subgraph;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  /// Allocates `nbytes` of device memory (counted in stats().bytes_allocated).
  virtual std::shared_ptr<ir::Storage> allocate(std::size_t nbytes) = 0;
  /// What lower() must produce for this backend (may change at run time: the CPU JIT without a
  /// compiler asks for the interpreter's).
  virtual Target target() const = 0;
  /// Compiles and launches `p` (lower()'s Program for a target() of this backend) and makes
  /// every root a realized node. Returns a plan replay() can run again on other leaves of the
  /// same layout, or nullptr (not replayable, or run by the interpreter). May move from `p`.
  virtual std::shared_ptr<Plan> run(Program& p) = 0;
  /// Runs a plan this backend built: no passes, scheduling or codegen.
  virtual void replay(const Plan& plan, const std::vector<const ir::Node*>& leaves,
                      const std::vector<ir::Node*>& roots) {
    (void)plan;
    (void)leaves;
    (void)roots;
    throw Error(ErrorCode::Internal, std::string(name()) + ": replay of a plan it did not build");
  }
};

/// During realize(): per leaf (plan-key order), whether nothing but the graph being realized can
/// read the leaf's buffer after this evaluation: no handle, gradient record or other view holds
/// the leaf node or its storage, and no unrealized node of the graph is held from outside (which
/// could be evaluated later). A backend may then write an output over that buffer
/// (schedule::MemoryPlan::reuse). Empty outside realize() and in compile(fn)'s traced runs.
const std::vector<char>& free_leaves();

/// The backend of every device and the copies between devices: implemented by the backends layer
/// (backends/registry.cpp), installed by the frontend (install_devices) before any tensor is
/// built, so realize() reaches a backend through this table and never up to the layer above.
class Devices {
 public:
  virtual ~Devices() = default;
  /// The backend that executes work for `device`; throws DeviceError when there is none.
  virtual Backend& backend_for(Device device) = 0;
  /// Throws DeviceError naming `what` unless `device` can hold tensors.
  virtual void check(Device device, const std::string& what) = 0;
  /// A contiguous copy of the realized value of `n` on `to`.
  virtual ir::View transfer(const ir::Node& n, Device to) = 0;
  /// A contiguous copy of the realized value of `n` in new memory on its own device.
  virtual ir::View duplicate(const ir::Node& n) = 0;
};
/// Makes `d` the table the functions below use (the last call wins; `d` must outlive its use).
void install_devices(Devices& d);

/// The backend that executes work for `device`; throws DeviceError when there is none.
Backend& backend_for(Device device);
/// Throws DeviceError naming `what` unless `device` can hold tensors (a CUDA device needs the
/// driver, cuInit and that device: docs/devices.md).
void check_device(Device device, const std::string& what);
/// A contiguous copy of the realized value of `n` on `to` (host <-> CUDA device, or between
/// devices). Reading a device value on the host waits for the work that computes it.
ir::View transfer(const ir::Node& n, Device to);
/// A contiguous copy of the realized value of `n` in new memory on its own device (Tensor::clone).
ir::View duplicate(const ir::Node& n);
/// The value of the realized CPU leaf `n` on CUDA device `to`, copied once: later calls for the
/// same storage and layout return the same copy while the CPU storage lives (docs/devices.md).
ir::NodePtr cached_copy(const ir::NodePtr& n, Device to);

/// Host memory, 64-byte aligned, from a caching pool (shared by the CPU backends).
std::shared_ptr<ir::Storage> allocate_host(std::size_t nbytes);
/// Bytes of freed host blocks the pool keeps for reuse; host_pool_trim() returns them.
std::size_t host_pool_cached_bytes();
void host_pool_trim();

/// Fresh host blocks faulted in ahead of their first use. A plan's first run writes buffers the
/// pool has never handed out, and a first touch costs a page fault per 4 KiB (a 64 MiB output:
/// 20-30 ms of CPU on the 2-vCPU VM, several times the run's arithmetic). While the plan's kernels
/// compile (another process), start() takes blocks of the sizes the run will take from the pool
/// and touches their pages on a thread of its own; the destructor stops that thread, joins it and
/// gives the blocks back to the pool, where the run finds them (touched or not: the thread stops
/// where the compile ends). Blocks under 1 MiB are left out, and so is what would exceed half the
/// pool's limit (CGRAD_POOL_BYTES). Values never change: the run overwrites what it takes.
class HostPrefault {
 public:
  explicit HostPrefault(const std::vector<std::size_t>& nbytes);
  ~HostPrefault();
  HostPrefault(const HostPrefault&) = delete;
  HostPrefault& operator=(const HostPrefault&) = delete;
  /// Takes the blocks and starts the touching thread; later calls, from any thread, do nothing.
  void start();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cgrad::runtime
