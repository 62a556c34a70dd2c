// The Array API's manipulation functions (moveaxis, roll, tile, repeat, unstack, meshgrid, diff)
// and the triangle creation functions (tril, triu), written as composites of the fused ops:
// permute, slice, cat, expand, reshape, where over an arange comparison, subtraction. None is a
// row of the op table: each lowers to rows that already fuse and differentiate, so `roll(x) + 1`
// or `tril(x) * 2` stays one kernel and needs no gradient rule of its own. Arguments are checked
// first, so a bad call builds nothing.
#include <cgrad/manipulation.hpp>

#include "frontend/build.h"

#include <algorithm>

namespace cgrad {

using frontend::node_of;
using frontend::same_value;

namespace {

std::size_t idx(int64_t i) { return static_cast<std::size_t>(i); }

// a mod n in [0, n) for n > 0.
int64_t mod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

Error bad(const std::string& msg) { return Error(ErrorCode::InvalidArgument, msg); }

// x's shape with dim `axis` replaced by `size`.
Shape with_dim(Shape s, int64_t axis, int64_t size) {
  s[idx(axis)] = size;
  return s;
}

// A zero of x's dtype that never widens it (bool for b8, an integer for integers).
Scalar zero_of(DType t) {
  if (t == DType::b8) return Scalar(false);
  if (is_floating(t)) return Scalar(0.0);
  return Scalar(int64_t{0});
}

// Rolls along one normalized axis by a shift already reduced into [0, n).
Tensor roll_axis(const Tensor& x, int64_t axis, int64_t s) {
  const int64_t n = x.shape()[idx(axis)];
  if (s == 0) return same_value(x, "roll");
  return cat({x.slice(axis, n - s, n), x.slice(axis, 0, n - s)}, axis);
}

// repeat with one count for every element, along a normalized axis: (.., d, ..) viewed as
// (.., d, 1, ..), broadcast to (.., d, r, ..) and merged to (.., d * r, ..).
Tensor repeat_axis(const Tensor& x, int64_t r, int64_t axis) {
  if (r == 1) return same_value(x, "repeat");
  Shape s = x.shape(), view = s, wide = s;
  view.insert(view.begin() + axis + 1, 1);
  wide.insert(wide.begin() + axis + 1, r);
  s[idx(axis)] *= r;
  return x.reshape(view).expand(wide).reshape(s);
}

}  // namespace

Tensor moveaxis(const Tensor& x, std::vector<int64_t> source, std::vector<int64_t> destination) {
  const Shape& shape = node_of(x, "moveaxis")->shape;
  if (source.size() != destination.size())
    throw bad("moveaxis: source " + core::vec_str(source) + " and destination " + core::vec_str(destination) +
              " differ in length");
  for (auto& a : source) a = core::normalize_axis(a, shape, "moveaxis");
  for (auto& a : destination) a = core::normalize_axis(a, shape, "moveaxis");
  const auto nd = static_cast<int64_t>(shape.size());
  std::vector<int64_t> perm(idx(nd), -1);
  std::vector<bool> moved(idx(nd), false);
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (moved[idx(source[i])] || perm[idx(destination[i])] != -1)
      throw bad("moveaxis: repeated axis in source " + core::vec_str(source) + " or destination " +
                core::vec_str(destination));
    moved[idx(source[i])] = true;
    perm[idx(destination[i])] = source[i];
  }
  int64_t next = 0;  // the axes not moved fill the free places in their order
  for (auto& p : perm) {
    if (p != -1) continue;
    while (moved[idx(next)]) ++next;
    p = next++;
  }
  return x.permute(perm);
}

Tensor moveaxis(const Tensor& x, int64_t source, int64_t destination) {
  return moveaxis(x, std::vector<int64_t>{source}, std::vector<int64_t>{destination});
}

