// cgrad::dist in one process, no MPI needed: the AllReduce node (identity alone), where the
// sharded ops put their collectives (counted by a test communicator), fusion counts, plan replay
// of collectives, autograd through them, block sizes, the errors that name the sharded axis, and
// the error agreement of spmd(). The multi-process checks are tests/dist/mpi_check.cpp.
#include <cgrad/cgrad.hpp>
#include <cgrad/compile.hpp>
#include <cgrad/dist.hpp>

#include "runtime/collective.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <string>

namespace {

using namespace cgrad;
namespace dist = cgrad::dist;

// Pretends to be process `rank` of `size` processes that all hold this process's values: a sum
// all-reduce multiplies by `size`, max/min leave values alone. Counts what it is asked.
struct MirrorComm : runtime::Communicator {
  int r = 0, p = 1;
  int calls = 0, checks = 0, failures = 0;
  std::size_t elements = 0;
  bool fail_next = false;  // the next collective reports a failure of "process 1"
  MirrorComm(int rank_, int size_) : r(rank_), p(size_) {}
  int rank() const override { return r; }
  int size() const override { return p; }
  void all_reduce(void* data, std::size_t count, DType dtype, ir::Op op) override {
    ++calls;
    elements += count;
    if (fail_next) {
      fail_next = false;
      runtime::mark_agreed_failure();
      throw Error(ErrorCode::ExecutionFailed, "process 1 of 2 failed: boom");
    }
    if (op != ir::Op::Sum) return;
    for (std::size_t i = 0; i < count; ++i) {
      if (dtype == DType::f32) static_cast<float*>(data)[i] *= static_cast<float>(p);
      if (dtype == DType::f64) static_cast<double*>(data)[i] *= p;
      if (dtype == DType::i64) static_cast<int64_t*>(data)[i] *= p;
      if (dtype == DType::i32) static_cast<int32_t*>(data)[i] *= p;
    }
  }
  void report_failure(const std::string&) override { ++failures; }
  void check() override { ++checks; }
};

struct WithComm {
  std::shared_ptr<MirrorComm> c;
  WithComm(int rank, int size) : c(std::make_shared<MirrorComm>(rank, size)) { runtime::set_communicator(c); }
  ~WithComm() { runtime::set_communicator(nullptr); }
};

Tensor ramp(Shape s, double scale = 0.1) {
  return (arange(std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>()), f32) * scale - 1.0)
      .reshape(s)
      .eval();
}

void expect_near(const std::vector<float>& a, const std::vector<float>& b, double tol = 1e-5) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], tol * (1 + std::fabs(b[i]))) << "at " << i;
}

TEST(Dist, AloneRankAndSize) {
  EXPECT_EQ(dist::rank(), 0);
  EXPECT_EQ(dist::size(), 1);
  Tensor x = ramp({3, 4});
  expect_near(dist::all_reduce(x).to_vector<float>(), x.to_vector<float>(), 0);
  expect_near(dist::all_reduce(x, dist::ReduceOp::Max).to_vector<float>(), x.to_vector<float>(), 0);
  EXPECT_THROW(dist::all_reduce(x > 0), Error);
}

TEST(Dist, BlocksCoverTheAxisUnevenly) {
  for (int64_t n : {1, 4, 13, 100})
    for (int p : {1, 2, 3, 4}) {
      int64_t next = 0;
      for (int r = 0; r < p; ++r) {
        dist::Block b = dist::block_of(n, r, p);
        EXPECT_EQ(b.start, next);
        EXPECT_GE(b.size, n / p);
        EXPECT_LE(b.size, n / p + 1);
        next = b.start + b.size;
      }
      EXPECT_EQ(next, n);
    }
  WithComm w(1, 4);
  dist::DTensor s = dist::shard(arange(13, f32).reshape({13, 1}), 0);
  EXPECT_EQ(s.shape(), (Shape{13, 1}));
  EXPECT_EQ(s.local().shape(), (Shape{3, 1}));
  expect_near(s.local().to_vector<float>(), {4, 5, 6}, 0);
  EXPECT_THROW(dist::shard(zeros({3}), 0), Error);  // fewer elements than processes
}

