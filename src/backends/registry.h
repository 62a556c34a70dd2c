// The backends layer's device table (registry.cpp): which backend runs each device, and the
// copies between devices. The frontend hands it to the runtime (runtime::install_devices).
#pragma once

#include "runtime/backend.h"

namespace cgrad::backends {

/// The table of every backend this build has (CPU JIT or interpreter, CUDA per device).
runtime::Devices& devices();

}  // namespace cgrad::backends
