// JIT backend: compiles a Program (runtime/lower.h) through the kernel cache and launches its
// kernels on the thread pool.
#include "backends/cpu/jit_backend.h"

#include "backends/cpu/gemm.h"
#include "backends/cpu/interpreter.h"
#include "backends/cpu/jit/compiler.h"
#include "backends/cpu/jit_units.h"
#include "backends/cpu/thread_pool.h"
#include "codegen/kernel_parts.h"
#include "codegen/render_cpu.h"
#include "core/env.hpp"
#include "ir/op_table.h"
#include "runtime/kernel_cache.h"
#include "runtime/plan_slots.h"
#include "runtime/result_cache.h"
#include "runtime/stats.h"
#include "schedule/plan_memory.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

namespace cgrad::backends::cpu {

using runtime::PlanSlots;
using schedule::KernelSpec;
using schedule::Slot;

namespace {

struct KArgs {
  void* const* bufs;
  const int64_t* offsets;
  const int64_t* strides;
  const int64_t* outer;
  const int64_t* inner;
  const double* fconsts;
  const int64_t* iconsts;
};
using EntryFn = void (*)(const KArgs*, int64_t, int64_t);
using PartFn = void (*)(const KArgs*, int64_t, int64_t, int64_t, void*);
using MergeFn = void (*)(void*, const void*);
using FinFn = void (*)(const KArgs*, int64_t, const void*, int64_t, int64_t, int);
using SizeFn = int64_t (*)();
using InitFn = void (*)(void*);

struct Compiled {
  EntryFn entry = nullptr;
  PartFn part = nullptr;
  MergeFn merge = nullptr;
  FinFn fin = nullptr;
  InitFn init = nullptr;
  int64_t acc_size = 0;
};

// Builds (or loads) every part at once (up to kMaxCompileThreads), also where the machine has fewer
// hardware threads: the compilers then share the cores, and no part waits for one to finish (the
// MLP step's three parts on two cores: the third started only when the first ended, a core idle
// meanwhile). The first error of the lowest part is rethrown after all have finished, so which
// error surfaces is deterministic.
void build_parts(const std::vector<Part>& parts, const std::string& tk, const runtime::CompileFn& fn) {
  auto& cache = runtime::kernel_cache();
  std::vector<std::exception_ptr> errors(parts.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < parts.size();) {
      try {
        cache.get(parts[i].source, parts[i].symbols.front(), tk, fn);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t helpers = std::min<std::size_t>(kMaxCompileThreads, parts.size()) - 1;
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < helpers; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Bytes of the host blocks a first run of `p` takes from the pool (execute): the arena, then
// every kernel's output outside it, in kernel order. An estimate (a block released early is
// taken again later), used only to fault pages in ahead of the run.
std::vector<std::size_t> first_run_blocks(const runtime::Program& p) {
  const bool planned = core::env().memory_plan;
  std::vector<std::size_t> out;
  if (planned && p.mem.arena_bytes > 0) out.push_back(static_cast<std::size_t>(p.mem.arena_bytes));
  std::vector<char> seen(p.sched.slots.size(), 0);
  auto add = [&](int slot) {
    const auto i = static_cast<std::size_t>(slot);
    if (slot < 0 || i >= seen.size() || seen[i]) return;
    seen[i] = 1;
    const Slot& sl = p.sched.slots[i];
    if (sl.kind != Slot::Kind::Temp || (planned && i < p.mem.offset.size() && p.mem.offset[i] >= 0)) return;
    out.push_back(static_cast<std::size_t>(core::numel(sl.shape)) * dtype_size(sl.dtype));
  };
  for (const KernelSpec& k : p.sched.kernels) {
    if (k.kind == KernelSpec::Kind::Loop)
      for (const auto& st : k.stores) add(k.accesses[static_cast<std::size_t>(st.access)].slot);
    else
      add(k.out_slot);
  }
  return out;
}

// Compiles the Program's kernels (kernel cache: memory, then disk, then the compiler), as one or
// several translation units (split_units). With `async`, returns an empty vector at once when a
// unit is not compiled yet (background compiles start for every such unit). Without it, the first
// compile also starts faulting in the run's fresh buffers beside the compiler (HostPrefault).
std::vector<Compiled> compile_kernels(const runtime::Program& p, bool async) {
  std::vector<Compiled> out(p.code.size());
  if (p.source.empty()) return out;  // only library kernels: nothing to compile
  auto& cache = runtime::kernel_cache();
  const auto& tk = jit::toolchain_key();
  std::optional<runtime::HostPrefault> prefault;
  runtime::CompileFn fn = jit::compile_fn();
  if (!async) {
    prefault.emplace(first_run_blocks(p));
    fn = [&prefault, compile = std::move(fn)](const std::string& src, const std::string& so) {
      prefault->start();
      compile(src, so);
    };
  }
  const std::vector<Part> parts = split_units(p);
  if (async) {
    bool ready = true;
    for (const Part& part : parts) ready = cache.try_get(part.source, part.symbols.front(), tk, fn) && ready;
    if (!ready) return {};
  } else if (parts.size() > 1) {
    build_parts(parts, tk, fn);
  }
  std::map<std::string, const std::string*> unit_of;  // symbol -> the source of its unit
  for (const Part& part : parts)
    for (const auto& symbol : part.symbols) unit_of.emplace(symbol, &part.source);
  auto sym = [&](const std::string& kernel, const std::string& name) {
    return cache.get(*unit_of.at(kernel), name, tk, fn);
  };
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const runtime::KernelCode& r = p.code[i];
    if (r.symbol.empty()) continue;
    Compiled& c = out[i];
    c.entry = reinterpret_cast<EntryFn>(sym(r.symbol, r.symbol));
    if (r.has_reductions && !r.whole_rows) {
      c.part = reinterpret_cast<PartFn>(sym(r.symbol, r.symbol + "_part"));
      c.merge = reinterpret_cast<MergeFn>(sym(r.symbol, r.symbol + "_merge"));
      c.fin = reinterpret_cast<FinFn>(sym(r.symbol, r.symbol + "_fin"));
      c.init = reinterpret_cast<InitFn>(sym(r.symbol, r.symbol + "_acc_init"));
      c.acc_size = reinterpret_cast<SizeFn>(sym(r.symbol, r.symbol + "_acc_size"))();
    }
  }
  return out;
}

int64_t product(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Elements per task: enough work to amortize a task, small enough to balance two cores.
constexpr int64_t kGrain = codegen::kCpuGrain;
// A reduction splits its inner loop into this many chunks at most when there are too few
// outer elements to share: fixed, so results never depend on the thread count.
constexpr int64_t kMaxChunks = 64;

// `shift`: per slot, elements to add to every access of it (arena slots), or nullptr.
void launch_loop(const KernelSpec& k, const Compiled& c, const std::vector<ir::View>& slots,
                 const int64_t* shift) {
  const int64_t no = product(k.outer);
  if (no == 0) return;
  const std::size_t na = k.accesses.size();
  const std::size_t rank = k.outer.size() + k.inner.size();
  std::vector<void*> bufs(na, nullptr);
  std::vector<int64_t> offsets(na), strides(na * rank);
  for (std::size_t a = 0; a < na; ++a) {
    const auto& acc = k.accesses[a];
    if (acc.slot >= 0) bufs[a] = slots[static_cast<std::size_t>(acc.slot)].storage->data;
    offsets[a] = acc.offset + (shift && acc.slot >= 0 ? shift[acc.slot] : 0);
    for (std::size_t d = 0; d < rank; ++d) strides[a * rank + d] = acc.strides[d];
  }
  KArgs args{bufs.data(),    offsets.data(),   strides.data(),  k.outer.data(),
             k.inner.data(), k.fconsts.data(), k.iconsts.data()};
  runtime::counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
  if (k.reductions.empty()) {
    parallel_for(no, kGrain, [&](int64_t b, int64_t e) { c.entry(&args, b, e); });
    return;
  }
  const int64_t ni = product(k.inner);
  const int threads = num_threads();
  // (staged reductions and rows under codegen::kCpuSplitRowsFrom have no `part`: whole rows only)
  if (no >= 2 * threads || ni < codegen::kCpuSplitRowsFrom || !c.part) {
    parallel_for(no, std::max<int64_t>(1, kGrain / std::max<int64_t>(ni, 1)),
                 [&](int64_t b, int64_t e) { c.entry(&args, b, e); });
    return;
  }
  // Few outer elements, long rows: split each row into fixed chunks, combine partials in order.
  const int64_t chunks = std::min<int64_t>(kMaxChunks, (ni + kGrain - 1) / kGrain);
  const auto asz = static_cast<std::size_t>(c.acc_size);
  std::vector<unsigned char> partials(asz * static_cast<std::size_t>(chunks)), acc(asz);
  for (int64_t o = 0; o < no; ++o) {
    parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t ch = b; ch < e; ++ch)
        c.part(&args, o, ni * ch / chunks, ni * (ch + 1) / chunks,
               partials.data() + asz * static_cast<std::size_t>(ch));
    });
    c.init(acc.data());
    for (int64_t ch = 0; ch < chunks; ++ch)
      c.merge(acc.data(), partials.data() + asz * static_cast<std::size_t>(ch));
    parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t ch = b; ch < e; ++ch)
        c.fin(&args, o, acc.data(), ni * ch / chunks, ni * (ch + 1) / chunks, ch == 0 ? 1 : 0);
    });
  }
}

