// The trace log hooks of compile() (see trace.h).
#include "frontend/trace.h"

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
