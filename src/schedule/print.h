// The text form of a schedule: what `make_schedule` decided, as plain lines that diff cleanly.
//
// tests/schedule compares it before and after, like tests/passes does with the IR printer, and
// schedule_dump (tests/schedule) records it for whole test suites. Nodes are named by their
// position in the subgraph (`%3`, as in the `op#3` of the why strings) or, given the roots, by
// their number in ir::to_string(roots) (so a test's IR and schedule texts use the same names);
// leaves are `L0` (their index in Schedule::leaves), slots `s0`, kernels `k0`, accesses `a0`, SSA
// values `v0`, reductions `r0`. Nothing depends on pointer values: the same graph prints the
// same text.
#pragma once

#include "schedule/schedule.h"

#include <string>

namespace cgrad::schedule {

/// One kernel: its kind, loop sizes, accesses, instructions, reductions and stores.
std::string to_string(const KernelSpec& k);

/// The whole schedule of `g`: slots, kernels (with why they end where they do), then each
/// node's state and rule, and the outputs. With `roots` (those g was made from), nodes carry the
/// IR printer's numbers.
std::string to_string(const Schedule& s, const ir::Subgraph& g, const std::vector<ir::Node*>& roots = {});

}  // namespace cgrad::schedule