Tensor roll(const Tensor& x, std::vector<int64_t> shifts, std::vector<int64_t> axes) {
  const Shape& shape = node_of(x, "roll")->shape;
  if (axes.empty()) {
    if (shifts.size() != 1)
      throw bad("roll: without axes, one shift is needed, got " + core::vec_str(shifts));
    Tensor flat = x.reshape({-1});
    const int64_t n = flat.numel();
    if (n == 0) return same_value(x, "roll");
    // A shift by whole rows is a roll of the first axis: no reshape around the cat, so it fuses.
    const int64_t row = shape.empty() ? n : n / shape[0];
    if (shape.size() > 1 && shifts[0] % row == 0) return roll_axis(x, 0, mod(shifts[0] / row, shape[0]));
    return roll_axis(flat, 0, mod(shifts[0], n)).reshape(shape);
  }
  if (shifts.size() != axes.size())
    throw bad("roll: shifts " + core::vec_str(shifts) + " and axes " + core::vec_str(axes) +
              " differ in length");
  std::vector<int64_t> total(shape.size(), 0);  // an axis named twice rolls by the sum (NumPy)
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = core::normalize_axis(axes[i], shape, "roll");
    const int64_t n = shape[idx(a)];
    if (n > 0) total[idx(a)] = mod(total[idx(a)] + mod(shifts[i], n), n);
  }
  Tensor y = x;
  for (std::size_t a = 0; a < total.size(); ++a) y = roll_axis(y, static_cast<int64_t>(a), total[a]);
  return y;
}

Tensor roll(const Tensor& x, int64_t shift, std::optional<int64_t> axis) {
  return axis ? roll(x, std::vector<int64_t>{shift}, std::vector<int64_t>{*axis})
              : roll(x, std::vector<int64_t>{shift}, std::vector<int64_t>{});
}

Tensor tile(const Tensor& x, std::vector<int64_t> reps) {
  Shape s = node_of(x, "tile")->shape;
  for (int64_t r : reps)
    if (r < 0) throw bad("tile: negative repetition in " + core::vec_str(reps));
  const std::size_t nd = std::max(s.size(), reps.size());
  s.insert(s.begin(), nd - s.size(), 1);
  reps.insert(reps.begin(), nd - reps.size(), 1);
  // (d0, d1, ..) viewed as (1, d0, 1, d1, ..), broadcast to (r0, d0, r1, d1, ..), then merged.
  Shape view, wide, out;
  for (std::size_t i = 0; i < nd; ++i) {
    view.insert(view.end(), {1, s[i]});
    wide.insert(wide.end(), {reps[i], s[i]});
    out.push_back(reps[i] * s[i]);
  }
  core::checked_numel(out, "tile");
  if (std::all_of(reps.begin(), reps.end(), [](int64_t r) { return r == 1; })) return x.reshape(out);
  return x.reshape(view).expand(wide).reshape(out);
}

Tensor repeat(const Tensor& x, int64_t repeats, std::optional<int64_t> axis) {
  const Shape& shape = node_of(x, "repeat")->shape;
  if (repeats < 0) throw bad("repeat: repeats must be >= 0, got " + std::to_string(repeats));
  if (!axis) return repeat_axis(x.reshape({-1}), repeats, 0);
  const int64_t a = core::normalize_axis(*axis, shape, "repeat");
  core::checked_numel(with_dim(shape, a, 1), "repeat");
  return repeat_axis(x, repeats, a);
}

Tensor repeat(const Tensor& x, const Tensor& repeats, std::optional<int64_t> axis) {
  const Shape& shape = node_of(x, "repeat")->shape;
  const ir::NodePtr& r = node_of(repeats, "repeat");
  if (!is_integer(r->dtype))
    throw Error(ErrorCode::DTypeMismatch,
                std::string("repeat: repeats must be an integer tensor, got ") + dtype_name(r->dtype));
  if (r->shape.size() > 1) throw bad("repeat: repeats must be 1-D, got shape " + shape_str(r->shape));
  const int64_t a = axis ? core::normalize_axis(*axis, shape, "repeat") : 0;
  const int64_t len = axis ? shape[idx(a)] : node_of(x, "repeat")->numel();
  if (r->numel() != 1 && r->numel() != len)
    throw bad("repeat: " + std::to_string(r->numel()) + " repeats for an axis of length " +
              std::to_string(len) + " (shape " + shape_str(shape) + ")");
  // The output's shape depends on the counts: read them now (a synchronisation point).
  const std::vector<int64_t> counts = repeats.to_vector<int64_t>();
  for (int64_t c : counts)
    if (c < 0) throw bad("repeat: repeats must be >= 0, got " + core::vec_str(counts));
  if (counts.size() == 1) return repeat(x, counts[0], axis);
  Tensor src = axis ? x : x.reshape({-1});
  // One broadcast per run of equal counts, concatenated: few pieces for typical counts.
  std::vector<Tensor> pieces;
  for (std::size_t i = 0; i < counts.size();) {
    std::size_t j = i + 1;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    if (counts[i] > 0)
      pieces.push_back(
          repeat_axis(src.slice(a, static_cast<int64_t>(i), static_cast<int64_t>(j)), counts[i], a));
    i = j;
  }
  if (pieces.empty()) return src.slice(a, 0, 0);
  return pieces.size() == 1 ? pieces[0] : cat(pieces, a);
}

