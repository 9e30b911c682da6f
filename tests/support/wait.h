// tests/support/wait.h
//
// Waiting for something a test is not told about (a server that starts answering, a job that
// ends, a lease that runs out): look at it every poll interval until it holds or a deadline
// passes. A test waits on the condition, never for a fixed time: a fixed sleep is either longer
// than needed or, on a slow machine, too short.
//
//   ASSERT_TRUE(WaitUntil([&] { return StateOf(id) != "running"; }, 10s, "job " + id + " ended"));
//
// WaitUntil() looks at `condition` at once, then every `poll_interval`, on the calling thread. It
// returns success as soon as `condition` returns true; once `timeout` has passed and a last look
// still found it false, a failure that says what was awaited and for how long ("gave up after
// 10000 ms waiting until job 42 ended"). An exception from `condition` propagates.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string_view>

namespace tessera::testing {

inline constexpr std::chrono::milliseconds kPollInterval{20};

[[nodiscard]] ::testing::AssertionResult WaitUntil(
    const std::function<bool()>& condition, std::chrono::milliseconds timeout,
    std::string_view what, std::chrono::milliseconds poll_interval = kPollInterval);

}  // namespace tessera::testing
