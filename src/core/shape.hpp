// Shape rules: numel with overflow checks, NumPy broadcasting, axis normalization, strides.
// Every function throws cgrad::Error naming `op` and the shapes involved.
#pragma once

#include <cgrad/core.hpp>

#include <string>
#include <vector>

namespace cgrad::core {

using Strides = std::vector<int64_t>;

/// Largest element count a tensor may have (bytes must also fit in int64).
inline constexpr int64_t kMaxNumel = int64_t(1) << 56;

/// Product of dims; throws InvalidArgument for negative dims or overflow.
int64_t checked_numel(const Shape& s, const char* op);
inline int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}
/// a == b, inline: std::vector's operator== calls memcmp, which costs more than the compare
/// for the few dims of a shape (the element-wise builders compare operand shapes per node).
inline bool same_shape(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}
/// NumPy broadcast of two shapes; throws ShapeMismatch.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
/// Maps a possibly negative axis into [0, ndim); throws InvalidArgument.
int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op);
/// Normalizes, sorts and de-duplicates reduction axes (empty = all); throws on repeats.
std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, int64_t ndim, const char* op);
/// The same for a tensor of `shape`, whose shape the error message names.
int64_t normalize_axis(int64_t axis, const Shape& shape, const char* op);
std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, const Shape& shape, const char* op);
/// The permutation that undoes `p` (`x.permute(p).permute(inverse_permutation(p))` is `x`).
std::vector<int64_t> inverse_permutation(const std::vector<int64_t>& p);
/// Row-major contiguous strides (in elements).
Strides contiguous_strides(const Shape& s);
bool is_contiguous(const Shape& s, const Strides& st);

/// Strides that view a layout (shape `from`, strides `fst`) as shape `to` without copying,
/// or false when only a copy can (the rule NumPy and PyTorch use for reshape-as-view).
bool reshape_view_strides(const Shape& from, const Strides& fst, const Shape& to, Strides& out);

std::string vec_str(const std::vector<int64_t>& v);

[[noreturn]] void fail(ErrorCode code, const std::string& msg);

}  // namespace cgrad::core