TEST(Dist, ElementwiseStaysLocalAndFuses) {
  WithComm w(0, 1);
  Tensor x = ramp({6, 5}), y = ramp({5}, 0.3), z = ramp({6, 1}, 0.2);
  dist::DTensor xs = dist::shard(x, 0);
  dist::DTensor out = dist::exp(xs) * dist::replicate(y) + dist::replicate(z) / 2.0;
  reset_stats();
  out.eval();
  EXPECT_EQ(stats().kernels_launched, 1u);
  EXPECT_EQ(w.c->calls, 0);
  EXPECT_EQ(out.axis(), 0);
  expect_near(out.local().to_vector<float>(), (exp(x) * y + z / 2.0).to_vector<float>());
}

TEST(Dist, ReductionOverShardedAxisIsOneKernelAndOneAllReduce) {
  WithComm w(0, 1);
  Tensor a = ramp({8, 3}), b = ramp({8, 3}, 0.05);
  dist::DTensor s = dist::sum(dist::shard(a, 0) * dist::shard(b, 0));
  reset_stats();
  const float v = s.item<float>();
  EXPECT_EQ(stats().kernels_launched, 1u);
  EXPECT_EQ(w.c->calls, 1);
  EXPECT_FALSE(s.sharded());
  EXPECT_NEAR(v, sum(a * b).item<float>(), 1e-5);
  // Over a local axis: no collective, still sharded.
  dist::DTensor r = dist::shard(a, 0).sum({1});
  r.eval();
  EXPECT_EQ(w.c->calls, 1);
  EXPECT_EQ(r.axis(), 0);
  // max/min/mean over the sharded axis, keepdim.
  expect_near(dist::shard(a, 0).max({0}, true).local().to_vector<float>(),
              max(a, {0}, true).to_vector<float>(), 0);
  expect_near(dist::shard(a, 1).min({1}).local().to_vector<float>(), min(a, {1}).to_vector<float>(), 0);
  EXPECT_NEAR(dist::shard(a, 1).mean().item<float>(), mean(a).item<float>(), 1e-6);
  // f16 in f32, rounded once: a sum of 1000 values of 100 is past f16's 65504
  Tensor h = full({1000}, 100.0, DType::f16);
  dist::DTensor hm = dist::shard(h, 0).mean();
  EXPECT_EQ(hm.local().dtype(), DType::f16);
  EXPECT_EQ(hm.local().item<float>(), 100.0f);
}

TEST(Dist, SumOverTheShardedAxisAddsEveryProcessPart) {
  WithComm w(0, 3);  // three processes holding the same block (the mirror communicator)
  Tensor a = ramp({6, 2});
  dist::DTensor s = dist::shard(a, 0);  // rows 0..1
  EXPECT_NEAR(s.sum().item<float>(), 3 * sum(a.slice(0, 0, 2)).item<float>(), 1e-5);
  EXPECT_NEAR(s.max().item<float>(), max(a.slice(0, 0, 2)).item<float>(), 0);
}

TEST(Dist, CompiledPlanReplaysItsCollective) {
  WithComm w(0, 1);
  auto f =
      compile([](const Tensor& x) { return dist::sum(dist::from_local(x, 0, x.shape()[0]) * 2.0).local(); });
  Tensor a = ramp({5, 4}), b = ramp({5, 4}, 0.2);
  EXPECT_NEAR(f(a).item<float>(), 2 * sum(a).item<float>(), 1e-5);
  const int after_first = w.c->calls;
  reset_stats();
  EXPECT_NEAR(f(b).item<float>(), 2 * sum(b).item<float>(), 1e-5);
  EXPECT_EQ(stats().plans_built, 0u);
  EXPECT_EQ(w.c->calls, after_first + 1) << "the replayed plan runs its all-reduce again";
}

TEST(Dist, MatmulOverShardedContraction) {
  WithComm w(0, 1);
  Tensor a = ramp({4, 6}), b = ramp({6, 3}, 0.07);
  dist::DTensor c = dist::matmul(dist::shard(a, 1), dist::shard(b, 0));
  expect_near(c.local().to_vector<float>(), matmul(a, b).to_vector<float>());
  EXPECT_EQ(w.c->calls, 1);
  EXPECT_FALSE(c.sharded());
  dist::DTensor rows = dist::matmul(dist::shard(a, 0), dist::replicate(b));
  EXPECT_EQ(rows.axis(), 0);
  dist::DTensor cols = dist::matmul(dist::replicate(a), dist::shard(b, 1));
  EXPECT_EQ(cols.axis(), 1);
  expect_near(cols.local().to_vector<float>(), matmul(a, b).to_vector<float>());
  EXPECT_THROW(dist::matmul(dist::shard(a, 0), dist::shard(b, 1)), Error);
}

