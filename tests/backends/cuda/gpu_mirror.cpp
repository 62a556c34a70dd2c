// The main() of the `gpu` suites: a test suite (tests/ops, tests/fusion, ...) runs as usual on the CPU,
// and every subgraph it realizes afresh is also cloned twice, onto the reference interpreter and
// onto CUDA device 0 (CPU leaves copied to the device), both are evaluated and their outputs
// compared: integers and bools exactly, floats within a small relative error that follows the
// least precise float type of the subgraph (the device reassociates sums and contracts
// multiply-adds; libdevice's transcendentals differ from libm by an ulp or two). The mirror's
// runs leave stats() and the result cache as the suite left them. Without a GPU it prints one
// skip line and succeeds at once. Built with CGRAD_GPU_GRADCHECK (gpu.gradcheck), it runs the
// finite-difference suite with its inputs on the device instead of mirroring.
#include "core/dtype.hpp"
#include "core/env.hpp"
#include "core/shape.hpp"
#include "ir/graph.h"
#include "runtime/realize.h"
#include "runtime/stats.h"
#include "schedule/schedule.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>
#ifdef CGRAD_GPU_GRADCHECK
#include "gradcheck.h"
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace cgrad;

thread_local bool g_inside = false;
std::size_t g_graphs = 0, g_values = 0, g_counted = 0, g_contracted = 0, g_rounded_once = 0;

// The subgraph rebuilt from its leaves on `device`: leaves are shared (CPU) or copied once
// (device); returns the clones of its outputs.
std::vector<ir::NodePtr> clone(const ir::Subgraph& g, Device device) {
  std::vector<ir::NodePtr> made(g.order.size());
  std::vector<ir::NodePtr> outs;
  for (std::size_t i = 0; i < g.order.size(); ++i) {
    const ir::Node& n = *g.order[i];
    std::vector<ir::NodePtr> ins;
    for (std::size_t j = 0; j < n.inputs.size(); ++j) {
      const int32_t pos = g.in_pos[i][j];
      if (pos >= 0) {
        ins.push_back(made[static_cast<std::size_t>(pos)]);
        continue;
      }
      const ir::NodePtr& leaf = n.inputs[j];
      ins.push_back(
          device.is_cuda()
              ? Tensor(ir::make_buffer(leaf->shape, leaf->dtype, leaf->device, leaf->value)).to(device).node()
              : ir::make_buffer(leaf->shape, leaf->dtype, leaf->device, leaf->value));
    }
    made[i] = ir::make_node(n.op, std::move(ins), n.attrs, device);
    if (g.is_output[i]) outs.push_back(made[i]);
  }
  return outs;
}

// The float types anywhere in the subgraph, inputs included, not only the output's:
// - the tolerance follows the least precise one: an f64 result computed from an f32 `tanhf`
//   (libdevice: 2 ulp) carries f32 error;
// - through a 16-bit float, the interpreter rounds every f16/bf16 node and fused kernels only
//   what they store, so any result computed through one may differ from the interpreter's by
//   that rounding (docs/semantics.md), in whatever dtype it ends.
struct FloatsSeen {
  bool f32 = false, half = false;
};
FloatsSeen floats_seen(const ir::Subgraph& g) {
  FloatsSeen s;
  auto see = [&](DType t) {
    s.f32 = s.f32 || t == DType::f32 || t == DType::c64;  // c64: float parts
    s.half = s.half || t == DType::f16 || t == DType::bf16;
  };
  for (const ir::Node* n : g.order) {
    see(n->dtype);
    for (const ir::NodePtr& in : n->inputs) see(in->dtype);
  }
  return s;
}

// Within `tol` relative to max(1, scale): NaN matches NaN, an infinity only itself.
bool close_to(double got, double want, double tol, double scale) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol * std::fmax(1.0, std::fabs(scale));
}
bool close(double got, double want, double tol) { return close_to(got, want, tol, want); }

// A complex tensor's values as (re, im) pairs of doubles.
std::vector<double> complex_parts(const Tensor& x) {
  std::vector<double> out;
  auto add = [&](auto z) {
    out.push_back(static_cast<double>(z.re));
    out.push_back(static_cast<double>(z.im));
  };
  if (x.dtype() == DType::c64)
    for (auto z : x.to_vector<complex64_t>()) add(z);
  else
    for (auto z : x.to_vector<complex128_t>()) add(z);
  return out;
}

