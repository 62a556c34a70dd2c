// compile(fn): one plan per input signature, replayed without calling fn (docs/plans.md).
//
// A trace runs fn under a TraceLog, evaluates everything fn returned or assigned in one
// realize, and keeps that realize's plan with a map from the plan's leaves to where a replay
// finds them: an argument, a captured tensor (read again at every call: its current value) or
// a constant built inside fn. Invariants of a replay: it never calls fn; every output it
// returns is a fresh node (a fresh buffer from the plan, or the argument/captured handle fn
// returned), so a result of an earlier call never changes; the assigns fn made are repeated
// on the same handles. A realize inside fn (eval, item, to_vector, or the pending-depth rule)
// makes that signature eager: fn runs at every call and its outputs are evaluated, which is
// correct, only slower; so does backward() (grad() accumulation) or a random op built inside fn
// (a replay would draw the same numbers). A backend that did not plan (the interpreter; CGRAD_JIT_ASYNC while
// the kernels compile) keeps nothing: the next call traces again.
#include "frontend/build.h"
#include "frontend/trace.h"

#include <cgrad/compile.hpp>

#include "core/env.hpp"
#include "runtime/backend.h"
#include "runtime/realize.h"
#include "runtime/result_cache.h"
#include "runtime/stats.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <unordered_map>

namespace cgrad::detail {

namespace {

constexpr std::size_t kMaxSignatures = 8;

// One argument's part of the signature.
struct ArgSig {
  Shape shape;
  DType dtype = DType::f32;
  Device device;
  core::Strides strides;
  int64_t offset = 0;
  int alias = -1;  // the first earlier argument that is the same tensor value, or -1
  bool operator==(const ArgSig&) const = default;
};
using Signature = std::vector<ArgSig>;

Signature signature_of(const std::vector<Tensor>& args) {
  Signature sig(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ir::Node& n = *args[i].node();
    ArgSig& a = sig[i];
    a.shape = n.shape;
    a.dtype = n.dtype;
    a.device = n.device;
    a.strides = n.value.strides;
    a.offset = n.value.offset;
    for (std::size_t j = 0; j < i; ++j)
      if (args[j].node() == args[i].node()) {
        a.alias = static_cast<int>(j);
        break;
      }
  }
  return sig;
}

// The first component in which `now` differs from `before`, and how many differ (CGRAD_DEBUG=2:
// why a new trace; the nearest earlier signature is the one with the fewest differences).
std::pair<std::string, int> signature_difference(const Signature& before, const Signature& now) {
  if (before.size() != now.size()) return {"argument count " + std::to_string(now.size()), 1000};
  std::string first;
  int count = 0;
  auto note = [&](std::string what) {
    if (first.empty()) first = std::move(what);
    ++count;
  };
  for (std::size_t i = 0; i < now.size(); ++i) {
    const ArgSig &a = before[i], &b = now[i];
    std::string arg = "argument " + std::to_string(i) + " ";
    if (a.shape != b.shape) note(arg + "shape " + shape_str(b.shape) + " (was " + shape_str(a.shape) + ")");
    if (a.dtype != b.dtype) note(arg + "dtype " + dtype_name(b.dtype) + " (was " + dtype_name(a.dtype) + ")");
    if (a.device != b.device) note(arg + "device " + b.device.str() + " (was " + a.device.str() + ")");
    if (a.shape == b.shape && (a.strides != b.strides || a.offset != b.offset))
      note(arg + "layout (strides or offset)");
    if (a.alias != b.alias)
      note(arg + (b.alias >= 0 ? "is the same tensor as argument " + std::to_string(b.alias)
                               : "is another tensor"));
  }
  return {first.empty() ? "nothing (same signature)" : first, count};
}

// signature_of(args) == sig, without building it (the replay path).
bool matches(const Signature& sig, const std::vector<Tensor>& args) {
  if (sig.size() != args.size()) return false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ir::Node& n = *args[i].node();
    const ArgSig& a = sig[i];
    if (n.dtype != a.dtype || n.shape != a.shape || n.value.offset != a.offset ||
        n.value.strides != a.strides || !(n.device == a.device))
      return false;
    int alias = -1;
    for (std::size_t j = 0; j < i && alias < 0; ++j)
      if (args[j].node() == args[i].node()) alias = static_cast<int>(j);
    if (alias != a.alias) return false;
  }
  return true;
}

// Where a replay finds one of the plan's leaves.
struct LeafSource {
  enum class Kind : uint8_t { Arg, Capture, Constant } kind = Kind::Constant;
  int index = -1;        // Arg: argument; Capture: index into Entry::captures
  ir::NodePtr constant;  // Constant: the value (immutable)
};

// Where a replay finds one of fn's outputs.
struct OutputSource {
  enum class Kind : uint8_t {
    Root,
    ArgHandle,
    CaptureHandle,
    ArgValue,
    CaptureValue,
    Constant
  } kind = Kind::Root;
  int index = -1;  // Root: root; ArgHandle/ArgValue: argument; CaptureHandle: assigned; CaptureValue: capture
  ir::NodePtr constant;
};

// The layout a plan was built for (a captured tensor's value at the trace; not kept alive).
struct Layout {
  Shape shape;
  DType dtype = DType::f32;
  Device device;
  core::Strides strides;
  int64_t offset = 0;
  explicit Layout(const ir::Node& n)
      : shape(n.shape), dtype(n.dtype), device(n.device), strides(n.value.strides), offset(n.value.offset) {}
  bool matches(const ir::Node& n) const {
    return n.shape == shape && n.dtype == dtype && n.device == device && n.value.strides == strides &&
           n.value.offset == offset;
  }
};

struct Capture {
  Tensor handle;  // shares the captured variable: its current node is read at each call
  Layout layout;  // of the realized value it had when traced
};

struct RootMeta {
  Shape shape;
  DType dtype = DType::f32;
  Device device;
};

struct Entry {
  Signature sig;
  bool eager = false;  // fn runs at every call
  std::shared_ptr<runtime::Plan> plan;
  runtime::Backend* backend = nullptr;
  std::vector<LeafSource> leaves;
  std::vector<RootMeta> roots;
  std::vector<OutputSource> outputs;
  std::vector<Capture> captures;
  std::vector<std::pair<Tensor, int>> assigned;                 // (handle, root or -1: `value` holds it)
  std::vector<std::pair<Tensor, ir::NodePtr>> assigned_values;  // assigned to an already realized value
  std::vector<std::pair<Tensor, ir::NodePtr>>
      guards;  // captured variables read while pending: must not change
};

}  // namespace

