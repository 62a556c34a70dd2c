// Shared pieces of the cgrad Python extension (module.cpp binds the array and the functions,
// dlpack.cpp the DLPack exchange): the GIL rule for foreign memory's release callbacks.
#pragma once

#include <nanobind/nanobind.h>

#include <cgrad/cgrad.hpp>

#include <functional>

namespace cgrad::py {

namespace nb = nanobind;

/// Runs `fn` (which needs the GIL: it releases a Python producer's buffer) now when this
/// thread holds the GIL, else queues it for drain_deferred(). Evaluation runs with the GIL
/// released and may drop the last reference to a foreign buffer; taking the GIL there could
/// deadlock against a thread that holds the GIL and waits for the realize lock.
void run_with_gil(std::function<void()> fn);
/// Runs the queued callbacks (call with the GIL held).
void drain_deferred();

void bind_dlpack(nb::module_& m);

}  // namespace cgrad::py
