#include "sysfs/writer_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <thread>

#include "sysfs/error.h"
#include "sysfs/whole_file.h"

namespace jetchar::sysfs {
namespace {

// The holder's record: "<pid>\n<command line>\n". Whatever a reader finds there (an older
// holder's text, a torn write) only shapes the message.
struct Holder {
  std::optional<pid_t> pid;
  std::string command;
};

Holder read_holder(int fd) {
  Holder holder;
  std::string text;
  try {
    if (::lseek(fd, 0, SEEK_SET) == 0) text = read_to_end(fd, "lock file");
  } catch (const IoError&) {
    return holder;
  }
  text.resize(std::min<std::size_t>(text.size(), 4096));
  const std::size_t newline = text.find('\n');
  const std::string_view first = std::string_view(text).substr(0, newline);
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(first.data(), first.data() + first.size(), pid);
  if (ec == std::errc() && end == first.data() + first.size() && pid > 0) holder.pid = pid;
  if (newline != std::string::npos) {
    holder.command = text.substr(newline + 1);
    while (!holder.command.empty() && holder.command.back() == '\n') holder.command.pop_back();
  }
  return holder;
}

void write_holder(int fd, const std::filesystem::path& file) {
  const std::string record = fmt::format("{}\n{}\n", ::getpid(), own_command_line());
  if (::ftruncate(fd, 0) != 0) throw IoError(file.string(), "truncate lock file", errno);
  std::size_t done = 0;
  while (done < record.size()) {
    const ssize_t n = ::pwrite(fd, record.data() + done, record.size() - done, static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(file.string(), "write lock file", errno);
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string own_command_line() {
  std::string text;
  try {
    text = read_whole_file("/proc/self/cmdline");
  } catch (const IoError&) {
    return {};
  }
  while (!text.empty() && text.back() == '\0') text.pop_back();
  std::replace(text.begin(), text.end(), '\0', ' ');
  // The program as its name, not its build path: "jetchar sweep run ...".
  const std::size_t space = text.find(' ');
  const std::size_t slash = text.rfind('/', space);
  if (slash != std::string::npos) text.erase(0, slash + 1);
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return text;
}

WriterLock::WriterLock(const std::filesystem::path& lock_file, std::string_view what, Wait wait,
                       const std::function<bool()>& stop_waiting)
    : file_(lock_file) {
  fd_.reset(::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!fd_) throw IoError(file_.string(), "open lock file", errno);
  // Polled, not a blocking flock: a signal handler installed with SA_RESTART would restart a
  // blocking one, and Ctrl-C could not end the wait.
  int status = 0;
  for (;;) {
    status = ::flock(fd_.get(), LOCK_EX | LOCK_NB);
    if (status == 0 || (errno != EWOULDBLOCK && errno != EINTR) || wait == Wait::kNo) break;
    if (stop_waiting && stop_waiting()) throw WaitStopped(fmt::format("the wait for {} was stopped", what));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (status != 0) {
    if (errno != EWOULDBLOCK) throw IoError(file_.string(), "lock", errno);
    const Holder holder = read_holder(fd_.get());
    throw LockHeld(fmt::format("{} is in use by another jetchar process ({}{}); wait for it to end, or pass --wait",
                               what, holder.pid ? fmt::format("pid {}", *holder.pid) : std::string("pid unknown"),
                               holder.command.empty() ? "" : ": " + holder.command),
                   holder.pid);
  }
  write_holder(fd_.get(), file_);
}

}  // namespace jetchar::sysfs