class PlanCompiler {
 public:
  std::vector<Tensor> call(const std::vector<Tensor>& args,
                           const std::function<std::vector<Tensor>()>& trace) {
    runtime::RealizeLock lock;
    std::vector<ir::NodePtr> pending;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const ir::NodePtr& n = frontend::node_of(args[i], "compiled function");
      if (!n->realized()) pending.push_back(n);
    }
    if (!pending.empty()) runtime::realize(pending);  // arguments are evaluated before the call
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (!matches(entries_[i].sig, args)) continue;
      std::rotate(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(i),
                  entries_.begin() + static_cast<std::ptrdiff_t>(i) + 1);  // most recent first
      Entry& e = entries_.front();
      if (e.eager) return run_eager(trace);
      std::string why;
      if (auto outs = replay(e, args, why)) return std::move(*outs);
      Signature sig = std::move(e.sig);
      entries_.erase(entries_.begin());  // a captured tensor changed: trace this signature again
      return trace_new(std::move(sig), args, trace, why);
    }
    Signature sig = signature_of(args);
    std::string why = "first call";
    if (!entries_.empty() && core::env().debug >= 2) {
      int best = 1 << 30;
      for (auto& e : entries_)
        if (auto [what, count] = signature_difference(e.sig, sig); count < best) best = count, why = what;
    }
    return trace_new(std::move(sig), args, trace, why);
  }

  std::size_t signatures() const { return entries_.size(); }

  int64_t arena_bytes(const std::vector<Tensor>& args) {
    runtime::RealizeLock lock;
    for (auto& a : args)
      if (!a.defined() || !a.is_evaluated()) return -1;
    Signature sig = signature_of(args);
    for (auto& e : entries_)
      if (e.sig == sig && e.plan) return e.plan->arena_bytes();
    return -1;
  }

 private:
  static std::vector<Tensor> run_eager(const std::function<std::vector<Tensor>()>& trace) {
    runtime::counters().traces.fetch_add(1, std::memory_order_relaxed);
    frontend::TraceLog log;
    log.watermark = ir::node_id_watermark();
    std::vector<Tensor> outs;
    {
      Tracing t(log);
      outs = trace();
    }
    std::vector<Tensor> all = outs;
    all.insert(all.end(), log.assigned.begin(), log.assigned.end());
    eval(all);
    return outs;
  }

  struct Tracing {
    explicit Tracing(frontend::TraceLog& log) : saved(frontend::active_trace()) {
      frontend::active_trace() = &log;
    }
    ~Tracing() { frontend::active_trace() = saved; }
    frontend::TraceLog* saved;
  };

  // Binds the current inputs to e's plan and runs it; nullopt when a captured tensor changed
  // in a way the plan cannot take (`why` says which).
  std::optional<std::vector<Tensor>> replay(Entry& e, const std::vector<Tensor>& args, std::string& why) {
    for (std::size_t g = 0; g < e.guards.size(); ++g)
      if (e.guards[g].first.node() != e.guards[g].second) {
        why = "captured tensor " + std::to_string(g) + " was assigned while it was pending";
        return std::nullopt;
      }
    std::vector<const ir::Node*> cur_capture(e.captures.size());
    for (std::size_t c = 0; c < e.captures.size(); ++c) {
      const ir::NodePtr& n = e.captures[c].handle.node();
      if (!n->realized()) runtime::realize({n});  // captured tensors are evaluated before the plan runs
      if (!e.captures[c].layout.matches(*n)) {
        why = "captured tensor " + std::to_string(c) + " has a new layout";
        return std::nullopt;
      }
      cur_capture[c] = n.get();
    }
    std::vector<const ir::Node*> leaves(e.leaves.size());
    for (std::size_t i = 0; i < e.leaves.size(); ++i) {
      const LeafSource& l = e.leaves[i];
      leaves[i] = l.kind == LeafSource::Kind::Arg       ? args[static_cast<std::size_t>(l.index)].node().get()
                  : l.kind == LeafSource::Kind::Capture ? cur_capture[static_cast<std::size_t>(l.index)]
                                                        : l.constant.get();
    }
    std::vector<ir::NodePtr> roots(e.roots.size());
    std::vector<ir::Node*> root_ptrs(e.roots.size());
    for (std::size_t r = 0; r < e.roots.size(); ++r) {
      roots[r] = ir::make_buffer(e.roots[r].shape, e.roots[r].dtype, e.roots[r].device, ir::View{});
      root_ptrs[r] = roots[r].get();
    }
    if (e.plan) {
      std::vector<ir::View> values;
      const bool results = runtime::ResultCache::enabled();
      runtime::ResultCache::Probe probe;
      if (results) probe = runtime::ResultCache::probe(leaves);
      if (results && runtime::result_cache().find(*e.plan, probe, values)) {
        for (std::size_t r = 0; r < roots.size(); ++r) ir::set_realized(*roots[r], std::move(values[r]));
        runtime::counters().result_cache_hits.fetch_add(1, std::memory_order_relaxed);
      } else {
        runtime::counters().plan_cache_hits.fetch_add(1, std::memory_order_relaxed);
        e.backend->replay(*e.plan, leaves, root_ptrs);
        if (results) runtime::result_cache().insert(*e.plan, std::move(probe), root_ptrs);
      }
    }
    for (auto& [handle, r] : e.assigned) handle.assign(Tensor(roots[static_cast<std::size_t>(r)]));
    for (auto& [handle, value] : e.assigned_values) handle.assign(Tensor(value));
    std::vector<Tensor> outs;
    outs.reserve(e.outputs.size());
    for (const OutputSource& o : e.outputs) {
      auto i = static_cast<std::size_t>(o.index);
      switch (o.kind) {
        case OutputSource::Kind::Root: outs.emplace_back(roots[i]); break;
        case OutputSource::Kind::ArgHandle: outs.push_back(args[i]); break;
        case OutputSource::Kind::CaptureHandle: outs.push_back(e.assigned[i].first); break;
        case OutputSource::Kind::ArgValue: outs.emplace_back(args[i].node()); break;
        case OutputSource::Kind::CaptureValue: outs.emplace_back(e.captures[i].handle.node()); break;
        case OutputSource::Kind::Constant: outs.emplace_back(o.constant); break;
      }
    }
    return outs;
  }

  std::vector<Tensor> trace_new(Signature sig, const std::vector<Tensor>& args,
                                const std::function<std::vector<Tensor>()>& trace, const std::string& why) {
    const int dbg = core::env().debug;
    if (dbg >= 2) std::fprintf(stderr, "[cgrad] compile: tracing (why: %s)\n", why.c_str());
    runtime::counters().traces.fetch_add(1, std::memory_order_relaxed);
    frontend::TraceLog log;
    log.watermark = ir::node_id_watermark();
    const uint64_t realizes = runtime::realize_count();
    std::vector<Tensor> outs;
    {
      Tracing t(log);
      outs = trace();
    }
    Entry e;
    e.sig = std::move(sig);
    // Roots: what fn returned or assigned that is still pending, each node once.
    std::vector<ir::NodePtr> roots;
    std::unordered_map<const ir::Node*, int> root_of;
    auto root_index = [&](const ir::NodePtr& n) {
      auto [it, fresh] = root_of.try_emplace(n.get(), static_cast<int>(roots.size()));
      if (fresh) roots.push_back(n);
      return it->second;
    };
    auto arg_index = [&](const ir::NodePtr& n) {
      for (std::size_t i = 0; i < args.size(); ++i)
        if (args[i].node() == n) return static_cast<int>(i);
      return -1;
    };
    std::vector<char> read_realized;
    auto capture_index = [&](const ir::Node* n) {
      for (std::size_t c = 0; c < log.read_nodes.size(); ++c)
        if (log.read_nodes[c].get() == n && read_realized[c]) return static_cast<int>(c);
      return -1;
    };
    for (const Tensor& t : log.assigned) {
      if (!t.node()->realized()) {
        e.assigned.emplace_back(t, root_index(t.node()));
      } else {
        e.assigned_values.emplace_back(t, t.node());
      }
    }
    for (const Tensor& t : outs) {
      OutputSource o;
      const ir::NodePtr& n = frontend::node_of(t, "compiled function output");
      bool handled = false;
      for (std::size_t i = 0; i < args.size() && !handled; ++i)
        if (&args[i].node() == &t.node())
          o = {OutputSource::Kind::ArgHandle, static_cast<int>(i), nullptr}, handled = true;
      for (std::size_t a = 0; a < e.assigned.size() && !handled; ++a)
        if (&e.assigned[a].first.node() == &t.node())
          o = {OutputSource::Kind::CaptureHandle, static_cast<int>(a), nullptr}, handled = true;
      if (!handled) {
        if (!n->realized()) {
          o = {OutputSource::Kind::Root, root_index(n), nullptr};
        } else if (int ai = arg_index(n); ai >= 0) {
          o = {OutputSource::Kind::ArgValue, ai, nullptr};
        } else {
          o = {OutputSource::Kind::Constant, -1, n};  // a realized value fn captured or computed eagerly
        }
      }
      e.outputs.push_back(std::move(o));
    }
    if (runtime::realize_count() != realizes || log.side_effect) {
      // fn evaluated something itself (its graph was cut where a plan cannot see), or did what a
      // replay would not repeat (TraceLog::side_effect).
      if (dbg >= 2)
        std::fprintf(stderr, "[cgrad] compile: fn %s; this signature runs eagerly\n",
                     log.side_effect ? log.side_effect : "evaluates inside");
      e.eager = true;
      std::vector<Tensor> all = outs;
      all.insert(all.end(), log.assigned.begin(), log.assigned.end());
      eval(all);
      remember(std::move(e));
      return outs;
    }
    for (auto& r : roots) e.roots.push_back({r->shape, r->dtype, r->device});
    read_realized.resize(log.read_nodes.size());
    for (std::size_t c = 0; c < log.read_nodes.size(); ++c) read_realized[c] = log.read_nodes[c]->realized();
    auto graph_leaves = leaf_nodes(roots);
    runtime::Traced traced;
    if (!roots.empty()) traced = runtime::realize_traced(roots);
    if (!roots.empty() && !traced.plan) {
      // The backend did not plan this time (interpreter, no compiler, or CGRAD_JIT_ASYNC while
      // the kernels compile): nothing to keep; the next call traces again.
      return outs;
    }
    e.plan = traced.plan;
    e.backend = traced.backend;
    for (const ir::Node* leaf : traced.leaves) {
      LeafSource l;
      int ai = -1;
      for (std::size_t i = 0; i < args.size() && ai < 0; ++i)
        if (args[i].node().get() == leaf) ai = static_cast<int>(i);
      if (ai >= 0) {
        l = {LeafSource::Kind::Arg, ai, nullptr};
      } else if (int c = capture_index(leaf); c >= 0) {
        l = {LeafSource::Kind::Capture, static_cast<int>(e.captures.size()), nullptr};
        e.captures.push_back(
            {log.reads[static_cast<std::size_t>(c)], Layout(*log.read_nodes[static_cast<std::size_t>(c)])});
      } else {
        auto it = graph_leaves.find(leaf);
        if (it == graph_leaves.end())
          throw Error(ErrorCode::Internal, "compile: a plan leaf is not in the traced graph");
        l = {LeafSource::Kind::Constant, -1, it->second};
      }
      e.leaves.push_back(std::move(l));
    }
    // Outputs fn returned as captured (realized) values read at each call.
    for (auto& o : e.outputs)
      if (o.kind == OutputSource::Kind::Constant)
        for (std::size_t c = 0; c < e.captures.size(); ++c)
          if (e.captures[c].handle.node() == o.constant)
            o = {OutputSource::Kind::CaptureValue, static_cast<int>(c), nullptr};
    // Captured variables whose pending graph was baked into the plan.
    for (std::size_t c = 0; c < log.reads.size(); ++c)
      if (!read_realized[c]) e.guards.emplace_back(log.reads[c], log.read_nodes[c]);
    remember(std::move(e));
    return outs;
  }

  // The realized inputs of the pending graph of `roots`, by address (plans keep constants
  // alive through their nodes). Walked before the realize drops the graph.
  static std::unordered_map<const ir::Node*, ir::NodePtr> leaf_nodes(const std::vector<ir::NodePtr>& roots) {
    std::unordered_map<const ir::Node*, ir::NodePtr> leaves;
    std::unordered_map<const ir::Node*, bool> seen;
    std::vector<const ir::Node*> stack;
    for (auto& r : roots) stack.push_back(r.get());
    while (!stack.empty()) {
      const ir::Node* n = stack.back();
      stack.pop_back();
      for (auto& in : n->inputs) {
        if (in->realized()) {
          leaves.emplace(in.get(), in);
        } else if (seen.emplace(in.get(), true).second) {
          stack.push_back(in.get());
        }
      }
    }
    return leaves;
  }

  void remember(Entry e) {
    entries_.insert(entries_.begin(), std::move(e));
    if (entries_.size() > kMaxSignatures) entries_.pop_back();
  }

  std::vector<Entry> entries_;  // most recently used first
};

CompiledCore::CompiledCore() : impl_(std::make_shared<PlanCompiler>()) {}

std::vector<Tensor> CompiledCore::call(const std::vector<Tensor>& args,
                                       const std::function<std::vector<Tensor>()>& trace) const {
  return impl_->call(args, trace);
}
std::size_t CompiledCore::signatures() const { return impl_->signatures(); }
int64_t CompiledCore::arena_bytes(const std::vector<Tensor>& args) const { return impl_->arena_bytes(args); }

}  // namespace cgrad::detail
