// CUDA source of schedules without running them (see sources.h).
#include "backends/cuda/sources.h"

#include "backends/cpu/gemm.h"
#include "core/shape.hpp"
#include "ir/verify.h"
#include "passes/pipeline.h"

namespace cgrad::backends::cuda {

namespace {

using schedule::Access;
using schedule::Instr;
using schedule::KernelSpec;

// A loop kernel that copies the slot `in` (its schedule-time layout) into `out` at `offset` with
// `out_strides`, over `shape`. Adjacent dims that both sides walk contiguously are merged.
KernelSpec copy_spec(const schedule::Schedule& s, int in, int out, const Shape& shape, int64_t offset,
                     const core::Strides& out_strides, const std::string& why) {
  const schedule::Slot& is = s.slots[static_cast<std::size_t>(in)];
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
  k.stores = {schedule::Store{1, 0, false}};
  return k;
}

// A matmul as a reduction loop kernel, for what cuBLAS cannot take: integer GEMMs (cuBLAS has
// none) and float operands whose rows BLAS cannot address (broadcast or sliced: no leading
// dimension). Outer (batch..., i, j), inner p; each product is taken in the accumulator type
// (int64 with wrap-around, or double) and summed there, then cast to the result type, exactly as
// the interpreter's loop (interp_matmul).
KernelSpec gemm_loop_spec(const schedule::Schedule& s, const KernelSpec& g) {
  const schedule::Slot& as = s.slots[static_cast<std::size_t>(g.in_slots[0])];
  const schedule::Slot& bs = s.slots[static_cast<std::size_t>(g.in_slots[1])];
  const schedule::Slot& os = s.slots[static_cast<std::size_t>(g.out_slot)];
  const std::size_t r = as.shape.size();
  const DType t = os.dtype, acc_t = is_floating(t) ? DType::f64 : DType::i64;
  KernelSpec k;
  k.why = g.why + " (matmul cuBLAS cannot take: a loop kernel on the device)";
  k.outer = Shape(as.shape.begin(), as.shape.end() - 1);  // batch..., m
  k.outer.push_back(bs.shape[r - 1]);                       // n
  k.inner = {as.shape[r - 1]};                              // k
  const core::Strides ost = core::contiguous_strides(os.shape);
  Access a{g.in_slots[0], t, as.layout.offset, {}}, b{g.in_slots[1], t, bs.layout.offset, {}}, o{g.out_slot, t, 0, {}};
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
  k.reductions = {schedule::Reduction{ir::Op::Sum, t, acc_t, product}};
  Instr acc;
  acc.kind = Instr::Kind::Acc;
  acc.dtype = t;
  acc.reduction = 0;
  k.stores = {schedule::Store{2, push(acc), false}};
  return k;
}

// Whether cuBLAS can take the GEMM `g` (cublas_matmul's test, on the layouts the plan is keyed on).
bool blas_gemm(const schedule::Schedule& s, const KernelSpec& g) {
  const schedule::Slot& as = s.slots[static_cast<std::size_t>(g.in_slots[0])];
  const schedule::Slot& bs = s.slots[static_cast<std::size_t>(g.in_slots[1])];
  if (!is_floating(s.slots[static_cast<std::size_t>(g.out_slot)].dtype)) return false;
  const std::size_t r = as.shape.size();
  const int64_t m = as.shape[r - 2], kk = as.shape[r - 1], n = bs.shape[r - 1];
  bool tr = false;
  int64_t ld = 0;
  return cpu::gemm_layout(m, kk, as.layout.strides[r - 2], as.layout.strides[r - 1], tr, ld) &&
         cpu::gemm_layout(kk, n, bs.layout.strides[r - 2], bs.layout.strides[r - 1], tr, ld);
}

// `cat` and contiguous copies become loop kernels (one per input), so their data never leaves
// the device; the CPU runs them as library routines. So do GEMMs cuBLAS cannot take (one kernel).
void lower_copies(schedule::Schedule& s) {
  std::vector<KernelSpec> lowered;
  for (auto& k : s.kernels) {
    if (k.kind == KernelSpec::Kind::Gemm && !blas_gemm(s, k)) {
      lowered.push_back(gemm_loop_spec(s, k));
      continue;
    }
    if (k.kind != KernelSpec::Kind::Copy && k.kind != KernelSpec::Kind::Cat) {
      lowered.push_back(std::move(k));
      continue;
    }
    const schedule::Slot& os = s.slots[static_cast<std::size_t>(k.out_slot)];
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
}

}  // namespace

std::vector<codegen::CudaRendered> render_schedule(schedule::Schedule& s) {
  lower_copies(s);
  std::vector<codegen::CudaRendered> out(s.kernels.size());
  for (std::size_t i = 0; i < s.kernels.size(); ++i) {
    if (s.kernels[i].kind != schedule::KernelSpec::Kind::Loop) continue;
    codegen::normalize(s.kernels[i]);
    out[i] = codegen::render_cuda(s.kernels[i]);
  }
  return out;
}

std::vector<codegen::CudaRendered> render_subgraph(const ir::Subgraph& g) {
  schedule::Schedule s = schedule::make_schedule(g, schedule::Options{.staged_reductions = true});  // as cuda_backend
  if (s.interpret) return {};
  std::vector<codegen::CudaRendered> out;
  for (auto& r : render_schedule(s))
    if (!r.symbol.empty()) out.push_back(std::move(r));
  return out;
}

std::vector<std::string> kernel_sources(const std::vector<Tensor>& outputs) {
  std::vector<ir::NodePtr> nodes;
  std::vector<ir::Node*> roots;
  for (const Tensor& t : outputs) {
    nodes.push_back(t.node());
    if (!t.node()->realized()) roots.push_back(t.node().get());
  }
  if (roots.empty()) return {};
  passes::optimize(nodes);
  ir::Subgraph g = ir::make_subgraph(roots);
  ir::verify(g.order);
  std::vector<std::string> out;
  for (const auto& r : render_subgraph(g)) out.push_back(codegen::cuda_translation_unit({r}));
  return out;
}

}  // namespace cgrad::backends::cuda
