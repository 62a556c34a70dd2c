// The DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html), version 1.0, written out
// from the specification: the structs a capsule named "dltensor" (DLManagedTensor) or
// "dltensor_versioned" (DLManagedTensorVersioned) points to. Only what cgrad reads or writes.
#pragma once

#include <cstdint>

namespace cgrad::py::dl {

enum DeviceType : int32_t { kCPU = 1, kCUDA = 2, kCUDAHost = 3, kCUDAManaged = 13 };
enum TypeCode : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBfloat = 4, kComplex = 5, kBool = 6 };

struct Version {
  uint32_t major, minor;
};
struct Device {
  int32_t device_type, device_id;
};
struct DataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  ///< in elements; null means compact row-major
  uint64_t byte_offset;
};
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor*);
};
inline constexpr uint64_t kFlagReadOnly = 1ULL << 0;
inline constexpr uint64_t kFlagIsCopied = 1ULL << 1;
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned*);
  uint64_t flags;
  Tensor dl_tensor;
};

}  // namespace cgrad::py::dl
