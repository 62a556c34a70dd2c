// Device kernels of sort/argsort and scatter_add (device_kernels.h): the kernel source is the
// cuda_sort (cuda_scatter) template for the element type (one NVRTC program per dtype, cached like generated
// kernels), launched with a block per row; rows longer than a block radix-sort through scratch of two
// (key, position) buffers of the input's size.
#include "backends/cuda/device_kernels.h"

#include "backends/cuda/allocator.h"
#include "backends/cuda/module_cache.h"
#include "codegen/kernel_parts.h"
#include "codegen/render_cpu.h"
#include "codegen/render_scalar.h"
#include "core/strided.hpp"
#include "ir/op_table.h"

#include <algorithm>
#include <iterator>

namespace cgrad::backends::cuda {

namespace {

constexpr std::size_t kMaxRowDims = 16;  // dims besides the axis (the args struct's arrays)
constexpr int64_t kMaxBlocksPerSm = 32;

uint64_t word(int64_t v) { return static_cast<uint64_t>(v); }
uint64_t ptr(const std::shared_ptr<ir::Storage>& s) { return reinterpret_cast<uint64_t>(s->data); }

// The sort keys: 32 bits for elements of at most 4 bytes, else 64.
DType key_dtype(DType t) { return dtype_size(t) > 4 ? DType::u64 : DType::u32; }

std::string symbol_of(const std::string& name, DType t) { return "cg_" + name + "_" + dtype_name(t); }

// The function `entry` (appended to the kernel's name) of row kernel `name` for dtype t.
CUfunction row_kernel(DeviceContext& d, const std::string& name, DType t, const std::string& entry = "") {
  return kernel_function(d, row_kernel_source(name, t), symbol_of(name, t) + entry);
}

std::shared_ptr<ir::Storage> device_buffer(DeviceContext& d,
                                           std::vector<std::shared_ptr<ir::Storage>>& scratch,
                                           std::size_t nbytes) {
  scratch.push_back(allocate_device(d.index, std::max<std::size_t>(nbytes, 1)));
  return scratch.back();
}

}  // namespace

std::string row_kernel_source(const std::string& name, DType t) {
  std::string body = codegen::template_text("cuda_" + name);
  codegen::fill(body, "T", codegen::storage_ctype(t));
  codegen::fill(body, "K", codegen::storage_ctype(key_dtype(t)));
  codegen::fill(body, "NAME", symbol_of(name, t));
  return codegen::template_text("cuda_prelude") + "\n" + body;
}

bool sort_launches(DeviceContext& d, const ir::Node& n, const ir::View& in, ir::View& out,
                   std::vector<std::shared_ptr<ir::Storage>>& scratch, std::vector<DeviceLaunch>& launches) {
  const DType t = n.inputs[0]->dtype;
  const Shape& shape = n.shape;
  if (is_complex(t) || shape.size() > kMaxRowDims + 1) return false;  // complex: the host's order_before
  if (!out.storage) {
    out.storage =
        allocate_device(d.index, static_cast<std::size_t>(core::numel(shape)) * dtype_size(n.dtype));
    out.offset = 0;
    out.strides = core::contiguous_strides(shape);
  }
  const int64_t total = core::numel(shape);
  if (total == 0) return true;
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  const int64_t len = shape[ax], rows = total / len;
  DeviceLaunch l;
  l.fn = row_kernel(d, "sort", t);
  l.blocks = static_cast<unsigned>(std::min<int64_t>(rows, d.sm_count * kMaxBlocksPerSm));
  std::vector<uint64_t>& w = l.words;
  w = {ptr(in.storage), ptr(out.storage), 0, 0, 0, 0};  // then k0, k1, p0, p1: the radix passes' scratch
  if (len > static_cast<int64_t>(kBlock)) {             // (shorter rows are ranked without it)
    const auto m = static_cast<std::size_t>(total), key = dtype_size(key_dtype(t));
    const std::size_t bytes[] = {m * key, m * key, m * 8, m * 8};
    for (std::size_t i = 0; i < std::size(bytes); ++i) w[2 + i] = ptr(device_buffer(d, scratch, bytes[i]));
  }
  const bool arg = n.op == ir::Op::Argsort;
  for (int64_t v : {in.offset, out.offset, rows, len, in.strides[ax], out.strides[ax],
                    static_cast<int64_t>(shape.size() - 1), n.attrs.ivalue != 0 ? int64_t{1} : int64_t{0},
                    arg ? int64_t{1} : int64_t{0}})
    w.push_back(word(v));
  // size, in_st, out_st of the dims besides the axis, each array padded to kMaxRowDims
  const std::vector<int64_t>* arrays[] = {&shape, &in.strides, &out.strides};
  for (const std::vector<int64_t>* v : arrays) {
    std::size_t put = 0;
    for (std::size_t dim = 0; dim < shape.size(); ++dim)
      if (dim != ax) w.push_back(word((*v)[dim])), ++put;
    for (; put < kMaxRowDims; ++put) w.push_back(word(v == &shape ? 1 : 0));
  }
  launches.push_back(std::move(l));
  return true;
}

bool scatter_launches(DeviceContext& d, const ir::Node& n, const ir::View& base, const ir::View& src,
                      const ir::View& idx, ir::View& out, std::vector<DeviceLaunch>& launches) {
  const DType t = n.dtype;
  const Shape& shape = n.shape;
  const Shape& s = n.inputs[1]->shape;
  if (t == DType::b8 || shape.size() > kMaxRowDims || s.size() != shape.size()) return false;
  if (!out.storage) {
    out.storage = allocate_device(d.index, static_cast<std::size_t>(core::numel(shape)) * dtype_size(t));
    out.offset = 0;
    out.strides = core::contiguous_strides(shape);
  }
  const int64_t total = core::numel(shape);
  if (total == 0) return true;
  const auto ax = static_cast<std::size_t>(n.attrs.axis);
  const int64_t m = s[ax], lines = m == 0 ? 0 : core::numel(s) / m;
  std::vector<uint64_t> w = {ptr(base.storage), ptr(src.storage), ptr(idx.storage), ptr(out.storage)};
  for (int64_t v : {base.offset, src.offset, idx.offset, out.offset, total, lines, m, shape[ax],
                    static_cast<int64_t>(shape.size()), static_cast<int64_t>(ax)})
    w.push_back(word(v));
  const std::vector<int64_t>* arrays[] = {&shape,       &base.strides, &s,
                                          &src.strides, &idx.strides,  &out.strides};
  for (const std::vector<int64_t>* v : arrays)
    for (std::size_t dim = 0; dim < kMaxRowDims; ++dim) w.push_back(word(dim < v->size() ? (*v)[dim] : 0));
  const int64_t cap = d.sm_count * kMaxBlocksPerSm;
  auto blocks = [&](int64_t threads) {
    return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((threads + 255) / 256, cap)));
  };
  launches.push_back({row_kernel(d, "scatter", t, "_copy"), blocks(total), w});
  if (lines > 0) launches.push_back({row_kernel(d, "scatter", t, "_add"), blocks(lines), std::move(w)});
  return true;
}

}  // namespace cgrad::backends::cuda
