// jetson/control/control_interrupt.h: holders nest (the sweep holds one for its whole duration and
// the control session it opens holds another). Every holder sees a signal, the handlers found by
// the first holder come back only when the last one goes (in whatever order they go), and a new
// outermost holder starts with a clear flag.
#include "jetson/control/control_interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

namespace jetchar::jetson {
namespace {

using namespace std::chrono_literals;

std::atomic<int> g_previous_handler_calls{0};
extern "C" void previous_handler(int) { g_previous_handler_calls.fetch_add(1); }

// Installs `previous_handler` for SIGINT and SIGTERM as "what was there before", and SIG_DFL
// again afterwards, so a failing test cannot leave a handler that swallows ctest's SIGTERM.
class ControlInterruptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_previous_handler_calls = 0;
    struct sigaction action {};
    action.sa_handler = previous_handler;
    sigemptyset(&action.sa_mask);
    ASSERT_EQ(::sigaction(SIGINT, &action, nullptr), 0);
    ASSERT_EQ(::sigaction(SIGTERM, &action, nullptr), 0);
  }
  void TearDown() override {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
  }

  static bool previous_handler_installed(int signal) {
    struct sigaction current {};
    ::sigaction(signal, nullptr, &current);
    return current.sa_handler == previous_handler;
  }
};

TEST_F(ControlInterruptTest, EveryHolderSeesTheSignal) {
  const ControlInterrupt outer;
  const ControlInterrupt inner;
  EXPECT_EQ(outer.signal(), 0);
  EXPECT_EQ(inner.signal(), 0);
  ASSERT_EQ(::raise(SIGINT), 0);
  EXPECT_EQ(outer.signal(), SIGINT);
  EXPECT_EQ(inner.signal(), SIGINT);
  EXPECT_EQ(outer.wait(0ms), SIGINT);
  EXPECT_EQ(inner.wait(0ms), SIGINT);
  EXPECT_EQ(g_previous_handler_calls, 0) << "the handler found before was called";
}

TEST_F(ControlInterruptTest, TheHandlersFoundComeBackOnlyAfterTheLastHolder) {
  auto outer = std::make_unique<ControlInterrupt>();
  EXPECT_FALSE(previous_handler_installed(SIGINT));
  EXPECT_FALSE(previous_handler_installed(SIGTERM));
  auto inner = std::make_unique<ControlInterrupt>();
  // The outermost goes first: the inner one still holds the handlers.
  outer.reset();
  EXPECT_FALSE(previous_handler_installed(SIGINT));
  EXPECT_FALSE(previous_handler_installed(SIGTERM));
  ASSERT_EQ(::raise(SIGTERM), 0);
  EXPECT_EQ(inner->signal(), SIGTERM);
  EXPECT_EQ(g_previous_handler_calls, 0);
  inner.reset();
  EXPECT_TRUE(previous_handler_installed(SIGINT));
  EXPECT_TRUE(previous_handler_installed(SIGTERM));
  ASSERT_EQ(::raise(SIGINT), 0);
  EXPECT_EQ(g_previous_handler_calls, 1);
}

TEST_F(ControlInterruptTest, ANewOutermostHolderStartsWithAClearFlag) {
  {
    const ControlInterrupt first;
    ASSERT_EQ(::raise(SIGTERM), 0);
    ASSERT_EQ(first.signal(), SIGTERM);
    // A holder nested in one that has seen a signal sees it too (the sweep stops).
    const ControlInterrupt nested;
    EXPECT_EQ(nested.signal(), SIGTERM);
  }
  const ControlInterrupt next;
  EXPECT_EQ(next.signal(), 0);
  EXPECT_EQ(next.wait(1ms), 0);
}

// Waiters never consume each other's wake-up: two threads waiting on two holders both return with
// the signal. (A lost wake-up shows as a wait that runs to its bound; no timing is asserted.)
TEST_F(ControlInterruptTest, ASignalWakesEveryWaiter) {
  const ControlInterrupt outer;
  const ControlInterrupt inner;
  std::atomic<int> seen_outer{0};
  std::atomic<int> seen_inner{0};
  std::atomic<int> waiting{0};
  std::thread a([&] {
    ++waiting;
    seen_outer = outer.wait(10min);
  });
  std::thread b([&] {
    ++waiting;
    seen_inner = inner.wait(10min);
  });
  while (waiting.load() < 2) std::this_thread::yield();
  std::this_thread::sleep_for(50ms);  // most likely inside poll(); either way the byte is in the pipe
  ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);
  a.join();
  b.join();
  EXPECT_EQ(seen_outer, SIGTERM);
  EXPECT_EQ(seen_inner, SIGTERM);
}

}  // namespace
}  // namespace jetchar::jetson
