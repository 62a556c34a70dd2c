// Target-specific lowering of a schedule: library kernels a target does not run as library
// routines become loop kernels. On a CUDA device `cat` and contiguous copies are loop kernels (one
// per cat input), so their data never leaves the device, and so is a GEMM cuBLAS cannot take
// (integer dtypes, operands without a leading dimension); the CPU runs all of them as library
// routines (and the interpreter's exact loops for what BLAS cannot take). runtime/lower.cpp calls
// it between scheduling and rendering; the rules that made these kernels are in docs/fusion.md.
#include "schedule/library_loops.h"

#include "core/shape.hpp"

namespace cgrad::schedule {

namespace {

// A loop kernel that copies the slot `in` (its schedule-time layout) into `out` at `offset` with
// `out_strides`, over `shape`. Adjacent dims that both sides walk contiguously are merged.
KernelSpec copy_spec(const Schedule& s, int in, int out, const Shape& shape, int64_t offset,
                     const core::Strides& out_strides, const std::string& why) {
  const Slot& is = s.slots[static_cast<std::size_t>(in)];
  KernelSpec k;
  k.why = why;
  Access src{in, is.dtype, is.layout.offset, is.layout.strides};
  Access dst{out, is.dtype, offset, out_strides};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (!k.outer.empty() && src.strides.size() > 0) {
      const std::size_t last = k.outer.size() - 1;
      auto mergeable = [&](const Access& a) { return a.strides[last] == a.strides[d] * shape[d]; };
      if (mergeable(src) && mergeable(dst)) {
        k.outer[last] *= shape[d];
        src.strides[last] = src.strides[d];
        dst.strides[last] = dst.strides[d];
        continue;
      }
    }
    const std::size_t at = k.outer.size();
    k.outer.push_back(shape[d]);
    src.strides[at] = src.strides[d];
    dst.strides[at] = dst.strides[d];
  }
  src.strides.resize(k.outer.size());
  dst.strides.resize(k.outer.size());
  k.accesses = {src, dst};
  Instr load;
  load.kind = Instr::Kind::Load;
  load.dtype = is.dtype;
  load.access = 0;
  k.code = {load};
  k.stores = {Store{1, 0, false}};
  return k;
}

// A matmul as a reduction loop kernel, for what cuBLAS cannot take: integer and complex GEMMs
// (the loader binds no integer or complex cuBLAS GEMM) and float operands whose rows BLAS cannot
// address (broadcast or sliced: no leading dimension). Outer (batch..., i, j), inner p; each
// product is taken in the accumulator type (int64 with wrap-around, double, or c128) and summed there, then
// cast to the result type, exactly as the interpreter's loop (interp_matmul).
KernelSpec gemm_loop_spec(const Schedule& s, const KernelSpec& g) {
  const Slot& as = s.slots[static_cast<std::size_t>(g.in_slots[0])];
  const Slot& bs = s.slots[static_cast<std::size_t>(g.in_slots[1])];
  const Slot& os = s.slots[static_cast<std::size_t>(g.out_slot)];
  const std::size_t r = as.shape.size();
  const DType t = os.dtype, acc_t = is_complex(t) ? DType::c128 : is_floating(t) ? DType::f64 : DType::i64;
  KernelSpec k;
  k.why = g.why + " (matmul cuBLAS cannot take: a loop kernel on the device)";
  k.outer = Shape(as.shape.begin(), as.shape.end() - 1);  // batch..., m
  k.outer.push_back(bs.shape[r - 1]);                     // n
  k.inner = {as.shape[r - 1]};                            // k
  const core::Strides ost = core::contiguous_strides(os.shape);
  Access a{g.in_slots[0], t, as.layout.offset, {}}, b{g.in_slots[1], t, bs.layout.offset, {}},
      o{g.out_slot, t, 0, {}};
  for (std::size_t d = 0; d + 2 < r; ++d) {
    a.strides.push_back(as.layout.strides[d]);
    b.strides.push_back(bs.layout.strides[d]);
    o.strides.push_back(ost[d]);
  }
  a.strides.insert(a.strides.end(), {as.layout.strides[r - 2], 0, as.layout.strides[r - 1]});
  b.strides.insert(b.strides.end(), {0, bs.layout.strides[r - 1], bs.layout.strides[r - 2]});
  o.strides.insert(o.strides.end(), {ost[r - 2], ost[r - 1], 0});
  k.accesses = {a, b, o};
  auto push = [&](Instr in) {
    k.code.push_back(in);
    return static_cast<int>(k.code.size()) - 1;
  };
  auto widened = [&](int access) {
    Instr load;
    load.kind = Instr::Kind::Load;
    load.dtype = t;
    load.access = access;
    const int l = push(load);
    if (t == acc_t) return l;
    Instr cast;
    cast.op = ir::Op::Cast;
    cast.dtype = acc_t;
    cast.in_dtype = t;
    cast.args = {l};
    return push(cast);
  };
  Instr mul;
  mul.op = ir::Op::Mul;
  mul.dtype = mul.in_dtype = acc_t;
  mul.args = {widened(0), widened(1)};
  const int product = push(mul);
  k.reductions = {Reduction{ir::Op::Sum, t, acc_t, product}};
  Instr acc;
  acc.kind = Instr::Kind::Acc;
  acc.dtype = t;
  acc.reduction = 0;
  k.stores = {Store{2, push(acc), false}};
  return k;
}

// Whether cuBLAS can take the GEMM `g` (cublas_matmul's test, on the layouts the plan is keyed on).
bool blas_gemm(const Schedule& s, const KernelSpec& g) {
  const Slot& as = s.slots[static_cast<std::size_t>(g.in_slots[0])];
  const Slot& bs = s.slots[static_cast<std::size_t>(g.in_slots[1])];
  if (!is_floating(s.slots[static_cast<std::size_t>(g.out_slot)].dtype)) return false;
  const std::size_t r = as.shape.size();
  const int64_t m = as.shape[r - 2], kk = as.shape[r - 1], n = bs.shape[r - 1];
  bool tr = false;
  int64_t ld = 0;
  return blas_layout(m, kk, as.layout.strides[r - 2], as.layout.strides[r - 1], tr, ld) &&
         blas_layout(kk, n, bs.layout.strides[r - 2], bs.layout.strides[r - 1], tr, ld);
}

}  // namespace

