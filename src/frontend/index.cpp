// Indexing and searching (issue #15, the index group): take and take_along_axis build the one
// gather row (Op::Take) over i64 positions; scatter_add and scatter_add_along_axis (their
// inverses, the scatter group) build the one scatter row (Op::ScatterAdd); searchsorted is a binary search
// written as ceil(log2(n + 1)) gathers of the sorted input, so it fuses into one kernel per call; nonzero has
// a data-dependent shape and evaluates its input (a synchronisation point, docs/semantics.md).
//
// Out-of-range positions: -n <= i < 0 wraps once (NumPy); anything else outside [0, n) reads 0
// inside the kernel (JAX's fill mode), so a lazy index tensor never reads outside a buffer.
#include "frontend/build.h"
#include "runtime/backend.h"
#include "runtime/realize.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace cgrad {

using frontend::make;
using frontend::node_of;
using ir::Op;

namespace {

ir::NodePtr index_node(const Tensor& indices, const char* op) {
  const ir::NodePtr& i = node_of(indices, op);
  if (!is_integer(i->dtype))
    throw Error(ErrorCode::DTypeMismatch,
                std::string(op) + ": indices must have an integer dtype, got " + dtype_name(i->dtype));
  return i;
}

// The gather row: x and idx (any integer dtype) already agree outside `axis`.
Tensor gather(ir::NodePtr x, ir::NodePtr idx, int64_t axis, const char* op) {
  if (x->shape[static_cast<std::size_t>(axis)] == 0) {  // every position is out of range: 0
    Shape s = x->shape;
    s[static_cast<std::size_t>(axis)] = idx->shape[static_cast<std::size_t>(axis)];
    return zeros(s, x->dtype, x->device);
  }
  std::array<ir::NodePtr*, 2> operands{&x, &idx};
  frontend::place(operands, op);
  ir::Attrs a;
  a.axis = axis;
  return Tensor(make(Op::Take, {x, frontend::cast_to(idx, DType::i64)}, a, x->device));
}

// The scatter row (scatter group): src and idx (any integer dtype) already have one shape that
// agrees with base outside `axis`; base and src promote to one dtype.
Tensor scatter(ir::NodePtr base, ir::NodePtr src, ir::NodePtr idx, int64_t axis, const char* op) {
  const DType t = core::promote(base->dtype, src->dtype);
  if (t == DType::b8)
    throw Error(ErrorCode::DTypeMismatch, std::string(op) + ": base and src must be numeric, got b8");
  std::array<ir::NodePtr*, 3> operands{&base, &src, &idx};
  const Device dev = frontend::place(operands, op);
  ir::Attrs a;
  a.axis = axis;
  return Tensor(make(
      Op::ScatterAdd,
      {frontend::cast_to(base, t), frontend::cast_to(src, t), frontend::cast_to(idx, DType::i64)}, a, dev));
}

}  // namespace

Tensor take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis) {
  ir::NodePtr xn = node_of(x, "take");
  const ir::NodePtr in = index_node(indices, "take");
  if (!axis) {
    if (xn->shape.size() > 1)
      throw Error(ErrorCode::InvalidArgument, "take: axis is required for " + shape_str(xn->shape) +
                                                  " (more than one dimension); flatten x first");
    xn = frontend::reshape_node(xn, {xn->numel()});
    axis = 0;
  }
  const int64_t ax = core::normalize_axis(*axis, xn->shape, "take");
  const auto u = static_cast<std::size_t>(ax);
  // out = x.shape[:axis] + indices.shape + x.shape[axis+1:]: gather the flattened indices,
  // broadcast over the other dims of x, then unflatten them.
  const int64_t m = in->numel();
  Shape one(xn->shape.size(), 1), full = xn->shape;
  one[u] = m;
  full[u] = m;
  Tensor r = gather(xn, frontend::broadcast_to(frontend::reshape_node(in, one), full), ax, "take");
  Shape out(xn->shape.begin(), xn->shape.begin() + ax);
  out.insert(out.end(), in->shape.begin(), in->shape.end());
  out.insert(out.end(), xn->shape.begin() + ax + 1, xn->shape.end());
  return out == r.shape() ? r : r.reshape(out);
}

