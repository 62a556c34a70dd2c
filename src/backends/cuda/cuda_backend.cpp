// CUDA backend: a lowered Program (runtime/lower.h) -> NVRTC (cached) -> launches on the device's stream.
#include "backends/cuda/cuda_backend.h"

#include "backends/cpu/gemm.h"
#include "backends/cpu/interpreter.h"
#include "backends/cuda/allocator.h"
#include "backends/cuda/device.h"
#include "backends/cuda/device_kernels.h"
#include "backends/cuda/module_cache.h"
#include "codegen/render_cuda.h"
#include "core/env.hpp"
#include "core/strided.hpp"
#include "ir/op_table.h"
#include "runtime/plan_slots.h"
#include "runtime/stats.h"
#include "schedule/library_loops.h"
#include "schedule/plan_memory.h"
#include "schedule/schedule.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>

namespace cgrad::backends::cuda {

using runtime::PlanSlots;
using schedule::KernelSpec;
using schedule::Slot;

namespace {

// Blocks per SM of a grid-stride launch: enough to hide latency, few enough to amortize setup.
constexpr int64_t kBlocksPerSm = 32;
// Rows this short are reduced by one thread each; longer rows get a block each.
constexpr int64_t kShortRow = 32;
// Inner elements per block of a split reduction, at least.
constexpr int64_t kChunkMin = 8192;
constexpr int64_t kMaxChunks = 1024;
// Blocks per SM a reduction should have: rows are split into chunks until there are this many
// (8 blocks of 256 threads fill an SM's 2048 threads; with 2, sum(a * b) over 2^28 f32 elements
// kept too few loads in flight and read at 28% of the copy bandwidth of an H200).
constexpr int64_t kReduceBlocksPerSm = 8;

int64_t product(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

CUdeviceptr dptr(const ir::View& v) { return reinterpret_cast<CUdeviceptr>(v.storage->data); }

struct CompiledKernel {
  CUfunction fn = nullptr;
  bool reduces = false;
  std::size_t acc_bytes = 0;
  bool whole_rows = false;  // staged reductions: a stage needs the one before finished over the row
};

// One kernel launch with its arguments held by value (a recorded launch outlives the call).
struct Launch {
  CUfunction fn = nullptr;
  unsigned blocks = 1;
  bool reduces = false;
  std::vector<uint64_t> words;  // the by-value argument struct
  CUdeviceptr partials = 0;
  long long chunks = 1;
  int mode = 0;
  std::array<void*, 4> params() {
    return {static_cast<void*>(words.data()), static_cast<void*>(&partials), static_cast<void*>(&chunks),
            static_cast<void*>(&mode)};
  }
  KernelNodeParams node(std::array<void*, 4>& p) const {
    return {fn, blocks, 1, 1, kBlock, 1, 1, 0, p.data(), nullptr};
  }
};

// A replayed plan as CUDA graphs (CGRAD_CUDA_GRAPHS=1): each run of generated kernels between
// two library calls (cuBLAS) is a chain of kernel nodes instantiated once; a replay updates each
// node's arguments (new buffers) and launches the graphs and library calls in plan order.
struct PlanGraph {
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<CUgraphNode> nodes;
  std::vector<std::pair<CUfunction, unsigned>> shape;  // what was instantiated
  ~PlanGraph() {
    if (exec) driver()->cuGraphExecDestroy(exec);
    if (graph) driver()->cuGraphDestroy(graph);
  }
};

struct CudaPlan final : runtime::Plan {
  int device = 0;
  schedule::Schedule sched;
  std::vector<CompiledKernel> kernels;
  PlanSlots slots;
  // Memory planning as on the CPU (docs/plans.md): intermediates of loop kernels share one
  // device arena per run; the last kernel may write over a free leaf (`x = f(x)` loops).
  schedule::MemoryPlan mem;
  std::vector<int64_t> shift;  // per slot: arena offset in elements (0 outside the arena)
  int64_t arena_bytes() const override { return mem.arena_bytes; }
  bool reuses_leaves() const override { return !mem.reuse.empty(); }
  // Constants uploaded on the first run and kept: a replay copies nothing to the device.
  // Plans run under realize()'s lock, one at a time.
  mutable std::map<std::size_t, ir::View> constants;
  mutable std::vector<std::unique_ptr<PlanGraph>> graphs;  // per segment between library calls
};

std::atomic<uint64_t> g_graph_launches{0};

// The launches of one run of a plan: queued on the stream at once, or recorded for a graph.
struct Launcher {
  DeviceContext& d;
  bool record;
  std::size_t segment = 0;  // the graph the recorded launches go to
  std::vector<Launch> recorded;
  std::vector<std::shared_ptr<ir::Storage>> scratch;  // alive until the launches are queued

  Launcher(DeviceContext& dc, bool rec) : d(dc), record(rec) {}

  void operator()(Launch l) {
    if (record) {
      recorded.push_back(std::move(l));
      return;
    }
    auto p = l.params();
    check(driver()->cuLaunchKernel(l.fn, l.blocks, 1, 1, kBlock, 1, 1, 0, d.stream, p.data(), nullptr),
          "cuLaunchKernel");
  }

  // Queues the launches recorded since the last library call as the plan's graph of this
  // segment (built on the first replay); call before a library call and at the end.
  void flush(const CudaPlan& plan) {
    if (recorded.empty()) return;
    const Driver* drv = driver();
    std::vector<std::pair<CUfunction, unsigned>> shape;
    for (const auto& l : recorded) shape.emplace_back(l.fn, l.blocks);
    if (plan.graphs.size() <= segment) plan.graphs.resize(segment + 1);
    auto& g = plan.graphs[segment++];
    if (!g || g->shape != shape) {
      g = std::make_unique<PlanGraph>();
      check(drv->cuGraphCreate(&g->graph, 0), "cuGraphCreate");
      for (auto& l : recorded) {
        auto p = l.params();
        KernelNodeParams np = l.node(p);
        CUgraphNode n = nullptr;
        const CUgraphNode* dep = g->nodes.empty() ? nullptr : &g->nodes.back();
        check(drv->cuGraphAddKernelNode(&n, g->graph, dep, dep ? 1 : 0, &np), "cuGraphAddKernelNode");
        g->nodes.push_back(n);
      }
      check(drv->cuGraphInstantiateWithFlags(&g->exec, g->graph, 0), "cuGraphInstantiateWithFlags");
      g->shape = std::move(shape);
    } else {
      for (std::size_t i = 0; i < recorded.size(); ++i) {
        auto p = recorded[i].params();
        KernelNodeParams np = recorded[i].node(p);
        check(drv->cuGraphExecKernelNodeSetParams(g->exec, g->nodes[i], &np),
              "cuGraphExecKernelNodeSetParams");
      }
    }
    check(drv->cuGraphLaunch(g->exec, d.stream), "cuGraphLaunch");
    g_graph_launches.fetch_add(1, std::memory_order_relaxed);
    recorded.clear();
    scratch.clear();
  }
};

ir::View alloc_contiguous_device(int device, const Shape& shape, DType t) {
  ir::View v;
  v.storage = allocate_device(device, static_cast<std::size_t>(core::numel(shape)) * dtype_size(t));
  v.strides = core::contiguous_strides(shape);
  return v;
}

unsigned grid(int64_t blocks) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(blocks, 2147483647)));
}

