#include "tests/support/jetchar_cli.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "tests/support/build_tree.h"

namespace jetchar::testing {

namespace fs = std::filesystem;

fs::path jetchar_executable() {
  if (const char* cli = std::getenv("JETCHAR_CLI"); cli != nullptr && *cli != '\0') return cli;
  return binary_dir() / "cli" / "jetchar";
}

std::vector<std::string> jetchar_command(const std::vector<std::string>& args) {
  std::vector<std::string> command = test_emulator();
  command.push_back(jetchar_executable().string());
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

pid_t spawn_jetchar(const std::vector<std::string>& args, const fs::path& out, const fs::path& err,
                    const fs::path& cwd) {
  // Everything the child needs is prepared before fork: it only calls async-signal-safe functions.
  const std::vector<std::string> command = jetchar_command(args);
  std::vector<char*> argv;
  for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  const bool one_file = out == err;
  const pid_t child = ::fork();
  if (child < 0) throw std::system_error(errno, std::generic_category(), "fork for " + command.front());
  if (child == 0) {
    const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = one_file ? out_fd : ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in_fd = ::open("/dev/null", O_RDONLY);
    if (out_fd < 0 || err_fd < 0 || in_fd < 0) ::_exit(126);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::dup2(in_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return child;
}

int wait_exit_status(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_jetchar(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  return wait_exit_status(spawn_jetchar(args, out, err));
}

}  // namespace jetchar::testing
