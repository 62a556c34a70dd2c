/// Basic public types of cgrad: dtypes, shapes, devices, errors and counters.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace cgrad {

/// Element types. `b8` is a boolean stored in one byte (0 or 1).
enum class DType { f32, f64, i32, i64, b8 };
inline constexpr DType f32 = DType::f32;
inline constexpr DType f64 = DType::f64;
inline constexpr DType i32 = DType::i32;
inline constexpr DType i64 = DType::i64;
inline constexpr DType b8 = DType::b8;

/// Name of a dtype ("f32", ...).
const char* dtype_name(DType t);
/// Bytes per element.
std::size_t dtype_size(DType t);
/// True for f32 and f64.
bool is_floating(DType t);

using Shape = std::vector<int64_t>;
/// "(2, 3)" style rendering used in error messages.
std::string shape_str(const Shape& s);

/// Where a tensor lives.
struct Device {
  enum class Kind { cpu, cuda };
  Kind kind = Kind::cpu;
  int index = 0;
  static Device cpu() { return {}; }
  static Device cuda(int index = 0) { return {Kind::cuda, index}; }
  bool is_cuda() const { return kind == Kind::cuda; }
  bool operator==(const Device&) const = default;
  std::string str() const;
};

/// True when a CUDA driver and at least one GPU are present; never throws or crashes.
bool cuda_available();

enum class ErrorCode {
  ShapeMismatch,
  InvalidArgument,
  InvalidOperation,
  DTypeMismatch,
  DeviceError,
  OutOfMemory,
  CompileError,
  ExecutionFailed,
  Internal
};
const char* error_code_name(ErrorCode c);

/// Every error cgrad reports. Bad input is reported when the op is built, and leaves every
/// existing tensor as it was.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

/// Process-wide counters. A "kernel" is one launch of one generated or library routine.
struct Stats {
  uint64_t kernels_launched = 0;
  uint64_t kernels_compiled = 0;
  uint64_t kernel_cache_hits = 0;
  uint64_t disk_cache_hits = 0;
  uint64_t plans_built = 0;
  uint64_t plan_cache_hits = 0;
  uint64_t bytes_allocated = 0;
  uint64_t auto_realizes = 0;  ///< realizations triggered by the pending-depth rule
  uint64_t bytes_in_use = 0;   ///< bytes of live tensor storage now (pool caches excluded)
  uint64_t peak_bytes_in_use = 0;  ///< highest bytes_in_use since the last reset_stats()
  uint64_t traces = 0;             ///< compile(fn): calls that ran fn (a first call or a new signature)
  uint64_t result_cache_hits = 0;  ///< evaluations answered by the result cache (nothing launched)
  uint64_t buffers_reused = 0;     ///< outputs written over an input buffer nothing else could read (docs/plans.md)
};
Stats stats();
void reset_stats();

}  // namespace cgrad
