/// The Array API's manipulation and creation functions that rearrange or select existing values:
/// moveaxis, roll, tile, repeat, unstack, meshgrid, tril/triu and diff; and NumPy's einsum. Each is a
/// composite of fused ops (permute, slice, cat, expand, reshape, where, arange, subtraction), so it fuses
/// into its consumers and differentiates through its parts (docs/semantics.md, "Manipulation").
#pragma once

#include <cgrad/tensor.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cgrad {

/// Moves axes `source` to positions `destination` (same length, no repeats, negative counts
/// from the end); the other axes keep their order. A view (permute).
Tensor moveaxis(const Tensor& x, std::vector<int64_t> source, std::vector<int64_t> destination);
Tensor moveaxis(const Tensor& x, int64_t source, int64_t destination);
/// Shifts elements along `axes` by `shifts` (same length; an axis named twice gets the sum of its
/// shifts); elements that fall off one end come back at the other. Empty `axes`: the flattened
/// tensor is rolled by the single shift and reshaped back. Two slices and a cat: fuses.
Tensor roll(const Tensor& x, std::vector<int64_t> shifts, std::vector<int64_t> axes);
Tensor roll(const Tensor& x, int64_t shift, std::optional<int64_t> axis = std::nullopt);
/// NumPy tile: `x` repeated reps[i] times along each dim (reps shorter than x's rank is padded
/// with leading 1s, longer prepends dims to x). A broadcast and a reshape.
Tensor tile(const Tensor& x, std::vector<int64_t> reps);
/// Each element repeated `repeats` times along `axis` (no axis: of the flattened tensor).
Tensor repeat(const Tensor& x, int64_t repeats, std::optional<int64_t> axis = std::nullopt);
/// Element i along `axis` repeated repeats[i] times: `repeats` is a 1-D integer tensor of one
/// element (used for all) or of the axis' length. The output shape depends on its values, so it
/// is evaluated when the op is built (a synchronisation point, like to_vector).
Tensor repeat(const Tensor& x, const Tensor& repeats, std::optional<int64_t> axis = std::nullopt);
/// The slices of `x` along `axis`, each without that axis (views).
std::vector<Tensor> unstack(const Tensor& x, int64_t axis = 0);
/// Coordinate grids of 1-D tensors, promoted to one dtype: "xy" (Cartesian: the first two
/// output dims swapped) or "ij" (matrix). Broadcast views.
std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing = "xy");
/// Lower / upper triangle of the last two dims (k > 0: above the main diagonal too for tril);
/// the rest is zero. where() with an index comparison: fuses into one kernel with its consumers.
Tensor tril(const Tensor& x, int64_t k = 0);
Tensor triu(const Tensor& x, int64_t k = 0);
/// NumPy's einsum: `subscripts` names each operand's dims with letters ("ij,jk->ik"), `...` for
/// broadcast dims; without "->" the output is the broadcast dims, then the letters used once, in
/// alphabetical order. A letter repeated in one operand takes its diagonal ("ii->i"); letters
/// missing from the output are summed. Composed of permute/reshape views, sums and one batched
/// matmul per pair of operands (contracted left to right): it fuses and differentiates.
Tensor einsum(std::string_view subscripts, const std::vector<Tensor>& operands);
/// n-th forward difference along `axis` (out[i] = x[i+1] - x[i], n times), after concatenating
/// `prepend` and `append` (optional; x's shape except along `axis`) around x. b8: x[i+1] != x[i].
Tensor diff(const Tensor& x, int64_t axis = -1, int64_t n = 1, const Tensor& prepend = Tensor(),
            const Tensor& append = Tensor());

}  // namespace cgrad
