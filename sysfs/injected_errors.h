// Errors a fixture tree injects where a real kernel's read or write fails. A real attribute can
// exist and still fail: an inactive cpufreq policy answers EBUSY (Linux >= 5.19), an iio INA3221
// read gives up with EAGAIN, a disabled hwmon channel answers ENODATA. Ordinary files cannot do
// that, so a tree that plays "/" lists such paths in one file at its top, and every read and write
// through a sysfs::Root consults it. The host's own "/" never has one.
//
// File format (`.jetchar-injected-errors` in the root directory), one entry per line:
//   read EBUSY /sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq
//   write EACCES /sys/kernel/debug/bpmp/debug/clk/emc/rate
// Paths are canonical kernel paths (symlinks resolved inside the tree); errno names as in
// sysfs/errno_name.h. Blank lines and lines starting with '#' are ignored.
#pragma once

#include <sys/stat.h>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace jetchar::sysfs {

enum class Access { kRead, kWrite };
std::string_view to_string(Access access);

/// The parsed table: (access, canonical kernel path) -> errno.
using InjectedErrorTable = std::map<std::pair<Access, std::string>, int>;

/// Parses the file format above; throws FormatError naming `source` and the line.
InjectedErrorTable parse_injected_errors(std::string_view text, std::string_view source);
/// Formats a table in the file format above (sorted, one line per entry).
std::string format_injected_errors(const InjectedErrorTable& table);
/// The errno `table` injects for this access of a canonical kernel path, if any.
std::optional<int> find_injected_error(const InjectedErrorTable& table, std::string_view canonical_kernel_path,
                                       Access access);

/// The table of one root directory, re-read whenever the file changes (the simulated board
/// rewrites it as CPUs go offline and online), safe to query from several threads.
class InjectedErrors {
 public:
  static constexpr const char* kFileName = ".jetchar-injected-errors";

  explicit InjectedErrors(const std::filesystem::path& root_dir);
  std::optional<int> lookup(std::string_view canonical_kernel_path, Access access) const;
  /// The table as the file holds it now (one stat; parsed again only when the file changed);
  /// null when there is no file. A reader of many paths at one moment (a telemetry sample) asks
  /// once and looks each path up in it, instead of a stat per path.
  std::shared_ptr<const InjectedErrorTable> current() const;

 private:
  void refresh_locked() const;

  std::filesystem::path file_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const InjectedErrorTable> table_;  ///< null: no file
  mutable std::optional<struct stat> seen_;  ///< stat of the file as last parsed; nullopt: absent
};

}  // namespace jetchar::sysfs
