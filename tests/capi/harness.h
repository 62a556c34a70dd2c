/*
 * A minimal C test harness: CHECK macros that count passes and failures, and a final line
 * "N passed, M failed" (the exit status is nonzero when anything failed). Every return code a
 * test checks is recorded, so a test can assert that it reached every error code.
 */
#ifndef CGRAD_TESTS_CAPI_HARNESS_H
#define CGRAD_TESTS_CAPI_HARNESS_H

#include <cgrad.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int g_passed = 0;
static int g_failed = 0;

/* Codes seen by CHECK_RC (index: -code - 1000 for -1000..-1099, 100 + (-code - 1400) for -14xx). */
static int g_seen_codes[128];

static inline void harness_record(int code) {
  if (code <= -1000 && code > -1100) g_seen_codes[-code - 1000] = 1;
  if (code <= -1400 && code > -1420) g_seen_codes[100 + (-code - 1400)] = 1;
}

static inline int harness_seen(int code) {
  if (code <= -1000 && code > -1100) return g_seen_codes[-code - 1000];
  if (code <= -1400 && code > -1420) return g_seen_codes[100 + (-code - 1400)];
  return 0;
}

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (cond) {                                                                                \
      ++g_passed;                                                                              \
    } else {                                                                                   \
      ++g_failed;                                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              cgrad_last_error());                                                             \
    }                                                                                          \
  } while (0)

#define CHECK_RC(expr, expected)                                                                            \
  do {                                                                                                      \
    int rc_ = (expr);                                                                                       \
    int want_ = (expected);                                                                                 \
    harness_record(rc_);                                                                                    \
    if (rc_ == want_) {                                                                                     \
      ++g_passed;                                                                                           \
    } else {                                                                                                \
      ++g_failed;                                                                                           \
      fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s); last error: %s\n", __FILE__, __LINE__, \
              #expr, rc_, cgrad_error_string(rc_), want_, cgrad_error_string(want_), cgrad_last_error());   \
    }                                                                                                       \
  } while (0)

#define CHECK_OK(expr) CHECK_RC(expr, CGRAD_SUCCESS)

#define CHECK_NEAR(a, b, tol)                                                                        \
  do {                                                                                               \
    double a_ = (double)(a), b_ = (double)(b);                                                       \
    if (a_ == b_ || fabs(a_ - b_) <= (tol) * (1.0 + fabs(b_))) {                                     \
      ++g_passed;                                                                                    \
    } else {                                                                                         \
      ++g_failed;                                                                                    \
      fprintf(stderr, "%s:%d: %s = %.9g, expected %s = %.9g\n", __FILE__, __LINE__, #a, a_, #b, b_); \
    }                                                                                                \
  } while (0)

/* Runs one test function, naming it on failure. */
#define RUN(test)                                                                                  \
  do {                                                                                             \
    int before_ = g_failed;                                                                        \
    test();                                                                                        \
    if (g_failed != before_) fprintf(stderr, "-- %s: %d failure(s)\n", #test, g_failed - before_); \
  } while (0)

static inline int harness_finish(void) {
  printf("%d passed, %d failed\n", g_passed, g_failed);
  fflush(stdout);
  return g_failed ? 1 : 0;
}

#endif /* CGRAD_TESTS_CAPI_HARNESS_H */
