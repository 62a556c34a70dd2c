// lower(): the one function that turns the pending graph of some outputs into a Program a backend
// compiles and launches. Its steps, in order (lower.cpp reads top to bottom):
//   1. passes   (passes/pipeline.cpp)      the graph after each pass     CGRAD_DEBUG >= 4
//   2. verify   (ir/verify.cpp)            the graph to realize          CGRAD_DEBUG >= 4
//   3. schedule (schedule/)                kernels with their rules      CGRAD_DEBUG >= 2
//   4. target   (schedule/library_loops)   CUDA: cat/copies -> loops     CGRAD_DEBUG >= 2
//   5. render   (codegen/)                 the generated source          CGRAD_DEBUG >= 3
//   6. memory   (schedule/plan_memory, runtime/plan_slots)  the arena    CGRAD_DEBUG >= 2
// Every step ends in dump(stage, ...), the one place that prints the pipeline's debug output; all
// dumps name a node by its number in the graph printer (`%7`, ir/printer.h), so stages diff.
// The interpreter target stops after step 2 (one op is one kernel: nothing to schedule).
#pragma once

#include "codegen/render_cpu.h"
#include "ir/graph.h"
#include "runtime/plan_slots.h"
#include "schedule/plan_memory.h"
#include "schedule/schedule.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cgrad::runtime {

/// What a backend runs, so what lower() must produce for it.
struct Target {
  enum class Kind : uint8_t {
    Interpreter,  ///< the verified graph, op by op
    Cpu,          ///< loop kernels in C++ (codegen/render_cpu) for one translation unit
    Cuda,         ///< loop kernels in CUDA C++ (codegen/render_cuda), cat and copies as loops too
  };
  Kind kind = Kind::Interpreter;
  std::string name;  ///< the backend's name, for the dumps
};

/// The generated code of one kernel of the schedule (an empty symbol: a library kernel).
struct KernelCode {
  std::string symbol;           ///< entry point in Program::source
  std::string source;           ///< this kernel's definitions alone (without the prelude)
  bool has_reductions = false;  ///< the entry has the reduction signature (CPU: also _part/_merge/...)
  bool whole_rows = false;      ///< staged reductions: rows are never split into chunks
  std::size_t acc_bytes = 0;    ///< CUDA: sizeof the accumulator struct (split reductions' partials)
};

/// lower()'s result: everything up to compiling, for one target.
struct Program {
  Target target;
  std::vector<ir::Node*> roots;  ///< the unrealized outputs, in request order
  ir::Subgraph graph;            ///< after the passes, verified
  // Below: empty for the interpreter target.
  schedule::Schedule sched;             ///< kernels after target lowering and normalization
  std::vector<KernelCode> code;         ///< parallel to sched.kernels
  std::string source;                   ///< one translation unit of every loop kernel (empty: none)
  std::vector<const ir::Node*> leaves;  ///< realize()'s leaves, then any the key did not know
  PlanSlots slots;
  bool replayable = false;  ///< every leaf slot is one of realize()'s leaves
  schedule::MemoryPlan mem;
  std::vector<int64_t> shift;  ///< per slot: arena offset in elements (arena_shifts)
};

/// Steps 1-6 on the pending graph of `outputs` (realized outputs are skipped). `leaves`: the
/// graph's realized leaves in plan-key order (a plan built from the Program replays on leaves in
/// that order); may be empty when the Program is only looked at (kernel sources for tests).
Program lower(const std::vector<ir::NodePtr>& outputs, const Target& target,
              const std::vector<const ir::Node*>& leaves = {});
/// Steps 3-6 on a subgraph that already went through the passes and the verifier (lower() above,
/// and tools that hold one: the cuda-compile capture, the golden kernels). `roots`: the outputs in
/// request order (a plan maps its outputs to roots by position).
Program lower(ir::Subgraph verified, const std::vector<ir::Node*>& roots, const Target& target,
              const std::vector<const ir::Node*>& leaves = {});

/// The stages of the pipeline that print (docs/env.md, CGRAD_DEBUG): each prints at its level.
enum class Stage : uint8_t {
  Run,       ///< 1: one line per realize, plan replay, result-cache hit (realize.cpp) or fallback
  Key,       ///< 2: why a plan is new (the key component that differs, realize.cpp)
  Pass,      ///< 4: the graph after each pass
  Graph,     ///< 4: the verified graph lower() schedules
  Schedule,  ///< 2: every kernel with the rule that ends it, every node's state and rule
  Target,    ///< 2: the kernels after target lowering, when it changed them
  Source,    ///< 3: the generated source, each kernel named with the nodes it computes
  Memory,    ///< 2: the memory plan
};
/// The CGRAD_DEBUG level from which `stage` prints.
int stage_level(Stage stage);
/// Prints `text()` to stderr (prefixed `[cgrad] `) when CGRAD_DEBUG reaches the stage's level;
/// `text` is only called then.
void dump(Stage stage, const std::function<std::string()>& text);

/// Per position of `g.order`: the node's number in ir::to_string(roots) (`%N`).
std::vector<int> printer_numbers(const ir::Subgraph& g, const std::vector<ir::Node*>& roots);

}  // namespace cgrad::runtime