// A schedule with its compiled kernels: replayed on new leaves without planning again.
struct JitPlan final : runtime::Plan {
  schedule::Schedule sched;
  std::vector<Compiled> compiled;
  PlanSlots slots;
  schedule::MemoryPlan mem;
  std::vector<int64_t> shift;  // per slot: arena offset in elements (0 outside the arena)
  int64_t arena_bytes() const override { return mem.arena_bytes; }
  bool reuses_leaves() const override { return !mem.reuse.empty(); }
};

// Runs a plan: binds leaves, allocates outputs of kernels, launches in order, realizes roots.
void execute(const JitPlan& p, const std::vector<const ir::Node*>& leaves,
             const std::vector<ir::Node*>& roots) {
  const auto& s = p.sched;
  std::vector<ir::View> views(s.slots.size());
  // CGRAD_MEMORY_PLAN=0: every intermediate in its own buffer, all kept until the plan ends.
  const bool planned = core::env().memory_plan;
  std::shared_ptr<ir::Storage> arena;
  if (planned && p.mem.arena_bytes > 0)
    arena = runtime::allocate_host(static_cast<std::size_t>(p.mem.arena_bytes));
  const int64_t* shift = arena ? p.shift.data() : nullptr;
  auto output_view = [&](std::size_t slot) {
    const Slot& sl = s.slots[slot];
    if (arena && p.mem.offset[slot] >= 0)
      return ir::View{arena, p.shift[slot], core::contiguous_strides(sl.shape)};
    return alloc_contiguous(sl.shape, sl.dtype);
  };
  auto bind = [&]() {
    bind_views(
        s, p.slots, leaves, views, [](const ir::Node& n) { return n.value; },
        [](const Slot& sl) { return interp_source(*sl.proto); }, shift);
  };
  bind();
  for (std::size_t ki = 0; ki < s.kernels.size(); ++ki) {
    const KernelSpec& k = s.kernels[ki];
    if (k.kind == KernelSpec::Kind::Loop) {
      if (planned && ki + 1 == s.kernels.size()) reuse_free_leaves(s, p.slots, p.mem, views);
      for (auto& st : k.stores) {
        auto slot = static_cast<std::size_t>(k.accesses[static_cast<std::size_t>(st.access)].slot);
        if (!views[slot].storage) views[slot] = output_view(slot);
      }
      bind();
      launch_loop(k, p.compiled[ki], views, shift);
    } else {
      std::vector<const ir::View*> ins;
      for (int sl : k.in_slots) ins.push_back(&views[static_cast<std::size_t>(sl)]);
      bool launched = false;
      auto& o = views[static_cast<std::size_t>(k.out_slot)];
      if (k.kind == KernelSpec::Kind::Gemm && arena &&
          p.mem.offset[static_cast<std::size_t>(k.out_slot)] >= 0)
        o = output_view(static_cast<std::size_t>(k.out_slot));
      if (k.kind == KernelSpec::Kind::Copy) {
        const Slot& os = s.slots[static_cast<std::size_t>(k.out_slot)];
        o = contiguous_copy(*ins[0], os.shape, os.dtype);
      } else if (k.kind == KernelSpec::Kind::Gemm) {
        // Into `o`, the planned arena slot when there is one: consumers add that slot's arena
        // offset (`shift`), so a result in a fresh buffer would be read out of bounds. BLAS
        // does f32/f64; integer GEMMs (or no BLAS) take the interpreter's loops, same contract.
        if (!fast_matmul(*k.proto, *ins[0], *ins[1], o)) interp_matmul_into(*k.proto, *ins[0], *ins[1], o);
      } else {
        o = interpret_node(*k.proto, ins, &launched);
      }
      if (launched || k.kind != KernelSpec::Kind::Collective)  // a collective is communication, not a kernel
        runtime::counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
    }
    bind();
    if (planned)
      for (int dead : p.mem.release[ki]) views[static_cast<std::size_t>(dead)] = ir::View{};
  }
  realize_outputs(p.slots, views, roots);
}

}  // namespace