// `shift`: per slot, elements to add to every access of it (arena slots), or nullptr.
void launch_loop(Launcher& launch, const KernelSpec& k, const CompiledKernel& c,
                 const std::vector<ir::View>& views, const int64_t* shift) {
  DeviceContext& d = launch.d;
  const int64_t no = product(k.outer);
  if (no == 0) return;
  const std::size_t na = k.accesses.size();
  std::vector<uint64_t> bufs(na, 0);
  for (std::size_t a = 0; a < na; ++a)
    if (k.accesses[a].slot >= 0) bufs[a] = dptr(views[static_cast<std::size_t>(k.accesses[a].slot)]);
  Launch l;
  l.fn = c.fn;
  l.reduces = c.reduces;
  l.words = codegen::cuda_kernel_args(k, bufs);
  if (shift)  // the argument struct holds the buffers, then each access's offset
    for (std::size_t a = 0; a < na; ++a)
      if (k.accesses[a].slot >= 0) l.words[na + a] += static_cast<uint64_t>(shift[k.accesses[a].slot]);
  const int64_t grid_cap = static_cast<int64_t>(d.sm_count) * kBlocksPerSm;
  runtime::counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
  if (!c.reduces) {
    l.blocks = grid(std::min<int64_t>((no + kBlock - 1) / kBlock, grid_cap));
    launch(std::move(l));
    return;
  }
  const int64_t ni = product(k.inner);
  if (ni <= kShortRow) {
    l.mode = 1;
    l.blocks = grid(std::min<int64_t>((no + kBlock - 1) / kBlock, grid_cap));
    launch(std::move(l));
    return;
  }
  l.chunks = std::min<int64_t>(
      {kMaxChunks, (kReduceBlocksPerSm * d.sm_count + no - 1) / no, (ni + kChunkMin - 1) / kChunkMin});
  if (l.chunks <= 1 || c.whole_rows) {
    l.chunks = 1;
    l.blocks = grid(std::min<int64_t>(no, grid_cap));
    launch(std::move(l));
    return;
  }
  // Few long rows: split each row into chunks (stage one), merge them in order (stage two).
  // The scratch returns to the pool once queued; later users are queued behind these launches.
  auto scratch = allocate_device(d.index, static_cast<std::size_t>(no * l.chunks) * c.acc_bytes);
  l.partials = reinterpret_cast<CUdeviceptr>(scratch->data);
  launch.scratch.push_back(std::move(scratch));
  Launch second = l;
  l.mode = 2;
  l.blocks = grid(std::min<int64_t>(no * l.chunks, grid_cap));
  launch(std::move(l));
  second.mode = 3;
  second.blocks = grid(std::min<int64_t>(no, grid_cap));
  launch(std::move(second));
}