// The suite asserts on stats() (kernel, plan and byte counts): the mirror's own runs must not
// show there. The event counters are saved before and put back after; bytes_in_use is live
// memory and keeps counting (a buffer the mirror frees may have been allocated before it, and
// the other way round), only the peak the mirror's own buffers made is taken back.
struct CountersGuard {
  using Member = std::atomic<uint64_t> runtime::Counters::*;
  static constexpr Member kAll[] = {&runtime::Counters::kernels_launched,
                                    &runtime::Counters::kernels_compiled,
                                    &runtime::Counters::kernel_cache_hits,
                                    &runtime::Counters::disk_cache_hits,
                                    &runtime::Counters::plans_built,
                                    &runtime::Counters::plan_cache_hits,
                                    &runtime::Counters::bytes_allocated,
                                    &runtime::Counters::auto_realizes,
                                    &runtime::Counters::traces,
                                    &runtime::Counters::result_cache_hits,
                                    &runtime::Counters::buffers_reused};
  uint64_t saved[std::size(kAll)];
  uint64_t peak = runtime::counters().peak_bytes_in_use.load();
  CountersGuard() {
    for (std::size_t i = 0; i < std::size(kAll); ++i) saved[i] = (runtime::counters().*kAll[i]).load();
  }
  ~CountersGuard() {
    auto& c = runtime::counters();
    for (std::size_t i = 0; i < std::size(kAll); ++i) (c.*kAll[i]).store(saved[i]);
    c.peak_bytes_in_use.store(std::max(peak, c.bytes_in_use.load()));
  }
  CountersGuard(const CountersGuard&) = delete;
  CountersGuard& operator=(const CountersGuard&) = delete;
};

// The kernels the CPU JIT launches for `g` (its schedule, launched empty loops left out), with
// the one difference docs/fusion.md allows the device: a library `cat` is one copy kernel per
// input there. Negative when the scheduler finds no schedule (the CPU interprets).
int64_t expected_device_kernels(const ir::Subgraph& g) {
  schedule::Schedule s = schedule::make_schedule(g, schedule::Options{.staged_reductions = true});
  if (s.interpret) return -1;
  int64_t n = 0;
  for (const auto& k : s.kernels) {
    if (k.kind == schedule::KernelSpec::Kind::Loop && core::numel(k.outer) == 0) continue;
    n += k.kind == schedule::KernelSpec::Kind::Cat ? static_cast<int64_t>(k.in_slots.size()) : 1;
  }
  return n;
}

