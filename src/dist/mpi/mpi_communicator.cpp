// The MPI communicator behind cgrad::dist (target cgrad_dist, built only when CMake finds MPI).
//
// Every collective is two MPI calls: an agreement (one MPI_Allreduce of two ints: did any
// process fail, and the lowest failing rank) and then the data's MPI_Allreduce. A process whose
// program raised an error joins the agreement through report_failure() instead of reaching the
// same collective, so no process waits forever: the failing process broadcasts its message and
// every other process raises it. The C API of MPI is used (the C++ bindings are gone from MPI-3).
#include <cgrad/dist/mpi.hpp>

#include "runtime/collective.h"

#include <cgrad/scalar.hpp>

#include <mpi.h>

#include <climits>
#include <memory>
#include <string>
#include <vector>

namespace cgrad::dist {

namespace {

bool we_initialized = false;

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw Error(ErrorCode::ExecutionFailed,
              std::string("MPI: ") + what + ": " + std::string(msg, static_cast<std::size_t>(len)));
}

// The MPI datatype of a dtype's elements. f16 and bf16 have none that MPI reduces (MPI 4.1 has
// no 16-bit float arithmetic): all_reduce widens them to f32 first (below).
MPI_Datatype mpi_type(DType t) {
  switch (t) {
    case DType::f32:
    case DType::f16:
    case DType::bf16: return MPI_FLOAT;
    case DType::f64: return MPI_DOUBLE;
    case DType::i8: return MPI_INT8_T;
    case DType::i16: return MPI_INT16_T;
    case DType::i32: return MPI_INT32_T;
    case DType::i64: return MPI_INT64_T;
    case DType::u8: return MPI_UINT8_T;
    case DType::u16: return MPI_UINT16_T;
    case DType::u32: return MPI_UINT32_T;
    case DType::u64: return MPI_UINT64_T;
    case DType::b8:
    case DType::c64:  // complex group: the AllReduce row takes no complex (never reached)
    case DType::c128: break;
  }
  throw Error(ErrorCode::DTypeMismatch,
              std::string("all_reduce: ") + dtype_name(t) + " is not reduced over MPI");
}

// f16 / bf16 all-reduce: the elements widened to f32 (exact), reduced in f32 by MPI, rounded
// back once (to nearest even), as a fused kernel computes these dtypes in f32.
template <class H>
void all_reduce_16(void* data, int count, MPI_Op op, MPI_Comm comm) {
  H* p = static_cast<H*>(data);
  std::vector<float> wide(p, p + count);
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, wide.data(), count, MPI_FLOAT, op, comm), "MPI_Allreduce");
  for (int k = 0; k < count; ++k) p[k] = H(wide[static_cast<std::size_t>(k)]);
}

MPI_Op mpi_op(ir::Op op) {
  switch (op) {
    case ir::Op::Sum: return MPI_SUM;
    case ir::Op::Max: return MPI_MAX;
    case ir::Op::Min: return MPI_MIN;
    default: break;
  }
  throw Error(ErrorCode::Internal, std::string("all_reduce: no MPI reduction for ") + ir::op_name(op));
}

class MpiCommunicator final : public runtime::Communicator {
 public:
  MpiCommunicator() {
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiCommunicator() override { MPI_Comm_free(&comm_); }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void all_reduce(void* data, std::size_t count, DType dtype, ir::Op op) override {
    agree(nullptr);
    if (size_ == 1 || count == 0) return;
    if (count > static_cast<std::size_t>(INT_MAX))
      throw Error(ErrorCode::InvalidArgument, "all_reduce: more than INT_MAX elements in one collective");
    const int n = static_cast<int>(count);
    if (dtype == DType::f16) return all_reduce_16<float16_t>(data, n, mpi_op(op), comm_);
    if (dtype == DType::bf16) return all_reduce_16<bfloat16_t>(data, n, mpi_op(op), comm_);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, data, n, mpi_type(dtype), mpi_op(op), comm_), "MPI_Allreduce");
  }
  void report_failure(const std::string& what) override { agree(&what); }
  void check() override { agree(nullptr); }

 private:
  // {0 if this process failed else 1, this rank if it failed else INT_MAX}, reduced with MIN:
  // any failure shows as 0, with the lowest failing rank, which then broadcasts its message.
  void agree(const std::string* failure) {
    int mine[2] = {failure ? 0 : 1, failure ? rank_ : INT_MAX};
    int all[2] = {1, INT_MAX};
    check_mpi(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce (error agreement)");
    if (all[0] == 1) return;
    const int root = all[1];
    std::string msg = rank_ == root && failure ? *failure : std::string();
    int len = static_cast<int>(msg.size());
    check_mpi(MPI_Bcast(&len, 1, MPI_INT, root, comm_), "MPI_Bcast");
    msg.resize(static_cast<std::size_t>(len));
    check_mpi(MPI_Bcast(msg.data(), len, MPI_CHAR, root, comm_), "MPI_Bcast");
    if (failure) return;  // the caller raises its own error
    runtime::mark_agreed_failure();
    throw Error(ErrorCode::ExecutionFailed,
                "process " + std::to_string(root) + " of " + std::to_string(size_) + " failed: " + msg);
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
};

}  // namespace

void init(int* argc, char*** argv) {
  if (initialized()) return;
  int flag = 0;
  MPI_Initialized(&flag);
  if (!flag) {
    // Only the thread that calls init() makes MPI calls (cgrad's realize runs collectives on
    // the calling thread), so FUNNELED is enough.
    int provided = 0;
    check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    we_initialized = true;
  }
  runtime::set_communicator(std::make_shared<MpiCommunicator>());
}

void finalize() {
  if (!initialized()) return;
  runtime::set_communicator(nullptr);
  if (we_initialized) {
    MPI_Finalize();
    we_initialized = false;
  }
}

bool initialized() { return runtime::communicator() != nullptr; }

}  // namespace cgrad::dist
