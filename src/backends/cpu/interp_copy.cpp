// copy_view: a view of any strides into another view (no overlaps) of the same shape: a new
// contiguous buffer (contiguous_copy: the scheduler's Copy kernels, for a reshape of a layout
// that has no strides: tile, repeat, the reshape of a transpose; the interpreter's movement ops)
// or one part of a `cat`'s output (interp_cat: roll is a cat of two slices). Elements are moved, never
// converted, so every path gives the same bits.
//
// How: dims of size 1 are dropped and adjacent dims merged where the input's and the output's
// strides allow; what is left is copied as blocks of the last two dims,
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
// A transposing block is copied in tiles of kTile x kTile elements, so that a tile's input lines
// serve all its rows; but input rows a multiple of kSetStride bytes apart all fall in one or two
// sets of the L1 cache (64 sets of 64 bytes on current x86 cores), which cannot hold a tile's
// kTile lines. Such blocks go in bands of kBandRows output rows instead; in each band, tiles of
// kTileCols output columns (input rows), the band's rows inner, as the banded element-wise kernels
// do (docs/fusion.md, "Transposed accesses"). 2048^2 f32, one thread: 32 x 32 tiles 5.2-5.7 ms,
// bands 3.0-3.9; 4096^2 34 -> 15. Bands everywhere lost elsewhere (1000^2 f32 0.29 -> 0.37 ms,
// 64 x 256 x 256 2.8-3.4 -> 3.6-4.5), so the tiles stay there (bench/NOTES.md, 2026-12-03).
constexpr int64_t kTile = 32;
constexpr int64_t kSetStride = 2048;
constexpr int64_t kBandRows = 128;
constexpr int64_t kTileCols = 16;

bool transposing(int64_t dj, int64_t rs, int64_t s) { return dj == 1 && rs == 1 && s != 0 && s != 1; }
bool banded(int64_t dj, int64_t rs, int64_t s, int64_t e) {
  return transposing(dj, rs, s) && s * e % kSetStride == 0;
}

// A transposing block (input rows along the output's columns): tiles of TR x TC elements, each
// TR output rows of TC elements.
template <std::size_t E, int64_t TR, int64_t TC>
void transpose_tiles(unsigned char* dst, int64_t ds, const unsigned char* src, int64_t rows, int64_t n,
                     int64_t s) {
  const auto e = static_cast<int64_t>(E);
  for (int64_t r0 = 0; r0 < rows; r0 += TR)
    for (int64_t j0 = 0; j0 < n; j0 += TC) {
      const int64_t r1 = std::min(rows, r0 + TR), j1 = std::min(n, j0 + TC);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t j = j0; j < j1; ++j) std::memcpy(dst + (r * ds + j) * e, src + (r + j * s) * e, E);
    }
}

// One block: rows of the second-to-last dim (`rows` of them, input stride `rs`, output stride
// `ds`), each `n` elements of input stride `s` and output stride `dj` (1 but for the parts of a
// cat along an axis of one element; strides in elements of E bytes). memcpy of a constant size is
// a plain move of the element.
template <std::size_t E>
void copy_block(unsigned char* dst, int64_t ds, int64_t dj, const unsigned char* src, int64_t rows,
                int64_t rs, int64_t n, int64_t s) {
  const auto e = static_cast<int64_t>(E);
  if (transposing(dj, rs, s)) {  // tiles of kTile x kTile, or bands (kSetStride)
    if (banded(dj, rs, s, e))
      transpose_tiles<E, kBandRows, kTileCols>(dst, ds, src, rows, n, s);
    else
      transpose_tiles<E, kTile, kTile>(dst, ds, src, rows, n, s);
    return;
  }
  for (int64_t r = 0; r < rows; ++r, dst += ds * e, src += rs * e) {
    if (s == 1 && dj == 1) {
      std::memcpy(dst, src, static_cast<std::size_t>(n) * E);
    } else if (s == 0 && dj == 1) {
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * e, src, E);
    } else {
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * dj * e, src + j * s * e, E);
    }
  }
}

