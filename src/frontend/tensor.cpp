// Tensor handle: queries, evaluation, host reads, assign and compound assignment.
#include "backends/registry.h"
#include "core/pool.hpp"
#include "core/strided.hpp"
#include "frontend/build.h"
#include "frontend/trace.h"
#include "runtime/backend.h"
#include "runtime/realize.h"

#include <cgrad/scalar.hpp>

#include <cstring>

namespace cgrad {

namespace frontend {

// The frontend is the layer that knows both the runtime and the backends, so it connects them:
// the runtime reaches a device's backend only through the table installed here.
void install_devices() {
  static const bool installed = (runtime::install_devices(backends::devices()), true);
  (void)installed;
}

namespace {
[[maybe_unused]] const bool kDevicesInstalled = (install_devices(), true);
}  // namespace

}  // namespace frontend

using frontend::node_of;

Tensor::Tensor() = default;
Tensor::Tensor(std::shared_ptr<ir::Node> node)
    : var_(std::allocate_shared<detail::Var>(core::PoolAllocator<detail::Var>{})) {
  var_->node = std::move(node);
}

bool Tensor::defined() const { return var_ && var_->node; }
const std::shared_ptr<ir::Node>& Tensor::node() const {
  if (!defined()) throw Error(ErrorCode::InvalidArgument, "tensor is undefined (default-constructed)");
  return var_->node;
}
const Shape& Tensor::shape() const { return node()->shape; }
DType Tensor::dtype() const { return node()->dtype; }
Device Tensor::device() const { return node()->device; }
int64_t Tensor::numel() const { return node()->numel(); }
int64_t Tensor::ndim() const { return static_cast<int64_t>(node()->shape.size()); }
bool Tensor::is_evaluated() const { return node()->realized(); }

Tensor& Tensor::eval() {
  runtime::realize({node_of(*this, "eval")});
  return *this;
}
const Tensor& Tensor::eval() const {
  runtime::realize({node_of(*this, "eval")});
  return *this;
}

void eval(const std::vector<Tensor>& outputs) {
  std::vector<ir::NodePtr> nodes;
  for (const Tensor& t : outputs) nodes.push_back(node_of(t, "eval"));
  runtime::realize(nodes);
}

void Tensor::read_into(void* dst, DType as, std::size_t count) const {
  const ir::NodePtr& n = node_of(*this, "to_vector");
  if (count != static_cast<std::size_t>(n->numel()))
    throw Error(ErrorCode::Internal, "to_vector: destination size mismatch");
  if (is_complex(n->dtype) && !is_complex(as))
    throw Error(ErrorCode::DTypeMismatch,
                std::string("to_vector: a ") + dtype_name(n->dtype) +
                    " tensor reads into complex elements only (real(x), imag(x) first)");
  runtime::realize({n});
  // A device value comes over contiguous; the host waits here, and only here, for the device.
  const ir::View v = n->value.storage->device.is_cuda() ? runtime::transfer(*n, Device::cpu()) : n->value;
  core::Strides out_st = core::contiguous_strides(n->shape);
  if (as == n->dtype && v.strides == out_st) {  // the elements as they lie: one copy
    if (count)
      std::memcpy(dst, static_cast<const char*>(v.storage->data) + v.offset * dtype_size(as),
                  count * dtype_size(as));
    return;
  }
  core::dispatch(n->dtype, [&](auto tin) {
    using TI = decltype(tin);
    core::dispatch(as, [&](auto tout) {
      using TO = decltype(tout);
      const TI* x = static_cast<const TI*>(v.storage->data);
      TO* o = static_cast<TO*>(dst);
      std::array<const int64_t*, 2> st{v.strides.data(), out_st.data()};
      core::for_each_strided<2>(n->shape, st, {v.offset, 0},
                                [&](int64_t i, int64_t k) { o[k] = scalar::cast<TO>(x[i]); });
    });
  });
}

void Tensor::read_item(void* dst, DType as) const {
  const ir::NodePtr& n = node_of(*this, "item");
  if (n->numel() != 1)
    throw Error(ErrorCode::InvalidArgument, "item: tensor of shape " + shape_str(n->shape) + " has " +
                                                std::to_string(n->numel()) + " elements, not 1");
  read_into(dst, as, 1);
}

Tensor Tensor::to(Device device) const {
  const ir::NodePtr& n = node_of(*this, "to");
  if (n->device == device) return *this;
  frontend::install_devices();
  runtime::check_device(device, "to");
  runtime::check_device(n->device, "to");
  runtime::realize({n});
  Tensor moved(ir::make_buffer(n->shape, n->dtype, device, runtime::transfer(*n, device)));
  frontend::attach_composite(moved, ir::Composite::ToDevice, {n}, {});  // gradients flow back
  return moved;
}

Tensor Tensor::clone() const {
  const ir::NodePtr& n = node_of(*this, "clone");
  frontend::install_devices();
  runtime::realize({n});
  Tensor copy(ir::make_buffer(n->shape, n->dtype, n->device, runtime::duplicate(*n)));
  frontend::attach_composite(copy, ir::Composite::ToDevice, {n}, {});  // gradients flow back
  return copy;
}

Tensor Tensor::cast(DType dtype) const {
  const ir::NodePtr& n = node_of(*this, "cast");
  // complex group: complex -> real would drop the imaginary part silently (the Array API standard
  // leaves it to the library; cgrad refuses it: real(), imag() or abs() say which part is meant).
  if (is_complex(n->dtype) && !is_complex(dtype) && dtype != DType::b8)
    throw Error(ErrorCode::DTypeMismatch,
                std::string("cast: ") + dtype_name(n->dtype) + " to " + dtype_name(dtype) +
                    " would drop the imaginary part; use real(x), imag(x) or abs(x)");
  return Tensor(frontend::cast_to(n, dtype));
}

Tensor& Tensor::assign(const Tensor& expr) {
  const ir::NodePtr& self = node_of(*this, "assign");
  const ir::NodePtr& e = node_of(expr, "assign");
  if (self->shape != e->shape)
    throw Error(ErrorCode::ShapeMismatch, "assign: target has shape " + shape_str(self->shape) +
                                              ", value has shape " + shape_str(e->shape));
  if (self->dtype != e->dtype)
    throw Error(ErrorCode::DTypeMismatch, std::string("assign: target has dtype ") + dtype_name(self->dtype) +
                                              ", value has dtype " + dtype_name(e->dtype) +
                                              " (cast it first)");
  if (self->device != e->device)
    throw Error(ErrorCode::DeviceError,
                "assign: target is on " + self->device.str() + ", value on " + e->device.str());
  if (frontend::TraceLog* log = frontend::active_trace()) frontend::note_assign(*log, *this);
  ir::NodePtr keep = e;  // `expr` may be a copy of *this: take the node before rebinding
  var_->node = std::move(keep);
  if (var_->requires_grad) frontend::make_leaf(var_);  // the new value is the leaf from now on
  return *this;
}

Tensor& Tensor::operator+=(const Tensor& o) { return *this = *this + o; }
Tensor& Tensor::operator-=(const Tensor& o) { return *this = *this - o; }
Tensor& Tensor::operator*=(const Tensor& o) { return *this = *this * o; }
Tensor& Tensor::operator/=(const Tensor& o) { return *this = *this / o; }
Tensor& Tensor::operator+=(Scalar o) { return *this = *this + o; }
Tensor& Tensor::operator-=(Scalar o) { return *this = *this - o; }
Tensor& Tensor::operator*=(Scalar o) { return *this = *this * o; }
Tensor& Tensor::operator/=(Scalar o) { return *this = *this / o; }

}  // namespace cgrad
