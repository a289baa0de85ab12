#include "experiments/distributed/rank_processes.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>

namespace jetchar::experiments::distributed {

RankProcesses::~RankProcesses() { stop(); }

void RankProcesses::start(int rank, const std::vector<std::string>& arguments) {
  // Everything the child needs is made before fork(): after it, a multithreaded parent's child may
  // only make async-signal-safe calls until execv.
  std::vector<std::string> argv_text{"/proc/self/exe"};
  argv_text.insert(argv_text.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& text : argv_text) argv.push_back(text.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), fmt::format("starting rank {}", rank));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before the line above
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  children_.push_back({rank, pid, std::nullopt});
}

void RankProcesses::reap() {
  for (auto& child : children_) {
    if (child.status) continue;
    int status = 0;
    if (::waitpid(child.pid, &status, WNOHANG) == child.pid) child.status = status;
  }
}

std::string RankProcesses::describe(const Child& child) {
  if (!child.status) return fmt::format("rank {} (pid {}) is still running", child.rank, child.pid);
  const int status = *child.status;
  if (WIFSIGNALED(status)) {
    const char* name = ::sigabbrev_np(WTERMSIG(status));
    return fmt::format("rank {} (pid {}) was killed by {}", child.rank, child.pid,
                       name != nullptr ? fmt::format("SIG{}", name) : fmt::format("signal {}", WTERMSIG(status)));
  }
  return fmt::format("rank {} (pid {}) exited with status {}", child.rank, child.pid, WEXITSTATUS(status));
}

bool RankProcesses::failed(const Child& child) {
  return child.status && !(WIFEXITED(*child.status) && WEXITSTATUS(*child.status) == 0);
}

std::optional<RankExit> RankProcesses::ended() {
  reap();
  for (const auto& child : children_) {
    if (child.status) return RankExit{child.rank, describe(child)};
  }
  return std::nullopt;
}

std::optional<RankExit> RankProcesses::failed_within(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    reap();
    for (const auto& child : children_) {
      if (failed(child)) return RankExit{child.rank, describe(child)};
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<RankExit> RankProcesses::wait_all(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    reap();
    const bool running = std::any_of(children_.begin(), children_.end(), [](const Child& c) { return !c.status; });
    if (!running || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::vector<RankExit> failures;
  for (const auto& child : children_) {
    if (!child.status) {
      failures.push_back(
          {child.rank, fmt::format("rank {} (pid {}) did not end within {} s of the run's end; stopped", child.rank,
                                   child.pid, std::chrono::duration<double>(timeout).count())});
    } else if (failed(child)) {
      failures.push_back({child.rank, describe(child)});
    }
  }
  stop();
  return failures;
}

void RankProcesses::stop() {
  reap();
  for (const auto& child : children_) {
    if (!child.status) ::kill(child.pid, SIGTERM);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    reap();
    const bool running = std::any_of(children_.begin(), children_.end(), [](const Child& c) { return !c.status; });
    if (!running) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      for (auto& child : children_) {
        if (child.status) continue;
        ::kill(child.pid, SIGKILL);
        int status = 0;
        if (::waitpid(child.pid, &status, 0) == child.pid) child.status = status;
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace jetchar::experiments::distributed
