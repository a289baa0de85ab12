#include "jetson/simulated/board_capture.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "jetchar/version.h"
#include "jetson/control/control_points.h"
#include "jetson/discovery/board_info.h"
#include "jetson/telemetry/telemetry_discovery.h"
#include "sysfs/errno_name.h"
#include "sysfs/error.h"
#include "sysfs/injected_errors.h"
#include "sysfs/unique_fd.h"

namespace fs = std::filesystem;

namespace jetchar::jetson {
namespace {

// Identity files read only on some boards or only as a fallback; captured when present so that
// the manifest identifies the board whatever path discovery took.
constexpr const char* kIdentityPaths[] = {
    "/proc/device-tree/model",
    "/proc/device-tree/compatible",
    "/proc/device-tree/serial-number",
    "/proc/device-tree/nvidia,dtsfilename",
    "/proc/device-tree/nvidia,boardids",
    "/etc/nv_tegra_release",
    "/etc/nvpmodel.conf",
    "/var/lib/nvpmodel/status",
    "/proc/sys/kernel/osrelease",
    "/etc/os-release",
    // What the telemetry sampler reads besides the attributes discovery names.
    "/proc/stat",
};

// Of the dpkg database (read when /etc/nv_tegra_release is missing), only the stanza jetchar reads.
constexpr std::string_view kDpkgStatus = "/var/lib/dpkg/status";
constexpr std::string_view kL4tCorePackage = "Package: nvidia-l4t-core\n";

std::string l4t_stanza_of_dpkg_status(const std::string& content) {
  const size_t begin = content.find(kL4tCorePackage);
  if (begin == std::string::npos || (begin != 0 && content[begin - 1] != '\n')) return {};
  const size_t end = content.find("\n\n", begin);
  return content.substr(begin, end == std::string::npos ? std::string::npos : end - begin + 2);
}

// File names whose content identifies one physical board or network card.
constexpr std::string_view kRedactedNames[] = {"serial-number", "serial_number", "mac-address", "local-mac-address",
                                               "address"};
constexpr std::string_view kRedacted = "REDACTED";

bool under(std::string_view path, std::string_view dir) {
  return path == dir || (path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/');
}

// Where whole folders may be read: sysfs, but not debugfs (BPMP files there are requests to the
// firmware) and not /sys/power (wakeup_count blocks).
bool folder_readable_whole(std::string_view dir) {
  return under(dir, "/sys") && !under(dir, "/sys/kernel/debug") && !under(dir, "/sys/power");
}

std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> parts;
  for (const auto& part : fs::path(path).relative_path()) {
    if (!part.empty() && part != ".") parts.push_back(part.string());
  }
  return parts;
}

std::string join(const std::vector<std::string>& parts) {
  std::string path;
  for (const auto& part : parts) path += "/" + part;
  return path.empty() ? "/" : path;
}

std::string escape(std::string_view value, bool in_dtstrings = false) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    const bool edge = i == 0 || i + 1 == value.size();
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\0') {
      out += "\\0";
    } else if (c == '|' && in_dtstrings) {
      out += "\\|";
    } else if (c == ' ' && edge) {
      out += "\\x20";  // the manifest trims values; a kernel's trailing space is part of the bytes
    } else if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

// Printable strings each ended by a NUL, as the device tree exposes string properties.
std::optional<std::vector<std::string>> as_dt_strings(std::string_view content) {
  if (content.empty() || content.back() != '\0') return std::nullopt;
  std::vector<std::string> strings;
  size_t start = 0;
  while (start < content.size()) {
    const size_t end = content.find('\0', start);
    const std::string_view one = content.substr(start, end - start);
    if (one.empty() || one.front() == ' ' || one.back() == ' ') return std::nullopt;
    for (const char c : one) {
      if (c < 0x20 || c >= 0x7f || c == '|' || c == '\\') return std::nullopt;
    }
    strings.emplace_back(one);
    start = end + 1;
  }
  return strings;
}

bool heredoc_safe(std::string_view content, std::string_view tag) {
  if (content.size() < 2 || content.back() != '\n') return false;
  size_t start = 0;
  while (start < content.size()) {
    const size_t end = content.find('\n', start);
    std::string_view line = content.substr(start, end - start);
    for (const char c : line) {  // text, UTF-8 included; no control characters but tabs
      const auto byte = static_cast<unsigned char>(c);
      if ((byte < 0x20 && byte != '\t') || byte == 0x7f) return false;
    }
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line == tag) return false;
    start = end + 1;
  }
  return true;
}