Tensor take_along_axis(const Tensor& x, const Tensor& indices, int64_t axis) {
  const ir::NodePtr& xn = node_of(x, "take_along_axis");
  const ir::NodePtr in = index_node(indices, "take_along_axis");
  if (xn->shape.empty())
    throw Error(ErrorCode::InvalidArgument, "take_along_axis: x must have at least one dimension");
  if (in->shape.size() != xn->shape.size())
    throw Error(ErrorCode::ShapeMismatch, "take_along_axis: indices " + shape_str(in->shape) + " and x " +
                                              shape_str(xn->shape) + " differ in rank");
  const int64_t ax = core::normalize_axis(axis, xn->shape, "take_along_axis");
  Shape xs = xn->shape, is = in->shape;  // broadcast every dim but the axis
  for (std::size_t d = 0; d < xs.size(); ++d) {
    if (static_cast<int64_t>(d) == ax || xs[d] == is[d]) continue;
    if (xs[d] != 1 && is[d] != 1)
      throw Error(ErrorCode::ShapeMismatch, "take_along_axis: indices " + shape_str(in->shape) + " and x " +
                                                shape_str(xn->shape) + " do not broadcast outside axis " +
                                                std::to_string(ax));
    xs[d] = is[d] = std::max(xs[d], is[d]);
  }
  return gather(frontend::broadcast_to(xn, xs), frontend::broadcast_to(in, is), ax, "take_along_axis");
}

Tensor scatter_add(const Tensor& base, int64_t axis, const Tensor& indices, const Tensor& src) {
  const ir::NodePtr& b = node_of(base, "scatter_add");
  const ir::NodePtr in = index_node(indices, "scatter_add");
  const ir::NodePtr& s = node_of(src, "scatter_add");
  if (b->shape.empty())
    throw Error(ErrorCode::InvalidArgument, "scatter_add: base must have at least one dimension");
  const int64_t ax = core::normalize_axis(axis, b->shape, "scatter_add");
  const auto u = static_cast<std::size_t>(ax);
  Shape want(b->shape.begin(), b->shape.begin() + ax);  // take's output shape
  want.insert(want.end(), in->shape.begin(), in->shape.end());
  want.insert(want.end(), b->shape.begin() + ax + 1, b->shape.end());
  if (s->shape != want)
    throw Error(ErrorCode::ShapeMismatch, "scatter_add: src has shape " + shape_str(s->shape) +
                                              ", expected " + shape_str(want) +
                                              " (base.shape[:axis] + indices.shape + base.shape[axis+1:])");
  // The flattened indices along the axis, broadcast over the other dims (as take builds them).
  const int64_t m = in->numel();
  Shape one(b->shape.size(), 1), full = b->shape;
  one[u] = m;
  full[u] = m;
  return scatter(b, frontend::reshape_node(s, full),
                 frontend::broadcast_to(frontend::reshape_node(in, one), full), ax, "scatter_add");
}

Tensor scatter_add(const Shape& shape, int64_t axis, const Tensor& indices, const Tensor& src) {
  node_of(src, "scatter_add");
  return scatter_add(zeros(shape, src.dtype(), src.device()), axis, indices, src);
}

Tensor scatter_add_along_axis(const Tensor& base, int64_t axis, const Tensor& indices, const Tensor& src) {
  const char* op = "scatter_add_along_axis";
  const ir::NodePtr& b = node_of(base, op);
  const ir::NodePtr in = index_node(indices, op);
  const ir::NodePtr& s = node_of(src, op);
  if (b->shape.empty())
    throw Error(ErrorCode::InvalidArgument, std::string(op) + ": base must have at least one dimension");
  if (in->shape.size() != b->shape.size() || s->shape.size() != b->shape.size())
    throw Error(ErrorCode::ShapeMismatch, std::string(op) + ": indices " + shape_str(in->shape) + ", src " +
                                              shape_str(s->shape) + " and base " + shape_str(b->shape) +
                                              " differ in rank");
  const int64_t ax = core::normalize_axis(axis, b->shape, op);
  Shape sh(b->shape.size());
  for (std::size_t d = 0; d < sh.size(); ++d) {
    const int64_t i = in->shape[d], v = s->shape[d];
    const bool ok = i == v || i == 1 || v == 1;
    sh[d] = i == 1 ? v : i;
    if (!ok || (static_cast<int64_t>(d) != ax && sh[d] != b->shape[d]))
      throw Error(ErrorCode::ShapeMismatch, std::string(op) + ": indices " + shape_str(in->shape) +
                                                " and src " + shape_str(s->shape) +
                                                " do not broadcast to base " + shape_str(b->shape) +
                                                " outside axis " + std::to_string(ax));
  }
  return scatter(b, frontend::broadcast_to(s, sh), frontend::broadcast_to(in, sh), ax, op);
}

