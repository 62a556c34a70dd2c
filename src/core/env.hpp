// Every CGRAD_* environment knob, read once in one place (docs/env.md lists them).
#pragma once

#include <cstdint>

namespace cgrad::core {

struct Env {
  int debug = 0;                        ///< CGRAD_DEBUG: 0 silent .. 4 graph after every pass
  int64_t max_pending_depth = 256;      ///< CGRAD_MAX_PENDING_DEPTH: auto-realize rule, 0 = off
};

/// The knobs, read from the environment on first use.
const Env& env();
/// Overrides for tests and tools (not thread-safe against concurrent builds).
Env& env_mut();

}  // namespace cgrad::core
