#include "jetson/control/control_interrupt.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>
#include <system_error>

namespace jetchar::jetson {
namespace {

// What the handler touches: lock-free atomics only (a std::mutex is not async-signal-safe).
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> g_signal{0};
std::atomic<int> g_count{0};
// The self-pipe: made by the first holder ever and kept for the process's life (two O_CLOEXEC
// descriptors), so a handler running in another thread never writes to a descriptor closed and
// reused meanwhile. Non-blocking at both ends.
std::atomic<int> g_wake_read_fd{-1};
std::atomic<int> g_wake_write_fd{-1};

extern "C" void on_signal(int signal) {
  const int saved = errno;
  g_signal.store(signal);
  g_count.fetch_add(1);
  if (const int fd = g_wake_write_fd.load(); fd >= 0) {
    // A full pipe already wakes every waiter, so a byte that does not fit is not needed.
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);
  }
  errno = saved;
}

// The process-wide holder count and the handlers the first holder found; changed only under `mutex`.
struct Handlers {
  std::mutex mutex;
  int holders = 0;
  struct sigaction previous_int {};
  struct sigaction previous_term {};
};

Handlers& handlers() {
  static Handlers shared;
  return shared;
}

// An empty self-pipe: made once, emptied of an earlier outermost holder's bytes after that.
void empty_pipe() {
  if (g_wake_read_fd.load() < 0) {
    int fds[2] = {-1, -1};
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
      throw std::system_error(errno, std::generic_category(), "ControlInterrupt: pipe2");
    }
    g_wake_read_fd.store(fds[0]);
    g_wake_write_fd.store(fds[1]);
    return;
  }
  char buffer[64];
  while (::read(g_wake_read_fd.load(), buffer, sizeof buffer) > 0) {
  }
}

// The first holder: an empty pipe and a clear flag, then the handlers (the previous ones kept for
// the last holder).
void install(Handlers& h) {
  empty_pipe();
  g_signal.store(0);
  g_count.store(0);
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (::sigaction(SIGINT, &action, &h.previous_int) != 0) {
    throw std::system_error(errno, std::generic_category(), "ControlInterrupt: sigaction(SIGINT)");
  }
  if (::sigaction(SIGTERM, &action, &h.previous_term) != 0) {
    const int error = errno;
    ::sigaction(SIGINT, &h.previous_int, nullptr);
    throw std::system_error(error, std::generic_category(), "ControlInterrupt: sigaction(SIGTERM)");
  }
}

}  // namespace

ControlInterrupt::ControlInterrupt() {
  Handlers& h = handlers();
  const std::lock_guard lock(h.mutex);
  if (h.holders == 0) install(h);
  ++h.holders;
}

ControlInterrupt::~ControlInterrupt() {
  Handlers& h = handlers();
  const std::lock_guard lock(h.mutex);
  if (--h.holders > 0) return;
  ::sigaction(SIGINT, &h.previous_int, nullptr);
  ::sigaction(SIGTERM, &h.previous_term, nullptr);
}

int ControlInterrupt::signal() const { return g_signal.load(); }

int ControlInterrupt::count() const { return g_count.load(); }

int ControlInterrupt::wait(std::chrono::milliseconds timeout) const {
  if (const int signal = g_signal.load(); signal != 0) return signal;
  // Waiters never drain the pipe: once a byte is there every waiter, in any thread, returns at
  // once, as the flag stays set until a new outermost holder.
  pollfd p{g_wake_read_fd.load(), POLLIN, 0};
  [[maybe_unused]] const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  return g_signal.load();
}

}  // namespace jetchar::jetson
