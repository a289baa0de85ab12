#include "experiments/frontier/probe_child.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "sysfs/unique_fd.h"

namespace jetchar::experiments {

namespace {

constexpr std::size_t kStderrTailBytes = 4096;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The last non-empty line of `text`.
std::string last_line(const std::string& text) {
  auto end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return {};
  const auto begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

std::string one_line(std::string text) {
  for (auto& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  const auto first = text.find_first_not_of(' ');
  return first == std::string::npos ? std::string{} : text.substr(first);
}

}  // namespace

std::filesystem::path own_executable() { return "/proc/self/exe"; }

ProbeOutcome outcome_without_verdict(int signal, int exit_code, const std::string& stderr_tail) {
  ProbeOutcome outcome;
  const std::string text = lower(stderr_tail);
  const bool says_oom = text.find("out of memory") != std::string::npos ||
                        text.find("bad_alloc") != std::string::npos ||
                        text.find("can't allocate memory") != std::string::npos ||
                        text.find("cannot allocate memory") != std::string::npos;
  const std::string how = signal != 0 ? fmt::format("killed by signal {} ({})", signal, ::strsignal(signal))
                                      : fmt::format("exited with status {} without a verdict", exit_code);
  outcome.status = (signal == SIGKILL || says_oom) ? ProbeStatus::kOutOfMemory : ProbeStatus::kFailed;
  outcome.error = stderr_tail.empty() ? how : fmt::format("{}: {}", how, one_line(stderr_tail));
  return outcome;
}

ProbeOutcome run_probe_child(const ProbeCommand& command, const ProbeRequest& request) {
  std::vector<std::string> argv{command.executable.string()};
  argv.insert(argv.end(), command.leading_args.begin(), command.leading_args.end());
  argv.push_back(to_json(request).dump());
  // Built before fork: between fork and execv the child calls async-signal-safe functions only.
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);

  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  sysfs::UniqueFd out_read(out_pipe[0]), out_write(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  sysfs::UniqueFd err_read(err_pipe[0]), err_write(err_pipe[1]);

  const auto started = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork " + argv.front());
  if (pid == 0) {  // never returns: no destructor runs in the child
    ::dup2(out_write.get(), STDOUT_FILENO);
    ::dup2(err_write.get(), STDERR_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  out_write.close();
  err_write.close();

  std::string out_text;
  std::string err_text;
  bool timed_out = false;
  char buffer[4096];
  while (out_read || err_read) {
    int wait_ms = -1;
    if (command.timeout) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(started + *command.timeout -
                                                                              std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        ::kill(pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(std::min<std::int64_t>(left.count(), 60'000));
    }
    pollfd fds[2] = {{out_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}};
    const int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      auto& fd = i == 0 ? out_read : err_read;
      auto& text = i == 0 ? out_text : err_text;
      const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fd.close();
        continue;
      }
      text.append(buffer, static_cast<std::size_t>(n));
      // Only the last line of stdout and the tail of stderr matter; a chatty child cannot grow these.
      if (i == 1 && err_text.size() > 2 * kStderrTailBytes) err_text.erase(0, err_text.size() - kStderrTailBytes);
      if (i == 0 && out_text.size() > (1u << 20)) out_text.erase(0, out_text.size() - (1u << 16));
    }
  }
  out_read.close();
  err_read.close();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (err_text.size() > kStderrTailBytes) err_text.erase(0, err_text.size() - kStderrTailBytes);

  ProbeOutcome outcome;
  if (timed_out) {
    outcome.status = ProbeStatus::kFailed;
    outcome.error = fmt::format("no verdict within {} s; killed", command.timeout->count());
  } else if (const auto line = last_line(out_text); !line.empty() && line.front() == '{') {
    try {
      outcome = probe_outcome_from_json(nlohmann::json::parse(line));
    } catch (const std::exception& error) {
      outcome.status = ProbeStatus::kFailed;
      outcome.error = fmt::format("the probe's verdict line is not the protocol's ({}): {}", error.what(), line);
    }
  } else {
    outcome = outcome_without_verdict(WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                                      WIFEXITED(status) ? WEXITSTATUS(status) : -1, err_text);
  }
  outcome.wall_s = wall_s;
  return outcome;
}

}  // namespace jetchar::experiments
