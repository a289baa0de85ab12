#include "sysfs/injected_errors.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

#include "sysfs/errno_name.h"
#include "sysfs/error.h"
#include "sysfs/whole_file.h"

namespace jetchar::sysfs {
namespace {

bool same_file_state(const struct stat& a, const struct stat& b) {
  return a.st_ino == b.st_ino && a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace

std::string_view to_string(Access access) { return access == Access::kRead ? "read" : "write"; }

InjectedErrorTable parse_injected_errors(std::string_view text, std::string_view source) {
  InjectedErrorTable table;
  std::istringstream lines{std::string(text)};
  size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.empty() || line.front() == '#') continue;
    std::istringstream words(line);
    std::string access_word, name, path, extra;
    words >> access_word >> name >> path;
    const bool access_ok = access_word == "read" || access_word == "write";
    const auto error_number = errno_from_name(name);
    if (!access_ok || !error_number || path.empty() || path.front() != '/' || (words >> extra)) {
      throw FormatError(std::string(source), number, line,
                        "'read|write ERRNO /kernel/path' with ERRNO one of " + known_errno_names());
    }
    table[{access_word == "read" ? Access::kRead : Access::kWrite, path}] = *error_number;
  }
  return table;
}

std::string format_injected_errors(const InjectedErrorTable& table) {
  std::string text;
  for (const auto& [key, error_number] : table) {
    text += std::string(to_string(key.first)) + " " + errno_name(error_number) + " " + key.second + "\n";
  }
  return text;
}

std::optional<int> find_injected_error(const InjectedErrorTable& table, std::string_view canonical_kernel_path,
                                       Access access) {
  if (table.empty()) return std::nullopt;
  const auto it = table.find({access, std::string(canonical_kernel_path)});
  if (it == table.end()) return std::nullopt;
  return it->second;
}

InjectedErrors::InjectedErrors(const std::filesystem::path& root_dir) : file_(root_dir / kFileName) {}

void InjectedErrors::refresh_locked() const {
  struct stat now {};
  if (::stat(file_.c_str(), &now) != 0) {
    seen_.reset();
    table_.reset();
    return;
  }
  if (seen_ && same_file_state(*seen_, now)) return;
  table_ = std::make_shared<const InjectedErrorTable>(parse_injected_errors(read_whole_file(file_), file_.string()));
  seen_ = now;
}

std::shared_ptr<const InjectedErrorTable> InjectedErrors::current() const {
  std::lock_guard lock(mutex_);
  refresh_locked();
  return table_;
}

std::optional<int> InjectedErrors::lookup(std::string_view canonical_kernel_path, Access access) const {
  const auto table = current();
  if (!table) return std::nullopt;
  return find_injected_error(*table, canonical_kernel_path, access);
}

}  // namespace jetchar::sysfs
