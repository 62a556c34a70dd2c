/// Starting and stopping MPI for cgrad::dist (target cgrad::dist, built only when CMake finds
/// MPI; docs/distributed.md). Launch the program with mpirun; every process calls init() first.
#pragma once

#include <cgrad/dist.hpp>

namespace cgrad::dist {

/// Initializes MPI (unless the program already did) and installs the MPI communicator on a
/// duplicate of MPI_COMM_WORLD, so collectives in cgrad graphs reach the other processes.
void init(int* argc = nullptr, char*** argv = nullptr);
/// Removes the communicator and finalizes MPI when init() initialized it.
void finalize();
/// True between init() and finalize().
bool initialized();

/// init() in the constructor, finalize() in the destructor.
class Session {
 public:
  Session(int* argc = nullptr, char*** argv = nullptr) { init(argc, argv); }
  ~Session() { finalize(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

}  // namespace cgrad::dist
