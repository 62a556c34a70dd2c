// lower(): passes -> verify -> schedule -> target lowering -> render -> memory plan, one dump after
// each step (lower.h has the table). Each step is one call below; the work is in the layers it
// names, so this file is the map of the pipeline and nothing else.
#include "runtime/lower.h"

#include "codegen/kernel_parts.h"
#include "codegen/render_cuda.h"
#include "core/env.hpp"
#include "ir/op_table.h"
#include "ir/printer.h"
#include "ir/verify.h"
#include "passes/pipeline.h"
#include "schedule/library_loops.h"

#include <cctype>
#include <iostream>
#include <sstream>
#include <unordered_map>

namespace cgrad::runtime {

namespace {

// The scheduler names nodes in its `why` strings by subgraph position (`exp#5`); the dumps name
// them as the graph printer does (`exp %7`), so one node has one name in every stage.
std::string renumber(const std::string& why, const std::vector<int>& number) {
  std::string out;
  for (std::size_t i = 0; i < why.size(); ++i) {
    std::size_t j = i + 1;
    while (why[i] == '#' && j < why.size() && std::isdigit(static_cast<unsigned char>(why[j]))) ++j;
    if (j == i + 1) {
      out += why[i];
      continue;
    }
    const auto pos = std::stoul(why.substr(i + 1, j - i - 1));
    out += pos < number.size() ? " %" + std::to_string(number[pos]) : why.substr(i, j - i);
    i = j - 1;
  }
  return out;
}

// The Schedule and Target dumps: each kernel with why it ends where it does, then each node with
// its state, kernel and rule.
std::string schedule_text(const Program& p, const char* what) {
  const std::vector<int> number = printer_numbers(p.graph, p.roots);
  const schedule::Schedule& s = p.sched;
  std::ostringstream os;
  os << what << " on " << p.target.name << ": " << s.kernels.size() << " kernels\n";
  for (std::size_t i = 0; i < s.kernels.size(); ++i)
    os << "  k" << i << ": " << renumber(s.kernels[i].why, number) << "\n";
  for (std::size_t i = 0; i < p.graph.order.size() && i < s.reasons.size(); ++i) {
    os << "  %" << number[i] << " " << ir::op_name(p.graph.order[i]->op);
    if (i < s.kernel_of.size() && s.kernel_of[i] >= 0) os << " k" << s.kernel_of[i];
    os << ": " << renumber(s.reasons[i], number) << "\n";
  }
  return os.str();
}

// The Source dump: one comment line per kernel naming the nodes it computes, then the source.
std::string source_text(const Program& p) {
  if (p.sched.kernels.empty()) return std::string();
  const std::vector<int> number = printer_numbers(p.graph, p.roots);
  std::ostringstream os;
  os << "generated source for " << p.target.name << ":\n";
  for (std::size_t k = 0; k < p.sched.kernels.size(); ++k) {
    const schedule::KernelSpec& ks = p.sched.kernels[k];
    os << "// k" << k << " "
       << (p.code[k].symbol.empty()
               ? std::string("library ") + (ks.proto ? ir::op_name(ks.proto->op) : "routine")
               : p.code[k].symbol)
       << ":";
    for (std::size_t i = 0; i < p.graph.order.size() && i < p.sched.kernel_of.size(); ++i)
      if (p.sched.kernel_of[i] == static_cast<int>(k))
        os << " %" << number[i] << " " << ir::op_name(p.graph.order[i]->op);
    os << "\n";
  }
  os << p.source;
  return os.str();
}

// Step 5: every loop kernel normalized and rendered for the target, then one translation unit.
void render(Program& p) {
  auto& kernels = p.sched.kernels;
  p.code.assign(kernels.size(), KernelCode{});
  std::vector<codegen::Rendered> cpu;
  std::vector<codegen::CudaRendered> cuda;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].kind != schedule::KernelSpec::Kind::Loop) continue;
    codegen::normalize(kernels[i]);
    if (p.target.kind == Target::Kind::Cuda) {
      cuda.push_back(codegen::render_cuda(kernels[i]));
      const auto& r = cuda.back();
      p.code[i] = {r.symbol, r.source, r.has_reductions, r.whole_rows, r.acc_bytes};
    } else {
      cpu.push_back(codegen::render_cpu(kernels[i]));
      const auto& r = cpu.back();
      p.code[i] = {r.symbol, r.source, r.has_reductions, r.whole_rows, 0};
    }
  }
  if (!cuda.empty()) p.source = codegen::cuda_translation_unit(cuda);
  if (!cpu.empty()) p.source = codegen::translation_unit(cpu);
}

}  // namespace

