#include "jetson/control/nvpmodel_tool.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <system_error>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "sysfs/unique_fd.h"

namespace jetchar::jetson {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  return text;
}

std::optional<int> parse_non_negative(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

namespace {

// "pmode:NNNN" and, after one or more spaces, an optional "fmode:NAME"; nothing else.
std::optional<std::pair<int, std::optional<std::string>>> split_status(std::string_view text) {
  const std::string_view trimmed = trim(text);
  constexpr std::string_view kPrefix = "pmode:";
  constexpr std::string_view kFan = "fmode:";
  if (!trimmed.starts_with(kPrefix)) return std::nullopt;
  std::string_view rest = trimmed.substr(kPrefix.size());
  const size_t space = rest.find_first_of(" \t");
  const auto id = parse_non_negative(rest.substr(0, space));
  if (!id) return std::nullopt;
  if (space == std::string_view::npos) return std::pair{*id, std::optional<std::string>()};
  const std::string_view fan = trim(rest.substr(space));
  if (!fan.starts_with(kFan) || fan.size() == kFan.size() || fan.find_first_of(" \t") != std::string_view::npos) {
    return std::nullopt;
  }
  return std::pair{*id, std::optional<std::string>(fan.substr(kFan.size()))};
}

}  // namespace

int parse_nvpmodel_status(std::string_view text, std::string_view source) {
  if (const auto status = split_status(text)) return status->first;
  throw sysfs::FormatError(std::string(source), std::string(trim(text)),
                           "'pmode:NNNN fmode:NAME' or 'pmode:NNNN' (the mode id nvpmodel applied, then its fan mode)");
}

std::optional<std::string> nvpmodel_status_fan_mode(std::string_view text) {
  const auto status = split_status(text);
  return status ? status->second : std::nullopt;
}

std::string format_nvpmodel_status(int id, const std::optional<std::string>& fan_mode) {
  if (fan_mode) return fmt::format("pmode:{:04d} fmode:{}\n", id, *fan_mode);
  return fmt::format("pmode:{:04d}\n", id);
}

std::optional<NvpmodelCurrent> parse_nvpmodel_query(std::string_view output) {
  constexpr std::string_view kLabel = "NV Power Mode:";
  std::vector<std::string_view> lines;
  size_t position = 0;
  while (position <= output.size()) {
    size_t end = output.find('\n', position);
    if (end == std::string_view::npos) end = output.size();
    lines.push_back(trim(output.substr(position, end - position)));
    position = end + 1;
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with(kLabel)) continue;
    NvpmodelCurrent current;
    current.source = "nvpmodel -q";
    current.name = std::string(trim(lines[i].substr(kLabel.size())));
    if (i + 1 < lines.size()) current.id = parse_non_negative(lines[i + 1]);
    return current;
  }
  return std::nullopt;
}

ProcessResult run_process(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout) {
  if (argv.empty() || argv.front().empty() || argv.front().front() != '/') {
    throw std::invalid_argument("run_process needs an absolute program path");
  }
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  sysfs::UniqueFd child_stdin(in_pipe[0]);
  sysfs::UniqueFd write_fd(in_pipe[1]);
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  sysfs::UniqueFd read_fd(out_pipe[0]);
  sysfs::UniqueFd child_stdout(out_pipe[1]);
  // The argument vector is built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork " + argv.front());
  if (pid == 0) {  // the child never returns from here, so no destructor runs in it
    ::dup2(child_stdin.get(), STDIN_FILENO);
    ::dup2(child_stdout.get(), STDOUT_FILENO);
    ::dup2(child_stdout.get(), STDERR_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  // The child's ends close here, so the output pipe ends when the child (and whatever it started) does.
  child_stdin.close();
  child_stdout.close();
  // Input is small (an answer to a prompt): write it, then close so the program sees EOF.
  if (!input.empty()) {
    const sighandler_t old = ::signal(SIGPIPE, SIG_IGN);
    [[maybe_unused]] const ssize_t n = ::write(write_fd.get(), input.data(), input.size());
    ::signal(SIGPIPE, old);
  }
  write_fd.close();

  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  while (read_fd) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{read_fd.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(read_fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<size_t>(n));
  }
  read_fd.close();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

bool nvpmodel_available(const sysfs::Root& root) {
  const auto path = root.resolve(kNvpmodelBinary);
  return ::access(path.c_str(), X_OK) == 0;
}

std::optional<NvpmodelCurrent> current_nvpmodel_mode(const sysfs::Root& root) {
  if (const auto text = sysfs::try_read_string(root, kNvpmodelStatusFile)) {
    NvpmodelCurrent current;
    current.id = parse_nvpmodel_status(*text, kNvpmodelStatusFile);
    current.source = kNvpmodelStatusFile;
    return current;
  }
  if (!nvpmodel_available(root)) return std::nullopt;
  const auto result = run_process({root.resolve(kNvpmodelBinary).string(), "-q"}, {}, std::chrono::seconds(10));
  if (result.exit_code != 0) return std::nullopt;
  return parse_nvpmodel_query(result.output);
}

ProcessResult nvpmodel_set_mode(const sysfs::Root& root, int id, bool confirm_reboot) {
  const std::string program = root.resolve(kNvpmodelBinary).string();
  auto result =
      run_process({program, "-m", std::to_string(id)}, confirm_reboot ? "YES\n" : "NO\n", std::chrono::seconds(60));
  if (result.timed_out || result.exit_code != 0) {
    throw std::runtime_error(fmt::format("`{} -m {}` failed ({}): {}", kNvpmodelBinary, id,
                                         result.timed_out ? "timed out" : fmt::format("exit {}", result.exit_code),
                                         trim(result.output)));
  }
  return result;
}

}  // namespace jetchar::jetson
