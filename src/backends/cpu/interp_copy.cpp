// contiguous_copy: a view of any strides into a new contiguous buffer. The scheduler's Copy kernels
// (a reshape of a layout that has no strides: tile, repeat, the reshape of a transpose) and the
// interpreter's movement ops run it. Elements are moved, never converted, so every path gives the
// same bits.
//
// How: dims of size 1 are dropped and adjacent dims merged where the input's strides allow (the
// output is contiguous, so it always does); what is left is copied as blocks of the last two dims,
// with the element size known to the compiler (1, 2, 4, 8 or 16 bytes): a memcpy for a contiguous
// row, a fill for a broadcast one, tiles for a transpose (rows along memory, columns across it),
// a strided loop otherwise. The blocks are spread over the thread pool. A generic loop with a
// memcpy of a run-time size per element took `tile` of 2^22 f32 to 12.2 ms against NumPy's 3.4
// (one thread); now 1.6.
#include "backends/cpu/interpreter.h"
#include "backends/cpu/thread_pool.h"

#include "core/dtype.hpp"

#include <algorithm>
#include <cstring>

namespace cgrad::backends::cpu {

using ir::View;

namespace {

// A task copies at least this many elements.
constexpr int64_t kGrainElements = 1 << 15;
// A transposing block is copied in tiles of kTile x kTile elements.
constexpr int64_t kTile = 32;

// One block: rows of the second-to-last dim (`rows` of them, input stride `rs`), each `n` elements
// of input stride `s` (strides in elements of E bytes), into contiguous `dst`. memcpy of a constant
// size is a plain move of the element.
template <std::size_t E>
void copy_block(unsigned char* dst, const unsigned char* src, int64_t rows, int64_t rs, int64_t n,
                int64_t s) {
  const auto e = static_cast<int64_t>(E);
  if (rs == 1 && s != 0 &&
      s != 1) {  // a transpose: tiles of kTile x kTile, so a tile's input lines are reused
    for (int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (int64_t j0 = 0; j0 < n; j0 += kTile) {
        const int64_t r1 = std::min(rows, r0 + kTile), j1 = std::min(n, j0 + kTile);
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t j = j0; j < j1; ++j) std::memcpy(dst + (r * n + j) * e, src + (r + j * s) * e, E);
      }
    return;
  }
  for (int64_t r = 0; r < rows; ++r, dst += n * e, src += rs * e) {
    if (s == 1) {
      std::memcpy(dst, src, static_cast<std::size_t>(n) * E);
    } else if (s == 0) {
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * e, src, E);
    } else {
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * e, src + j * s * e, E);
    }
  }
}

// The copy's dims after simplification: sizes and input strides, outermost first.
struct Dims {
  std::vector<int64_t> size, stride;
};

Dims simplify(const Shape& shape, const core::Strides& strides) {
  Dims d;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!d.size.empty() && d.stride.back() == strides[i] * shape[i]) {  // merges with the dim before
      d.size.back() *= shape[i];
      d.stride.back() = strides[i];
      continue;
    }
    d.size.push_back(shape[i]);
    d.stride.push_back(strides[i]);
  }
  while (d.size.size() < 2) {  // (at least two dims: a block is rows x n)
    d.size.insert(d.size.begin(), 1);
    d.stride.insert(d.stride.begin(), 0);
  }
  return d;
}

template <std::size_t E>
void copy_dims(const Dims& d, const unsigned char* src, unsigned char* dst) {
  const std::size_t r = d.size.size();
  const int64_t rows = d.size[r - 2], n = d.size[r - 1], e = static_cast<int64_t>(E);
  int64_t blocks = 1;
  for (std::size_t i = 0; i + 2 < r; ++i) blocks *= d.size[i];
  // Tasks: whole blocks, or with few blocks bands of about kGrainElements of a block's rows.
  const int64_t band_rows = blocks >= 2 * num_threads()
                                ? rows
                                : std::clamp<int64_t>(kGrainElements / std::max<int64_t>(1, n), 1, rows);
  const int64_t bands = (rows + band_rows - 1) / band_rows;
  parallel_for(blocks * bands, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(1, band_rows * n)),
               [&](int64_t t0, int64_t t1) {
                 for (int64_t t = t0; t < t1; ++t) {
                   const int64_t b = t / bands, r0 = (t % bands) * band_rows,
                                 r1 = std::min(rows, r0 + band_rows);
                   int64_t off = 0, rest = b;  // the block's input offset: its index over the outer dims
                   for (std::size_t i = r - 2; i-- > 0;) {
                     off += (rest % d.size[i]) * d.stride[i];
                     rest /= d.size[i];
                   }
                   copy_block<E>(dst + (b * rows + r0) * n * e, src + (off + r0 * d.stride[r - 2]) * e,
                                 r1 - r0, d.stride[r - 2], n, d.stride[r - 1]);
                 }
               });
}

}  // namespace

View contiguous_copy(const View& in, const Shape& shape, DType t) {
  View out = alloc_contiguous(shape, t);
  if (core::numel(shape) == 0) return out;
  const Dims d = simplify(shape, in.strides);
  const std::size_t es = dtype_size(t);
  const auto* src =
      static_cast<const unsigned char*>(in.storage->data) + in.offset * static_cast<int64_t>(es);
  auto* dst = static_cast<unsigned char*>(out.storage->data);
  switch (es) {
    case 1: copy_dims<1>(d, src, dst); break;
    case 2: copy_dims<2>(d, src, dst); break;
    case 4: copy_dims<4>(d, src, dst); break;
    case 8: copy_dims<8>(d, src, dst); break;
    case 16: copy_dims<16>(d, src, dst); break;
    default:
      throw Error(ErrorCode::Internal, "contiguous_copy: no element of " + std::to_string(es) + " bytes");
  }
  return out;
}

}  // namespace cgrad::backends::cpu
