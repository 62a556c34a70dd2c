// Helpers shared by the files of the distributed layer (src/dist): axis checks, the local shape
// of a block, and the error raised when an op would cross the sharded axis.
#pragma once

#include <cgrad/dist.hpp>

#include <string>

namespace cgrad::dist::detail {

int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op);
/// "replicated" or "sharded along axis A (size N over P processes)".
std::string sharding_str(const DTensor& x);
/// InvalidOperation: `op` (`detail` says how) would move data across x's sharded axis.
[[noreturn]] void crosses_axis(const DTensor& x, const char* op, const std::string& detail);
/// This process's block shape of `global` sharded along `axis` (-1: `global`).
Shape local_shape(const Shape& global, int64_t axis);

}  // namespace cgrad::dist::detail