void mirror(const ir::Subgraph& g) {
  if (g_inside) return;
  g_inside = true;
  struct Reset {
    ~Reset() { g_inside = false; }
  } reset;
  CountersGuard counters;
  auto& env = core::env_mut();
  // The mirror's results stay out of the result cache: they would evict the suite's entries.
  struct Knobs {
    core::Env& env;
    std::string backend = env.backend;
    int64_t result_cache_bytes = env.result_cache_bytes;
    ~Knobs() {
      env.backend = backend;
      env.result_cache_bytes = result_cache_bytes;
    }
  } knobs{env};
  env.result_cache_bytes = 0;
  env.backend = "interpreter";
  std::vector<ir::NodePtr> ref = clone(g, Device::cpu());
  runtime::realize(ref);
  env.backend = knobs.backend;
  std::vector<ir::NodePtr> dev;
  const int64_t want_kernels = expected_device_kernels(g);
  uint64_t launched = 0;
  try {
    dev = clone(g, Device::cuda());
    const uint64_t k0 = runtime::counters().kernels_launched.load();
    runtime::realize(dev);
    launched = runtime::counters().kernels_launched.load() - k0;
  } catch (const Error& e) {
    ADD_FAILURE() << "the device run failed: " << e.what();
    return;
  }
  ++g_graphs;
  // A replayed device plan or a result-cache hit launches what the first run did, or nothing.
  if (want_kernels >= 0 && launched != 0) {
    EXPECT_EQ(static_cast<int64_t>(launched), want_kernels) << "kernels on cuda:0 vs the CPU JIT's schedule";
    ++g_counted;
  }
  const FloatsSeen seen = floats_seen(g);
  const double tol = seen.f32 ? 2e-5 : 1e-12;
  const bool halves = seen.half;
  // The CPU JIT's values, computed only when the device and the interpreter disagree: both
  // compiled backends contract multiply-adds into FMAs (the interpreter rounds each product),
  // which shows in f64 where terms cancel (odeint's error estimates). A value within kContracted
  // of the interpreter's passes, and is counted, when it is within `tol` of the JIT's or when the
  // JIT's own value is not within `tol` of the interpreter's either (the element amplifies the
  // rounding of contractions, and NVRTC and the host compiler contract different products:
  // odeint's dense output, 1e-11 apart in f64).
  constexpr double kContracted = 1e-9;
  std::vector<ir::NodePtr> jit;
  auto jit_value = [&](std::size_t o, std::size_t i) {
    if (jit.empty()) {
      env.backend = "jit";
      jit = clone(g, Device::cpu());
      runtime::realize(jit);
      env.backend = knobs.backend;
    }
    return Tensor(jit[o]).to_vector<double>()[i];
  };
  for (std::size_t o = 0; o < ref.size(); ++o) {
    Tensor want(ref[o]), got(dev[o]);
    const DType t = want.dtype();
    if (is_complex(t)) {
      // complex group: both parts, each within tol of the element's magnitude (a part near 0 of a
      // large value carries that value's rounding), of the interpreter's or of the CPU JIT's.
      const std::vector<double> w = complex_parts(want), v = complex_parts(got);
      std::vector<double> j;
      for (std::size_t i = 0; i < w.size(); i += 2) {
        const double mag = std::hypot(w[i], w[i + 1]);
        auto near = [&](const std::vector<double>& x) {
          return close_to(v[i], x[i], tol, mag) && close_to(v[i + 1], x[i + 1], tol, mag);
        };
        if (near(w)) continue;
        if (j.empty()) {
          env.backend = "jit";
          jit = clone(g, Device::cpu());
          runtime::realize(jit);
          env.backend = knobs.backend;
          j = complex_parts(Tensor(jit[o]));
        }
        if (near(j)) {
          ++g_contracted;
          continue;
        }
        ADD_FAILURE() << "output " << o << " element " << i / 2 << " (" << dtype_name(t) << "): device ("
                      << v[i] << ", " << v[i + 1] << "), interpreter (" << w[i] << ", " << w[i + 1]
                      << "), CPU JIT (" << j[i] << ", " << j[i + 1] << ")";
        break;
      }
      g_values += w.size() / 2;
    } else if (is_floating(t)) {
      auto w = want.to_vector<double>(), v = got.to_vector<double>();
      for (std::size_t i = 0; i < w.size(); ++i) {
        if (close(v[i], w[i], tol)) continue;
        const double j = jit_value(o, i);
        if (close(v[i], w[i], kContracted) && (close(v[i], j, tol) || !close(j, w[i], tol))) {
          ++g_contracted;
          continue;
        }
        // float16 and bfloat16 in the subgraph: the interpreter rounds after every op, fused
        // kernels once, at the store (docs/semantics.md); the device must then give the CPU
        // JIT's value (within f32 rounding: both compute 16-bit floats in float).
        if (halves && close(v[i], j, std::fmax(tol, 2e-5))) {
          ++g_rounded_once;
          continue;
        }
        ADD_FAILURE() << "output " << o << " element " << i << " (" << dtype_name(t) << "): device " << v[i]
                      << ", interpreter " << w[i] << ", CPU JIT " << j;
        break;
      }
      g_values += w.size();
    } else {
      auto w = want.to_vector<int64_t>(), v = got.to_vector<int64_t>();
      EXPECT_EQ(v, w) << "output " << o << " (" << dtype_name(t) << ")";
      g_values += w.size();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!cuda_available()) {
    std::printf("[  SKIPPED ] gpu: no usable CUDA device, the device comparison did not run\n");
    return 0;
  }
  ::testing::InitGoogleTest(&argc, argv);
#ifdef CGRAD_GPU_GRADCHECK
  // The finite-difference suite runs on the device itself: gradients and differences both.
  test::gradcheck_device() = Device::cuda();
  const int checked = RUN_ALL_TESTS();
  std::printf("[ GPU      ] the finite-difference checks ran on cuda:0\n");
  return checked;
#endif
  runtime::set_subgraph_hook(mirror);
  const int rc = RUN_ALL_TESTS();
  runtime::set_subgraph_hook(nullptr);
  std::printf(
      "[ GPU      ] %zu subgraphs, %zu values compared between cuda:0 and the interpreter (%zu within "
      "rounding of the CPU JIT's contracted multiply-adds, %zu computed through 16-bit floats "
      "equal to the JIT's, rounded once); kernel counts equal to the CPU's on %zu\n",
      g_graphs, g_values, g_contracted, g_rounded_once, g_counted);
  return rc;
}