// Matmul through cuBLAS: row-major C = A B is column-major C^T = B^T A^T. False when the
// dtype or an operand's layout needs the host path.
bool cublas_matmul(DeviceContext& d, const ir::Node& n, const ir::View& a, const ir::View& b, ir::View& out) {
  int64_t m = 0, k = 0, nn = 0;
  // Complex GEMMs take schedule/library_loops' loop kernel (the loader binds no Cgemm/Zgemm).
  if (!cublas() || is_complex(n.dtype) || !cpu::gemm_dims(n, m, k, nn)) return false;
  const Shape& as = n.inputs[0]->shape;
  const std::size_t r = as.size();
  bool tra = false, trb = false;
  int64_t lda = 0, ldb = 0;
  if (!schedule::blas_layout(m, k, a.strides[r - 2], a.strides[r - 1], tra, lda)) return false;
  if (!schedule::blas_layout(k, nn, b.strides[r - 2], b.strides[r - 1], trb, ldb)) return false;
  if (!out.storage) out = alloc_contiguous_device(d.index, n.shape, n.dtype);  // else: its arena place
  if (m == 0 || nn == 0) return true;
  const std::size_t es = dtype_size(n.dtype);
  if (k == 0) {  // C = 0: a zero-size product
    std::vector<unsigned char> zeros(static_cast<std::size_t>(core::numel(n.shape)) * es, 0);
    check(driver()->cuMemcpyHtoDAsync(dptr(out) + static_cast<CUdeviceptr>(out.offset) * es, zeros.data(),
                                      zeros.size(), d.stream),
          "cuMemcpyHtoDAsync");
    d.synchronize();  // `zeros` is pageable host memory that goes away now
    return true;
  }
  cublasHandle_t h = blas_handle(d);
  const Cublas* cb = cublas();
  const Shape batch(as.begin(), as.end() - 2);
  const int oa = tra ? kCublasOpT : kCublasOpN, ob = trb ? kCublasOpT : kCublasOpN;
  const auto M = static_cast<int>(m), N = static_cast<int>(nn), K = static_cast<int>(k);
  const auto LDA = static_cast<int>(lda), LDB = static_cast<int>(ldb);
  std::array<const int64_t*, 3> st{a.strides.data(), b.strides.data(), out.strides.data()};
  d.make_current();
  core::for_each_strided<3>(
      batch, st, {a.offset, b.offset, out.offset}, [&](int64_t ao, int64_t bo, int64_t oo) {
        const CUdeviceptr A = dptr(a) + static_cast<CUdeviceptr>(ao) * es,
                          B = dptr(b) + static_cast<CUdeviceptr>(bo) * es;
        const CUdeviceptr C = dptr(out) + static_cast<CUdeviceptr>(oo) * es;
        int status = 0;
        if (n.dtype == DType::f32) {
          const float one = 1, zero = 0;
          status = cb->cublasSgemmStridedBatched(h, ob, oa, N, M, K, &one, reinterpret_cast<const float*>(B),
                                                 LDB, 0, reinterpret_cast<const float*>(A), LDA, 0, &zero,
                                                 reinterpret_cast<float*>(C), N, 0, 1);
        } else {
          const double one = 1, zero = 0;
          status = cb->cublasDgemmStridedBatched(h, ob, oa, N, M, K, &one, reinterpret_cast<const double*>(B),
                                                 LDB, 0, reinterpret_cast<const double*>(A), LDA, 0, &zero,
                                                 reinterpret_cast<double*>(C), N, 0, 1);
        }
        if (status != 0)
          throw Error(ErrorCode::ExecutionFailed, "cuBLAS gemm failed with status " + std::to_string(status));
      });
  return true;
}

}  // namespace