int stage_level(Stage stage) {
  switch (stage) {
    case Stage::Run: return 1;
    case Stage::Key:
    case Stage::Schedule:
    case Stage::Target:
    case Stage::Memory: return 2;
    case Stage::Source: return 3;
    case Stage::Pass:
    case Stage::Graph: return 4;
  }
  return 4;
}

void dump(Stage stage, const std::function<std::string()>& text) {
  if (core::env().debug < stage_level(stage)) return;
  std::string t = text();
  if (t.empty()) return;
  if (t.back() != '\n') t += '\n';
  std::cerr << "[cgrad] " << t;
}

std::vector<int> printer_numbers(const ir::Subgraph& g, const std::vector<ir::Node*>& roots) {
  std::unordered_map<const ir::Node*, int> at;
  const std::vector<ir::Node*> all = ir::topo_order(roots, false);  // the printer's order
  for (std::size_t i = 0; i < all.size(); ++i) at.emplace(all[i], static_cast<int>(i));
  std::vector<int> number(g.order.size(), -1);
  for (std::size_t i = 0; i < g.order.size(); ++i)
    if (auto it = at.find(g.order[i]); it != at.end()) number[i] = it->second;
  return number;
}

Program lower(const std::vector<ir::NodePtr>& outputs, const Target& target,
              const std::vector<const ir::Node*>& leaves) {
  std::vector<ir::Node*> roots;
  for (const auto& o : outputs)
    if (o && !o->realized()) roots.push_back(o.get());

  // 1. Graph passes, in pipeline.cpp's order.
  passes::optimize(outputs, [&](const char* pass, const passes::PendingGraph& now) {
    dump(Stage::Pass, [&] { return std::string("after ") + pass + ":\n" + ir::to_string(now.roots()); });
  });

  // 2. The subgraph the backend computes, every node re-derived from the op table.
  ir::Subgraph g = ir::make_subgraph(roots);
  ir::verify(g.order);
  dump(Stage::Graph, [&] { return "graph to realize:\n" + ir::to_string(roots); });

  return lower(std::move(g), roots, target, leaves);  // steps 3-6
}

Program lower(ir::Subgraph verified, const std::vector<ir::Node*>& roots, const Target& target,
              const std::vector<const ir::Node*>& leaves) {
  Program p;
  p.target = target;
  p.graph = std::move(verified);
  p.roots = roots;
  if (target.kind == Target::Kind::Interpreter) return p;  // one op = one kernel: nothing to lower

  // 3. Kernels: the fusion rules of docs/fusion.md (staged row reductions on every target).
  p.sched = schedule::make_schedule(p.graph, schedule::Options{.staged_reductions = true});
  if (p.sched.interpret)  // never set (schedule.h): kept until the flag goes
    throw Error(ErrorCode::Internal, target.name + ": the scheduler found no schedule for this graph");
  dump(Stage::Schedule, [&] { return schedule_text(p, "schedule"); });

  // 4. Target lowering: on a CUDA device, cat, copies and GEMMs cuBLAS cannot take are loops.
  if (target.kind == Target::Kind::Cuda) {
    auto library = [&] {
      std::size_t n = 0;
      for (const auto& k : p.sched.kernels) n += k.kind != schedule::KernelSpec::Kind::Loop;
      return n;
    };
    const std::size_t before = library();
    schedule::library_kernels_to_loops(p.sched);
    dump(Stage::Target,
         [&] { return library() == before ? std::string() : schedule_text(p, "after target lowering"); });
  }

  // 5. Source: each loop kernel rendered from the templates, one translation unit.
  render(p);
  dump(Stage::Source, [&] { return source_text(p); });

  // 6. Memory: slots tied to realize()'s leaves and roots, the arena planned.
  p.leaves = leaves;
  p.replayable = bind_plan_slots(p.sched, p.leaves, p.roots, p.slots);
  p.mem = schedule::plan_memory(p.sched);
  p.shift = arena_shifts(p.sched, p.mem);
  dump(Stage::Memory,
       [&] { return "memory plan on " + target.name + ":\n" + schedule::describe(p.mem, p.sched); });
  return p;
}

}  // namespace cgrad::runtime