// The manifest line(s) that recreate `content` at `path` byte for byte.
std::string file_directive(const std::string& path, const std::string& content) {
  if (const auto strings = as_dt_strings(content)) {
    std::string joined;
    for (const auto& s : *strings) joined += (joined.empty() ? "" : " | ") + s;
    return fmt::format("dtstrings {} = {}\n", path, joined);
  }
  const size_t newline = content.find('\n');
  if (!content.empty() && newline == content.size() - 1) {
    return fmt::format("file {} = {}\n", path, escape(std::string_view(content).substr(0, newline)));
  }
  constexpr std::string_view kTag = "END_OF_FILE";
  if (content.find('\n') != std::string::npos && heredoc_safe(content, kTag)) {
    return fmt::format("file {} <<{}\n{}{}\n", path, kTag, content, kTag);
  }
  return fmt::format("raw {} = {}\n", path, escape(content));
}

struct Entry {
  enum class Kind { kFile, kLink, kFolder } kind = Kind::kFile;
  std::string content;  ///< file bytes or link target
  std::optional<int> read_error;
  unsigned mode = 0;
};

class Capturer {
 public:
  Capturer(const sysfs::Root& root, const CaptureOptions& options) : root_(root), options_(options) {}

  // Walks `kernel_path` component by component as Root::canonical does, recording every symlink on
  // the way and what the path ends in. Returns the canonical path when it exists.
  std::optional<std::string> visit(std::string_view kernel_path) {
    std::vector<std::string> pending = components(kernel_path);
    std::reverse(pending.begin(), pending.end());
    std::vector<std::string> done;
    int links = 0;
    while (!pending.empty()) {
      std::string part = std::move(pending.back());
      pending.pop_back();
      if (part == "..") {
        if (!done.empty()) done.pop_back();
        continue;
      }
      done.push_back(part);
      const std::string here = join(done);
      struct stat st {};
      if (::lstat(root_.resolve(here).c_str(), &st) != 0) return std::nullopt;
      if (!S_ISLNK(st.st_mode)) continue;
      if (++links > 40) return std::nullopt;
      std::error_code ec;
      const fs::path target = fs::read_symlink(root_.resolve(here), ec);
      if (ec) return std::nullopt;
      entries_[here] = Entry{Entry::Kind::kLink, target.string(), std::nullopt, 0};
      done.pop_back();
      if (target.is_absolute()) done.clear();
      auto target_parts = components("/" + target.string());
      for (auto it = target_parts.rbegin(); it != target_parts.rend(); ++it) pending.push_back(*it);
    }
    const std::string canonical = join(done);
    if (canonical == "/") return std::nullopt;
    add(canonical);
    return canonical;
  }

  // Every regular file directly inside `dir` (a canonical folder).
  void add_files_in(const std::string& dir) {
    if (!folder_readable_whole(dir)) return;
    std::error_code ec;
    for (fs::directory_iterator it(root_.resolve(dir), ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) add(dir + "/" + it->path().filename().string());
    }
  }

