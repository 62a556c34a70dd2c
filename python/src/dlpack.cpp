// DLPack both ways (docs/python.md, "Zero-copy exchange").
//
// Export: __dlpack__ evaluates the array and hands out a capsule whose manager context holds a
// reference to the storage (cgrad::MemoryView::owner), so the memory lives until the consumer
// calls the deleter, however long cgrad's own handles live. The versioned capsule carries the
// read-only flag: other cgrad handles and cached results may share the memory.
// Import: _from_capsule renames the capsule to "used_*" (the protocol's hand-over) and wraps the
// memory with cgrad::from_blob; the producer's deleter runs when cgrad drops the last reference
// (through run_with_gil, since that can happen inside an evaluation with the GIL released).
#include "dlpack.h"
#include "bindings.h"

#include <nanobind/stl/vector.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cgrad::py {

namespace {

constexpr const char* kLegacy = "dltensor";
constexpr const char* kVersioned = "dltensor_versioned";

// DLPack's (code, bits) of each dtype: kInt/kUInt/kFloat/kComplex by the dtype's kind, kBfloat for bf16.
dl::DataType dl_dtype(DType t) {
  const auto bits = static_cast<uint8_t>(dtype_size(t) * 8);
  if (t == DType::bf16) return {dl::kBfloat, 16, 1};
  switch (dtype_kind(t)) {
    case DTypeKind::Bool: return {dl::kBool, 8, 1};
    case DTypeKind::Signed: return {dl::kInt, bits, 1};
    case DTypeKind::Unsigned: return {dl::kUInt, bits, 1};
    case DTypeKind::Float: return {dl::kFloat, bits, 1};
    case DTypeKind::Complex: return {dl::kComplex, bits, 1};  // complex group: (re, im) pairs
  }
  return {dl::kFloat, 32, 1};
}

std::optional<DType> cgrad_dtype(dl::DataType t) {
  if (t.lanes != 1) return std::nullopt;
  static constexpr DType kEvery[] = {
#define CGRAD_DTYPE(E, ...) DType::E,
#include <cgrad/dtypes.def>
#undef CGRAD_DTYPE
  };
  for (DType d : kEvery) {
    const dl::DataType m = dl_dtype(d);
    if (m.code == t.code && m.bits == t.bits) return d;
  }
  return std::nullopt;
}

dl::Device dl_device(Device d) {
  return d.is_cuda() ? dl::Device{dl::kCUDA, d.index} : dl::Device{dl::kCPU, 0};
}

// What a capsule's manager context owns: the storage reference and the shape/strides arrays.
struct Export {
  MemoryView view;
  std::vector<int64_t> shape, strides;
  dl::ManagedTensor legacy{};
  dl::ManagedTensorVersioned versioned{};
};

void fill(Export& e, dl::Tensor& t) {
  e.shape.assign(e.view.shape.begin(), e.view.shape.end());
  e.strides.assign(e.view.strides.begin(), e.view.strides.end());
  t.data = e.view.data;
  t.device = dl_device(e.view.device);
  t.ndim = static_cast<int32_t>(e.shape.size());
  t.dtype = dl_dtype(e.view.dtype);
  t.shape = e.shape.data();
  t.strides = e.strides.data();
  t.byte_offset = 0;
}

// A capsule nobody consumed still owns the tensor: its destructor calls the deleter.
void legacy_capsule_destructor(PyObject* cap) {
  if (!PyCapsule_IsValid(cap, kLegacy)) return;  // consumed (renamed "used_dltensor")
  auto* m = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(cap, kLegacy));
  if (m && m->deleter) m->deleter(m);
}
void versioned_capsule_destructor(PyObject* cap) {
  if (!PyCapsule_IsValid(cap, kVersioned)) return;
  auto* m = static_cast<dl::ManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kVersioned));
  if (m && m->deleter) m->deleter(m);
}

std::vector<int64_t> int_tuple(nb::handle h, const char* what) {
  std::vector<int64_t> v;
  for (nb::handle x : nb::iter(h)) v.push_back(nb::cast<int64_t>(x));
  if (v.size() != 2) throw nb::type_error((std::string(what) + " must be a pair of ints").c_str());
  return v;
}