Tensor searchsorted(const Tensor& x1, const Tensor& x2, std::string_view side) {
  const ir::NodePtr& s = node_of(x1, "searchsorted");
  node_of(x2, "searchsorted");
  if (side != "left" && side != "right")
    throw Error(ErrorCode::InvalidArgument,
                "searchsorted: side must be 'left' or 'right', got '" + std::string(side) + "'");
  if (s->shape.size() != 1)
    throw Error(ErrorCode::InvalidArgument, "searchsorted: x1 must be 1-D, got " + shape_str(s->shape));
  const bool right = side == "right";
  const int64_t n = s->shape[0];
  const Shape out = x2.shape();
  if (n == 0) return zeros(out, DType::i64, s->device);
  // lo = the number of elements of x1 before v. Invariant: x1[lo - 1] goes before v. Each step
  // tries lo + step: one gather and one comparison, all fused (x1 is read at random: it is
  // materialized once). NaN sorts last, as NumPy's sort puts it.
  const Tensor v = x2.reshape({x2.numel()});
  const bool flt = is_floating(s->dtype) || is_floating(x2.dtype());
  auto before = [&](const Tensor& t) {  // t goes before v (left: t < v; right: t <= v)
    Tensor b = right ? t <= v : t < v;
    if (flt) b = logical_or(b, right ? isnan(v) : logical_and(isnan(v), logical_not(isnan(t))));
    return b;
  };
  int64_t step = 1;
  while (step <= n / 2) step *= 2;
  Tensor lo = zeros({v.numel()}, DType::i64, s->device);
  for (; step >= 1; step /= 2) {
    const Tensor cand = lo + step;
    const Tensor t = take(x1, cand - 1);
    lo = where(logical_and(cand <= n, before(t)), cand, lo);
  }
  return lo.reshape(out);
}

namespace {

// The bytes of an evaluated b8 tensor, row-major, on the host: its own buffer when that is
// contiguous there (no copy), else a contiguous copy (a strided view, or a device's value).
struct HostBytes {
  ir::View keep;              // holds the buffer read
  std::vector<uint8_t> copy;  // the copy, when one was made
  const uint8_t* data = nullptr;
};
HostBytes host_bytes(const Tensor& b) {
  const ir::NodePtr& n = node_of(b, "nonzero");
  runtime::realize({n});
  HostBytes h;
  h.keep = n->value.storage->device.is_cuda() ? runtime::transfer(*n, Device::cpu()) : n->value;
  if (h.keep.strides == core::contiguous_strides(n->shape)) {
    h.data = static_cast<const uint8_t*>(h.keep.storage->data) + h.keep.offset;
  } else {
    h.copy = b.to_vector<uint8_t>();
    h.data = h.copy.data();
  }
  return h;
}

// kSetBits[b]: the positions of the set bits of the byte b, in order (then zeros), and their
// number (a table: the library's baseline x86-64 has no popcount instruction).
struct SetBits {
  std::array<int32_t, 8> at{};  // (int32: loads that widen in vector registers; bytes took 1.7x as long)
  uint8_t count = 0;
};
constexpr std::array<SetBits, 256> set_bits_of_bytes() {
  std::array<SetBits, 256> t{};
  for (unsigned b = 0; b < 256; ++b)
    for (unsigned i = 0; i < 8; ++i)
      if (b >> i & 1u) t[b].at[t[b].count++] = static_cast<int32_t>(i);
  return t;
}
constexpr std::array<SetBits, 256> kSetBits = set_bits_of_bytes();

// 0x01 in each byte of w that is nonzero, 0x00 in the others.
uint64_t nonzero_bytes(uint64_t w) {
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  return ((((w & kLow7) + kLow7) | w) & ~kLow7) >> 7;  // each byte's top bit first: nonzero
}

// The number of nonzero bytes of m[0..len), eight at a time.
std::size_t count_nonzero_bytes(const uint8_t* m, std::size_t len) {
  std::size_t count = 0, i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    std::memcpy(&w, m + i, 8);
    count += (nonzero_bytes(w) * 0x0101010101010101ull) >> 56;  // the sum of the bytes
  }
  for (; i < len; ++i) count += m[i] != 0;
  return count;
}

