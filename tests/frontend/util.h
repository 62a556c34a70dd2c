// Helpers of the frontend tests: error capture and value checks.
#pragma once

#include "core/env.hpp"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <string>
#include <vector>

namespace ft {

using namespace cgrad;

struct Caught {
  bool thrown = false;
  ErrorCode code = ErrorCode::Internal;
  std::string msg;
};

template <class F>
Caught catch_error(F&& f) {
  Caught c;
  try {
    f();
  } catch (const Error& e) {
    c.thrown = true;
    c.code = e.code();
    c.msg = e.what();
  }
  return c;
}

/// Expects `f` to throw cgrad::Error with `code` and a message containing every one of `parts`.
template <class F>
void expect_error(F&& f, ErrorCode code, std::initializer_list<std::string> parts, const std::string& what) {
  Caught c = catch_error(f);
  ASSERT_TRUE(c.thrown) << what << ": no cgrad::Error";
  EXPECT_EQ(c.code, code) << what << ": got " << error_code_name(c.code) << " (" << c.msg << ")";
  for (const std::string& p : parts)
    EXPECT_NE(c.msg.find(p), std::string::npos) << what << ": '" << p << "' not in: " << c.msg;
}

/// Overrides environment knobs for one scope (tests run one at a time per process).
class ScopedEnv {
 public:
  ScopedEnv() : saved_(core::env_mut()) {}
  ~ScopedEnv() { core::env_mut() = saved_; }
  core::Env* operator->() { return &core::env_mut(); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  core::Env saved_;
};

inline std::vector<double> vals(const Tensor& t) { return t.to_vector<double>(); }

}  // namespace ft