  BoardCapture finish() {
    BoardCapture capture;
    capture.notes = std::move(notes_);
    std::string body;
    for (const auto& [path, entry] : entries_) {
      switch (entry.kind) {
        case Entry::Kind::kLink:
          body += fmt::format("link {} -> {}\n", path, entry.content);
          ++capture.links;
          break;
        case Entry::Kind::kFolder:
          // Only folders that hold nothing else captured need saying: the others are implied.
          if (!has_children(path)) body += fmt::format("dir {}\n", path);
          if (entry.mode != 0755) body += fmt::format("mode {} = {:04o}\n", path, entry.mode);
          ++capture.folders;
          break;
        case Entry::Kind::kFile:
          body += file_directive(path, entry.content);
          if (entry.mode != 0644) body += fmt::format("mode {} = {:04o}\n", path, entry.mode);
          if (entry.read_error) {
            body += fmt::format("fail-read {} = {}\n", path, sysfs::errno_name(*entry.read_error));
            ++capture.failing_reads;
          }
          if (const auto error = root_.injected_error(path, sysfs::Access::kWrite)) {
            body += fmt::format("fail-write {} = {}\n", path, sysfs::errno_name(*error));
          }
          ++capture.files;
          break;
      }
    }
    capture.manifest = std::move(body);
    return capture;
  }

  void note(std::string text) { notes_.push_back(std::move(text)); }

 private:
  void add(const std::string& canonical) {
    if (entries_.count(canonical) != 0) return;
    struct stat st {};
    if (::lstat(root_.resolve(canonical).c_str(), &st) != 0) return;
    Entry entry;
    entry.mode = st.st_mode & 07777;
    if (S_ISDIR(st.st_mode)) {
      entry.kind = Entry::Kind::kFolder;
    } else if (S_ISREG(st.st_mode)) {
      if (canonical == kDpkgStatus) {
        read_into(canonical, entry, /*max_bytes=*/64 << 20);
        entry.content = l4t_stanza_of_dpkg_status(entry.content);
        note(fmt::format("{}: only the nvidia-l4t-core stanza kept", canonical));
      } else {
        if (static_cast<std::size_t>(st.st_size) > options_.max_file_bytes) {
          note(fmt::format("{}: left out ({} bytes, more than {})", canonical, st.st_size, options_.max_file_bytes));
          return;
        }
        read_into(canonical, entry, options_.max_file_bytes);
      }
      redact(canonical, entry);
    } else {
      return;  // devices, FIFOs: nothing jetchar reads
    }
    entries_[canonical] = std::move(entry);
  }

  void read_into(const std::string& path, Entry& entry, std::size_t max_bytes) {
    // A tree that plays "/" may inject the error a kernel gives; the bytes beneath are still
    // captured from such a tree (a real kernel has none to give).
    entry.read_error = root_.injected_error(path, sysfs::Access::kRead);
    const sysfs::Root& source = entry.read_error ? plain_root() : root_;
    const sysfs::UniqueFd fd(::open(source.resolve(path).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd) {
      if (!entry.read_error) entry.read_error = errno;
      return;
    }
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        if (!entry.read_error) entry.read_error = errno;
        entry.content.clear();
        break;
      }
      if (n == 0) break;
      entry.content.append(buffer, static_cast<size_t>(n));
      if (entry.content.size() > max_bytes) {
        note(fmt::format("{}: cut at {} bytes", path, max_bytes));
        entry.content.resize(max_bytes);
        break;
      }
    }
  }

  void redact(const std::string& path, Entry& entry) {
    if (!options_.redact || entry.read_error || entry.content.empty()) return;
    const std::string name = fs::path(path).filename().string();
    if (std::find(std::begin(kRedactedNames), std::end(kRedactedNames), name) == std::end(kRedactedNames)) return;
    if (name == "address" && !under(path, "/sys/devices") && !under(path, "/sys/class/net")) return;
    // Same shape as before: NUL-terminated for device-tree strings, a newline for sysfs text.
    const char end = entry.content.back();
    entry.content = std::string(kRedacted) + ((end == '\0' || end == '\n') ? std::string(1, end) : "");
    note(fmt::format("{}: redacted", path));
  }

  bool has_children(const std::string& dir) const {
    const auto it = entries_.upper_bound(dir);
    return it != entries_.end() && under(it->first, dir);
  }

  const sysfs::Root& plain_root() {
    if (!plain_) plain_ = std::make_unique<sysfs::Root>(root_.without_injected_errors());
    return *plain_;
  }

  const sysfs::Root& root_;
  CaptureOptions options_;
  std::unique_ptr<sysfs::Root> plain_;
  std::map<std::string, Entry> entries_;
  std::vector<std::string> notes_;
};

