// Which physical board a run ran on, as every stored run records it: the device-tree
// serial-number (or its SHA-256 when the user asks for redaction), the module P-number (the SKU),
// the L4T release and the host name. A fleet's analysis counts devices by `device_id`, so two
// boards of one model are two devices.
#pragma once

#include <string>
#include <string_view>

#include "jetson/discovery/board_identity.h"

namespace jetchar::jetson {

struct DeviceIdentity {
  std::string serial_number;  ///< as read, "sha256:<64 hex>" when redacted, empty when absent
  /// "<module or family or model>/<serial>"; without a serial "<model>/<hostname>" for a Jetson,
  /// "host/<hostname>" for any other machine.
  std::string device_id;
};

/// "sha256:" and the lowercase hex SHA-256 of `text` (OpenSSL's EVP digest).
std::string sha256_text(std::string_view text);

/// The identity of the board `id` describes, on the machine named `hostname`. `redact` stores the
/// serial number hashed: boards stay distinguishable, the number itself is not kept.
DeviceIdentity device_identity(const BoardIdentity& id, std::string_view hostname, bool redact);

}  // namespace jetchar::jetson
