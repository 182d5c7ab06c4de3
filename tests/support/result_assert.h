// gtest assertions on a Result: ASSERT_TRUE(IsOk(server.Start({...}))) prints the error.
#pragma once

#include <gtest/gtest.h>

#include "exporter/common/result.h"

namespace podwait::testing {

template <typename T>
::testing::AssertionResult IsOk(const Result<T>& r) {
  if (r.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.error;
}

}  // namespace podwait::testing