void add_absent(std::vector<std::string>& out, std::string_view what, const std::optional<std::string>& why) {
  if (why) out.push_back(fmt::format("{}: {}", what, *why));
}

}  // namespace

BoardCapture capture_board(const sysfs::Root& root, const CaptureOptions& options) {
  auto log = std::make_shared<sysfs::AccessLog>();
  sysfs::Root probe = root;
  probe.record_accesses(log);

  Capturer capturer(root, options);
  std::vector<std::string> absent;
  auto attempt = [&](std::string_view what, auto&& step) {
    try {
      step();
    } catch (const std::exception& e) {
      capturer.note(fmt::format("{} failed: {}", what, e.what()));
    }
  };
  attempt("board discovery", [&] {
    const BoardInfo info = discover_board_info(probe);
    add_absent(absent, "CPU frequency", info.cpu.cpufreq_absent);
    add_absent(absent, "GPU", info.gpu.absent);
    if (info.emc.access != EmcAccess::kReadable) add_absent(absent, "EMC", info.emc.note);
    add_absent(absent, "INA3221", info.power.absent);
    add_absent(absent, "fan", info.fans.absent);
    add_absent(absent, "thermal zones", info.thermal.absent);
    add_absent(absent, "powercap", info.host.powercap_absent);
  });
  attempt("device control discovery", [&] { discover_device_controls(probe); });
  attempt("telemetry discovery", [&] { discover_telemetry_sources(probe); });
  for (const char* path : kIdentityPaths) probe.exists(path);

  for (const auto& path : log->paths()) capturer.visit(path);
  for (const auto& dir : log->listings()) {
    const auto canonical = capturer.visit(dir);
    if (!canonical) continue;
    std::error_code ec;
    for (fs::directory_iterator it(root.resolve(*canonical), ec), end; !ec && it != end; it.increment(ec)) {
      const auto entry = capturer.visit(*canonical + "/" + it->path().filename().string());
      if (entry && fs::is_directory(root.resolve(*entry), ec)) capturer.add_files_in(*entry);
    }
  }
  // The files beside each file read: the rest of that device's attributes.
  for (const auto& path : log->paths()) {
    const auto canonical = capturer.visit(path);
    std::error_code ec;
    if (canonical && fs::is_regular_file(root.resolve(*canonical), ec)) {
      capturer.add_files_in(fs::path(*canonical).parent_path().string());
    }
  }

  BoardCapture capture = capturer.finish();
  capture.absent = std::move(absent);
  std::string header = fmt::format(
      "# Captured by {} (jetchar device capture) from {}{}.\n"
      "# {} files, {} links, {} folders; {} reads failed (fail-read). Expand it with\n"
      "# jetchar device info --board sim:THIS_FILE, or add it under tests/fixtures/boards/<name>/board.manifest.\n",
      version_string(), root.is_host_root() ? "this machine (/)" : root.prefix().string(),
      ::geteuid() == 0 ? " as root" : " as a normal user (root-only files show as fail-read EACCES)", capture.files,
      capture.links, capture.folders, capture.failing_reads);
  for (const auto& note : capture.notes) header += "# note: " + note + "\n";
  capture.manifest = header + "\n" + capture.manifest;
  return capture;
}

}  // namespace jetchar::jetson