CudaBackend::CudaBackend(int index) : index_(index), name_("cuda:" + std::to_string(index)) {}

std::shared_ptr<ir::Storage> CudaBackend::allocate(std::size_t nbytes) {
  return allocate_device(index_, nbytes);
}

ir::View CudaBackend::upload(const ir::View& host, const Shape& shape, DType t) {
  DeviceContext& d = device_context(index_);
  ir::View src = host;
  if (src.strides != core::contiguous_strides(shape) || src.offset != 0)
    src = cpu::contiguous_copy(host, shape, t);
  ir::View out = alloc_contiguous_device(index_, shape, t);
  const std::size_t bytes = static_cast<std::size_t>(core::numel(shape)) * dtype_size(t);
  d.make_current();
  // From pageable memory the driver stages the bytes before the call returns, so `src` may go.
  if (bytes)
    check(driver()->cuMemcpyHtoDAsync(dptr(out), src.storage->data, bytes, d.stream), "cuMemcpyHtoDAsync");
  return out;
}

ir::View CudaBackend::download(const ir::View& dev, const Shape& shape, DType t) {
  DeviceContext& d = device_context(index_);
  // The whole storage comes over, then the view is made contiguous on the host: any layout.
  ir::View host;
  host.storage = runtime::allocate_host(dev.storage->nbytes);
  host.offset = dev.offset;
  host.strides = dev.strides;
  d.make_current();
  if (dev.storage->nbytes)
    check(driver()->cuMemcpyDtoHAsync(host.storage->data, dptr(dev), dev.storage->nbytes, d.stream),
          "cuMemcpyDtoHAsync");
  d.synchronize();
  if (host.strides == core::contiguous_strides(shape) && host.offset == 0) return host;
  return cpu::contiguous_copy(host, shape, t);
}

