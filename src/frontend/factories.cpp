// Factories: tensors from host data, constants, ranges and counter-based random tensors.
#include "frontend/build.h"
#include "frontend/trace.h"
#include "runtime/backend.h"

#include <cgrad/scalar.hpp>

#include <atomic>
#include <cstring>

namespace cgrad {

using frontend::make;
using ir::Op;

namespace {

// The global stream (manual_seed, rand and randn without a Generator): constant-initialized.
constinit Generator g_rng{0x5eedULL};

void check_device(Device d, const char* op) {
  frontend::install_devices();
  runtime::check_device(d, op);
}

template <class T>
Tensor from_host(const T* data, std::size_t count, const Shape& shape, DType t, Device device) {
  int64_t n = core::checked_numel(shape, "tensor");
  if (static_cast<std::size_t>(n) != count)
    throw Error(ErrorCode::ShapeMismatch, "tensor: " + std::to_string(count) + " values do not fill shape " +
                                              shape_str(shape) + " (" + std::to_string(n) + " elements)");
  check_device(device, "tensor");
  ir::View v;
  v.storage = runtime::allocate_host(count * sizeof(T));
  if (count) std::memcpy(v.storage->data, data, count * sizeof(T));
  v.strides = core::contiguous_strides(shape);
  Tensor host(ir::make_buffer(shape, t, Device::cpu(), std::move(v)));
  return device.is_cuda() ? host.to(device) : host;
}

ir::Attrs source_attrs(const Shape& shape, DType t, const char* op) {
  core::checked_numel(shape, op);
  ir::Attrs a;
  a.shape = shape;
  a.dtype = t;
  return a;
}

Tensor random(Op op, const Shape& shape, DType t, Device device, Generator& gen, const char* name) {
  if (!is_floating(t))
    throw Error(ErrorCode::DTypeMismatch,
                std::string(name) + ": dtype must be f32 or f64, got " + dtype_name(t));
  check_device(device, name);
  ir::Attrs a = source_attrs(shape, t, name);
  a.seed = gen.next_seed();
  // compile(fn): fresh numbers at every call, as eager code draws (torch.compile does too); a
  // replay would repeat this seed, so the signature runs eagerly
  if (frontend::TraceLog* log = frontend::active_trace()) log->side_effect = "draws random numbers";
  return Tensor(make(op, {}, a, device));
}

// full, zeros and ones; errors name the factory the user called.
Tensor constant(const Shape& shape, double value, DType dtype, Device device, const char* name) {
  core::checked_numel(shape, name);
  check_device(device, name);
  return Tensor(frontend::full_node(shape, Scalar(value), dtype, device));
}

}  // namespace

Tensor tensor(std::vector<float> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::f32, dev);
}
Tensor tensor(std::vector<double> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::f64, dev);
}
Tensor tensor(std::vector<int32_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::i32, dev);
}
Tensor tensor(std::vector<int64_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::i64, dev);
}
Tensor tensor(std::vector<int8_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::i8, dev);
}
Tensor tensor(std::vector<int16_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::i16, dev);
}
Tensor tensor(std::vector<uint8_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::u8, dev);
}
Tensor tensor(std::vector<uint16_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::u16, dev);
}
Tensor tensor(std::vector<uint32_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::u32, dev);
}
Tensor tensor(std::vector<uint64_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::u64, dev);
}
Tensor tensor(std::vector<float16_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::f16, dev);
}
Tensor tensor(std::vector<bfloat16_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::bf16, dev);
}
Tensor tensor(std::vector<bool> d, Shape s, Device dev) {
  std::vector<uint8_t> bytes(d.begin(), d.end());
  return from_host(bytes.data(), bytes.size(), s, DType::b8, dev);
}

// complex group
Tensor tensor(std::vector<complex64_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::c64, dev);
}
Tensor tensor(std::vector<complex128_t> d, Shape s, Device dev) {
  return from_host(d.data(), d.size(), s, DType::c128, dev);
}
Tensor complex(const Tensor& re, const Tensor& im) { return frontend::elementwise(Op::Complex, {re, im}); }

Tensor full(Shape shape, double value, DType dtype, Device device) {
  return constant(shape, value, dtype, device, "full");
}
Tensor zeros(Shape shape, DType dtype, Device device) { return constant(shape, 0.0, dtype, device, "zeros"); }
Tensor ones(Shape shape, DType dtype, Device device) { return constant(shape, 1.0, dtype, device, "ones"); }

Tensor arange(int64_t n, DType dtype, Device device) {
  if (n < 0) throw Error(ErrorCode::InvalidArgument, "arange: n must be >= 0, got " + std::to_string(n));
  if (dtype == DType::b8) throw Error(ErrorCode::DTypeMismatch, "arange: dtype b8 is not supported");
  check_device(device, "arange");
  return Tensor(make(Op::Arange, {}, source_attrs({n}, dtype, "arange"), device));
}

Generator& Generator::operator=(const Generator& o) noexcept {
  set_state(o.seed(), o.counter());
  return *this;
}
void Generator::manual_seed(uint64_t s) noexcept { set_state(s, 0); }
void Generator::set_state(uint64_t seed, uint64_t counter) noexcept {
  seed_.store(seed);
  counter_.store(counter);
}
// The one derivation of a draw's seed, for the global stream and every Generator.
uint64_t Generator::next_seed() noexcept {
  return scalar::mix64(seed_.load() ^ scalar::mix64(counter_.fetch_add(1)));
}

Tensor rand(Shape shape, DType dtype, Device device) {
  return random(Op::Rand, shape, dtype, device, g_rng, "rand");
}
Tensor randn(Shape shape, DType dtype, Device device) {
  return random(Op::Randn, shape, dtype, device, g_rng, "randn");
}
Tensor rand(Shape shape, DType dtype, Device device, Generator& gen) {
  return random(Op::Rand, shape, dtype, device, gen, "rand");
}
Tensor randn(Shape shape, DType dtype, Device device, Generator& gen) {
  return random(Op::Randn, shape, dtype, device, gen, "randn");
}

void manual_seed(uint64_t seed) { g_rng.manual_seed(seed); }
Generator& default_generator() noexcept { return g_rng; }

}  // namespace cgrad
