// mountinfo parser, octal-escape decoder, option splitting and mount lookup: parse or
// FormatError, no crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sysfs/error.h"
#include "sysfs/proc_mountinfo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sysfs;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (decode_mount_escapes(text).size() > text.size()) std::abort();  // decoding only shortens
  try {
    const auto mounts = parse_proc_mountinfo(text);
    for (const auto& mount : mounts) {
      if (mount.fs_type.empty() || mount.mount_point.empty()) std::abort();
      for (const auto& option : split_mount_options(mount.super_options)) {
        const size_t equals = option.find('=');
        if (equals != std::string::npos && equals > 0 &&
            !mount_option(mount.super_options, option.substr(0, equals)).has_value()) {
          std::abort();  // every key=value found by splitting is found by lookup
        }
      }
      const MountInfo* found = find_mount_containing(mounts, mount.mount_point);
      if (found == nullptr || found->mount_point.size() < mount.mount_point.size()) {
        // The mount's own point must be found unless it is not absolute.
        if (!mount.mount_point.empty() && mount.mount_point.front() == '/') std::abort();
      }
    }
  } catch (const FormatError& error) {
    if (error.path() != "/proc/self/mountinfo" || !error.line()) std::abort();
  }
  return 0;
}