// Writes the positions j of the nonzero bytes m[0..len) to out from place k on; returns the
// place after the last. Eight bytes at a time, without a branch on their values: their nonzero
// ones make a byte of bits; the eight entries of its table row are written from place k on and
// k moves on by its `count` (the next block writes over the rest: out has 8 places of slack).
// The rest byte by byte: the position written to the next place, which moves on only for a
// nonzero byte.
std::size_t last_dim_positions(const uint8_t* __restrict m, int64_t len, int64_t* __restrict out,
                               std::size_t k) {
  int64_t j = 0;
  for (; j + 8 <= len; j += 8) {
    uint64_t w;
    std::memcpy(&w, m + j, 8);
    const unsigned bits =
        static_cast<unsigned>((nonzero_bytes(w) * 0x0102040810204080ull) >> 56);  // bit i: byte i
    const SetBits& set = kSetBits[bits];
    for (std::size_t i = 0; i < 8; ++i) out[k + i] = j + set.at[i];
    k += set.count;
  }
  for (; j < len; ++j) {
    out[k] = j;
    k += m[j] != 0;
  }
  return k;
}

}  // namespace

std::vector<Tensor> nonzero(const Tensor& x) {
  const ir::NodePtr& n = node_of(x, "nonzero");
  if (n->shape.empty())
    throw Error(ErrorCode::InvalidArgument,
                "nonzero: x must have at least one dimension (the Array API's rule)");
  // Data-dependent shape: evaluate the mask now (a synchronisation point) and read its bytes in
  // place, count them, then write the indices straight into the outputs' buffers, row by row of
  // the last dim (last_dim_positions); the other dims' indices are filled once per row over the
  // places the row took. (Before: the mask copied element by element into a std::vector, one
  // branch-free write per element and the outputs copied once more; docs/semantics.md.)
  const HostBytes mask = host_bytes(n->dtype == DType::b8 ? x : x.cast(DType::b8));
  const std::size_t total = static_cast<std::size_t>(n->numel()), r = n->shape.size();
  const std::size_t count = count_nonzero_bytes(mask.data, total);
  std::vector<ir::View> idx(r);
  for (ir::View& v : idx) {
    v.storage = runtime::allocate_host((count + 8) * sizeof(int64_t));  // (+8: a block's last writes)
    v.strides = core::contiguous_strides({static_cast<int64_t>(count)});
  }
  auto out_of = [&](std::size_t d) { return static_cast<int64_t*>(idx[d].storage->data); };
  const int64_t last = n->shape[r - 1];
  std::vector<int64_t> pos(r, 0);  // the row's multi-index (the last dim's stays 0)
  std::size_t k = 0;
  for (std::size_t row = 0; last > 0 && row * static_cast<std::size_t>(last) < total; ++row) {
    const std::size_t k0 = k;
    k = last_dim_positions(mask.data + row * static_cast<std::size_t>(last), last, out_of(r - 1), k);
    for (std::size_t d = 0; d + 1 < r; ++d) std::fill(out_of(d) + k0, out_of(d) + k, pos[d]);
    for (std::size_t d = r - 1; d-- > 0;) {  // next row, row-major
      if (++pos[d] < n->shape[d]) break;
      pos[d] = 0;
    }
  }
  std::vector<Tensor> out;
  for (ir::View& v : idx) {
    const Tensor host(
        ir::make_buffer({static_cast<int64_t>(count)}, DType::i64, Device::cpu(), std::move(v)));
    out.push_back(n->device.is_cuda() ? host.to(n->device) : host);
  }
  return out;
}

}  // namespace cgrad
