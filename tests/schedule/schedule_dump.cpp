// Linked into a copy of a test suite (tests/ops, tests/fusion) to record every schedule it
// makes: each subgraph the suite realizes afresh is also scheduled with both scheduler options
// (the CUDA rules and the CPU JIT's staged reductions) and its text form appended to the file
// $CGRAD_SCHEDULE_DUMP. Comparing two such files, from before and after a scheduler change,
// shows every kernel the change moved (docs/fusion.md, "Changing the scheduler"). Without the
// variable the suite runs as usual.
#include "runtime/realize.h"
#include "schedule/print.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <mutex>

namespace {

std::mutex g_mutex;
std::ofstream g_out;

void record(const cgrad::ir::Subgraph& g) {
  namespace sc = cgrad::schedule;
  const std::string plain = sc::to_string(sc::make_schedule(g, {}), g);
  const std::string staged = sc::to_string(sc::make_schedule(g, sc::Options{.staged_reductions = true}), g);
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  std::lock_guard<std::mutex> lock(g_mutex);
  g_out << "== "
        << (t ? std::string(t->test_suite_name()) + "." + t->name() : std::string("(outside a test)")) << "\n"
        << plain << "-- staged\n"
        << staged;
}

class ScheduleDump : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* path = std::getenv("CGRAD_SCHEDULE_DUMP");
    if (!path || !*path) return;
    g_out.open(path);
    cgrad::runtime::set_subgraph_hook(record);
  }
  void TearDown() override { cgrad::runtime::set_subgraph_hook(nullptr); }
};

const auto* const g_env = ::testing::AddGlobalTestEnvironment(new ScheduleDump);

}  // namespace