TEST(Dist, SoftmaxOverShardedAxis) {
  WithComm w(0, 1);
  Tensor x = ramp({5, 7}, 0.3);
  expect_near(dist::softmax(dist::shard(x, 0), 0).local().to_vector<float>(),
              softmax(x, 0).to_vector<float>());
  expect_near(dist::softmax(dist::shard(x, 0), 1).local().to_vector<float>(),
              softmax(x, 1).to_vector<float>());
  expect_near(dist::log_softmax(dist::shard(x, 1), 1).local().to_vector<float>(),
              log_softmax(x, 1).to_vector<float>());
}

TEST(Dist, MovementAcrossTheShardedAxisNamesIt) {
  dist::DTensor x = dist::shard(ramp({4, 6}), 0);
  for (auto f : {+[](const dist::DTensor& t) { (void)t.slice(0, 0, 2); },
                 +[](const dist::DTensor& t) { (void)t.reshape({24}); },
                 +[](const dist::DTensor& t) {
                   (void)dist::cat({t, t}, 0);
                 }}) {
    try {
      f(x);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidOperation);
      EXPECT_NE(std::string(e.what()).find("sharded axis 0"), std::string::npos) << e.what();
    }
  }
  // Movement that keeps the axis whole works and tracks it.
  EXPECT_EQ(x.T().axis(), 1);
  EXPECT_EQ(x.reshape({4, 2, 3}).axis(), 0);
  EXPECT_EQ(x.slice(1, 0, 3).shape(), (Shape{4, 3}));
  EXPECT_THROW(dist::shard(ramp({4, 6}), 0) + dist::shard(ramp({4, 6}), 1), Error);
}

TEST(Dist, GradientsThroughAllReduce) {
  WithComm w(0, 1);
  Tensor x = ramp({6, 2});
  dist::DTensor xs = dist::shard(x, 0);
  xs.requires_grad(true);
  dist::DTensor loss = dist::sum(xs * xs) + dist::max(xs);
  loss.backward();
  std::vector<float> g = xs.grad().local().to_vector<float>(), xv = x.to_vector<float>();
  const float m = max(x).item<float>();
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], 2 * xv[i] + (xv[i] == m ? 1.f : 0.f), 1e-5);
}

TEST(Dist, AllReduceGradsSumsEveryParameterInOneCollective) {
  WithComm w(0, 2);  // two processes with the same batch: grads double, averaged they do not
  Tensor wgt = ramp({3, 2}), bias = ramp({2}, 0.5);
  wgt.requires_grad(true);
  bias.requires_grad(true);
  sum(matmul(ramp({4, 3}), wgt) + bias).backward();
  std::vector<float> gw = wgt.grad().to_vector<float>(), gb = bias.grad().to_vector<float>();
  const int before = w.c->calls;
  dist::all_reduce_grads({wgt, bias}, /*average=*/true);
  eval({wgt.grad(), bias.grad()});  // as an optimizer step does: one schedule, one collective
  expect_near(wgt.grad().to_vector<float>(), gw);
  expect_near(bias.grad().to_vector<float>(), gb);
  EXPECT_EQ(w.c->calls, before + 1);
  EXPECT_EQ(w.c->elements, 8u);
}

TEST(Dist, SpmdReportsALocalFailureAndDoesNotReportAnAgreedOne) {
  WithComm w(0, 2);
  EXPECT_THROW(dist::spmd([] { (void)(ramp({2, 3}) + ramp({4, 5})); }), Error);
  EXPECT_EQ(w.c->failures, 1);
  EXPECT_EQ(w.c->checks, 0);
  w.c->fail_next = true;  // another process failed: the collective raises, nothing more is sent
  try {
    dist::spmd([] { (void)dist::sum(dist::shard(ramp({4}), 0)).item<float>(); });
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("process 1"), std::string::npos);
  }
  EXPECT_EQ(w.c->failures, 1);
  dist::spmd([] {});
  EXPECT_EQ(w.c->checks, 1);
}

}  // namespace