bool blas_layout(int64_t rows, int64_t cols, int64_t sr, int64_t sc, bool& transposed, int64_t& ld) {
  if (cols == 1) sc = 1;
  if (rows == 1) sr = cols;
  if (sc == 1 && sr >= cols) {
    transposed = false;
    ld = sr;
    return true;
  }
  if (sr == 1 && sc >= rows) {
    transposed = true;
    ld = sc;
    return true;
  }
  return false;
}

void library_kernels_to_loops(Schedule& s) {
  std::vector<KernelSpec> lowered;
  // Old kernel index -> its first lowered kernel, so kernel_of keeps naming the kernel that
  // computes each node (a cat's nodes name its first part).
  std::vector<int> first(s.kernels.size(), -1);
  for (std::size_t ki = 0; ki < s.kernels.size(); ++ki) {
    KernelSpec& k = s.kernels[ki];
    first[ki] = static_cast<int>(lowered.size());
    if (k.kind == KernelSpec::Kind::Gemm && !blas_gemm(s, k)) {
      lowered.push_back(gemm_loop_spec(s, k));
      continue;
    }
    if (k.kind != KernelSpec::Kind::Copy && k.kind != KernelSpec::Kind::Cat) {
      lowered.push_back(std::move(k));
      continue;
    }
    const Slot& os = s.slots[static_cast<std::size_t>(k.out_slot)];
    const core::Strides ost = core::contiguous_strides(os.shape);
    if (k.kind == KernelSpec::Kind::Copy) {
      lowered.push_back(copy_spec(s, k.in_slots[0], k.out_slot, os.shape, 0, ost, k.why));
      continue;
    }
    const auto axis = static_cast<std::size_t>(k.proto->attrs.axis);
    int64_t start = 0;
    for (int in : k.in_slots) {
      const Shape& sh = s.slots[static_cast<std::size_t>(in)].shape;
      lowered.push_back(copy_spec(s, in, k.out_slot, sh, start * ost[axis], ost, "cat: one input's part"));
      start += sh[axis];
    }
  }
  s.kernels = std::move(lowered);
  for (int& k : s.kernel_of)
    if (k >= 0) k = first[static_cast<std::size_t>(k)];
}

}  // namespace cgrad::schedule