namespace {

// A GEMM when cuBLAS does not load (target lowering, schedule/library_loops, made every other
// GEMM cuBLAS cannot take a loop kernel): computed on the host from downloaded inputs by the
// interpreter's routine, the result uploaded. Correct, not fast (docs/cuda.md).
ir::View host_kernel(CudaBackend& be, const KernelSpec& k, const std::vector<const ir::View*>& ins,
                     const schedule::Schedule& s) {
  std::vector<ir::View> host;
  std::vector<const ir::View*> ptrs;
  host.reserve(ins.size());
  for (std::size_t i = 0; i < ins.size(); ++i) {
    const Slot& sl = s.slots[static_cast<std::size_t>(k.in_slots[i])];
    host.push_back(be.download(*ins[i], sl.shape, sl.dtype));
  }
  for (auto& h : host) ptrs.push_back(&h);
  const Slot& os = s.slots[static_cast<std::size_t>(k.out_slot)];
  bool launched = false;
  return be.upload(cpu::interpret_node(*k.proto, ptrs, &launched), os.shape, os.dtype);
}

// Runs a plan. A replay with CGRAD_CUDA_GRAPHS=1 goes to the device as CUDA graphs, one per run
// of generated kernels between library calls; otherwise each kernel is queued as it comes.
void execute(CudaBackend& be, const CudaPlan& p, const std::vector<const ir::Node*>& leaves,
             const std::vector<ir::Node*>& roots, bool replay) {
  DeviceContext& d = device_context(p.device);
  d.make_current();
  Launcher launcher(d, replay && core::env().cuda_graphs && driver()->has_graphs());
  const auto& s = p.sched;
  std::vector<ir::View> views(s.slots.size());
  auto leaf = [&](const ir::Node& n) {
    if (n.value.storage->device != Device::cuda(p.device))
      throw Error(ErrorCode::DeviceError,
                  std::string(be.name()) + ": an input lives on " + n.value.storage->device.str());
    return n.value;
  };
  auto constant = [&](const Slot& sl) {  // one element, zero strides
    const auto at = static_cast<std::size_t>(&sl - s.slots.data());
    auto it = p.constants.find(at);
    if (it != p.constants.end()) return it->second;
    ir::View one = cpu::interp_source(*sl.proto);
    one.offset = 0;
    one.strides = {1};
    ir::View v = be.upload(one, {1}, sl.dtype);
    v.strides = sl.layout.strides;
    p.constants.emplace(at, v);
    return v;
  };
  // CGRAD_MEMORY_PLAN=0: every intermediate in its own buffer, all kept until the plan ends.
  const bool planned = core::env().memory_plan;
  std::shared_ptr<ir::Storage> arena;
  if (planned && p.mem.arena_bytes > 0) {
    arena = allocate_device(p.device, static_cast<std::size_t>(p.mem.arena_bytes));
    launcher.scratch.push_back(arena);  // alive until the launches are queued
  }
  const int64_t* shift = arena ? p.shift.data() : nullptr;
  auto bind = [&]() { bind_views(s, p.slots, leaves, views, leaf, constant, shift); };
  bind();
  for (std::size_t ki = 0; ki < s.kernels.size(); ++ki) {
    const KernelSpec& k = s.kernels[ki];
    if (k.kind == KernelSpec::Kind::Loop) {
      if (planned && ki + 1 == s.kernels.size()) reuse_free_leaves(s, p.slots, p.mem, views);
      for (auto& st : k.stores) {
        const auto slot = static_cast<std::size_t>(k.accesses[static_cast<std::size_t>(st.access)].slot);
        if (views[slot].storage) continue;
        const schedule::Slot& sl = s.slots[slot];
        views[slot] = arena && p.mem.offset[slot] >= 0
                          ? ir::View{arena, p.shift[slot], core::contiguous_strides(sl.shape)}
                          : alloc_contiguous_device(p.device, sl.shape, sl.dtype);
      }
      bind();
      launch_loop(launcher, k, p.kernels[ki], views, shift);
    } else {
      launcher.flush(p);  // the kernels before it are on the stream first
      std::vector<const ir::View*> ins;
      for (int sl : k.in_slots) ins.push_back(&views[static_cast<std::size_t>(sl)]);
      const auto out = static_cast<std::size_t>(k.out_slot);
      auto& o = views[out];
      const Slot& os = s.slots[out];
      const bool in_arena = arena && p.mem.offset[out] >= 0;
      if (in_arena) o = ir::View{arena, p.shift[out], core::contiguous_strides(os.shape)};
      // devkern group: sort/argsort and scatter_add as device kernels (device_kernels.h);
      // complex sorts stay on the host.
      std::vector<DeviceLaunch> dev;
      const bool on_device = (k.kind == KernelSpec::Kind::Sort &&
                              sort_launches(d, *k.proto, *ins[0], o, launcher.scratch, dev)) ||
                             (k.kind == KernelSpec::Kind::Scatter &&
                              scatter_launches(d, *k.proto, *ins[0], *ins[1], *ins[2], o, dev));
      for (DeviceLaunch& dl : dev) {
        Launch l;
        l.fn = dl.fn;
        l.blocks = dl.blocks;
        l.words = std::move(dl.words);
        launcher(std::move(l));
      }
      // A collective runs on host copies (no GPU-aware MPI yet: docs/distributed.md).
      if (!on_device &&
          (k.kind == KernelSpec::Kind::Collective || k.kind == KernelSpec::Kind::Sort ||
           k.kind == KernelSpec::Kind::Scatter || !cublas_matmul(d, *k.proto, *ins[0], *ins[1], o))) {
        ir::View h = host_kernel(be, k, ins, s);
        const std::size_t es = dtype_size(os.dtype),
                          bytes = static_cast<std::size_t>(core::numel(os.shape)) * es;
        if (!in_arena)
          o = h;
        else if (bytes)
          check(driver()->cuMemcpyDtoDAsync(dptr(o) + static_cast<CUdeviceptr>(o.offset) * es, dptr(h), bytes,
                                            d.stream),
                "cuMemcpyDtoDAsync");
        launcher.scratch.push_back(h.storage);  // queued copies read it
        runtime::counters().host_kernels.fetch_add(1, std::memory_order_relaxed);
      }
      runtime::counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
    }
    bind();
    // Stream order makes a released buffer safe to reuse at once (docs/devices.md).
    if (planned)
      for (int dead : p.mem.release[ki]) views[static_cast<std::size_t>(dead)] = ir::View{};
  }
  launcher.flush(p);
  realize_outputs(p.slots, views, roots);
}

}  // namespace

