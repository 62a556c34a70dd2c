// The caching device allocator. Freed blocks go back to a per-device pool, not to the driver
// (cuMemAlloc/cuMemFree synchronize the device and cost tens of microseconds), and are handed
// out again by size class. All of cgrad's work on a device is on its one stream, so a block
// freed while a queued kernel still reads it can be reused at once: the next user's work is
// queued behind that kernel. When cuMemAlloc runs out of memory the pools are emptied and the
// allocation retried once; then OutOfMemory is raised.
#pragma once

#include "ir/node.h"

#include <cstddef>
#include <memory>

namespace cgrad::backends::cuda {

/// `nbytes` of device memory on CUDA device `device` (counted in stats().bytes_allocated).
std::shared_ptr<ir::Storage> allocate_device(int device, std::size_t nbytes);
/// Bytes of freed blocks kept for reuse on all devices.
std::size_t device_pool_cached_bytes();
/// Returns every cached block to the driver.
void device_pool_trim();

}  // namespace cgrad::backends::cuda
