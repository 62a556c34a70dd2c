/// Basic public types of cgrad: dtypes, shapes, devices, errors and counters.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace cgrad {

/// Element types (one row each in cgrad/dtypes.def). `b8` is a boolean stored in one byte (0 or
/// 1); i8..i64 signed and u8..u64 unsigned integers (two's complement, arithmetic wraps);
/// f16 (IEEE binary16) and bf16 (bfloat16) are storage types computed in f32 inside kernels;
/// c64 and c128 are complex numbers of two f32 / f64 parts (cgrad::complex64_t, complex128_t).
enum class DType {
#define CGRAD_DTYPE(E, Kind, bytes, Host, ctype, Compute) E,
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE
};
#define CGRAD_DTYPE(E, Kind, bytes, Host, ctype, Compute) inline constexpr DType E = DType::E;
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE
/// Number of dtypes.
inline constexpr int kNumDTypes = 0
#define CGRAD_DTYPE(E, Kind, bytes, Host, ctype, Compute) +1
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE
    ;

/// The kind of a dtype: what promotion and casts go by.
enum class DTypeKind { Bool, Signed, Unsigned, Float, Complex };

/// Name of a dtype ("f32", "u8", ...).
const char* dtype_name(DType t);
/// Bytes per element.
std::size_t dtype_size(DType t);
DTypeKind dtype_kind(DType t);
/// True for the floating dtypes.
bool is_floating(DType t);
/// True for the signed and unsigned integer dtypes (not b8).
bool is_integer(DType t);
bool is_unsigned(DType t);
/// True for the complex dtypes c64 and c128.
bool is_complex(DType t);
/// The real dtype of a complex one (c64 -> f32, c128 -> f64); any other dtype itself.
DType real_dtype(DType t);
/// The complex dtype of a floating one (f64 -> c128, f32/f16/bf16 -> c64); a complex one itself.
DType complex_dtype(DType t);

/// Limits of an integer or bool dtype (`iinfo` of the Array API standard): bits, min, max.
/// min and max are exact; u64's max does not fit int64_t, so it is held as uint64_t.
struct IInfo {
  int bits;
  int64_t min;
  uint64_t max;
};
/// Throws DTypeMismatch for a floating dtype.
IInfo iinfo(DType t);
/// Limits of a floating dtype (`finfo`): bits, eps (2^-mantissa bits), max, smallest normal,
/// smallest subnormal, decimal digits. A complex dtype gives its real dtype's (the Array API
/// standard: c64 is f32's, c128 f64's). Throws DTypeMismatch for an integer or bool dtype.
struct FInfo {
  int bits;
  double eps, max, min, smallest_normal, smallest_subnormal;
  int mantissa_bits;  ///< including the implicit bit
};
FInfo finfo(DType t);

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

/// Where cgrad runs and keeps its CPU kernels, as this process resolved it (Python's
/// cgrad.show_config() prints it; docs/env.md has the variables).
struct Config {
  std::string backend;               ///< CGRAD_BACKEND: "jit" or "interpreter"
  std::string compiler;              ///< the CPU kernels' C++ compiler ("" when none works)
  std::string compiler_identity;     ///< its --version and -dumpmachine, as the kernel keys hold them
  std::string kernel_cache_dir;      ///< the on-disk kernel cache (CGRAD_CACHE_DIR or its default)
  std::string prebuilt_kernels_dir;  ///< read after a miss there ("" for none: docs/jit.md)
  int threads = 0;                   ///< the CPU thread pool's threads
};
/// Config of this process (finds the compiler on first use).
Config config();

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
  uint64_t auto_realizes = 0;      ///< realizations triggered by the pending-depth rule
  uint64_t bytes_in_use = 0;       ///< bytes of live tensor storage now (pool caches excluded)
  uint64_t peak_bytes_in_use = 0;  ///< highest bytes_in_use since the last reset_stats()
  uint64_t traces = 0;             ///< compile(fn): calls that ran fn (a first call or a new signature)
  uint64_t result_cache_hits = 0;  ///< evaluations answered by the result cache (nothing launched)
  uint64_t buffers_reused =
      0;  ///< outputs written over an input buffer nothing else could read (docs/plans.md)
  /// kernels of a device's plan that ran on host copies of their inputs (collectives, and GEMMs,
  /// sorts and scatters the device has no kernel for: docs/cuda.md); counted in kernels_launched too
  uint64_t host_kernels = 0;
};
Stats stats();
void reset_stats();

}  // namespace cgrad
