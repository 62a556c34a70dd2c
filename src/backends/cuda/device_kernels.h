// Device kernels of the library rows that are not loop kernels (devkern group, issue #15):
// sort/argsort as a stable radix sort per row, or ranks for short rows (templates/cuda_sort.inc), scatter_add
// as a thread per line of src adding in the interpreter's order (templates/cuda_scatter.inc). Each routine
// fills in the launches of one row kernel; cuda_backend.cpp queues them on the stream (or records them into a
// CUDA graph) like its generated kernels. The scratch they need is handed back so that it stays alive until
// the launches are queued (the allocator's stream rule, docs/devices.md).
#pragma once

#include "backends/cuda/device.h"
#include "ir/node.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cgrad::backends::cuda {

/// Threads per block of every launch, generated kernels and row kernels alike (cuda_sort.inc ranks
/// rows of at most this many elements without scratch).
inline constexpr unsigned kBlock = 256;

/// One launch of a kernel taking its arguments as one by-value struct of 8-byte words.
struct DeviceLaunch {
  CUfunction fn = nullptr;
  unsigned blocks = 1;
  std::vector<uint64_t> words;
};

/// The CUDA source of row kernel `name` ("sort" or "scatter": templates/cuda_<name>.inc) for
/// elements of dtype t (the prelude and the template, types filled in); its entry points are
/// cg_<name>_<dtype> (sort) or cg_scatter_<dtype>_copy and _add. Compiled by NVRTC on first use.
std::string row_kernel_source(const std::string& name, DType t);

/// The launches of sort/argsort node `n` reading `in` (any strides) into `out` (contiguous; allocated
/// when it has no storage); false (nothing done) when the row stays on the host: complex
/// elements, or more than 17 dims.
bool sort_launches(DeviceContext& d, const ir::Node& n, const ir::View& in, ir::View& out,
                   std::vector<std::shared_ptr<ir::Storage>>& scratch, std::vector<DeviceLaunch>& launches);

/// The launches of scatter_add node `n` (base, src, indices: any strides) into `out` (as for
/// sort): a copy of base, then a thread per line of src adding in increasing position; false when
/// it stays on the host (more than 16 dims, or a dtype the row does not compute).
bool scatter_launches(DeviceContext& d, const ir::Node& n, const ir::View& base, const ir::View& src,
                      const ir::View& idx, ir::View& out, std::vector<DeviceLaunch>& launches);

}  // namespace cgrad::backends::cuda
