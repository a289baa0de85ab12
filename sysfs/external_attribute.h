// Controls that are not kernel files but go through the change journal like them: a path
// "<scheme>:<rest>" (no leading '/') whose scheme a library registered, read and written through
// that library (jetson/nvml/nvml_control.h registers "nvml:" for NVML's power limit and locked
// clocks). The journal records such a path and its original text as it does a sysfs attribute,
// so `jetchar device restore` after a SIGKILL puts them back the same way. A journal entry whose
// scheme nobody registered cannot be restored and is reported, never skipped. One the owner resets
// at boot and that was recorded in an earlier boot is dropped, and the restore names it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace jetchar::sysfs {

struct ExternalAttributeHandler {
  /// The current value as text (what the journal keeps as the original). Throws
  /// std::runtime_error naming the attribute when it cannot be read.
  std::function<std::string(const std::string& path)> read;
  /// Writes `value`; throws std::runtime_error naming the attribute, the value and the reason.
  std::function<void(const std::string& path, const std::string& value)> write;
  /// False for a control its library can set but not report (NVML's locked clocks): a write is
  /// then checked by the call's result alone, not by reading back.
  std::function<bool(const std::string& path)> readable_back;
  /// True for controls the owner resets at every boot (NVML's): a journal entry recorded in an
  /// earlier boot is then dropped at restore instead of written back, since the reboot already
  /// undid the change (sysfs/boot_id.h).
  bool reset_at_boot = false;
};

/// Registers (or replaces) the handler of `scheme` ("nvml"), for the whole process.
void register_external_attributes(const std::string& scheme, ExternalAttributeHandler handler);

/// True for a path of the form "<scheme>:<rest>" (letters, digits, '_' before the ':').
bool is_external_attribute(std::string_view path);

/// The handler for `path`'s scheme. Throws std::runtime_error when none is registered.
const ExternalAttributeHandler& external_attribute_handler(std::string_view path);

}  // namespace jetchar::sysfs
