// from_blob() and memory_view() (cgrad/interop.hpp): the C++ side of zero-copy exchange.
// A borrowed storage has no release function of its own; the shared_ptr's deleter runs the
// owner's `release` after the Storage object is gone, so the memory outlives every view of it.
// Storage::borrowed keeps the buffer-reuse rule (runtime/realize.cpp) from writing into it.
#include "frontend/build.h"
#include "runtime/backend.h"

#include <cgrad/interop.hpp>

namespace cgrad {

Tensor from_blob(void* data, Shape shape, std::vector<int64_t> strides, DType dtype, Device device,
                 std::function<void()> release) {
  const int64_t n = core::checked_numel(shape, "from_blob");
  if (strides.size() != shape.size())
    throw Error(ErrorCode::InvalidArgument,
                "from_blob: " + std::to_string(strides.size()) + " strides for shape " + shape_str(shape));
  runtime::check_device(device, "from_blob");
  int64_t last = 0;  // offset of the last element, in elements
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (strides[k] < 0)
      throw Error(ErrorCode::InvalidArgument,
                  "from_blob: negative strides are not supported (dimension " + std::to_string(k) + ")");
    if (shape[k] > 0) last += (shape[k] - 1) * strides[k];
  }
  if (!data && n > 0) throw Error(ErrorCode::InvalidArgument, "from_blob: null data for a non-empty shape");
  auto* raw = new ir::Storage();
  raw->data = data;
  raw->nbytes = n > 0 ? static_cast<std::size_t>(last + 1) * dtype_size(dtype) : 0;
  raw->device = device;
  raw->borrowed = true;
  std::shared_ptr<ir::Storage> storage(raw, [release = std::move(release)](ir::Storage* s) {
    delete s;
    if (release) release();
  });
  ir::View v{std::move(storage), 0, std::move(strides)};
  return Tensor(ir::make_buffer(std::move(shape), dtype, device, std::move(v)));
}

MemoryView memory_view(const Tensor& t) {
  const ir::NodePtr& n = frontend::node_of(t, "memory_view");
  t.eval();
  MemoryView m;
  const ir::View& v = t.node()->value;
  m.shape = n->shape;
  m.strides = v.strides;
  m.dtype = n->dtype;
  m.device = n->device;
  m.data = v.storage && v.storage->data
               ? static_cast<void*>(static_cast<char*>(v.storage->data) +
                                    v.offset * static_cast<int64_t>(dtype_size(n->dtype)))
               : nullptr;
  m.owner = v.storage;
  return m;
}

}  // namespace cgrad
