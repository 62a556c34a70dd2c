// Movement ops as strides: the one place that says how a view's layout follows from its input's.
#include "ir/view.h"

namespace cgrad::ir {

bool movement_view(const Node& n, const Shape& in_shape, const View& in, View& out) {
  out = in;
  out.storage = nullptr;
  switch (n.op) {
    case Op::Reshape: {
      // contiguous (the common case: kernel outputs) or a compatible strided layout
      if (core::is_contiguous(in_shape, in.strides)) {
        out.strides = core::contiguous_strides(n.shape);
        return true;
      }
      return core::reshape_view_strides(in_shape, in.strides, n.shape, out.strides);
    }
    case Op::Permute:
      for (std::size_t i = 0; i < n.attrs.axes.size(); ++i)
        out.strides[i] = in.strides[static_cast<std::size_t>(n.attrs.axes[i])];
      return true;
    case Op::Expand:
      for (std::size_t i = 0; i < n.shape.size(); ++i)
        if (in_shape[i] != n.shape[i]) out.strides[i] = 0;
      return true;
    case Op::Slice: {
      auto ax = static_cast<std::size_t>(n.attrs.axis);
      if (n.shape[ax] > 0) out.offset += n.attrs.start * in.strides[ax];
      out.strides[ax] = in.strides[ax] * n.attrs.step;
      return true;
    }
    case Op::Flip:  // start at the last element of each flipped dim and walk back
      for (int64_t a : n.attrs.axes) {
        const auto ax = static_cast<std::size_t>(a);
        if (n.shape[ax] > 0) out.offset += (n.shape[ax] - 1) * in.strides[ax];
        out.strides[ax] = -in.strides[ax];
      }
      return true;
    default: return false;
  }
}

}  // namespace cgrad::ir
