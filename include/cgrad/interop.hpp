/// cgrad/interop.hpp: tensors over memory another library owns, and the memory behind an
/// evaluated tensor. These are the two halves of zero-copy exchange (DLPack in the Python
/// package, docs/python.md); C++ code can use them directly.
#pragma once

#include <cgrad/tensor.hpp>

#include <functional>
#include <memory>

namespace cgrad {

/// A realized tensor over `data`, which cgrad does not own: element (i0, i1, ...) is at
/// `data + sum(i_k * strides[k])` elements (strides >= 0, in elements, not bytes). cgrad never
/// writes into the memory (no evaluation reuses it for an output). `release` runs exactly once,
/// on whichever thread drops the last reference: the last handle, graph node, plan or cache
/// entry that reads it. Until then the owner must keep the memory valid. It may write the
/// values between evaluations: each evaluation reads them afresh (results over borrowed memory
/// are never cached), and tensors evaluated before keep their values. Not during one.
Tensor from_blob(void* data, Shape shape, std::vector<int64_t> strides, DType dtype, Device device,
                 std::function<void()> release);

/// Where the elements of an evaluated tensor are.
struct MemoryView {
  void* data = nullptr;  ///< address of element (0, 0, ...)
  Shape shape;
  std::vector<int64_t> strides;  ///< in elements
  DType dtype = DType::f32;
  Device device;
  /// Keeps the memory alive (and out of reach of buffer reuse) while held.
  std::shared_ptr<const void> owner;
};
/// Evaluates `t` if needed and returns its memory. Writing through the view is not allowed:
/// other handles and cached results may share it.
MemoryView memory_view(const Tensor& t);

}  // namespace cgrad
