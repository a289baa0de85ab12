#include "sysfs/proc_mountinfo.h"

#include <charconv>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "sysfs/proc_text.h"

namespace jetchar::sysfs {
namespace {

constexpr const char* kMountinfoExpected =
    "'id parent major:minor root mount-point options [tags...] - fstype source super-options'";

bool is_octal(char c) { return c >= '0' && c <= '7'; }

// "/a/b" is under "/a" and under "/", not under "/a/bc".
bool is_under(std::string_view path, std::string_view mount_point) {
  if (mount_point == "/") return !path.empty() && path.front() == '/';
  if (path.substr(0, mount_point.size()) != mount_point) return false;
  return path.size() == mount_point.size() || path[mount_point.size()] == '/';
}

}  // namespace

std::string decode_mount_escapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && is_octal(text[i + 1]) && is_octal(text[i + 2]) &&
        is_octal(text[i + 3])) {
      const int value = (text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0');
      if (value <= 0xff) {
        out += static_cast<char>(value);
        i += 3;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> split_mount_options(std::string_view options) {
  std::vector<std::string> split;
  if (options.empty()) return split;
  for (;;) {
    const size_t comma = options.find(',');
    split.push_back(decode_mount_escapes(options.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    options.remove_prefix(comma + 1);
  }
  return split;
}

std::optional<std::string> mount_option(std::string_view options, std::string_view key) {
  for (const auto& option : split_mount_options(options)) {
    if (option.size() > key.size() && option.compare(0, key.size(), key) == 0 && option[key.size()] == '=') {
      return option.substr(key.size() + 1);
    }
  }
  return std::nullopt;
}

std::vector<MountInfo> parse_proc_mountinfo(std::string_view text, std::string_view source) {
  std::vector<MountInfo> mounts;
  const auto lines = split_lines(text);
  for (size_t index = 0; index < lines.size(); ++index) {
    const std::string_view line = lines[index];
    if (line.empty()) continue;
    const auto fail = [&](const std::string& expected) {
      return FormatError(std::string(source), index + 1, excerpt(line), expected);
    };
    const auto fields = split_on_space(line);
    size_t separator = 6;
    while (separator < fields.size() && fields[separator] != "-") ++separator;
    if (separator >= fields.size() || fields.size() - separator != 4) throw fail(kMountinfoExpected);
    MountInfo mount;
    const auto id = parse_u64(fields[0]);
    const auto parent = parse_u64(fields[1]);
    if (!id || !parent || *id > 0x7fffffff || *parent > 0x7fffffff)
      throw fail("decimal mount ids; " + std::string(kMountinfoExpected));
    mount.mount_id = static_cast<int>(*id);
    mount.parent_id = static_cast<int>(*parent);
    const std::string_view device = fields[2];
    const size_t colon = device.find(':');
    const auto major = parse_u64(device.substr(0, colon));
    const auto minor = colon == std::string_view::npos ? std::nullopt : parse_u64(device.substr(colon + 1));
    if (!major || !minor || *major > 0xfff || *minor > 0xfffff) throw fail("a device number 'major:minor'");
    mount.major = static_cast<unsigned>(*major);
    mount.minor = static_cast<unsigned>(*minor);
    if (fields[3].empty() || fields[4].empty())
      throw fail("a non-empty root and mount point; " + std::string(kMountinfoExpected));
    mount.root = decode_mount_escapes(fields[3]);
    mount.mount_point = decode_mount_escapes(fields[4]);
    mount.mount_options = std::string(fields[5]);
    for (size_t i = 6; i < separator; ++i) mount.optional_fields.push_back(decode_mount_escapes(fields[i]));
    mount.fs_type = decode_mount_escapes(fields[separator + 1]);
    if (mount.fs_type.empty()) throw fail("a file system type after ' - '");
    mount.source = decode_mount_escapes(fields[separator + 2]);
    mount.super_options = std::string(fields[separator + 3]);
    mounts.push_back(std::move(mount));
  }
  return mounts;
}

std::vector<MountInfo> read_proc_mountinfo(const Root& root, std::string_view kernel_path) {
  return parse_proc_mountinfo(read_string(root, kernel_path), kernel_path);
}

const MountInfo* find_mount_containing(const std::vector<MountInfo>& mounts, std::string_view path) {
  const MountInfo* best = nullptr;
  for (const auto& mount : mounts) {
    if (!is_under(path, mount.mount_point)) continue;
    if (best == nullptr || mount.mount_point.size() >= best->mount_point.size()) best = &mount;
  }
  return best;
}

}  // namespace jetchar::sysfs
