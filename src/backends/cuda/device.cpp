// Device contexts and streams (see device.h).
#include "backends/cuda/device.h"

#include "core/env.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace cgrad::backends::cuda {

void DeviceContext::make_current() const { check(driver()->cuCtxSetCurrent(ctx), "cuCtxSetCurrent"); }

void DeviceContext::synchronize() const {
  make_current();
  check(driver()->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

DeviceContext& device_context(int index) {
  static std::mutex mutex;
  static auto* contexts = new std::vector<std::unique_ptr<DeviceContext>>();  // never destroyed
  require_device(Device::cuda(index), "cuda");
  std::lock_guard<std::mutex> lock(mutex);
  if (contexts->size() <= static_cast<std::size_t>(index))
    contexts->resize(static_cast<std::size_t>(index) + 1);
  auto& slot = (*contexts)[static_cast<std::size_t>(index)];
  if (slot) return *slot;
  const Driver* d = driver();
  auto c = std::make_unique<DeviceContext>();
  c->index = index;
  check(d->cuDeviceGet(&c->dev, index), "cuDeviceGet");
  check(d->cuDeviceGetAttribute(&c->cc_major, kAttrComputeCapabilityMajor, c->dev), "cuDeviceGetAttribute");
  check(d->cuDeviceGetAttribute(&c->cc_minor, kAttrComputeCapabilityMinor, c->dev), "cuDeviceGetAttribute");
  check(d->cuDeviceGetAttribute(&c->sm_count, kAttrMultiprocessorCount, c->dev), "cuDeviceGetAttribute");
  char name[256] = {};
  check(d->cuDeviceGetName(name, sizeof name - 1, c->dev), "cuDeviceGetName");
  c->name = name;
  check(d->cuDevicePrimaryCtxRetain(&c->ctx, c->dev), "cuDevicePrimaryCtxRetain");
  check(d->cuCtxSetCurrent(c->ctx), "cuCtxSetCurrent");
  check(d->cuStreamCreate(&c->stream, kStreamNonBlocking), "cuStreamCreate");
  slot = std::move(c);
  return *slot;
}

cublasHandle_t blas_handle(DeviceContext& d) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (d.blas) return d.blas;
  const Cublas* b = cublas();
  if (!b)
    throw Error(ErrorCode::DeviceError, "matmul on " + Device::cuda(d.index).str() + ": " + cublas_status());
  d.make_current();
  cublasHandle_t h = nullptr;
  if (b->cublasCreate(&h) != 0)
    throw Error(ErrorCode::DeviceError, "cublasCreate failed on " + Device::cuda(d.index).str());
  if (b->cublasSetStream(h, d.stream) != 0) throw Error(ErrorCode::DeviceError, "cublasSetStream failed");
  // Full f32 precision unless the user opts in to TF32 tensor cores (about 10 mantissa bits).
  b->cublasSetMathMode(h, core::env().cuda_tf32 ? kCublasTf32TensorOpMath : kCublasDefaultMath);
  d.blas = h;
  return h;
}

}  // namespace cgrad::backends::cuda
