// The trace log hooks of compile() (see trace.h).
#include "frontend/trace.h"

#include <cgrad/compile.hpp>

namespace cgrad::frontend {

TraceLog*& active_trace() {
  static thread_local TraceLog* log = nullptr;
  return log;
}

void note_read(TraceLog& log, const Tensor& t) {
  const ir::NodePtr& n = t.node();
  if (n->id >= log.watermark) return;  // built inside the trace: part of the graph, not an input
  if (!log.seen_reads.insert(n.get()).second) return;
  log.reads.push_back(t);
  log.read_nodes.push_back(n);
}

void note_assign(TraceLog& log, const Tensor& t) {
  if (log.seen_assigned.insert(&t.node()).second) log.assigned.push_back(t);
}

}  // namespace cgrad::frontend

namespace cgrad::detail {

bool tracing() { return frontend::active_trace() != nullptr; }

bool traced_input(const Tensor& t) {
  const frontend::TraceLog* log = frontend::active_trace();
  // its node existed before the trace, or the trace assigned it already (`m.w *= 0.5; m.w += x`)
  return log && t.defined() && (t.node()->id < log->watermark || log->seen_assigned.count(&t.node()) != 0);
}

}  // namespace cgrad::detail