std::vector<Tensor> unstack(const Tensor& x, int64_t axis) {
  const Shape& shape = node_of(x, "unstack")->shape;
  if (shape.empty()) throw bad("unstack: a 0-d tensor has no axis to unstack");
  const int64_t a = core::normalize_axis(axis, shape, "unstack");
  Shape rest = shape;
  rest.erase(rest.begin() + a);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < shape[idx(a)]; ++i) out.push_back(x.slice(a, i, i + 1).reshape(rest));
  return out;
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing) {
  if (indexing != "xy" && indexing != "ij")
    throw bad("meshgrid: indexing must be \"xy\" or \"ij\", got \"" + indexing + "\"");
  std::vector<core::PromoOperand> promos;
  Shape out;
  for (const Tensor& t : xs) {
    const ir::NodePtr& n = node_of(t, "meshgrid");
    if (n->shape.size() != 1) throw bad("meshgrid: inputs must be 1-D, got shape " + shape_str(n->shape));
    promos.push_back({core::PromoOperand::Tier::Dim, n->dtype});
    out.push_back(n->shape[0]);
  }
  if (xs.empty()) return {};
  const DType t = core::promote_all(promos.data(), static_cast<int>(promos.size()));
  const bool xy = indexing == "xy" && xs.size() > 1;  // Cartesian: the first two dims swap
  if (xy) std::swap(out[0], out[1]);
  core::checked_numel(out, "meshgrid");
  std::vector<Tensor> grids;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const std::size_t at = xy && i < 2 ? 1 - i : i;
    Shape view(xs.size(), 1);
    view[at] = out[at];
    grids.push_back(xs[i].cast(t).reshape(view).expand(out));
  }
  return grids;
}

namespace {
// Keeps x where (column - row) compares with k as `keep` says, zero elsewhere.
Tensor triangle(const Tensor& x, int64_t k, bool lower, const char* name) {
  const ir::NodePtr& n = node_of(x, name);
  if (n->shape.size() < 2)
    throw bad(std::string(name) + ": needs at least 2 dims, got shape " + shape_str(n->shape));
  const int64_t rows = n->shape[n->shape.size() - 2], cols = n->shape.back();
  Tensor i = arange(rows, DType::i64, n->device).reshape({rows, 1});
  Tensor j = arange(cols, DType::i64, n->device).reshape({1, cols});
  Tensor keep = lower ? (j - i <= k) : (j - i >= k);
  return where(keep, x, zero_of(n->dtype));
}
}  // namespace

Tensor tril(const Tensor& x, int64_t k) { return triangle(x, k, true, "tril"); }
Tensor triu(const Tensor& x, int64_t k) { return triangle(x, k, false, "triu"); }

Tensor diff(const Tensor& x, int64_t axis, int64_t n, const Tensor& prepend, const Tensor& append) {
  const ir::NodePtr& xn = node_of(x, "diff");
  if (xn->shape.empty()) throw bad("diff: needs at least 1 dim, got a 0-d tensor");
  const int64_t a = core::normalize_axis(axis, xn->shape, "diff");
  if (n < 0) throw bad("diff: n must be >= 0, got " + std::to_string(n));
  std::vector<Tensor> parts;
  for (const Tensor* p : {&prepend, &x, &append}) {
    if (!p->defined()) continue;
    const Shape& ps = p->shape();
    if (p != &x && (ps.size() != xn->shape.size() || with_dim(ps, a, 0) != with_dim(xn->shape, a, 0)))
      throw Error(ErrorCode::ShapeMismatch, "diff: prepend/append of shape " + shape_str(ps) +
                                                " must match x's shape " + shape_str(xn->shape) +
                                                " except along axis " + std::to_string(a));
    parts.push_back(*p);
  }
  Tensor y = parts.size() == 1 ? same_value(x, "diff") : cat(parts, a);
  for (int64_t step = 0; step < n; ++step) {
    const int64_t len = y.shape()[idx(a)];
    if (len == 0) break;
    Tensor hi = y.slice(a, 1, len), lo = y.slice(a, 0, len - 1);
    y = y.dtype() == DType::b8 ? (hi != lo) : hi - lo;
  }
  return y;
}

}  // namespace cgrad
