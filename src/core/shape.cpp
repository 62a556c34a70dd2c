// Shape rules used by the frontend's shape inference and by the backends' index math.
#include "core/shape.hpp"

#include <algorithm>

namespace cgrad {

std::string shape_str(const Shape& s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) r += ", ";
    r += std::to_string(s[i]);
  }
  if (s.size() == 1) r += ",";
  return r + ")";
}

namespace core {

void fail(ErrorCode code, const std::string& msg) { throw Error(code, msg); }

std::string vec_str(const std::vector<int64_t>& v) {
  std::string r = "[";
  for (std::size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
  return r + "]";
}

int64_t checked_numel(const Shape& s, const char* op) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0)
      fail(ErrorCode::InvalidArgument, std::string(op) + ": negative dimension in shape " + shape_str(s));
  }
  for (int64_t d : s) {
    if (d == 0) return 0;
  }
  for (int64_t d : s) {
    if (n > kMaxNumel / d)
      fail(ErrorCode::InvalidArgument,
           std::string(op) + ": shape " + shape_str(s) + " has too many elements");
    n *= d;
  }
  return n;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  std::size_t n = std::max(a.size(), b.size());
  Shape r(n);
  for (std::size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(ErrorCode::ShapeMismatch, std::string(op) + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                                         " cannot be broadcast (dimension " + std::to_string(i) + ": " +
                                         std::to_string(da) + " vs " + std::to_string(db) + ")");
    r[i] = da == 1 ? db : da;
  }
  return r;
}

int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim)
    fail(ErrorCode::InvalidArgument, std::string(op) + ": axis " + std::to_string(axis) +
                                         " out of range for a tensor with " + std::to_string(ndim) + " dims");
  return a;
}

std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, int64_t ndim, const char* op) {
  std::vector<int64_t> r;
  if (axes.empty()) {
    for (int64_t i = 0; i < ndim; ++i) r.push_back(i);
    return r;
  }
  for (int64_t a : axes) r.push_back(normalize_axis(a, ndim, op));
  std::sort(r.begin(), r.end());
  if (std::adjacent_find(r.begin(), r.end()) != r.end())
    fail(ErrorCode::InvalidArgument, std::string(op) + ": repeated axis in " + vec_str(axes));
  return r;
}

int64_t normalize_axis(int64_t axis, const Shape& shape, const char* op) {
  const auto nd = static_cast<int64_t>(shape.size());
  if (axis < -nd || axis >= nd)
    fail(ErrorCode::InvalidArgument,
         std::string(op) + ": axis " + std::to_string(axis) + " out of range for shape " + shape_str(shape));
  return normalize_axis(axis, nd, op);
}

std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, const Shape& shape, const char* op) {
  for (int64_t a : axes) normalize_axis(a, shape, op);
  try {
    return normalize_axes(axes, static_cast<int64_t>(shape.size()), op);
  } catch (const Error& e) {
    fail(e.code(), std::string(e.what()) + " for shape " + shape_str(shape));
  }
}

std::vector<int64_t> inverse_permutation(const std::vector<int64_t>& p) {
  std::vector<int64_t> inv(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) inv[static_cast<std::size_t>(p[i])] = static_cast<int64_t>(i);
  return inv;
}

Strides contiguous_strides(const Shape& s) {
  Strides st(s.size());
  int64_t acc = 1;
  for (std::size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

bool is_contiguous(const Shape& s, const Strides& st) {
  int64_t acc = 1;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == 1) continue;
    if (st[i] != acc) return false;
    acc *= s[i];
  }
  return true;
}

// Strides for viewing a layout as `to` without copying, or false when impossible. Walks the
// source dims from the innermost outwards in chunks of mutually contiguous dims; each chunk must
// be covered exactly by a run of target dims (the rule NumPy and PyTorch use for views).
bool reshape_view_strides(const Shape& from, const core::Strides& fst, const Shape& to, core::Strides& out) {
  out.assign(to.size(), 1);
  if (core::numel(from) == 0 || from.empty()) {
    out = core::contiguous_strides(to);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(to.size()) - 1;
  int64_t chunk_base = fst.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(from.size()) - 1; d >= 0; --d) {
    auto du = static_cast<std::size_t>(d);
    tensor_numel *= from[du];
    bool chunk_ends = d == 0 || (from[du - 1] != 1 && fst[du - 1] != tensor_numel * chunk_base);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || to[static_cast<std::size_t>(view_d)] == 1)) {
      out[static_cast<std::size_t>(view_d)] = view_numel * chunk_base;
      view_numel *= to[static_cast<std::size_t>(view_d)];
      --view_d;
    }
    if (view_numel != tensor_numel) return false;
    if (d > 0) {
      chunk_base = fst[du - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  return view_d == -1;
}

}  // namespace core
}  // namespace cgrad
