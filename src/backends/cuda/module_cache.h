// Compiled CUDA kernels, cached in memory and on disk like the CPU JIT's shared objects
// (docs/jit.md): a cubin is keyed by the source, the NVRTC version, the architecture, the
// options and the scalar header's hash (runtime::KernelCache::key over that toolchain string),
// published under <cache>/cuda/<key[0:2]>/<key>.cubin by an atomic rename, with the kernel cache's trailer
// (magic, key, size, checksum) checked before a file is loaded: a torn or foreign file is
// rebuilt, never loaded. Modules are loaded once per device context and kept for the process.
// Cubins count towards the disk bound (CGRAD_CACHE_BYTES) like shared objects: a hit touches the
// file's mtime, a publish records its size (runtime/disk_cache.h).
#pragma once

#include "backends/cuda/device.h"

#include <string>

namespace cgrad::backends::cuda {

/// The cache key's toolchain part for `arch`: NVRTC version, architecture, options, scalar header.
std::string cuda_toolchain_key(const std::string& arch);

/// The function `symbol` of the program `source` on device `d`: memory hit, else disk hit,
/// else NVRTC compile (stats count each). A compile error is remembered for its key.
CUfunction kernel_function(DeviceContext& d, const std::string& source, const std::string& symbol);

}  // namespace cgrad::backends::cuda
