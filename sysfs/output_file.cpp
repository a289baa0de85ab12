#include "sysfs/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include <array>
#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "sysfs/unique_fd.h"

namespace jetchar::sysfs {
namespace fs = std::filesystem;
namespace {

// The files a results directory or a board's state directory holds (results/location.h,
// sysfs/change_journal.h): an output over any of them destroys what a command reads.
constexpr std::array<std::string_view, 9> kKeptNames = {
    "results.db", "results.db-wal", "results.db-shm",          "results.db-journal", "sweep.textproto",
    "journal",    "lock",           "change-journal.snapshot", "change-journal"};

mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

bool is_sqlite_database(const fs::path& file) {
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return false;
  std::array<char, 16> header{};
  return ::read(fd.get(), header.data(), header.size()) == 16 &&
         std::string_view(header.data(), header.size()) == std::string_view("SQLite format 3\0", 16);
}

}  // namespace

void refuse_output_onto(const fs::path& output, std::span<const fs::path> inputs, std::string_view option) {
  std::error_code ec;
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument(fmt::format("{} {} {}; nothing was written", option, output.string(), why));
  };
  if (fs::is_directory(output, ec)) refuse("is a directory: name a file");
  const bool exists = fs::exists(output, ec);
  // Where the output lands once links are followed; for a file that does not exist yet, its
  // folder resolved and its name kept.
  const fs::path resolved = exists ? fs::canonical(output, ec) : fs::weakly_canonical(output, ec);
  for (const fs::path& input : inputs) {
    if (exists && fs::exists(input, ec) && fs::equivalent(output, input, ec))
      refuse(fmt::format("is the input {}", input.string()));
    // A results folder named, or its store named (`report m/results.db` reads m/ too).
    const bool folder_named = fs::is_directory(input, ec);
    if (!folder_named && !is_sqlite_database(input)) continue;
    const fs::path folder = fs::canonical(folder_named                  ? input
                                          : input.parent_path().empty() ? "."
                                                                        : input.parent_path(),
                                          ec);
    if (ec) continue;
    for (const std::string_view name : kKeptNames) {
      if (resolved == folder / name) refuse(fmt::format("is {} of the input {}", name, input.string()));
    }
  }
  if (exists && is_sqlite_database(output)) refuse("is an SQLite database (a results store?): name another file");
}

namespace {

// An unnamed file in `folder` (O_TMPFILE): a process killed while writing it leaves nothing behind.
// Given its temporary name only once its content is complete; -1 where the file system has no
// O_TMPFILE (then mkstemp names it from the start).
int open_unnamed(const fs::path& folder) {
  return ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);  // the umask applies
}

// The temporary name `write_output_file` gives `output`'s finished content for its writer `pid`
// (attempt `n`: a name another writer holds is skipped for the next).
std::string temporary_name(const fs::path& output, pid_t pid, unsigned n) {
  return fmt::format(".{}.{}-{}", output.filename().string(), pid, n);
}

// Removes the temporary names of `output` whose writer is gone: a writer killed between naming its
// finished file and renaming it over the output (a few microseconds) leaves one, and SIGKILL allows
// no cleanup of its own. A writer that is alive (or a process that took its pid since) keeps its name.
void remove_abandoned_temporaries(const fs::path& folder, const fs::path& output) {
  const std::string prefix = "." + output.filename().string() + ".";
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix)) continue;
    int pid = 0;
    unsigned n = 0;
    // Only a name this function's writer makes, exactly (no other file that starts alike).
    if (std::sscanf(name.c_str() + prefix.size(), "%d-%u", &pid, &n) != 2 || pid <= 0 ||
        name != temporary_name(output, pid, n)) {
      continue;
    }
    if (::kill(pid, 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

}  // namespace

void write_output_file(const fs::path& output, std::string_view content) {
  const fs::path folder = output.parent_path().empty() ? fs::path(".") : output.parent_path();
  std::string temporary = (folder / ("." + output.filename().string() + ".XXXXXX")).string();
  UniqueFd fd(open_unnamed(folder));
  const bool unnamed = fd.valid();
  if (!unnamed) fd.reset(::mkstemp(temporary.data()));
  if (!fd)
    throw std::system_error(errno, std::generic_category(), fmt::format("{}: cannot be written", output.string()));
  bool named = !unnamed;
  const auto fail = [&](int error, std::string_view what) {
    std::error_code ignored;
    if (named) fs::remove(temporary, ignored);
    throw std::system_error(error, std::generic_category(), fmt::format("{}: {}", output.string(), what));
  };
  // mkstemp makes the file 0600; an output is as readable as any file the user creates.
  if (!unnamed && ::fchmod(fd.get(), 0666 & ~current_umask()) != 0) fail(errno, "cannot be written");
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(errno, "write failed");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) fail(errno, "write failed");
  if (unnamed) {
    remove_abandoned_temporaries(folder, output);
    // Named only now, just before the rename: a kill can leave a temporary file only there.
    // linkat never replaces a file: a name another writer holds is skipped for the next.
    const std::string self = fmt::format("/proc/self/fd/{}", fd.get());
    for (unsigned attempt = 0; !named; ++attempt) {
      temporary = (folder / temporary_name(output, ::getpid(), attempt)).string();
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temporary.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        named = true;
      } else if (errno != EEXIST || attempt > 100) {
        fail(errno, "cannot be written");
      }
    }
  }
  if (unnamed) {
    // The rename straight after the link: a kill leaves the temporary name only between the two.
    // The content is already synced, so a close that fails after the rename loses nothing.
    if (::rename(temporary.c_str(), output.c_str()) != 0) fail(errno, "cannot be replaced");
    fd.close();
  } else {
    if (const int error = fd.close(); error != 0) fail(error, "write failed");
    if (::rename(temporary.c_str(), output.c_str()) != 0) fail(errno, "cannot be replaced");
  }
  // The rename itself survives a power loss once the folder is synced.
  const UniqueFd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir) ::fsync(dir.get());
}

}  // namespace jetchar::sysfs