// The copy's dims after simplification: sizes, input strides and output strides, outermost
// first.
struct Dims {
  std::vector<int64_t> size, stride, dstride;
};

Dims simplify(const Shape& shape, const core::Strides& strides, const core::Strides& dstrides) {
  Dims d;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!d.size.empty() && d.stride.back() == strides[i] * shape[i] &&
        d.dstride.back() == dstrides[i] * shape[i]) {  // merges with the dim before
      d.size.back() *= shape[i];
      d.stride.back() = strides[i];
      d.dstride.back() = dstrides[i];
      continue;
    }
    d.size.push_back(shape[i]);
    d.stride.push_back(strides[i]);
    d.dstride.push_back(dstrides[i]);
  }
  while (d.size.size() < 2) {  // (at least two dims: a block is rows x n)
    d.size.insert(d.size.begin(), 1);
    d.stride.insert(d.stride.begin(), 0);
    d.dstride.insert(d.dstride.begin(), 0);
  }
  return d;
}

template <std::size_t E>
void copy_dims(const Dims& d, const unsigned char* src, unsigned char* dst) {
  const std::size_t r = d.size.size();
  const int64_t rows = d.size[r - 2], n = d.size[r - 1], e = static_cast<int64_t>(E);
  int64_t blocks = 1;
  for (std::size_t i = 0; i + 2 < r; ++i) blocks *= d.size[i];
  // Tasks: whole blocks, or with few blocks bands of about kGrainElements of a block's rows (at
  // least kBandRows of a banded block's).
  const int64_t least = banded(d.dstride[r - 1], d.stride[r - 2], d.stride[r - 1], e) ? kBandRows : 1;
  const int64_t band_rows =
      blocks >= 2 * num_threads()
          ? rows
          : std::clamp<int64_t>(std::max(least, kGrainElements / std::max<int64_t>(1, n)), 1, rows);
  const int64_t bands = (rows + band_rows - 1) / band_rows;
  parallel_for(
      blocks * bands, std::max<int64_t>(1, kGrainElements / std::max<int64_t>(1, band_rows * n)),
      [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t b = t / bands, r0 = (t % bands) * band_rows, r1 = std::min(rows, r0 + band_rows);
          int64_t off = 0, doff = 0, rest = b;  // the block's offsets: its index over the outer dims
          for (std::size_t i = r - 2; i-- > 0;) {
            off += (rest % d.size[i]) * d.stride[i];
            doff += (rest % d.size[i]) * d.dstride[i];
            rest /= d.size[i];
          }
          copy_block<E>(dst + (doff + r0 * d.dstride[r - 2]) * e, d.dstride[r - 2], d.dstride[r - 1],
                        src + (off + r0 * d.stride[r - 2]) * e, r1 - r0, d.stride[r - 2], n, d.stride[r - 1]);
        }
      });
}

}  // namespace

void copy_view(const View& in, const Shape& shape, DType t, const View& out) {
  if (core::numel(shape) == 0) return;
  const Dims d = simplify(shape, in.strides, out.strides);
  const std::size_t es = dtype_size(t);
  const auto* src =
      static_cast<const unsigned char*>(in.storage->data) + in.offset * static_cast<int64_t>(es);
  auto* dst = static_cast<unsigned char*>(out.storage->data) + out.offset * static_cast<int64_t>(es);
  switch (es) {
    case 1: copy_dims<1>(d, src, dst); break;
    case 2: copy_dims<2>(d, src, dst); break;
    case 4: copy_dims<4>(d, src, dst); break;
    case 8: copy_dims<8>(d, src, dst); break;
    case 16: copy_dims<16>(d, src, dst); break;
    default: throw Error(ErrorCode::Internal, "copy_view: no element of " + std::to_string(es) + " bytes");
  }
}

View contiguous_copy(const View& in, const Shape& shape, DType t) {
  View out = alloc_contiguous(shape, t);
  copy_view(in, shape, t, out);
  return out;
}

}  // namespace cgrad::backends::cpu