std::shared_ptr<ir::Storage> JitBackend::allocate(std::size_t nbytes) {
  return runtime::allocate_host(nbytes);
}

runtime::Target JitBackend::target() const {
  if (jit::compiler().available) return {runtime::Target::Kind::Cpu, name()};
  jit::warn_no_compiler_once();
  return {runtime::Target::Kind::Interpreter, name()};  // no compiler: everything is interpreted
}

std::shared_ptr<runtime::Plan> JitBackend::run(runtime::Program& p) {
  if (p.target.kind == runtime::Target::Kind::Interpreter) return Interpreter(/*library_gemm=*/true).run(p);
  auto plan = std::make_shared<JitPlan>();
  plan->compiled = compile_kernels(p, core::env().jit_async);
  if (plan->compiled.empty() && !p.sched.kernels.empty()) {
    // CGRAD_JIT_ASYNC: the kernels compile in the background; interpret this time.
    runtime::dump(runtime::Stage::Run,
                  [] { return "kernels still compiling: interpreting this evaluation"; });
    return Interpreter(/*library_gemm=*/true).run(p);
  }
  plan->sched = std::move(p.sched);
  plan->slots = std::move(p.slots);
  plan->mem = std::move(p.mem);
  plan->shift = std::move(p.shift);
  execute(*plan, p.leaves, p.roots);
  return p.replayable ? plan : nullptr;
}

void JitBackend::replay(const runtime::Plan& plan, const std::vector<const ir::Node*>& leaves,
                        const std::vector<ir::Node*>& roots) {
  execute(static_cast<const JitPlan&>(plan), leaves, roots);
}

}  // namespace cgrad::backends::cpu
