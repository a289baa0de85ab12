#include "sysfs/root.h"

#include <fnmatch.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <system_error>

#include "sysfs/error.h"
#include "sysfs/in_root_lookup.h"

namespace fs = std::filesystem;

namespace jetchar::sysfs {
namespace {

// Splits an absolute kernel path into its components ("/a//b/./c" -> {"a", "b", "c"}).
std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> parts;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view name = path.substr(0, slash);
    if (!name.empty() && name != ".") parts.emplace_back(name);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

}  // namespace

void AccessLog::record(std::string kernel_path) {
  std::lock_guard lock(mutex_);
  paths_.insert(std::move(kernel_path));
}

void AccessLog::record_listing(std::string kernel_dir) {
  std::lock_guard lock(mutex_);
  listings_.insert(std::move(kernel_dir));
}

std::set<std::string> AccessLog::paths() const {
  std::lock_guard lock(mutex_);
  return paths_;
}

std::set<std::string> AccessLog::listings() const {
  std::lock_guard lock(mutex_);
  return listings_;
}

Root::Root(const fs::path& prefix) {
  std::error_code ec;
  if (!fs::is_directory(prefix, ec)) {
    throw IoError(prefix.string(), "use as root directory", ec ? ec.value() : ENOTDIR);
  }
  prefix_ = prefix == "/" ? fs::path("/") : fs::absolute(prefix).lexically_normal();
  if (prefix_ != "/" && !prefix_.has_filename()) prefix_ = prefix_.parent_path();
  if (!is_host_root()) {
    injected_ = std::make_shared<const InjectedErrors>(prefix_);
    lookup_ = InRootLookup::open(prefix_);
  }
}

std::optional<int> Root::injected_error(std::string_view canonical_path, Access access) const {
  if (!injected_) return std::nullopt;
  return injected_->lookup(canonical_path, access);
}

fs::path Root::resolve(std::string_view kernel_path) const {
  if (kernel_path.empty() || kernel_path.front() != '/') {
    throw IoError(std::string(kernel_path), "resolve (kernel paths are absolute)", EINVAL);
  }
  if (is_host_root()) return fs::path(kernel_path);
  return prefix_ / fs::path(kernel_path).relative_path();
}

std::string Root::kernel_path(const fs::path& resolved) const {
  if (is_host_root()) return resolved.string();
  const fs::path relative = resolved.lexically_relative(prefix_);
  if (relative.empty() || *relative.begin() == "..") return resolved.string();
  return relative == "." ? "/" : "/" + relative.string();
}

bool Root::exists(std::string_view kernel_path) const {
  record(kernel_path);
  std::error_code ec;
  return fs::exists(resolve(canonical(kernel_path)), ec);
}

bool Root::is_directory(std::string_view kernel_path) const {
  record(kernel_path);
  std::error_code ec;
  return fs::is_directory(resolve(canonical(kernel_path)), ec);
}

std::vector<std::string> Root::list(std::string_view kernel_dir) const {
  record(kernel_dir);
  if (log_) log_->record_listing(std::string(kernel_dir));
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(resolve(canonical(kernel_dir)), ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> Root::glob(std::string_view pattern) const {
  std::vector<std::string> matches{"/"};
  for (const auto& part : components(pattern)) {
    std::vector<std::string> next;
    for (const auto& base : matches) {
      const std::string prefix = base == "/" ? "" : base;
      if (part.find_first_of("*?[") == std::string::npos) {
        if (exists(prefix + "/" + part)) next.push_back(prefix + "/" + part);
        continue;
      }
      for (const auto& name : list(base)) {
        if (fnmatch(part.c_str(), name.c_str(), FNM_PERIOD) == 0) next.push_back(prefix + "/" + name);
      }
    }
    matches = std::move(next);
  }
  std::sort(matches.begin(), matches.end());
  return matches;
}

std::string Root::canonical(std::string_view kernel_path) const {
  // An existing path in a fixture tree: the kernel resolves it inside the prefix in one call,
  // unless a log must record the symlinks passed on the way.
  if (lookup_ && !log_) {
    if (auto resolved = lookup_->canonical(kernel_path)) return std::move(*resolved);
  }
  // Otherwise walk the path one component at a time so that symlinks, absolute ones included
  // (such as /proc/device-tree -> /sys/firmware/devicetree/base), resolve inside the prefix, and a
  // missing part is taken as it is. One readlink(2) per component on a plain string: the
  // simulated board and discovery resolve thousands of paths a run, and std::filesystem's lstat
  // plus path splitting per component was a quarter of a simulated sweep's CPU time.
  std::vector<std::string> pending = components(kernel_path);
  std::reverse(pending.begin(), pending.end());
  const std::string prefix = is_host_root() ? std::string() : prefix_.string();
  std::string done;                  // the kernel path resolved so far; empty for "/"
  std::vector<std::size_t> parents;  // done's length before each of its components
  std::string here;
  std::array<char, PATH_MAX> target;  // on the stack: canonical() runs for every read
  int links_followed = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == "..") {
      if (!parents.empty()) done.resize(parents.back()), parents.pop_back();
      continue;
    }
    parents.push_back(done.size());
    done += '/';
    done += part;
    here.assign(prefix).append(done);
    const ssize_t length = ::readlink(here.c_str(), target.data(), target.size());
    if (length <= 0) continue;  // not a symlink (EINVAL), or nothing there: taken as it is
    if (static_cast<std::size_t>(length) == target.size()) {
      throw IoError(std::string(kernel_path), "read link", ENAMETOOLONG);
    }
    if (++links_followed > 40) throw IoError(std::string(kernel_path), "resolve", ELOOP);
    record(done);
    done.resize(parents.back()), parents.pop_back();
    const std::string_view link(target.data(), static_cast<std::size_t>(length));
    if (link.front() == '/') done.clear(), parents.clear();
    auto target_parts = components(link);
    for (auto it = target_parts.rbegin(); it != target_parts.rend(); ++it) pending.push_back(std::move(*it));
  }
  return done.empty() ? "/" : done;
}

}  // namespace jetchar::sysfs
