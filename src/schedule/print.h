// The text form of a schedule: what `make_schedule` decided, as plain lines that diff cleanly.
//
// tests/schedule compares it before and after, like tests/passes does with the IR printer, and
// CGRAD_DEBUG=2 prints it. Nodes are named by their position in the subgraph (`%3`), leaves by
// their index in Schedule::leaves (`L0`), slots `s0`, kernels `k0`, accesses `a0`, SSA values
// `v0`, reductions `r0`; nothing depends on pointer values, so the same graph prints the same text.
#pragma once

#include "schedule/schedule.h"

#include <string>

namespace cgrad::schedule {

/// One kernel: its kind, loop sizes, accesses, instructions, reductions and stores.
std::string to_string(const KernelSpec& k);

/// The whole schedule of `g`: slots, kernels (with why they end where they do), then each
/// node's state and rule, and the outputs. `reasons = false` leaves out the per-node lines.
std::string to_string(const Schedule& s, const ir::Subgraph& g, bool reasons = true);

}  // namespace cgrad::schedule
