// Root: the prefix every kernel path (/sys, /proc, /dev, /etc, /var, debugfs) is resolved
// against. Production code uses "/"; tests and the simulated board use a fixture tree. No other
// code in jetchar builds such paths from scratch.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::sysfs {

class Root {
 public:
  /// `prefix` must be an existing directory; throws IoError otherwise.
  explicit Root(std::filesystem::path prefix = "/");

  const std::filesystem::path& prefix() const { return prefix_; }
  bool is_host_root() const { return prefix_ == "/"; }

  /// Maps an absolute kernel path ("/sys/class/devfreq") to its location under the prefix.
  std::filesystem::path resolve(std::string_view kernel_path) const;
  /// The inverse of resolve(): a path under the prefix back to its kernel form.
  std::string kernel_path(const std::filesystem::path& resolved) const;

  bool exists(std::string_view kernel_path) const;
  bool is_directory(std::string_view kernel_path) const;
  /// Names of the entries of a directory, sorted; empty when it does not exist.
  std::vector<std::string> list(std::string_view kernel_dir) const;
  /// Kernel paths matching a pattern whose '*' wildcards stand for one path component part each,
  /// e.g. "/sys/class/hwmon/hwmon*/name". Sorted; empty when nothing matches.
  std::vector<std::string> glob(std::string_view pattern) const;
  /// Canonical kernel path of a (possibly symlinked) path, resolved inside the prefix.
  std::string canonical(std::string_view kernel_path) const;

 private:
  std::filesystem::path prefix_;
};

}  // namespace jetchar::sysfs
