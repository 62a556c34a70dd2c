// The process-wide communicator slot read by the backends when they run an AllReduce kernel.
#include "runtime/collective.h"

#include <atomic>
#include <utility>

namespace cgrad::runtime {

namespace {
std::shared_ptr<Communicator>& slot() {
  static std::shared_ptr<Communicator> c;
  return c;
}
std::atomic<Communicator*> current{nullptr};
thread_local bool agreed = false;
}  // namespace

void mark_agreed_failure() { agreed = true; }
bool take_agreed_failure() { return std::exchange(agreed, false); }

Communicator* communicator() { return current.load(std::memory_order_acquire); }

void set_communicator(std::shared_ptr<Communicator> c) {
  current.store(c.get(), std::memory_order_release);
  slot() = std::move(c);
}

}  // namespace cgrad::runtime