nb::object dlpack(const Tensor& self, nb::handle stream, nb::handle max_version, nb::handle device,
                  nb::handle copy) {
  (void)stream;  // evaluation has finished (synchronized) before the capsule exists: any stream may read it
  Tensor t = self;
  bool copied = false;
  if (!device.is_none()) {
    auto d = int_tuple(device, "dl_device");
    Device want = d[0] == dl::kCPU    ? Device::cpu()
                  : d[0] == dl::kCUDA ? Device::cuda(static_cast<int>(d[1]))
                                      : Device{};
    if (!(d[0] == dl::kCPU || d[0] == dl::kCUDA))
      throw nb::buffer_error("__dlpack__: cgrad exports only to CPU or CUDA");
    if (!(want == t.device())) {
      if (!copy.is_none() && !nb::cast<bool>(copy))
        throw nb::buffer_error("__dlpack__: the array is on another device and copy=False");
      t = t.to(want);
      copied = true;
    }
  }
  if (!copied && !copy.is_none() && nb::cast<bool>(copy)) {
    t = t.clone();  // a fresh buffer, the same bits
    copied = true;
  }
  bool versioned = false;
  if (!max_version.is_none()) versioned = int_tuple(max_version, "max_version")[0] >= 1;
  auto* e = new Export();
  {
    nb::gil_scoped_release release;
    try {
      e->view = memory_view(t);
    } catch (...) {
      delete e;
      throw;
    }
  }
  if (versioned) {
    dl::ManagedTensorVersioned& m = e->versioned;
    m.version = {1, 0};
    m.manager_ctx = e;
    m.deleter = [](dl::ManagedTensorVersioned* p) { delete static_cast<Export*>(p->manager_ctx); };
    m.flags = (copied ? dl::kFlagIsCopied : 0) | (copied ? 0 : dl::kFlagReadOnly);
    fill(*e, m.dl_tensor);
    return nb::steal(PyCapsule_New(&m, kVersioned, versioned_capsule_destructor));
  }
  dl::ManagedTensor& m = e->legacy;
  m.manager_ctx = e;
  m.deleter = [](dl::ManagedTensor* p) { delete static_cast<Export*>(p->manager_ctx); };
  fill(*e, m.dl_tensor);
  return nb::steal(PyCapsule_New(&m, kLegacy, legacy_capsule_destructor));
}

// Wraps a capsule's tensor; `deleter` gives the producer its tensor back.
Tensor wrap(const dl::Tensor& t, std::function<void()> deleter) {
  auto dt = cgrad_dtype(t.dtype);
  if (!dt)
    throw nb::type_error(("from_dlpack: cgrad has no dtype for DLPack type code " +
                          std::to_string(t.dtype.code) + " with " + std::to_string(t.dtype.bits) + " bits")
                             .c_str());
  Device dev;
  if (t.device.device_type == dl::kCPU || t.device.device_type == dl::kCUDAHost)
    dev = Device::cpu();
  else if (t.device.device_type == dl::kCUDA)
    dev = Device::cuda(t.device.device_id);
  else
    throw nb::buffer_error(
        ("from_dlpack: unsupported device type " + std::to_string(t.device.device_type)).c_str());
  Shape shape(t.shape, t.shape + t.ndim);
  std::vector<int64_t> strides(static_cast<std::size_t>(t.ndim));
  if (t.strides) {
    strides.assign(t.strides, t.strides + t.ndim);
  } else {
    int64_t s = 1;
    for (int k = t.ndim - 1; k >= 0; --k)
      strides[static_cast<std::size_t>(k)] = s, s *= shape[static_cast<std::size_t>(k)];
  }
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  return from_blob(data, std::move(shape), std::move(strides), *dt, dev, std::move(deleter));
}

Tensor from_capsule(nb::handle cap) {
  PyObject* c = cap.ptr();
  if (PyCapsule_IsValid(c, kVersioned)) {
    auto* m = static_cast<dl::ManagedTensorVersioned*>(PyCapsule_GetPointer(c, kVersioned));
    if (m->version.major > 1) throw nb::buffer_error("from_dlpack: DLPack major version above 1");
    Tensor out = wrap(m->dl_tensor, [m] {
      if (m->deleter) run_with_gil([m] { m->deleter(m); });
    });
    PyCapsule_SetName(c, "used_dltensor_versioned");
    return out;
  }
  if (PyCapsule_IsValid(c, kLegacy)) {
    auto* m = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(c, kLegacy));
    Tensor out = wrap(m->dl_tensor, [m] {
      if (m->deleter) run_with_gil([m] { m->deleter(m); });
    });
    PyCapsule_SetName(c, "used_dltensor");
    return out;
  }
  throw nb::type_error("from_dlpack: expected an unconsumed DLPack capsule");
}

std::mutex g_deferred_mutex;
std::vector<std::function<void()>> g_deferred;

}  // namespace

void run_with_gil(std::function<void()> fn) {
  if (!Py_IsInitialized()) return;  // interpreter gone: the producer's memory goes with it
  if (PyGILState_Check()) {
    fn();
    return;
  }
  std::lock_guard<std::mutex> lock(g_deferred_mutex);
  g_deferred.push_back(std::move(fn));
}

void drain_deferred() {
  std::vector<std::function<void()>> todo;
  {
    std::lock_guard<std::mutex> lock(g_deferred_mutex);
    todo.swap(g_deferred);
  }
  for (auto& f : todo) f();
}

void bind_dlpack(nb::module_& m) {
  m.def("_dlpack", &dlpack, nb::arg("x"), nb::arg("stream").none(), nb::arg("max_version").none(),
        nb::arg("dl_device").none(), nb::arg("copy").none());
  m.def("_from_capsule", [](nb::handle cap) {
    Tensor t = from_capsule(cap);
    drain_deferred();
    return t;
  });
  m.def("_drain_deferred", &drain_deferred);
  m.def("_dlpack_device", [](const Tensor& t) {
    dl::Device d = dl_device(t.device());
    return nb::make_tuple(d.device_type, d.device_id);
  });
}

}  // namespace cgrad::py
