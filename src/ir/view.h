// Movement ops as strides over a storage (no data is touched).
#pragma once

#include "ir/node.h"

namespace cgrad::ir {

/// The layout of movement node `n` over its input's layout `in` (shape `in_shape`); `out` gets no
/// storage. False when no strides express it (a reshape of an incompatible strided layout).
bool movement_view(const Node& n, const Shape& in_shape, const View& in, View& out);

}  // namespace cgrad::ir
