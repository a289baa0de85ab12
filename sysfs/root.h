// Root: the prefix every kernel path (/sys, /proc, /dev, /etc, /var, debugfs) is resolved
// against. Production code uses "/"; tests and the simulated board use a fixture tree. No other
// code in jetchar builds such paths from scratch.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sysfs/injected_errors.h"

namespace jetchar::sysfs {

class InRootLookup;

/// Every kernel path a Root was asked about (exists, list, canonical, reads: the symlinks passed
/// on the way included), for `jetchar device capture`, which must copy exactly what discovery,
/// control and telemetry look at. Thread-safe.
class AccessLog {
 public:
  void record(std::string kernel_path);
  /// A folder whose entries were listed (list(), glob()): its entries matter, not just itself.
  void record_listing(std::string kernel_dir);
  std::set<std::string> paths() const;
  std::set<std::string> listings() const;

 private:
  mutable std::mutex mutex_;
  std::set<std::string> paths_;
  std::set<std::string> listings_;
};

class Root {
 public:
  /// `prefix` must be an existing directory; throws IoError otherwise.
  explicit Root(const std::filesystem::path& prefix = "/");

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

  /// The errno a tree that plays "/" injects for this access (sysfs/injected_errors.h); nullopt
  /// when it injects none, and always for the host's own root. `canonical_path` as canonical()
  /// returns it.
  std::optional<int> injected_error(std::string_view canonical_path, Access access) const;
  /// The whole table of injected errors as it stands now (InjectedErrors::current()); null for
  /// the host's root and for a tree that injects none.
  std::shared_ptr<const InjectedErrorTable> injected_errors() const {
    return injected_ ? injected_->current() : nullptr;
  }
  /// The same tree without its injected errors: for the simulated board's behaviour model, which
  /// keeps reading and writing the files a refusing kernel hides from everyone else.
  Root without_injected_errors() const {
    Root copy = *this;
    copy.injected_.reset();
    return copy;
  }

  /// Records every path this Root (and its copies) is asked about into `log` from now on.
  void record_accesses(std::shared_ptr<AccessLog> log) { log_ = std::move(log); }
  void record(std::string_view kernel_path) const {
    if (log_) log_->record(std::string(kernel_path));
  }

 private:
  std::filesystem::path prefix_;
  std::shared_ptr<const InjectedErrors> injected_;  ///< null for the host's root
  /// The kernel's resolution inside the prefix; null for the host's root and where the kernel
  /// has none. canonical() walks the path itself when a log records the symlinks it passes.
  std::shared_ptr<const InRootLookup> lookup_;
  std::shared_ptr<AccessLog> log_;
};

}  // namespace jetchar::sysfs