std::shared_ptr<runtime::Plan> CudaBackend::run(runtime::Program& p) {
  DeviceContext& d = device_context(index_);
  auto plan = std::make_shared<CudaPlan>();
  plan->device = index_;
  plan->kernels.resize(p.code.size());
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const runtime::KernelCode& c = p.code[i];
    if (!c.symbol.empty())
      plan->kernels[i] = {kernel_function(d, p.source, c.symbol), c.has_reductions, c.acc_bytes,
                          c.whole_rows};
  }
  plan->sched = std::move(p.sched);
  plan->slots = std::move(p.slots);
  plan->mem = std::move(p.mem);
  plan->shift = std::move(p.shift);
  execute(*this, *plan, p.leaves, p.roots, false);
  return p.replayable ? plan : nullptr;
}

void CudaBackend::replay(const runtime::Plan& plan, const std::vector<const ir::Node*>& leaves,
                         const std::vector<ir::Node*>& roots) {
  execute(*this, static_cast<const CudaPlan&>(plan), leaves, roots, true);
}

CudaBackend& cuda_backend(int index) {
  static std::mutex mutex;
  static auto* backends = new std::map<int, std::unique_ptr<CudaBackend>>();  // never destroyed
  require_device(Device::cuda(index), "cuda");
  std::lock_guard<std::mutex> lock(mutex);
  auto& b = (*backends)[index];
  if (!b) b = std::make_unique<CudaBackend>(index);
  return *b;
}

uint64_t graph_launches() { return g_graph_launches.load(std::memory_order_relaxed); }

}  // namespace cgrad::backends::cuda
